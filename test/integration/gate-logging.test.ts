/**
 * The kernel logs what the risk gate refused or trimmed (README: "refused or trimmed quotes are
 * logged with a reason and never sent"): at info with the reason and the amounts in decimals, the
 * first 10 of a kind then every 1000th; the others at debug, so that each is logged once. A world
 * backtest with the gate's memo off (an `onGate` hook) runs the daemon's gate path.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.ts';

const API = pathToFileURL(fileURLToPath(new URL('../../src/strategy/index.ts', import.meta.url))).href;
const dir = mkdtempSync(join(tmpdir(), 'mmkit-gate-logging-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Bids 200 shares 0.02 below the YES mid on every event (maxOrderSize is 100 shares by default). */
const PLUGIN = `import { defineStrategy, tickPips } from ${JSON.stringify(API)};
export default defineStrategy({
  name: 'big-bid',
  description: 'bids 200 shares below the YES mid',
  params: {},
  create(ctx) {
    return {
      onEvent(_e, state) {
        const quotes = [];
        for (const m of ctx.markets.values()) {
          const b = state.book(m.tokens[0].tokenId);
          const tick = tickPips(m.tick);
          if (b === undefined || b.mid === null || b.stale) continue;
          const price = Math.floor((b.mid - 200) / tick) * tick;
          if (price < tick) continue;
          quotes.push({ market: m.market, quotes: [{ tokenId: m.tokens[0].tokenId, side: 'BUY', price, size: 200_000_000 }], at: state.now });
        }
        return quotes.length ? { quotes } : undefined;
      },
    };
  },
});
`;

describe('gate refusals and trims in the log', () => {
  it('a trimmed quote is logged at info with its reason in decimals, rate-limited; the rest at debug', async () => {
    const file = join(dir, 'big-bid.ts');
    writeFileSync(file, PLUGIN);
    const info: Array<Record<string, unknown>> = [];
    const debug: Array<Record<string, unknown>> = [];
    const logger = {
      debug: (o: object, m?: string) => void debug.push({ ...o, msg: m }),
      info: (o: object, m?: string) => void info.push({ ...o, msg: m }),
      warn: () => {},
      error: () => {},
    };
    let trims = 0;
    const r = await runBacktest({
      world: { seed: 3, durationMs: 30_000, warmupMs: 10_000, marketCount: 1 },
      strategy: file,
      seed: 1,
      logger,
      hooks: { onGate: (_d, g) => void (trims += g.trims.length) },
    });
    expect(r.orders.ordersAccepted).toBeGreaterThan(0);
    const trimmedInfo = info.filter((l) => l.msg === 'quote trimmed');
    const trimmedDebug = debug.filter((l) => l.msg === 'quote trimmed');
    expect(trims).toBeGreaterThan(10);
    expect(trimmedInfo.length).toBe(10 + Math.floor(trims / 1000));
    expect(trimmedInfo.length + trimmedDebug.length).toBe(trims);
    expect(trimmedInfo[0]).toMatchObject({
      code: 'ORDER_SIZE',
      reason: 'cut to maxOrderSize 100',
      side: 'BUY',
      size: '200',
      approvedSize: '100',
    });
    expect(String(trimmedInfo[0]!.price)).toMatch(/^0\.\d+$/);
    expect(trimmedDebug[0]).toMatchObject({ code: 'ORDER_SIZE', occurrences: 11 });
  }, 120_000);

  it("with a logger that makes children, the lines carry component 'risk' and the market, as the daemon's do (trial 11 F11)", async () => {
    const file = join(dir, 'big-bid.ts');
    writeFileSync(file, PLUGIN);
    const lines: Array<Record<string, unknown>> = [];
    type L = {
      debug(o: object, m?: string): void;
      info(o: object, m?: string): void;
      warn(o: object, m?: string): void;
      error(o: object, m?: string): void;
      child(b: Record<string, unknown>): L;
    };
    const make = (bindings: Record<string, unknown>): L => {
      const at = (level: string) => (o: object, m?: string) => void lines.push({ level, ...bindings, ...o, msg: m });
      return {
        debug: at('debug'),
        info: at('info'),
        warn: at('warn'),
        error: at('error'),
        child: (b) => make({ ...bindings, ...b }),
      };
    };
    const r = await runBacktest({
      world: { seed: 3, durationMs: 30_000, warmupMs: 10_000, marketCount: 1 },
      strategy: file,
      seed: 1,
      logger: make({}),
      hooks: { onGate: () => {} },
    });
    const trimmed = lines.filter((l) => l.msg === 'quote trimmed');
    expect(trimmed.length).toBeGreaterThan(10);
    const market = r.markets[0]!.market;
    for (const l of trimmed) expect(l).toMatchObject({ component: 'risk', market });
  }, 120_000);
});
