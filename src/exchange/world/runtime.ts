/**
 * What the running parts of the world share: the exchange, the seed, the world's epoch, the crypto
 * walks, the hidden fair values, the registry of markets that are not resolved yet, timers on the
 * exchange's clock, and counters.
 *
 * Everything here is recomputed from the exchange's (journaled) state and the seed, so a world
 * started on a restored exchange carries on where the previous one stopped.
 */
import type { Clock, TimerHandle } from '../../core/clock.ts';
import type { Rng } from '../../core/random.ts';
import type { ExchangeEvent, MarketEntry, PaperExchange } from '../exchange.ts';
import { CryptoWalk } from './crypto.ts';
import { FairModel } from './fair.ts';
import type { CryptoSymbol } from './model.ts';
import { NewsModel, type NewsEvent } from './news.ts';
import { PROFILES, type WorldProfile } from './profiles.ts';

/** Counters of what the world did since it started (see RunningWorld.stats). */
export interface WorldStats {
  /** Orders the agents sent (accepted or not). */
  orders: number;
  /** Orders refused by the matching engine, by reject code. */
  rejected: Record<string, number>;
  /** Cancel requests the agents sent (order ids). */
  cancels: number;
  /** Orders of the agents that traded as taker. */
  takerTrades: number;
  marketsClosed: number;
  marketsResolved: number;
  marketsCreated: number;
  eventsCreated: number;
  tickChanges: number;
  pricesPublished: number;
  comments: number;
  /** News jumps announced (profiles with news). */
  newsJumps: number;
  /** Collateral top-ups of agent accounts (micro, summed). */
  topUps: number;
  /** Exceptions caught in the world's timers and listeners (should stay 0; see lastError). */
  errors: number;
  lastError?: string;
}

export function newStats(): WorldStats {
  return {
    orders: 0,
    rejected: {},
    cancels: 0,
    takerTrades: 0,
    marketsClosed: 0,
    marketsResolved: 0,
    marketsCreated: 0,
    eventsCreated: 0,
    tickChanges: 0,
    pricesPublished: 0,
    comments: 0,
    newsJumps: 0,
    topUps: 0,
    errors: 0,
  };
}

/**
 * Timers on the exchange's clock that can all be cleared at once. A callback that throws is reported
 * to `onError` and the timer carries on: the world must never take the exchange process down.
 */
export class Timers {
  private readonly intervals = new Set<TimerHandle>();
  private readonly timeouts = new Set<TimerHandle>();
  private stopped = false;
  constructor(
    private readonly clock: Clock,
    private readonly onError: (e: unknown) => void,
  ) {}

  private run(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.onError(e);
    }
  }

  every(ms: number, fn: () => void): void {
    if (this.stopped) return;
    this.intervals.add(this.clock.setInterval(() => this.run(fn), ms));
  }

  after(ms: number, fn: () => void): void {
    if (this.stopped) return;
    const h = this.clock.setTimeout(
      () => {
        this.timeouts.delete(h);
        this.run(fn);
      },
      Math.max(0, Math.round(ms)),
    );
    this.timeouts.add(h);
  }

  /**
   * Calls `fn` at the arrivals of a Poisson process whose mean inter-arrival time (ms) `meanMs()`
   * gives before each wait (Infinity or NaN pauses it for a second and asks again).
   */
  poisson(rng: Rng, meanMs: () => number, fn: () => void): void {
    const schedule = () => {
      const m = meanMs();
      if (!(m > 0 && Number.isFinite(m))) return this.after(1000, schedule);
      this.after(rng.exp(m), () => {
        try {
          fn();
        } finally {
          schedule();
        }
      });
    };
    schedule();
  }

  clear(): void {
    this.stopped = true;
    for (const h of this.intervals) this.clock.clearInterval(h);
    for (const h of this.timeouts) this.clock.clearTimeout(h);
    this.intervals.clear();
    this.timeouts.clear();
  }
}

/** A market the world follows (not resolved yet). */
export interface LiveMarket {
  readonly cid: string;
  /** The exchange's entry: meta, and live state (status, tick) kept current by the exchange. */
  readonly entry: MarketEntry;
  readonly yes: string;
  readonly no: string;
  readonly endMs: number;
}

type Listener = (events: readonly ExchangeEvent[]) => void;

/** At most this many news jumps are kept in the log. */
const NEWS_LOG = 10_000;

/** Shared state of a running world (see the module comment). */
export class WorldRuntime {
  readonly clock: Clock;
  /** The world's time origin: when it was seeded (the first market's creation time). */
  readonly epochMs: number;
  readonly fair: FairModel;
  readonly stats = newStats();
  readonly timers: Timers;
  /** Markets not resolved yet, in the exchange's order. */
  readonly live = new Map<string, LiveMarket>();
  private readonly walks = new Map<CryptoSymbol, CryptoWalk>();
  private activeCache: LiveMarket[] | null = null;
  private readonly listeners: Listener[] = [];
  /** The last NEWS_LOG announced news jumps, oldest first. */
  readonly newsLog: NewsEvent[] = [];
  private readonly newsListeners: Array<(e: NewsEvent) => void> = [];
  private readonly unsubscribe: () => void;

  constructor(
    readonly ex: PaperExchange,
    readonly seed: number,
    /** Who trades and what they know (profiles.ts). Default: calm. */
    readonly profile: WorldProfile = PROFILES.calm,
  ) {
    this.clock = ex.clock;
    this.timers = new Timers(ex.clock, (e) => this.error(e));
    const markets = ex.listMarkets();
    let epoch = markets.length ? Infinity : ex.clock.now();
    for (const m of markets) if (m.createdAt < epoch) epoch = m.createdAt;
    this.epochMs = epoch;
    this.fair = new FairModel(
      seed,
      (s) => this.walk(s),
      (cid) => {
        const e = ex.market(cid);
        return e === undefined ? undefined : { meta: e.meta, createdMs: e.createdAt };
      },
      (cid) => ex.world.eventOfMarket.get(cid),
      profile.news !== null ? new NewsModel(seed, profile.news) : undefined,
    );
    for (const m of markets) if (m.state.status !== 'resolved') this.track(m);
    this.unsubscribe = ex.subscribe((events) => this.onEvents(events));
  }

  /** The seeded walk of a crypto symbol (created on first use). */
  walk(symbol: CryptoSymbol): CryptoWalk {
    let w = this.walks.get(symbol);
    if (w === undefined) this.walks.set(symbol, (w = new CryptoWalk(symbol, this.seed, this.epochMs)));
    return w;
  }

  /** Active (accepting orders) markets, in the exchange's order. */
  active(): readonly LiveMarket[] {
    if (this.activeCache === null)
      this.activeCache = [...this.live.values()].filter((m) => m.entry.state.status === 'active');
    return this.activeCache;
  }

  /** Be told of the exchange's events after the runtime has updated its registry. */
  onExchange(fn: Listener): void {
    this.listeners.push(fn);
  }

  /** Announce a news jump: counted, logged, told to the listeners (never throws). */
  recordNews(e: NewsEvent): void {
    this.stats.newsJumps++;
    this.newsLog.push(e);
    if (this.newsLog.length > NEWS_LOG) this.newsLog.splice(0, this.newsLog.length - NEWS_LOG);
    for (const fn of this.newsListeners) {
      try {
        fn(e);
      } catch (err) {
        this.error(err);
      }
    }
  }

  /** Be told of every news jump as it is announced. */
  onNews(fn: (e: NewsEvent) => void): void {
    this.newsListeners.push(fn);
  }

  stop(): void {
    this.timers.clear();
    this.unsubscribe();
  }

  private track(entry: MarketEntry): void {
    const cid = entry.meta.conditionId;
    const endMs = Date.parse(entry.meta.endDate);
    this.live.set(cid, {
      cid,
      entry,
      yes: entry.meta.tokens[0],
      no: entry.meta.tokens[1],
      endMs: Number.isFinite(endMs) ? endMs : Infinity,
    });
    this.activeCache = null;
  }

  /** Count an exception of the world's own code (it never propagates into the exchange). */
  error(e: unknown): void {
    this.stats.errors++;
    this.stats.lastError = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  }

  /** Runs inside the exchange's command that produced the events: must not throw. */
  private onEvents(events: readonly ExchangeEvent[]): void {
    try {
      this.handle(events);
    } catch (e) {
      this.error(e);
    }
  }

  private handle(events: readonly ExchangeEvent[]): void {
    for (const e of events) {
      if (e.type === 'new_market') {
        const entry = this.ex.market(e.conditionId);
        if (entry !== undefined && entry.state.status !== 'resolved') this.track(entry);
      } else if (e.type === 'market_status') {
        this.activeCache = null;
        if (e.status === 'resolved') {
          this.live.delete(e.market);
          this.fair.forget(e.market);
        }
      }
    }
    for (const fn of this.listeners) {
      try {
        fn(events);
      } catch (e) {
        this.error(e);
      }
    }
  }
}
