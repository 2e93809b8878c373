/**
 * The shipped live profile (config/polymarket.json) with its strategy's params, run through `mmkit
 * strategy check` on the paper exchange with the profile's risk limits: the gate refuses and trims
 * nothing of what the strategy quotes for a reason the params could avoid (findings-5 F6: the
 * default bands' outer band was refused PRICE_BAND and its sizes trimmed ORDER_SIZE on every
 * re-quote, 40 of 70 log lines).
 */
import { describe, expect, it } from 'vitest';
import { runMmkit } from './support/cli.ts';

/** What the params decide (the rest, e.g. a partial fill's remnant below the minimum, they cannot). */
const FITTED = ['PRICE_BAND', 'ORDER_SIZE', 'POSITION', 'OPEN_ORDERS_MARKET', 'NOTIONAL_MARKET', 'PRICE_LIMIT'];

describe('config/polymarket.json', () => {
  it('its bands params quote inside its own limits: no PRICE_BAND, ORDER_SIZE, POSITION or OPEN_ORDERS refusal', async () => {
    const r = await runMmkit(
      [
        'strategy',
        'check',
        'bands',
        '--config',
        'config/polymarket.json',
        '--market-count',
        '1',
        '--duration',
        '20s',
        '--json',
      ],
      { timeoutMs: 150_000 },
    );
    expect(r.code, r.err.slice(-2000)).toBe(0);
    const j = JSON.parse(r.out) as {
      summary: { ordersPlaced: number; riskRefusals: Record<string, number>; riskTrims: Record<string, number> };
    };
    expect(j.summary.ordersPlaced).toBeGreaterThan(0);
    for (const code of FITTED) {
      expect(j.summary.riskRefusals[code] ?? 0, `refused ${code}`).toBe(0);
      expect(j.summary.riskTrims[code] ?? 0, `trimmed ${code}`).toBe(0);
    }
  }, 180_000);
});
