/**
 * The doctor's `markets` check (also run as `mmkit run`'s pre-flight): its fix line names only what
 * applies (findings-5 P6): a closed or unknown market asks to fix bot.markets, not to raise
 * bot.risk.maxOrderSizeShares; a minimum size above the order limit asks to raise it, to the minimum.
 * Real paper exchange on loopback and the real CLOB client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClobClient } from '../../src/api/clob.ts';
import { createTransport, type HttpTransport } from '../../src/api/http/transport.ts';
import { formatAmount, parseAmount } from '../../src/core/units.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { marketsOf } from '../../src/ops/doctor/venue-checks.ts';

let ex: RunningExchange;
let transport: HttpTransport;
let clob: ClobClient;

beforeAll(async () => {
  ex = await startExchange({ port: 0, seed: 11, world: { agents: 'none', lifecycle: false } });
  transport = createTransport({ urls: { clob: ex.urls.clob_url } });
  clob = new ClobClient(transport);
});

afterAll(async () => {
  await transport?.close();
  await ex?.close();
});

describe('doctor markets: the fix names what applies', () => {
  it('a closed market and an unknown id: fix bot.markets, nothing about the order size', async () => {
    const open = (await clob.markets()).data.filter((m) => m.active && m.acceptingOrders);
    const closed = open[0]!;
    ex.exchange.closeMarket(closed.conditionId);
    const unknown = `0x${'de'.repeat(32)}`;
    const { check } = await marketsOf(clob, [closed.conditionId, unknown], parseAmount('1000'));
    expect(check.status).toBe('fail');
    expect(check.detail).toContain('does not accept orders (closed or inactive)');
    expect(check.fix).toContain(
      'fix the condition ids the venue does not know and replace the markets that take no orders in bot.markets',
    );
    expect(check.fix).toContain('mmkit markets --active');
    expect(check.fix).not.toContain('maxOrderSizeShares');
  });

  it('a minimum size above the order limit: raise the limit to it, nothing about bot.markets being wrong', async () => {
    const m = (await clob.markets()).data.find((x) => x.active && x.acceptingOrders && x.minOrderSize > 1)!;
    const { check } = await marketsOf(clob, [m.conditionId], parseAmount('0.5'));
    expect(check.status).toBe('fail');
    expect(check.fix).toBe(
      `raise bot.risk.maxOrderSizeShares to at least ${formatAmount(m.minOrderSize)} (the minimum size), or pick markets with a smaller one`,
    );
  });
});
