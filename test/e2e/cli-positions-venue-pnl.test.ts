/**
 * `mmkit positions` (the venue's Data API) lists the tokens held only: a position bought and sold
 * back is in no row, and its realized PnL was nowhere (findings-8 F2). The PnL line (`--json`:
 * `pnl`) comes from the venue's GET /users/{address}/pnl: every position ever held, closed ones
 * included. A real paper exchange on loopback, a real trader, the real CLI.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Trader } from '../integration/support/trader.ts';
import { BotHarness } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';

const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit positions (venue): the PnL of closed positions', () => {
  it('a position bought and sold back: no row, its realized PnL in the venue PnL line', async () => {
    const { ex, base } = await h.exchange(41);
    const t = new Trader(ex.urls.clob_url);
    expect((await t.createKey()).status).toBe(200);
    const m = ex.exchange
      .listMarkets()
      .find(
        (x) =>
          ex.exchange.engine.book(x.meta.tokens[0]).asks.length > 0 &&
          ex.exchange.engine.book(x.meta.tokens[0]).bids.length > 0,
      )!;
    const token = m.meta.tokens[0];
    const take = async (side: 'BUY' | 'SELL', size: string) => {
      const b = ex.exchange.engine.book(token);
      const px = side === 'BUY' ? b.asks[0]!.price : b.bids[0]!.price;
      const r = await t.place(token, side, (px / 10_000).toFixed(4), size, {
        type: 'FAK',
        tick: '0.0001',
        negRisk: m.meta.negRisk,
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    };
    await take('BUY', '5');
    const held = ex.exchange.engine.balance(t.address).tokens.get(token)?.available ?? 0;
    expect(held).toBeGreaterThan(0);
    await take('SELL', String(held / 1_000_000));
    expect(ex.exchange.engine.balance(t.address).tokens.get(token)?.available ?? 0).toBe(0);

    // the venue's own answer (in its `{success, data}` envelope)
    const venuePnl = (
      (await (await fetch(`${base}/data/users/${t.address}/pnl`)).json()) as { data: Record<string, unknown> }
    ).data;
    const args = ['positions', '--address', t.address, '--exchange-url', base];
    args.push('--data-dir', mkdtempSync(join(tmpdir(), 'mmkit-pos-pnl-')));
    const j = await runMmkit([...args, '--json']);
    expect(j.code, j.err).toBe(0);
    const out = JSON.parse(j.out) as { positions: { tokenId: string }[]; pnl: Record<string, string> | null };
    expect(out.positions.map((p) => p.tokenId)).not.toContain(token);
    expect(out.pnl).toEqual({
      realized: venuePnl['realized_pnl'],
      unrealized: venuePnl['unrealized_pnl'],
      fees: venuePnl['fees'],
      total: venuePnl['total_pnl'],
    });
    // the round trip crossed the spread: a realized PnL that no row shows
    expect(out.pnl!.realized).not.toBe('0');
    const text = await runMmkit(args);
    expect(text.code, text.err).toBe(0);
    expect(text.err).toContain(
      `PnL (USDC, the venue's, every position ever held, closed ones included): realized ${out.pnl!.realized} + ` +
        `unrealized ${out.pnl!.unrealized} = ${out.pnl!.total} (fees ${out.pnl!.fees})`,
    );
  }, 120_000);
});
