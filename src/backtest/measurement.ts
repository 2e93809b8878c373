/**
 * What a backtest measures while it runs (src/backtest/runner.ts drives the bot; this keeps the
 * books of the run beside it): positions and PnL from the fills the store took, the fill figures
 * over every fill with their markouts, the most recent fill rows and the chart points, the event
 * counts, and the samples of mids, our best quotes, positions and PnL.
 *
 * Flat memory however long the run: the fill figures are online (src/backtest/fill-stats.ts), the
 * rows a ring, the points and samples downsampled (every other point dropped, the interval doubled)
 * when `maxSamples` is reached, and the orders with a fill are forgotten FILL_MEMORY_MS after their
 * last fill once the bot has them finished.
 *
 * A market that resolves in the feed has its positions settled into realized PnL at 1 (winning
 * token) / 0 (losing), as the daemon's auto-redeem books a redemption live (a leg at the settlement
 * price, no fill): otherwise they would stay open positions marked at 1 / 0, their PnL unrealized,
 * and a backtest's realized PnL would not compare with a live run's. The same total either way.
 *
 * Time: markouts run on the runner's quiet measurement clock (./quiet-clock.ts): they resolve none
 * of the bot's promises, so the runner does not stop to settle after them. Nothing here reads a
 * wall clock: the same run gives the same measurements.
 */
import type { Clock } from '../core/clock.ts';
import type { FillEvent, MmkitEvent, UserEvent } from '../core/events.ts';
import type { OrderId, TokenId } from '../core/ids.ts';
import type { LiveOrderView } from '../core/intents.ts';
import { PRICE_SCALE } from '../core/units.ts';
import type { MarketInfo } from '../core/venue.ts';
import type { BookView } from '../core/views.ts';
import { riskMark } from '../risk/marks.ts';
import { fillFromEvent, type FillChange, type Store } from '../store/store.ts';
import { PositionAccumulator, pnlOf } from '../store/positions.ts';
import { FillPointSampler, FillRowRing, FillStatsAccumulator } from './fill-stats.ts';
import { MARKOUT_HORIZONS_MS } from './metrics.ts';
import type { QuietClock } from './quiet-clock.ts';
import type { BacktestResult, FillRow, Samples, TokenSeries } from './types.ts';

/** How long an order with a fill is remembered after its last fill (once the bot has it finished). */
const FILL_MEMORY_MS = 600_000;

/** What the measurements read of the running bot. */
export interface MeasuredBot {
  /** The engine state's book of a token. */
  book(token: TokenId): BookView | undefined;
  /** The engine state's position of a token, micro-shares. */
  position(token: TokenId): number;
  /** The bot's live orders (the tracker's cached list). */
  liveOrders(): readonly LiveOrderView[];
  /** True while the bot has the order open (false when finished or forgotten). */
  isOpenOrder(id: OrderId): boolean;
}

/** Options of RunMeasurement. */
export interface MeasurementOptions {
  /** The run's clock (virtual time). */
  readonly clock: Clock;
  /** The quiet view of it on which markouts are timed. */
  readonly measure: QuietClock;
  /** The run's store (a void fill re-derives the positions from its fills). */
  readonly store: Store;
  readonly markets: readonly MarketInfo[];
  readonly startMs: number;
  /** The inventory limit the time-at-limit figure counts against, micro-shares. */
  readonly inventoryLimit: number;
  /** Tokens whose limit differs from `inventoryLimit` (markets with their own risk limits), micro-shares. */
  readonly tokenLimits?: ReadonlyMap<string, number>;
  /** Fill rows kept (the most recent). */
  readonly maxFillRows: number;
  /** Samples and fill points kept at most before downsampling. */
  readonly maxSamples: number;
  /** The sampling interval, ms of virtual time. */
  readonly sampleMs: number;
}

/** The final PnL and marks of a run (RunMeasurement.freeze). */
export interface FrozenMeasurement {
  readonly pnl: ReturnType<typeof pnlOf>;
  readonly marks: ReadonlyMap<string, number | null>;
}

/** See the module comment. */
export class RunMeasurement {
  readonly #o: MeasurementOptions;
  #bot: MeasuredBot | undefined;
  readonly #accs = new Map<TokenId, PositionAccumulator>();
  /** token -> 0 | 10000 after resolution. */
  readonly #settledMark = new Map<string, number>();
  readonly #resolvedTo = new Map<string, string>();
  readonly #lastMid = new Map<string, number>();
  readonly #marketMap: ReadonlyMap<string, MarketInfo>;
  readonly #fillStats: FillStatsAccumulator;
  readonly #fillRows: FillRowRing;
  readonly #fillPoints: FillPointSampler;
  /** Numbers (FillRowRing) of the fills that became void (their pending markouts are dropped). */
  readonly #voided = new Set<number>();
  /** Orders with a fill: counted once; an id is forgotten as the module comment says. */
  readonly #filledOrders = new Map<string, number>();
  readonly #markoutTimers = new Set<{ id: number }>();
  #collecting = true;
  #ordersFilled = 0;
  #fillCount = 0;
  #marketEvents = 0;
  #userEvents = 0;
  readonly samples: Samples & { intervalMs: number };
  #stride = 1;
  #tick = 0;

  constructor(o: MeasurementOptions) {
    this.#o = o;
    this.#marketMap = new Map(o.markets.map((m) => [m.market, m]));
    this.#fillStats = new FillStatsAccumulator({
      horizonsMs: MARKOUT_HORIZONS_MS,
      limit: o.inventoryLimit,
      ...(o.tokenLimits !== undefined ? { tokenLimits: o.tokenLimits } : {}),
      startMs: o.startMs,
      tokens: o.markets.flatMap((m) => m.tokens.map((t) => t.tokenId)),
    });
    this.#fillRows = new FillRowRing(o.maxFillRows, MARKOUT_HORIZONS_MS.length);
    this.#fillPoints = new FillPointSampler(o.maxSamples);
    this.samples = {
      intervalMs: o.sampleMs,
      t: [],
      pnl: { realized: [], unrealized: [], fees: [], total: [] },
      tokens: o.markets.flatMap((m) =>
        m.tokens.map(
          (t) =>
            ({
              tokenId: t.tokenId,
              market: m.market,
              outcome: t.outcome,
              mid: [],
              bid: [],
              ask: [],
              pos: [],
            }) as TokenSeries,
        ),
      ),
    };
  }

  /** The bot to read (mids, positions, live orders), once it exists. */
  attach(bot: MeasuredBot): void {
    this.#bot = bot;
  }

  get fillCount(): number {
    return this.#fillCount;
  }
  get marketEvents(): number {
    return this.#marketEvents;
  }
  get userEvents(): number {
    return this.#userEvents;
  }
  get ordersFilled(): number {
    return this.#ordersFilled;
  }
  /** The market each resolved market resolved to (its winning token). */
  resolvedTo(market: string): string | null {
    return this.#resolvedTo.get(market) ?? null;
  }

  /** A token's mid in the bot's book, null when stale or one-sided. */
  midOf(token: string): number | null {
    const b = this.#bot?.book(token as TokenId);
    if (b === undefined || b.stale) return null;
    return b.mid;
  }

  /**
   * A token's mark: its settlement after a resolution, else what its book says now, the book's last
   * known state while it is stale (a stale book keeps its levels until the next snapshot: after a
   * gap that the feed never closed it is the book when the data stopped, not the one of the last PnL
   * sample, so the marks do not depend on `--sample-ms`: trial 11 F2). A two-sided book: its mid. A
   * one-sided one marks the position held as the daemon's loss limit does (src/risk/marks.ts
   * `riskMark`): a long at the best bid, with no bid the lower of the best ask and the last mid; a
   * short at the best ask, with no ask the higher of the best bid and the last mid; so a market whose
   * bids vanished is not marked at the mid from before the collapse. An empty book, or a flat
   * position (no side to close), keeps the last two-sided mid seen.
   */
  #markOf(token: string): number | undefined {
    const s = this.#settledMark.get(token);
    if (s !== undefined) return s;
    const book = this.#bot?.book(token as TokenId);
    const m = book?.mid ?? null;
    if (m !== null) this.#lastMid.set(token, Math.round(m));
    const last = this.#lastMid.get(token);
    const size = this.#accs.get(token as TokenId)?.size ?? 0n;
    if (size === 0n) return last;
    return riskMark(size > 0n ? 1 : -1, book, last);
  }

  /**
   * Settles the positions of resolved markets at their settlement (see the module comment); run
   * before every PnL, so a fill the store takes after the resolution settles too, and positions
   * re-derived after a void fill settle again.
   */
  #settle(): void {
    for (const [t, a] of this.#accs) {
      const s = this.#settledMark.get(t);
      if (s === undefined || a.size === 0n) continue;
      const size = Number(a.size < 0n ? -a.size : a.size);
      a.move(a.size > 0n ? 'SELL' : 'BUY', size, s);
    }
  }

  /** The run's PnL now (each position marked as `#markOf` says; resolved markets settled). */
  pnlNow(): ReturnType<typeof pnlOf> {
    this.#settle();
    const marks = new Map<TokenId, number>();
    for (const t of this.#accs.keys()) {
      const m = this.#markOf(t);
      if (m !== undefined) marks.set(t, m);
    }
    return pnlOf(this.#accs, marks);
  }

  /** Each fill, once the kernel has it in the store (`change`: what the store did with it). */
  fill(f: FillEvent, change: FillChange | undefined): void {
    const clock = this.#o.clock;
    if (change === 'void') {
      // a FAILED trade (the shipped venues never fail one): the fill never happened (the store
      // reversed it); so do the run's books: positions re-derived from the store's fills, and the
      // fill figures without it while its row is still kept (see FillStatsAccumulator.remove)
      const kept = this.#fillRows.remove(f.tradeId, f.orderId);
      if (kept !== undefined) {
        this.#voided.add(kept.no);
        this.#fillStats.remove(kept.row, kept.row.markouts);
      }
      this.#accs.clear();
      for (const x of this.#o.store.fills()) {
        if (x.status === 'FAILED') continue;
        let a = this.#accs.get(x.tokenId);
        if (a === undefined) this.#accs.set(x.tokenId, (a = new PositionAccumulator(x.market, x.tokenId)));
        a.add(x);
      }
      return;
    }
    if (change !== 'new') return;
    this.#fillCount++;
    const rec = fillFromEvent(f);
    let acc = this.#accs.get(f.tokenId);
    if (acc === undefined) this.#accs.set(f.tokenId, (acc = new PositionAccumulator(f.market, f.tokenId)));
    acc.add(rec);
    if (!this.#filledOrders.has(f.orderId)) this.#ordersFilled++;
    this.#filledOrders.set(f.orderId, clock.now());
    if (!this.#collecting) return;
    const row: FillRow = {
      t: clock.now(),
      tradeId: f.tradeId,
      orderId: f.orderId,
      market: f.market,
      tokenId: f.tokenId,
      side: f.side,
      price: f.price,
      size: f.size,
      fee: rec.fee,
      role: f.role,
      mid: this.midOf(f.tokenId),
      markouts: MARKOUT_HORIZONS_MS.map(() => null),
    };
    this.#fillStats.add(row);
    const no = this.#fillRows.push(row);
    this.#fillPoints.add(row);
    MARKOUT_HORIZONS_MS.forEach((h, i) => {
      const handle = this.#o.measure.setTimeout(() => {
        this.#markoutTimers.delete(handle);
        if (this.#voided.has(no)) return;
        const mid = this.midOf(f.tokenId);
        this.#fillRows.setMarkout(no, i, mid);
        this.#fillStats.markout(row, i, mid);
      }, h);
      this.#markoutTimers.add(handle);
    });
  }

  /**
   * Each event the engine processed: counted; a book's change keeps its mid as the token's last
   * two-sided mid (a one-sided book's marks are bounded by it: on every change, not only at the PnL
   * samples, so they do not depend on `--sample-ms`); a resolution fixes its tokens' marks.
   */
  event(e: MmkitEvent): void {
    if (isUser(e)) this.#userEvents++;
    else if (e.type !== 'timer') this.#marketEvents++;
    if (e.type === 'book_snapshot' || (e.type === 'level_change' && e.endOfBatch)) {
      const m = this.#bot?.book(e.tokenId)?.mid ?? null;
      if (m !== null) this.#lastMid.set(e.tokenId, Math.round(m));
    }
    if (e.type === 'market_resolved') {
      const m = this.#marketMap.get(e.market);
      if (m !== undefined && !this.#resolvedTo.has(m.market)) {
        this.#resolvedTo.set(m.market, e.winningTokenId);
        for (const t of m.tokens) this.#settledMark.set(t.tokenId, t.tokenId === e.winningTokenId ? PRICE_SCALE : 0);
      }
    }
  }

  /** Takes one sample now (the PnL given, else computed), downsampling when full. */
  takeSample(p: ReturnType<typeof pnlOf> = this.pnlNow()): void {
    const samples = this.samples;
    samples.t.push(this.#o.clock.now());
    samples.pnl.realized.push(p.realized);
    samples.pnl.unrealized.push(p.unrealized);
    samples.pnl.fees.push(p.fees);
    samples.pnl.total.push(p.total);
    const own = new Map<string, { bid: number | null; ask: number | null }>();
    for (const o of this.#bot?.liveOrders() ?? []) {
      let x = own.get(o.tokenId);
      if (x === undefined) own.set(o.tokenId, (x = { bid: null, ask: null }));
      if (o.side === 'BUY') x.bid = x.bid === null ? o.price : Math.max(x.bid, o.price);
      else x.ask = x.ask === null ? o.price : Math.min(x.ask, o.price);
    }
    for (const s of samples.tokens) {
      s.mid.push(this.midOf(s.tokenId));
      const x = own.get(s.tokenId);
      s.bid.push(x?.bid ?? null);
      s.ask.push(x?.ask ?? null);
      s.pos.push(this.#bot?.position(s.tokenId as TokenId) ?? 0);
    }
    if (samples.t.length >= this.#o.maxSamples) {
      const keep = <T>(a: T[]): void => {
        let j = 0;
        for (let i = 0; i < a.length; i += 2) a[j++] = a[i]!;
        a.length = j;
      };
      keep(samples.t);
      for (const k of ['realized', 'unrealized', 'fees', 'total'] as const) keep(samples.pnl[k]);
      for (const s of samples.tokens) keep(s.mid), keep(s.bid), keep(s.ask), keep(s.pos);
      this.#stride *= 2;
      samples.intervalMs = this.#o.sampleMs * this.#stride;
    }
  }

  /** The first sample, at the start. */
  start(): void {
    this.takeSample();
    this.#tick = 1;
  }

  /**
   * One sampling interval: the PnL now, sampled when the (downsampled) stride says so. Returns the
   * PnL (the kill switch is fed the same one: nothing changes in between).
   */
  interval(): ReturnType<typeof pnlOf> {
    const p = this.pnlNow();
    if (this.#tick++ % this.#stride === 0) this.takeSample(p);
    return p;
  }

  /** Forgets the orders with a fill that can have no more (see the module comment). */
  prune(now: number): void {
    for (const [id, at] of this.#filledOrders) {
      if (now - at < FILL_MEMORY_MS) continue;
      if (this.#bot === undefined || !this.#bot.isOpenOrder(id as OrderId)) this.#filledOrders.delete(id);
    }
  }

  /** The last sample at the end of the run, unless one was just taken then. */
  lastSample(endMs: number): void {
    const t = this.samples.t;
    if (t[t.length - 1] !== endMs) this.takeSample();
  }

  /** Stops measuring (the pending markouts stay null) and gives the final PnL and marks. */
  freeze(): FrozenMeasurement {
    for (const h of this.#markoutTimers) this.#o.measure.clearTimeout(h);
    this.#markoutTimers.clear();
    this.#collecting = false;
    const pnl = this.pnlNow();
    const marks = new Map<string, number | null>();
    for (const t of this.#accs.keys()) marks.set(t, this.#markOf(t) ?? null);
    return { pnl, marks };
  }

  /** The result's positions, marked as frozen. */
  positions(frozen: FrozenMeasurement): BacktestResult['positions'] {
    return [...this.#accs.values()].map((a) => {
      const s = a.snapshot();
      return {
        tokenId: s.tokenId,
        size: s.size,
        avgPrice: s.avgPrice,
        realized: s.realized,
        fees: s.fees,
        bought: s.bought,
        sold: s.sold,
        mark: frozen.marks.get(s.tokenId) ?? null,
      };
    });
  }

  /** The result's fill parts: the rows kept, the count, the figures (to `endMs`) and the points. */
  fillResult(endMs: number): Pick<BacktestResult, 'fills' | 'fillCount' | 'fillStats' | 'fillPoints'> {
    return {
      fills: this.#fillRows.toArray(),
      fillCount: this.#fillStats.fills,
      fillStats: this.#fillStats.result(endMs),
      fillPoints: this.#fillPoints.result(),
    };
  }
}

function isUser(e: MmkitEvent): e is UserEvent {
  return (
    e.type === 'order_update' ||
    e.type === 'fill' ||
    ((e.type === 'disconnected' || e.type === 'resynced' || e.type === 'stream_error') && e.stream === 'user')
  );
}
