/**
 * The engine against the real paper exchange (loopback): createLiveVenue + createEngine + a tiny
 * in-test strategy quoting around the mid + a simple executor (venue.prepare / place / cancel).
 * Quotes appear on GET /book; a dropped market stream and a frozen one pull the quotes within 2 s
 * of detection and quoting resumes after the resync; a tick-size change starts a new book epoch
 * and the quotes move to the new tick; a resolved market is quoted no more.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../src/core/clock.ts';
import type { MmkitEvent } from '../../src/core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../../src/core/ids.ts';
import type { DesiredQuotes, QuoteIntent } from '../../src/core/intents.ts';
import { PRICE_SCALE, tickPips, type Micro, type Pips } from '../../src/core/units.ts';
import { createEngine, type Engine } from '../../src/engine/loop.ts';
import type { LiveVenue } from '../../src/venues/live/live-venue.ts';
import type { MarketInfo, Venue } from '../../src/core/venue.ts';
import type { StrategyHandlers } from '../../src/strategy/api.ts';
import { FlowDriver } from './support/flow-driver.ts';
import { getJson, no, sleep, startVenue, yes, type TestVenue, liveVenueFor } from './support/setup.ts';
import type { MarketInfo as WireMarket } from './support/trader.ts';
import { passGates } from '../support/approve.ts';

let v: TestVenue;
let pool: WireMarket[];
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  v = await startVenue({ http: { rateLimits: { enabled: false, scale: 1, queueMs: 0 } } });
  pool = v.markets.filter((m) => !m.neg_risk && m.minimum_tick_size === 0.01 && m.minimum_order_size <= 5);
  expect(pool.length).toBeGreaterThanOrEqual(6);
});
afterEach(async () => {
  v.running.faults.clear();
  while (cleanups.length) await cleanups.pop()!();
});
afterAll(async () => v?.close());

const SIZE = 5_000_000 as Micro;

/**
 * Quotes BUY YES and BUY NO (the same as selling YES) five ticks away from the mid of the first
 * market, on the market's CURRENT tick; records what it saw.
 */
function midQuoter(target: ConditionId, seen: MmkitEvent[]): StrategyHandlers {
  return {
    onEvent(e, s) {
      seen.push(e);
      const st = s as unknown as { market(c: ConditionId): MarketInfo | undefined };
      const m = st.market(target);
      if (m === undefined) return undefined;
      const yb = s.book(m.tokens[0].tokenId);
      if (yb === undefined || yb.stale || yb.mid === null) return undefined;
      const tick = tickPips(m.tick);
      const off = 5 * tick;
      const bid = Math.floor((yb.mid - off) / tick) * tick;
      const noBid = Math.floor((PRICE_SCALE - yb.mid - off) / tick) * tick;
      if (bid < tick || noBid < tick) return undefined;
      const quotes: QuoteIntent[] = [
        { tokenId: m.tokens[0].tokenId, side: 'BUY', price: bid as Pips, size: SIZE },
        { tokenId: m.tokens[1].tokenId, side: 'BUY', price: noBid as Pips, size: SIZE },
      ];
      return { quotes: [{ market: target, quotes, at: s.now }] };
    },
  };
}

/** A minimal executor: per market, sequential, latest intent wins; exact-match diff; cancels first. */
class TestExecutor {
  readonly live = new Map<OrderId, QuoteIntent & { market: ConditionId }>();
  readonly latest = new Map<ConditionId, DesiredQuotes>();
  readonly busy = new Set<ConditionId>();
  placed = 0;
  canceled = 0;
  errors: string[] = [];
  constructor(private readonly venue: Venue) {}

  submit(d: DesiredQuotes): void {
    this.latest.set(d.market, d);
    if (!this.busy.has(d.market)) void this.run(d.market);
  }
  forget(id: OrderId): void {
    this.live.delete(id);
  }
  private async run(cid: ConditionId): Promise<void> {
    this.busy.add(cid);
    try {
      for (let d = this.latest.get(cid); d !== undefined; d = this.latest.get(cid)) {
        this.latest.delete(cid);
        try {
          await this.sync(d);
        } catch (err) {
          this.errors.push((err as Error).message);
        }
      }
    } finally {
      this.busy.delete(cid);
    }
  }
  private async sync(d: DesiredQuotes): Promise<void> {
    const key = (q: QuoteIntent) => `${q.tokenId}|${q.side}|${q.price}|${q.size}`;
    const want = new Set(d.quotes.map(key));
    const mine = [...this.live.entries()].filter(([, o]) => o.market === d.market);
    const stale = mine.filter(([, o]) => !want.has(key(o))).map(([id]) => id);
    if (stale.length > 0) {
      await this.venue.cancel(stale);
      for (const id of stale) this.live.delete(id);
      this.canceled += stale.length;
    }
    const have = new Set(mine.filter(([id]) => !stale.includes(id)).map(([, o]) => key(o)));
    const missing = d.quotes.filter((q) => !have.has(key(q)));
    if (missing.length === 0) return;
    const prepared = this.venue.prepare(missing.map((q) => ({ market: d.market, ...q, type: 'GTC' as const })));
    const outs = await this.venue.place(prepared);
    outs.forEach((o, i) => {
      if (o.ok && o.status === 'live') {
        this.live.set(o.id, { market: d.market, ...missing[i]! });
        this.placed++;
      } else if (!o.ok) this.errors.push(`${o.code}: ${o.message}`);
    });
  }
}

interface Bot {
  venue: LiveVenue;
  engine: Engine;
  exec: TestExecutor;
  seen: MmkitEvent[];
  desired: Array<DesiredQuotes & { t: number }>;
  events: Array<{ e: MmkitEvent; t: number }>;
  /** Both, in the order the engine produced them (a pull comes right before the event that caused it). */
  trail: Array<{ kind: 'event'; e: MmkitEvent; t: number } | { kind: 'desired'; d: DesiredQuotes; t: number }>;
  m: MarketInfo;
}

/** The quote sets handed to execution while the engine processed the trail's `i`-th entry (an event). */
function outputsOf(bot: Bot, i: number): DesiredQuotes[] {
  const out: DesiredQuotes[] = [];
  for (let k = i - 1; k >= 0; k--) {
    const x = bot.trail[k]!;
    if (x.kind === 'event') break;
    out.unshift(x.d);
  }
  return out;
}

/** The trail index of the first event after `from` matching `pred`. */
function findEvent(bot: Bot, from: number, pred: (e: MmkitEvent) => boolean): number {
  return bot.trail.findIndex((x, k) => k >= from && x.kind === 'event' && pred(x.e));
}

/** Seeds a two-sided book on `wm` (bid 0.40 on YES and on NO: YES 0.40 / 0.60), then starts a bot quoting it. */
async function startBot(wm: WireMarket, o: { silenceMs?: number; extra?: WireMarket[] } = {}): Promise<Bot> {
  const trader = await v.trader();
  expect((await trader.place(yes(wm), 'BUY', '0.40', '10')).status).toBe(200);
  expect((await trader.place(no(wm), 'BUY', '0.40', '10')).status).toBe(200);
  cleanups.push(async () => void (await trader.l2('DELETE', '/cancel-all')));
  const venue = await liveVenueFor(v, {
    ...(o.silenceMs !== undefined ? { silenceMs: o.silenceMs, pingIntervalMs: 200 } : {}),
    backoff: { initialMs: 100, maxMs: 400 },
  });
  const all = await venue.markets();
  const ids = [wm, ...(o.extra ?? [])].map((x) => x.condition_id);
  const markets = ids.map((id) => all.find((x) => x.market === id)!);
  const m = markets[0]!;
  const seen: MmkitEvent[] = [];
  const exec = new TestExecutor(venue);
  const engine = createEngine({
    ...passGates,
    venue,
    markets,
    clock: new LiveClock(),
    timers: { tickMs: 250, balanceMs: 2000 },
    strategy: midQuoter(m.market, seen),
    execute: (d) => exec.submit(d),
  });
  const desired: Bot['desired'] = [];
  const events: Bot['events'] = [];
  const trail: Bot['trail'] = [];
  engine.desired$.subscribe((d) => {
    desired.push({ ...d, t: Date.now() });
    trail.push({ kind: 'desired', d, t: Date.now() });
  });
  engine.events$.subscribe((e) => {
    events.push({ e, t: Date.now() });
    trail.push({ kind: 'event', e, t: Date.now() });
    if (e.type === 'order_update' && (e.status === 'CANCELED' || e.status === 'MATCHED' || e.status === 'UNMATCHED'))
      exec.forget(e.id);
  });
  cleanups.push(async () => {
    await engine.stop();
    await venue.cancelAll().catch(() => undefined);
    await venue.close();
  });
  await engine.start();
  return { venue, engine, exec, seen, desired, events, trail, m };
}

/** The size of the bid level at `price` (decimal) of a token's GET /book, 0 when none. */
async function bidAt(token: string, price: string): Promise<number> {
  const b = await getJson(`${v.clob}/book?token_id=${token}`);
  const l = (b.bids as Array<{ price: string; size: string }>).find((x) => Number(x.price) === Number(price));
  return l ? Number(l.size) : 0;
}

async function until(fn: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    if (await fn()) return Date.now();
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out (${timeoutMs} ms) waiting for ${what}`);
    await sleep(25);
  }
}

const quoted = async (bot: Bot, price = '0.45') =>
  (await bidAt(bot.m.tokens[0].tokenId, price)) >= 5 && (await bidAt(bot.m.tokens[1].tokenId, price)) >= 5;

describe('engine on the paper exchange', () => {
  it('quotes around the mid appear on GET /book', async () => {
    const bot = await startBot(pool[0]!);
    await until(() => quoted(bot), 30_000, 'our bids at 0.45 on YES and NO');
    expect(bot.engine.ready).toBe(true);
    expect(bot.engine.pulled().size).toBe(0);
    const s = bot.engine.state;
    const yb = s.book(bot.m.tokens[0].tokenId)!;
    expect([yb.bestBid, yb.bestAsk, yb.mid]).toEqual([4500, 5500, 5000]);
    expect(
      s
        .openOrders(bot.m.market)
        .map((o) => o.price)
        .sort(),
    ).toEqual([4500, 4500]);
    expect(bot.exec.errors).toEqual([]);
    expect(bot.engine.stats().errors).toMatchObject({ state: 0, strategy: 0, execute: 0 });
  }, 120_000);

  it('a dropped market stream pulls the quotes within 2 s of detection; quoting resumes after the resync', async () => {
    const bot = await startBot(pool[1]!);
    await until(() => quoted(bot), 30_000, 'quotes');
    const from = bot.events.length;
    const tFrom = bot.trail.length;
    v.running.faults.add({ stream: 'market', drop: true, untilMs: Date.now() + 500 });
    const tDetect = await until(
      () => bot.events.slice(from).some((x) => x.e.type === 'disconnected' && x.e.stream === 'market'),
      30_000,
      'disconnected',
    );
    // the pull is handed to execution while the disconnected event itself is processed
    const iDisc = findEvent(bot, tFrom, (e) => e.type === 'disconnected');
    expect(outputsOf(bot, iDisc)).toEqual([{ market: bot.m.market, quotes: [], at: expect.any(Number) }]);
    const tGone = await until(
      async () =>
        (await bidAt(bot.m.tokens[0].tokenId, '0.45')) === 0 && (await bidAt(bot.m.tokens[1].tokenId, '0.45')) === 0,
      2000,
      'quotes gone from the book',
    );
    expect(tGone - tDetect).toBeLessThan(2000);
    await until(
      () => bot.events.slice(from).some((x) => x.e.type === 'resynced' && x.e.stream === 'market'),
      30_000,
      'resynced',
    );
    await until(() => quoted(bot), 30_000, 'quotes back');
    expect(bot.engine.stats().pulls).toBeGreaterThanOrEqual(1);
    expect(bot.engine.stats().resumes).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('a frozen market stream (PONG still answered) is detected by silence; quotes pulled within 2 s; resumed after the resync', async () => {
    const flowMarket = pool[3]!;
    const driver = new FlowDriver(v.running.exchange, [yes(flowMarket), no(flowMarket)], { seed: 31, accounts: 3 });
    for (let i = 0; i < 100; i++) driver.step();
    let on = true;
    const flow = () => {
      if (!on) return;
      for (let i = 0; i < 3; i++) driver.step();
      setTimeout(flow, 20);
    };
    flow();
    cleanups.push(() => {
      on = false;
      driver.cancelAll();
    });
    const bot = await startBot(pool[2]!, { silenceMs: 1000, extra: [flowMarket] });
    await until(() => quoted(bot), 30_000, 'quotes');
    const from = bot.events.length;
    const tFrom = bot.trail.length;
    const rule = v.running.faults.add({ stream: 'market', freeze: true });
    const tDetect = await until(
      () => bot.events.slice(from).some((x) => x.e.type === 'disconnected' && x.e.stream === 'market'),
      30_000,
      'silence detected',
    );
    const disc = bot.events.slice(from).find((x) => x.e.type === 'disconnected')!;
    expect((disc.e as { reason: string }).reason).toMatch(/silence/);
    const iDisc = findEvent(bot, tFrom, (e) => e.type === 'disconnected');
    expect(
      outputsOf(bot, iDisc)
        .map((d) => [d.market, d.quotes.length])
        .sort(),
    ).toEqual(
      [
        [bot.m.market, 0],
        [flowMarket.condition_id, 0],
      ].sort(),
    );
    const tGone = await until(async () => (await bidAt(bot.m.tokens[0].tokenId, '0.45')) === 0, 2000, 'quotes gone');
    expect(tGone - tDetect).toBeLessThan(2000);
    v.running.faults.remove(rule.id!);
    await until(
      () => bot.events.slice(from).some((x) => x.e.type === 'resynced' && x.e.stream === 'market'),
      30_000,
      'resynced',
    );
    await until(() => quoted(bot), 30_000, 'quotes back');
  }, 120_000);

  it('a tick-size change: the strategy sees it, the book starts a new epoch, quotes move to the new tick', async () => {
    const bot = await startBot(pool[4]!);
    await until(() => quoted(bot), 30_000, 'quotes');
    const yesTok = bot.m.tokens[0].tokenId as TokenId;
    expect(bot.engine.state.bookEpoch(yesTok)).toBe(0);
    expect((await v.admin(`/markets/${bot.m.market}/tick-size`, { tick_size: '0.001' })).status).toBe(200);
    await until(
      () => bot.seen.some((e) => e.type === 'tick_size_change'),
      30_000,
      'the strategy to see tick_size_change',
    );
    expect(bot.engine.state.bookEpoch(yesTok)).toBe(1);
    expect(bot.engine.state.market(bot.m.market)!.tick).toBe('0.001');
    expect(bot.venue.marketOfToken(yesTok)!.tick).toBe('0.001');
    // five ticks of 0.001 from the mid: 0.495 on both tokens (only valid on the new tick)
    await until(() => quoted(bot, '0.495'), 30_000, 'quotes on the new tick');
    await until(async () => (await bidAt(yesTok, '0.45')) === 0, 30_000, 'old quotes gone');
    expect(bot.exec.errors).toEqual([]);
    expect(bot.engine.pulled().size).toBe(0);
  }, 120_000);

  it('a resolved market is quoted no more', async () => {
    const bot = await startBot(pool[5]!);
    await until(() => quoted(bot), 30_000, 'quotes');
    const tFrom = bot.trail.length;
    expect((await v.admin(`/markets/${bot.m.market}/resolve`, { winning_token: bot.m.tokens[0].tokenId })).status).toBe(
      200,
    );
    await until(() => bot.seen.some((e) => e.type === 'market_resolved'), 30_000, 'market_resolved');
    const placed = bot.exec.placed;
    expect(bot.engine.state.isResolved(bot.m.market)).toBe(true);
    expect(bot.engine.pulled().has(bot.m.market)).toBe(true);
    const iRes = findEvent(bot, tFrom, (e) => e.type === 'market_resolved');
    expect(outputsOf(bot, iRes)).toEqual([{ market: bot.m.market, quotes: [], at: expect.any(Number) }]);
    // timers keep ticking: the strategy keeps being asked, its quotes are dropped (three timers
    // after the resolution waited for: under load a fixed second holds fewer)
    const timersFrom = bot.seen.findIndex((e) => e.type === 'market_resolved');
    await until(
      () => bot.seen.slice(timersFrom).filter((e) => e.type === 'timer').length >= 3,
      30_000,
      'three timers after the resolution',
    );
    const later = bot.trail.slice(iRes + 1).filter((x) => x.kind === 'desired');
    expect(later).toEqual([]);
    expect(bot.seen.filter((e) => e.type === 'timer').length).toBeGreaterThan(2);
    expect(bot.exec.placed).toBe(placed);
    expect(await bot.venue.openOrders()).toEqual([]);
  }, 120_000);
});
