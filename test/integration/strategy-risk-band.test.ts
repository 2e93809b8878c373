/**
 * A strategy's own risk price band (`riskPriceBand`) through the kernel's one wiring, in a world
 * backtest (createTrader applies it over the operator's limits: src/risk/strategy-band.ts). The
 * plugin bids 0.15 below the YES mid, beyond the default band (bot.risk.maxMidDistance 0.10): the
 * gate refuses every bid; with the strategy's band of 0.20 it lets them through; an operator who
 * set maxMidDistance to 0.12 still wins, being tighter.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.ts';

const API = pathToFileURL(fileURLToPath(new URL('../../src/strategy/index.ts', import.meta.url))).href;
const dir = mkdtempSync(join(tmpdir(), 'mmkit-risk-band-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function plugin(name: string, band: string): string {
  const f = join(dir, `${name}.ts`);
  writeFileSync(
    f,
    `import { defineStrategy, tickPips } from ${JSON.stringify(API)};
export default defineStrategy({
  name: '${name}',
  description: 'bids 0.15 below the YES mid',
  params: {},
  ${band}
  create(ctx) {
    return {
      onEvent(_e, state) {
        const quotes = [];
        for (const m of ctx.markets.values()) {
          const b = state.book(m.tokens[0].tokenId);
          const tick = tickPips(m.tick);
          if (b === undefined || b.mid === null || b.stale) continue;
          const price = Math.floor((b.mid - 1500) / tick) * tick;
          if (price < tick) continue;
          quotes.push({ market: m.market, quotes: [{ tokenId: m.tokens[0].tokenId, side: 'BUY', price, size: 5_000_000 }], at: state.now });
        }
        return quotes.length ? { quotes } : undefined;
      },
    };
  },
});
`,
  );
  return f;
}

const world = { seed: 3, durationMs: 60_000, warmupMs: 10_000, marketCount: 2 } as const;

describe('riskPriceBand through the kernel (world backtest)', () => {
  it('the default band refuses the far bids; the strategy band lets them through; a tighter operator limit wins', async () => {
    const none = await runBacktest({ world, strategy: plugin('far', ''), seed: 1 });
    expect(none.orders.ordersAccepted).toBe(0);
    const banded = plugin('far-banded', 'riskPriceBand: { maxMidDistance: 0.2 },');
    const own = await runBacktest({ world, strategy: banded, seed: 1 });
    expect(own.orders.ordersAccepted).toBeGreaterThan(0);
    const tighter = await runBacktest({ world, strategy: banded, seed: 1, risk: { maxMidDistance: 0.12 } });
    expect(tighter.orders.ordersAccepted).toBe(0);
    const looser = await runBacktest({ world, strategy: banded, seed: 1, risk: { maxMidDistance: 0.5 } });
    expect(looser.orders.ordersAccepted).toBe(own.orders.ordersAccepted);
  }, 180_000);
});
