/**
 * The daemon's loss limits (src/cli/run-status-line.ts startLossLimit) and their marks. The UTC day
 * (risk.maxDailyLoss) opens only on a reading where every position held on a followed market is marked:
 * at start, before the books are in, a held position would count no unrealized PnL, and the day would
 * open at a figure the first marked reading then "loses" (a false trip, or false room). A position on a
 * market the run does not follow is marked at the venue's mark (trial 19 F4). Real store (SQLite in
 * memory), real kill switch; the engine's books and the venue's marks are maps (what the loss limit
 * reads of the trader).
 */
import { describe, expect, it } from 'vitest';
import { startLossLimit, startStatusLine } from '../../../src/cli/run-status-line.ts';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { Micro } from '../../../src/core/units.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';
import type { Trader } from '../../../src/kernel/create-trader.ts';
import { KillSwitch } from '../../../src/risk/kill-switch.ts';
import { DEFAULT_RISK_LIMITS } from '../../../src/risk/limits.ts';
import { openStore } from '../../../src/store/store.ts';

const M = '0xm1' as ConditionId;
const YES = 'yes-1' as TokenId;
const NO = 'no-1' as TokenId;
const OTHER = '0xother' as ConditionId;
const HELD = 'held-yes' as TokenId;

type Book = { bestBid: number | null; bestAsk: number | null; mid: number | null };

/**
 * A store holding 10 shares at 0.40 of `tokenId` (of `market`), a kill switch with `limits` and the
 * store's day opens, and the loss limit started over the run's one market M (checked on `check()`).
 */
function setup(o: {
  market: ConditionId;
  tokenId: TokenId;
  maxLoss: number;
  maxDailyLoss: number;
  log?: { warn(o: object, msg: string): void };
  now?: () => number;
}) {
  const clock = new VirtualClock(Date.UTC(2026, 10, 29, 12));
  const store = openStore(':memory:', { clock });
  store.openEpoch({ venue: 'paper', world: 'w', address: '0x0000000000000000000000000000000000000001' });
  store.recordAdjustment({
    market: o.market,
    tokenId: o.tokenId,
    size: 10_000_000,
    price: 4000,
    priceSource: 'venue',
    cause: 'external_trade',
  });
  const kill = new KillSwitch(clock, {
    limits: {
      ...DEFAULT_RISK_LIMITS.killSwitch,
      maxLoss: o.maxLoss as Micro,
      maxDailyLoss: o.maxDailyLoss as Micro,
    },
    dayOpen: (d, p) => store.dayOpen(d, p),
  });
  const books = new Map<TokenId, Book>();
  const venueMarks = new Map<TokenId, number>();
  // markets seen resolving: their winning token (null: resolved, no winner seen)
  const winners = new Map<ConditionId, TokenId | null>();
  const trader = {
    engine: { state: { book: (t: TokenId) => books.get(t), winner: (m: ConditionId) => winners.get(m) } },
    kill,
    venueMarks: () => venueMarks,
    tracker: { liveOrders: () => [] },
    rewards: { active: false },
  } as unknown as Trader;
  const markets = [{ market: M, tokens: [{ tokenId: YES }, { tokenId: NO }] }] as unknown as MarketInfo[];
  const loss = startLossLimit(
    {
      trader,
      store,
      markets,
      ...(o.log !== undefined ? { log: o.log as never } : {}),
      ...(o.now !== undefined ? { now: o.now } : {}),
    },
    3_600_000,
  );
  return {
    store,
    kill,
    books,
    venueMarks,
    winners,
    loss,
    trader,
    markets,
    close() {
      loss.stop();
      store.close();
    },
  };
}

describe('mmkit run: the daily loss limit opens the day on a marked reading', () => {
  it('not before the start has reconciled, nor while a followed position is unmarked (the start waits for it, bounded)', async () => {
    // 10 shares bought at 0.40 on the run's market, no book yet
    const t = setup({ market: M, tokenId: YES, maxLoss: 0, maxDailyLoss: 500_000 });
    try {
      // the start's check: nothing opens
      expect(t.kill.dailyPnl).toBeUndefined();
      expect(t.store.dayOpen('2026-11-29')).toBeUndefined();
      // started with the book of YES empty (no mid ever seen): the start waits for it (here 120 ms), then
      // checks; the day waits for a mark
      t.books.set(YES, { bestBid: null, bestAsk: null, mid: null });
      t.books.set(NO, { bestBid: 6900, bestAsk: 7100, mid: 7000 });
      const t0 = Date.now();
      expect(await t.loss.started(120)).toBe(false);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
      expect(t.kill.dailyPnl).toBeUndefined();
      expect(t.store.dayOpen('2026-11-29')).toBeUndefined();
    } finally {
      t.close();
    }
  });

  it('the day opens at the first marked reading after the start and judges the moves after it', async () => {
    const t = setup({ market: M, tokenId: YES, maxLoss: 0, maxDailyLoss: 500_000 });
    try {
      expect(t.kill.dailyPnl).toBeUndefined();
      // the books are in: mid 0.30, 1 USDC under the average price, all of it from before the day opened
      t.books.set(YES, { bestBid: 2900, bestAsk: 3100, mid: 3000 });
      t.books.set(NO, { bestBid: 6900, bestAsk: 7100, mid: 7000 });
      // but the start not done: nothing opens
      expect(t.loss.check()).toBe(false);
      expect(t.store.dayOpen('2026-11-29')).toBeUndefined();
      expect(await t.loss.started(0)).toBe(false);
      expect(t.kill.dailyPnl).toEqual({ date: '2026-11-29', open: -1_000_000, pnl: 0 });
      expect(t.store.dayOpen('2026-11-29')).toBe(-1_000_000);
      // 0.04 lower: 0.40 more lost today, within 0.50
      t.books.set(YES, { bestBid: 2500, bestAsk: 2700, mid: 2600 });
      expect(t.loss.check()).toBe(false);
      expect(t.kill.dailyPnl?.pnl).toBe(-400_000);
      // 0.06 lower than the open: 0.60 lost today
      t.books.set(YES, { bestBid: 2300, bestAsk: 2500, mid: 2400 });
      expect(t.loss.check()).toBe(true);
      expect(t.kill.reason?.message).toMatch(
        /^PnL of the day -0\.6 below -0\.5 \(UTC 2026-11-29: -1 at its open, -1\.6 now\)/,
      );
    } finally {
      t.close();
    }
  });

  it("with a position off the followed markets, the day opens after the start's audit read the venue's mark (review 46 F1)", async () => {
    // 10 shares at 0.40 in a market this run does not follow, worth 0.05 at the venue: 3.50 lost before today
    const t = setup({ market: OTHER, tokenId: HELD, maxLoss: 0, maxDailyLoss: 1_000_000 });
    try {
      t.books.set(YES, { bestBid: 4900, bestAsk: 5100, mid: 5000 });
      t.books.set(NO, { bestBid: 4900, bestAsk: 5100, mid: 5000 });
      // the check before the start (no mark yet) opens nothing
      expect(t.kill.dailyPnl).toBeUndefined();
      // the start's audit reads the venue's marks, then the start resolves
      t.venueMarks.set(HELD, 500);
      expect(await t.loss.started(0)).toBe(false);
      expect(t.kill.dailyPnl).toEqual({ date: '2026-11-29', open: -3_500_000, pnl: 0 });
      // the day's own loss from there: 0.05 -> 0 is 0.50, within 1
      t.venueMarks.set(HELD, 0);
      expect(t.loss.check()).toBe(false);
      expect(t.kill.dailyPnl?.pnl).toBe(-500_000);
    } finally {
      t.close();
    }
  });

  it('says once, at warn, when the daily limit waits for a mark longer than 10 s', async () => {
    const warned: string[] = [];
    let now = Date.UTC(2026, 10, 29, 12);
    const t = setup({
      market: M,
      tokenId: YES,
      maxLoss: 0,
      maxDailyLoss: 500_000,
      log: { warn: (_o: object, msg: string) => void warned.push(msg) },
      now: () => now,
    });
    try {
      t.books.set(YES, { bestBid: null, bestAsk: null, mid: null });
      await t.loss.started(0);
      now += 9_999;
      t.loss.check();
      expect(warned).toEqual([]);
      now += 1;
      t.loss.check();
      t.loss.check();
      expect(warned).toEqual([
        'the daily loss limit is not in force yet for UTC 2026-11-29: 1 held position(s) of followed markets have no mark (the day opens at the first reading with every one marked)',
      ]);
    } finally {
      t.close();
    }
  });

  it('the start waits for the books of what is held, then checks: a restart past the limit trips before quoting (trial 20 F1)', async () => {
    // 10 shares at 0.40 on the run's market; the book, when it comes, marks them at 0.30: 1 USDC lost
    const t = setup({ market: M, tokenId: YES, maxLoss: 500_000, maxDailyLoss: 0 });
    try {
      // the check at creation: no book yet, no mark, no loss seen
      expect(t.kill.tripped).toBe(false);
      setTimeout(() => {
        t.books.set(YES, { bestBid: 2900, bestAsk: 3100, mid: 3000 });
        t.books.set(NO, { bestBid: 6900, bestAsk: 7100, mid: 7000 });
      }, 60);
      expect(await t.loss.started(10_000)).toBe(true);
      expect(t.kill.reason?.message).toMatch(/^PnL -1 below -0\.5 /);
    } finally {
      t.close();
    }
  });

  it("the status line's day figure is of its own reading, not the loss limit's last one (trial 20 F3)", async () => {
    const t = setup({ market: M, tokenId: YES, maxLoss: 0, maxDailyLoss: 500_000 });
    const lines: Record<string, unknown>[] = [];
    const dlog = { info: (o: Record<string, unknown>) => void lines.push(o) };
    let status: ReturnType<typeof setInterval> | undefined;
    try {
      t.books.set(YES, { bestBid: 2900, bestAsk: 3100, mid: 3000 });
      t.books.set(NO, { bestBid: 6900, bestAsk: 7100, mid: 7000 });
      await t.loss.started(0);
      expect(t.kill.dailyPnl?.open).toBe(-1_000_000);
      // the book moves; the loss limit has not read it yet (its last reading: 0 today)
      t.books.set(YES, { bestBid: 2700, bestAsk: 2900, mid: 2800 });
      status = startStatusLine(
        {
          trader: t.trader,
          store: t.store,
          markets: t.markets,
          log: dlog as never,
          dlog: dlog as never,
          outcomes: new Map(),
          fills: () => 0,
          now: () => Date.UTC(2026, 10, 29, 12),
        },
        5,
      );
      for (let i = 0; i < 200 && lines.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
      expect(lines[0]).toMatchObject({ total: '-1.2', day: '-0.2' });
      expect(t.kill.dailyPnl?.pnl).toBe(0);
    } finally {
      if (status !== undefined) clearInterval(status);
      t.close();
    }
  });

  it("a followed position whose book is gone falls back to the venue's mark", async () => {
    const t = setup({ market: M, tokenId: YES, maxLoss: 2_000_000, maxDailyLoss: 0 });
    try {
      // the book of YES is not there (the market's stream lost it): no mid, no last mid
      t.books.set(NO, { bestBid: 4900, bestAsk: 5100, mid: 5000 });
      expect(await t.loss.started(0)).toBe(false);
      expect(t.kill.lastPnl).toBe(0);
      // the venue marks YES at 0.15: 2.50 under water
      t.venueMarks.set(YES, 1500);
      expect(t.loss.check()).toBe(true);
      expect(t.kill.lastPnl).toBe(-2_500_000);
    } finally {
      t.close();
    }
  });

  it("a position on a market the run does not follow is marked at the venue's mark (trial 19 F4)", () => {
    // 10 shares at 0.40 in a market this run does not follow
    const t = setup({ market: OTHER, tokenId: HELD, maxLoss: 2_000_000, maxDailyLoss: 0 });
    try {
      t.books.set(YES, { bestBid: 4900, bestAsk: 5100, mid: 5000 });
      t.books.set(NO, { bestBid: 4900, bestAsk: 5100, mid: 5000 });
      // no mark from the venue yet: the position counts no unrealized PnL
      expect(t.loss.check()).toBe(false);
      expect(t.kill.lastPnl).toBe(0);
      // the venue marks it at 0.15: 2.50 under water, past the limit of 2
      t.venueMarks.set(HELD, 1500);
      expect(t.loss.check()).toBe(true);
      expect(t.kill.lastPnl).toBe(-2_500_000);
      expect(t.kill.reason?.message).toMatch(/^PnL -2\.5 below -2 \(realized 0, unrealized -2\.5\)/);
    } finally {
      t.close();
    }
  });

  it('a followed market resolving against the position is marked at 0 at once, and the loss limit trips (trial 25 F1)', async () => {
    // 10 YES bought at 0.40 on the run's market, marked at the mid 0.50 (+1 USDC)
    const t = setup({ market: M, tokenId: YES, maxLoss: 2_000_000, maxDailyLoss: 0 });
    try {
      t.books.set(YES, { bestBid: 4900, bestAsk: 5100, mid: 5000 });
      t.books.set(NO, { bestBid: 4900, bestAsk: 5100, mid: 5000 });
      expect(await t.loss.started(0)).toBe(false);
      expect(t.kill.lastPnl).toBe(1_000_000);
      // NO wins: the books go, no venue mark read yet; YES redeems for nothing: -4 USDC, past the limit of 2
      t.winners.set(M, NO);
      t.books.clear();
      expect(t.loss.check()).toBe(true);
      expect(t.kill.lastPnl).toBe(-4_000_000);
      expect(t.kill.reason?.message).toMatch(/^PnL -4 below -2 \(realized 0, unrealized -4\)/);
    } finally {
      t.close();
    }
  });

  it("a followed market resolving for the position marks it at 1; resolved with no winner seen, at the venue's mark", async () => {
    const t = setup({ market: M, tokenId: YES, maxLoss: 2_000_000, maxDailyLoss: 0 });
    try {
      t.books.set(YES, { bestBid: 3900, bestAsk: 4100, mid: 4000 });
      expect(await t.loss.started(0)).toBe(false);
      expect(t.kill.lastPnl).toBe(0);
      // resolved, winner not seen (the venue lists it inactive): the venue's mark, 0.10 (-3)
      t.winners.set(M, null);
      t.venueMarks.set(YES, 1000);
      expect(t.loss.check()).toBe(true);
      expect(t.kill.lastPnl).toBe(-3_000_000);
    } finally {
      t.close();
    }
    const w = setup({ market: M, tokenId: YES, maxLoss: 2_000_000, maxDailyLoss: 0 });
    try {
      w.books.set(YES, { bestBid: 3900, bestAsk: 4100, mid: 4000 });
      expect(await w.loss.started(0)).toBe(false);
      w.winners.set(M, YES);
      w.books.clear();
      expect(w.loss.check()).toBe(false);
      expect(w.kill.lastPnl).toBe(6_000_000);
    } finally {
      w.close();
    }
  });
});
