/**
 * The engine: ONE RxJS loop, `merge(marketEvents$, userEvents$, timer$)`, processed strictly in
 * order and synchronously. For each event:
 *
 *   1. the state is updated (book mirrors, own orders, positions; src/engine/state.ts);
 *   2. a fill is handed to `onFill` (the store: on disk before anything reports it); a fill it
 *      says is 'external' (an order the bot did not place, on the same wallet) counts in the
 *      positions (the wallet's truth) but is not handed to the strategy as its own;
 *   3. markets whose data went bad (a book stale: disconnected, frozen, crossed, desynced; the
 *      user channel lost; the market resolved) are PULLED: an empty DesiredQuotes goes straight to
 *      `execute`, so execution cancels the quotes; their quotes are dropped until the data is whole
 *      again (a fresh snapshot after the resync), then quoting resumes;
 *   4. `strategy.onEvent(event, state)`; its output's shape is checked (./output-check.ts: an
 *      invalid one is a strategy error, dropped whole); its desired quotes pass `gate` (risk) and
 *      then `execute` (the executor's submit); immediate orders pass `gateOrders` then `executeOrders`.
 *
 * Nothing inside a step awaits: an event re-entering the loop while one is processed (a
 * synchronous source) is queued and processed after it. A throwing state update, strategy, gate or
 * executor is caught, logged (rate-limited) and counted; the loop goes on (a gate that throws
 * fails closed: the market is pulled). A source that errors is replaced by a `disconnected` event
 * for its stream (its books go stale), never by a dead loop.
 *
 * Start: the streams are subscribed first (state builds from the first event), then the restart
 * reconciliation runs (`reconcile`, e.g. `reconcileOnStart` of ./restart.ts); the strategy is not
 * called, and nothing is quoted, until it has succeeded. `start()` rejects (and stops the engine)
 * when it fails. `stop()` is idempotent; it does not cancel orders or close the venue (the daemon
 * does: cancelAll, verify, then close).
 */
import { merge, Observable, Subject, catchError, of, tap, type Subscription } from 'rxjs';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { errAt, errMsg, stackHead } from '../core/error-location.ts';
import { CallTimes, type StrategyCalls } from './strategy-calls.ts';
import type { DisconnectedEvent, MmkitEvent, StreamName, TimerEvent } from '../core/events.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import type { DesiredQuotes, ImmediateIntent, StrategyOutput } from '../core/intents.ts';
import { pullQuotes, type Approved } from '../risk/gate.ts';
import type { StrategyHandlers } from '../strategy/api.ts';
import { EngineState } from './state.ts';
import type { MarketInfo, Venue } from '../core/venue.ts';
import { marketChangeFields, marketChanges } from '../core/market-info.ts';
import { RateLimitedLog, type RateLimitedLevel } from '../core/rate-limited-log.ts';
import { outputProblem } from './output-check.ts';

export type { Engine, EngineLogger, EngineOptions, EngineStats, StartReconciliation } from './engine-types.ts';
import type { Engine, EngineOptions, EngineStats } from './engine-types.ts';

/** How long after the start every price symbol must have had a price, or be named in a warning (ms). */
export const PRICE_CHECK_MS = 30_000;

/** The stall worth a warning in a live run (EngineOptions.stallWarnMs): well under the streams' silence timeout. */
export const DEFAULT_STALL_WARN_MS = 1_000;

/**
 * Strategy evaluations that erred (threw or returned an invalid output) with no output between
 * them, after which every quote is pulled: a strategy broken on some state would otherwise leave
 * its last quotes resting, managed by nobody (trial 21 F1). It quotes again from its next output.
 */
export const STRATEGY_FAILING_AFTER = 5;

export type { StrategyCalls, StrategyTiming } from './strategy-calls.ts';

type Control =
  | { readonly kind: 'balance'; readonly available: number; readonly reserved: number }
  | { readonly kind: 'markets'; readonly markets: readonly MarketInfo[] }
  | { readonly kind: 'ready' };
type Item = MmkitEvent | Control;

const isControl = (x: Item): x is Control => 'kind' in x && !('type' in x);

/** Creates the engine (see the module comment). Nothing runs until `start()`. */
export function createEngine(o: EngineOptions): Engine {
  return new EngineImpl(o);
}

class EngineImpl implements Engine {
  readonly state: EngineState;
  readonly #o: EngineOptions;
  readonly #events = new Subject<MmkitEvent>();
  readonly #desired = new Subject<Approved<DesiredQuotes>>();
  readonly #control = new Subject<Control>();
  readonly #pulled = new Set<ConditionId>();
  readonly #markets: ReadonlySet<ConditionId>;
  readonly #queue: Item[] = [];
  readonly #resync: ((ids: readonly TokenId[]) => void) | undefined;
  readonly #stats: EngineStats = {
    events: 0,
    outputs: 0,
    executed: 0,
    dropped: 0,
    pulls: 0,
    resumes: 0,
    errors: { state: 0, strategy: 0, gate: 0, execute: 0, onFill: 0, source: 0, balance: 0, listing: 0 },
  };
  #evaluations = 0;
  /** Strategy evaluations in a row that erred; the failing state once they reached STRATEGY_FAILING_AFTER. */
  /** Per market: its evaluations that erred since its last output, and since when it failed (its quotes pulled). */
  readonly #erred = new Map<ConditionId, { inRow: number; failingSince?: number; lastError: string }>();
  readonly #times: CallTimes | undefined;
  /** Warnings and errors rate-limited by kind (dropped past the limit); info lines all logged. */
  readonly #logged = new RateLimitedLog({ others: 'drop', alwaysInfo: true });
  #busy = false;
  #ready = false;
  #started: Promise<void> | undefined;
  #stopped: Promise<void> | undefined;
  #sub: Subscription | undefined;
  #balanceTimer: TimerHandle | undefined;
  /** The one check, a while after the start, that every price symbol has had a price (see start). */
  #priceCheck: TimerHandle | undefined;
  #listingTimer: TimerHandle | undefined;
  readonly #strategy: StrategyHandlers;

  readonly events$: Observable<MmkitEvent>;
  readonly desired$: Observable<Approved<DesiredQuotes>>;

  constructor(o: EngineOptions) {
    this.#o = o;
    this.#times = o.measureStrategy === true ? new CallTimes() : undefined;
    this.state = new EngineState(o.markets, {
      requireUserSync: o.requireUserSync ?? true,
      ...(o.orders ? { orders: o.orders } : {}),
      ...(o.terminalCapacity !== undefined ? { terminalCapacity: o.terminalCapacity } : {}),
    });
    this.#strategy = typeof o.strategy === 'function' ? o.strategy(this.state) : o.strategy;
    this.#markets = new Set(o.markets.map((m) => m.market));
    for (const m of o.markets) this.#pulled.add(m.market); // nothing is quoted before the data is whole
    this.state.dirtyMarkets.clear();
    const v = o.venue as Venue & { resync?: (ids: readonly TokenId[]) => void };
    this.#resync = o.resync ?? (typeof v.resync === 'function' ? (ids) => v.resync!(ids) : undefined);
    this.events$ = this.#events.asObservable();
    this.desired$ = this.#desired.asObservable();
  }

  get ready(): boolean {
    return this.#ready;
  }

  get stopped(): boolean {
    return this.#stopped !== undefined;
  }

  pulled(): ReadonlySet<ConditionId> {
    return this.#pulled;
  }

  stats(): EngineStats {
    let f: { since: number; consecutive: number; lastError: string; markets: ConditionId[] } | undefined;
    for (const [cid, x] of this.#erred) {
      if (x.failingSince === undefined) continue;
      f ??= { since: x.failingSince, consecutive: 0, lastError: x.lastError, markets: [] };
      if (x.failingSince <= f.since) f.lastError = x.lastError;
      f.since = Math.min(f.since, x.failingSince);
      f.consecutive = Math.max(f.consecutive, x.inRow);
      f.markets.push(cid);
    }
    return { ...this.#stats, errors: { ...this.#stats.errors }, ...(f !== undefined ? { strategyFailing: f } : {}) };
  }

  strategyCalls(): StrategyCalls {
    const t = this.#times;
    return {
      evaluations: this.#evaluations,
      failed: this.#stats.errors.strategy,
      ...(t !== undefined ? { measured: t.timing() } : {}),
    };
  }

  start(): Promise<void> {
    this.#started ??= this.#start();
    return this.#started;
  }

  async #start(): Promise<void> {
    if (this.#stopped) throw new Error('engine stopped');
    const o = this.#o;
    const tokens = o.markets.flatMap((m) => m.tokens.map((t) => t.tokenId));
    const markets = o.markets.map((m) => m.market);
    const guard = (src: Observable<MmkitEvent>, stream: StreamName) =>
      src.pipe(
        catchError((err: unknown) => {
          this.#stats.errors.source++;
          this.#log(
            'error',
            `source.${stream}`,
            { stream, err: errMsg(err) },
            'event source failed: its state is stale from now on',
          );
          const now = o.clock.now();
          const e: DisconnectedEvent = {
            type: 'disconnected',
            stream,
            reason: `source error: ${errMsg(err)}`,
            venueTime: now,
            recvTime: now,
          };
          return of(e);
        }),
      );
    const sources: Array<Observable<Item>> = [this.#control];
    if (tokens.length > 0) sources.push(guard(o.venue.marketEvents(tokens), 'market'));
    if (markets.length > 0) sources.push(guard(o.venue.userEvents(markets), 'user'));
    // real-time prices for the symbols the strategy asks for (its handlers' `priceSymbols`) and the
    // engine's own option; an RTDS outage never pulls quotes here: a strategy that prices from the
    // feed sees the `disconnected` event and its own staleness check, and decides.
    const symbols = [
      ...new Set([...(o.priceSymbols ?? []), ...(this.#strategy.priceSymbols ?? [])].map((x) => x.toLowerCase())),
    ];
    if (symbols.length > 0 && o.venue.priceEvents) {
      // a symbol with no price a while after the start is named once: a typo ('btcusd') would leave a
      // fair-value strategy waiting for a price forever without a word (trial 10 F24)
      const priced = new Set<string>();
      sources.push(
        guard(
          o.venue.priceEvents(symbols).pipe(
            tap((e) => {
              if (e.type === 'price_tick') priced.add(e.symbol.toLowerCase());
            }),
          ),
          'rtds',
        ),
      );
      this.#priceCheck = o.clock.setTimeout(() => {
        this.#priceCheck = undefined;
        const missing = symbols.filter((s) => !priced.has(s));
        if (missing.length > 0 && this.#stopped === undefined)
          this.#log(
            'warn',
            'prices',
            { missing, afterMs: PRICE_CHECK_MS },
            `no real-time price for ${missing.join(', ')} ${PRICE_CHECK_MS / 1000} s after the start: a symbol the venue does not have? (the strategy's priceSymbols)`,
          );
      }, PRICE_CHECK_MS);
    }
    const tickMs = o.timers?.tickMs ?? 0;
    if (tickMs > 0) sources.push(timer$(o.clock, tickMs, 'tick'));
    this.#sub = merge(...sources).subscribe({
      next: (x) => this.#enqueue(x),
      error: (err: unknown) => this.#log('error', 'loop', { err: errMsg(err) }, 'engine loop failed'),
    });
    try {
      const report = o.reconcile ? await o.reconcile() : undefined;
      if (this.#stopped) return;
      if (report) {
        if (report.adopted?.length) this.state.adoptOrders(report.adopted, o.clock.now());
        for (const f of report.fills ?? []) this.state.seedFill(f);
      }
    } catch (err) {
      this.#log('error', 'reconcile', { err: errMsg(err) }, 'start reconciliation failed: not quoting');
      await this.stop();
      throw err;
    }
    await this.#refreshBalance();
    const balanceMs = o.timers?.balanceMs ?? 5_000;
    if (balanceMs > 0 && !this.#stopped) {
      this.#balanceTimer = o.clock.setInterval(() => void this.#refreshBalance(), balanceMs);
    }
    const listingMs = o.timers?.marketsPollMs ?? 0;
    if (listingMs > 0 && !this.#stopped) {
      this.#listingTimer = o.clock.setInterval(() => void this.#pollMarkets(), listingMs);
    }
    if (o.beforeReady !== undefined && !this.#stopped) await o.beforeReady();
    if (!this.#stopped) this.#control.next({ kind: 'ready' });
  }

  /** Re-reads the traded markets (one by one when the venue can, else its listing) for `#onControl`. */
  async #pollMarkets(): Promise<void> {
    // one re-read at a time: a slow venue (each read waits out its timeout) never piles them up
    if (this.#marketsPolling) return;
    this.#marketsPolling = true;
    const v = this.#o.venue;
    try {
      const now: MarketInfo[] = [];
      if (v.market !== undefined) {
        for (const cid of this.#markets) {
          const m = await v.market(cid);
          if (this.#stopped) return;
          if (m !== undefined) now.push(m);
        }
      } else {
        for (const m of await v.markets()) if (this.#markets.has(m.market)) now.push(m);
      }
      if (!this.#stopped) this.#control.next({ kind: 'markets', markets: now });
    } catch (err) {
      this.#stats.errors.listing++;
      this.#log(failLevel(err), 'listing', { err: errMsg(err) }, 'market re-read failed (tried again next time)');
    } finally {
      this.#marketsPolling = false;
    }
  }
  #marketsPolling = false;

  async #refreshBalance(): Promise<void> {
    try {
      const b = await this.#o.venue.balance();
      if (!this.#stopped) this.#control.next({ kind: 'balance', available: b.available, reserved: b.reserved });
    } catch (err) {
      this.#stats.errors.balance++;
      this.#log(failLevel(err), 'balance', { err: errMsg(err) }, 'balance refresh failed');
    }
  }

  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      this.#ready = false;
      this.#sub?.unsubscribe();
      this.#sub = undefined;
      if (this.#balanceTimer !== undefined) this.#o.clock.clearInterval(this.#balanceTimer);
      if (this.#listingTimer !== undefined) this.#o.clock.clearInterval(this.#listingTimer);
      if (this.#priceCheck !== undefined) this.#o.clock.clearTimeout(this.#priceCheck);
      this.#priceCheck = undefined;
      this.#balanceTimer = this.#listingTimer = undefined;
      this.#queue.length = 0;
      this.#events.complete();
      this.#desired.complete();
      this.#control.complete();
    })();
    return this.#stopped;
  }

  // ---- the loop --------------------------------------------------------------------------------

  #enqueue(x: Item): void {
    if (this.#busy) {
      this.#queue.push(x);
      return;
    }
    this.#busy = true;
    try {
      this.#safeStep(x);
      while (this.#queue.length > 0) this.#safeStep(this.#queue.shift()!);
    } finally {
      this.#busy = false;
    }
  }

  #safeStep(x: Item): void {
    try {
      this.#step(x);
    } catch (err) {
      // every stage catches its own errors; this is a last line (e.g. a throwing events$ observer)
      this.#stats.errors.state++;
      this.#log('error', 'step', { err: errMsg(err) }, 'unexpected error in the engine loop (event skipped)');
    }
  }

  #step(x: Item): void {
    if (this.#stopped) return;
    if (isControl(x)) return this.#onControl(x);
    const e = x;
    const o = this.#o;
    if (e.type === 'fill' && o.ignoreFill?.(e) === true) return;
    const now = o.clock.now();
    this.#stats.events++;
    let applied = true;
    try {
      this.state.apply(e, now);
    } catch (err) {
      applied = false;
      this.#stats.errors.state++;
      this.#log('warn', 'state', { event: e.type, err: errMsg(err) }, 'event could not be applied to the state');
    }
    const rs = this.state.takeResyncRequests();
    if (rs !== undefined && this.#resync !== undefined) {
      try {
        this.#resync(rs);
      } catch (err) {
        this.#log('warn', 'resync', { err: errMsg(err) }, 'resync request failed');
      }
    }
    if (this.state.dirtyMarkets.size > 0) this.#checkMarkets(now);
    let external = false;
    if (e.type === 'fill' && o.onFill !== undefined) {
      try {
        external = o.onFill(e) === 'external';
      } catch (err) {
        this.#stats.errors.onFill++;
        this.#log('error', 'onFill', { tradeId: e.tradeId, orderId: e.orderId, err: errMsg(err) }, 'onFill failed');
      }
    }
    if (this.#ready && applied && !external) {
      let out: StrategyOutput | undefined | null;
      this.#evaluations++;
      const t = this.#times;
      const stall = this.#o.stallWarnMs;
      const t0 = t !== undefined || stall !== undefined ? performance.now() : 0;
      let threw: string | undefined;
      try {
        out = this.#strategy.onEvent(e, this.state);
        if (t !== undefined) t.add(performance.now() - t0);
      } catch (err) {
        if (t !== undefined) t.add(performance.now() - t0);
        threw = this.#countThrow(e.type, err, 'strategy handler threw (output dropped)');
      }
      if (stall !== undefined) {
        const took = performance.now() - t0;
        if (took > stall)
          this.#log(
            'warn',
            'stall',
            { event: e.type, ms: Math.round(took) },
            `strategy onEvent blocked the event loop for ${(took / 1000).toFixed(1)} s (handlers must be cheap: a stall reads as a silent venue)`,
          );
      }
      // null is "nothing" too; anything else is checked where it leaves the handler (./output-check.ts)
      let invalid: string | undefined;
      if (threw === undefined && out !== undefined && out !== null) {
        invalid = outputProblem(out, this.#markets);
        if (invalid !== undefined) this.#invalidOutput(e.type, out, invalid);
      }
      const erred = threw ?? (invalid === undefined ? undefined : `invalid output: ${invalid}`);
      if (erred !== undefined) this.#strategyErred(erred, e, now);
      else if (out !== undefined && out !== null) {
        // an output ends the rows of errors of the markets it names (no output proves nothing: a
        // strategy broken on its timer may well answer its book events with none)
        if (this.#erred.size > 0) this.#strategyWell(out as StrategyOutput);
        this.#output(out as StrategyOutput);
      }
    }
    this.#events.next(e);
  }

  #onControl(c: Control): void {
    if (c.kind === 'balance') {
      this.state.setCollateral(c.available, c.reserved);
      return;
    }
    if (c.kind === 'markets') {
      const now = this.#o.clock.now();
      for (const fresh of c.markets) {
        const was = this.state.market(fresh.market);
        if (was === undefined) continue;
        const changed = marketChanges(was, fresh);
        if (changed.length === 0) continue;
        // the tick stays the market channel's (tick_size_change is its event)
        const info: MarketInfo = { ...fresh, tick: was.tick };
        this.#log(
          'info',
          `market.${fresh.market}`,
          { market: fresh.market, changed, ...marketChangeFields(was, info) },
          `market updated at the venue: ${changed.join(', ')}`,
        );
        this.#step({ type: 'market_updated', market: fresh.market, info, changed, venueTime: now, recvTime: now });
      }
      return;
    }
    // ready: the reconciliation succeeded; pull what is not quotable (adopted orders on stale books), then let the strategy run
    this.#ready = true;
    const now = this.#o.clock.now();
    for (const cid of this.#markets) {
      if (this.state.quotable(cid)) {
        this.#pulled.delete(cid);
      } else {
        this.#pulled.add(cid);
        this.#hand(pullQuotes(cid, now));
      }
    }
    this.#log(
      'info',
      'ready',
      { markets: this.#markets.size, pulled: this.#pulled.size },
      'engine ready: quoting allowed',
    );
    const t: TimerEvent = { type: 'timer', name: 'engine.ready', venueTime: now, recvTime: now };
    this.#step(t);
  }

  /** Pulls markets that stopped being quotable, releases those that are again. */
  #checkMarkets(now: number): void {
    const dirty = this.state.dirtyMarkets;
    for (const cid of dirty) {
      if (!this.#markets.has(cid)) continue;
      const ok = this.state.quotable(cid);
      const pulled = this.#pulled.has(cid);
      if (!ok && !pulled) {
        this.#pulled.add(cid);
        this.#stats.pulls++;
        this.#log('warn', `pull.${cid}`, { market: cid, why: this.state.whyNotQuotable(cid) }, 'pulling quotes');
        if (this.#ready) this.#hand(pullQuotes(cid, now));
      } else if (ok && pulled) {
        this.#pulled.delete(cid);
        if (this.#ready) {
          this.#stats.resumes++;
          this.#log('info', `resume.${cid}`, { market: cid }, 'data whole again: quoting resumes');
        }
      }
    }
    dirty.clear();
  }

  /**
   * One more evaluation that erred, counted for the event's market (every market for an event of
   * none: a timer): a market whose evaluations erred STRATEGY_FAILING_AFTER times with no output for
   * it between has its quotes pulled (its last quotes would rest unmanaged) until the strategy gives
   * an output for it again. Counted per market: an output for one market says nothing of another.
   */
  #strategyErred(err: string, e: MmkitEvent, now: number): void {
    const own = 'market' in e && typeof e.market === 'string' && this.#markets.has(e.market as ConditionId);
    const markets = own ? [e.market as ConditionId] : this.#markets.keys();
    const pulled: ConditionId[] = [];
    let inRow = 0;
    for (const cid of markets) {
      let x = this.#erred.get(cid);
      if (x === undefined) this.#erred.set(cid, (x = { inRow: 0, lastError: err }));
      x.inRow++;
      x.lastError = err;
      inRow = Math.max(inRow, x.inRow);
      if (x.failingSince !== undefined || x.inRow < STRATEGY_FAILING_AFTER) continue;
      x.failingSince = now;
      pulled.push(cid);
      this.#hand(pullQuotes(cid, now));
    }
    if (pulled.length > 0)
      this.#log(
        'error',
        'strategy.failing',
        { markets: pulled, evaluations: inRow, err },
        `the strategy erred on ${inRow} evaluations in a row (no output between) for ${pulled.length} market(s): their quotes are pulled until it gives an output for them`,
      );
  }

  /** An output: the markets it names start their count again; those failing quote again from it. */
  #strategyWell(out: StrategyOutput): void {
    const named = new Set<ConditionId>();
    for (const d of out.quotes ?? []) named.add(d.market);
    for (const o of out.orders ?? []) named.add(o.market);
    const back: ConditionId[] = [];
    let since = Infinity;
    for (const cid of named) {
      const x = this.#erred.get(cid);
      if (x === undefined) continue;
      this.#erred.delete(cid);
      if (x.failingSince === undefined) continue;
      back.push(cid);
      since = Math.min(since, x.failingSince);
    }
    if (back.length > 0)
      this.#log(
        'info',
        'strategy.failing',
        { markets: back, failedForMs: this.#o.clock.now() - since },
        'the strategy gives an output again: quoting resumes',
      );
  }

  strategyCallbackThrew(err: unknown): void {
    try {
      const msg = this.#countThrow('ctx.clock', err, 'strategy timer callback threw');
      const now = this.#o.clock.now();
      // judged (and quotes pulled) only while quoting: not before the start's reconciliation, nor once stopped
      if (this.#ready && this.#stopped === undefined)
        this.#strategyErred(msg, { type: 'timer', name: 'ctx.clock', venueTime: now, recvTime: now }, now);
    } catch {
      /* never into the timer machinery */
    }
  }

  /** A throw of the strategy's code (its handler, or a callback of its clock): counted, logged; returns its message. */
  #countThrow(event: string, err: unknown, what: string): string {
    this.#stats.errors.strategy++;
    const at = errAt(err);
    const message = errMsg(err);
    this.#stats.firstStrategyError ??= { message, ...(at !== undefined ? { at } : {}) };
    this.#log(
      'error',
      'strategy',
      { event, err: message, ...(at !== undefined ? { at } : {}), stack: stackHead(err) },
      what,
    );
    return message;
  }

  /** A strategy output that is not one (./output-check.ts): a strategy error, the output dropped. */
  #invalidOutput(event: MmkitEvent['type'], out: unknown, problem: string): void {
    // an async handler's promise: its rejection is this same error, never an unhandled one
    if (typeof (out as { then?: unknown }).then === 'function') Promise.resolve(out).catch(() => undefined);
    this.#stats.errors.strategy++;
    const message = `invalid output: ${problem}`;
    this.#stats.firstStrategyError ??= { message };
    this.#log('error', 'strategy', { event, err: message }, 'strategy output invalid (output dropped)');
  }

  #output(out: StrategyOutput): void {
    const o = this.#o;
    this.#stats.outputs++;
    const quotes = out.quotes;
    // the approved sets, for the gate of this output's immediate orders (none: nothing kept)
    const replacing: Approved<DesiredQuotes>[] | undefined =
      out.orders !== undefined && out.orders.length > 0 ? [] : undefined;
    if (quotes !== undefined) {
      // indexed loops on this path: it runs once per re-quote, too rarely to be optimised early,
      // and the iterator protocol is slow in the interpreter
      for (let i = 0; i < quotes.length; i++) {
        const d = quotes[i]!;
        // (its market is one of ours: checked with the output's shape)
        if (this.#pulled.has(d.market)) {
          this.#stats.dropped++;
          continue;
        }
        if (this.#times !== undefined) this.#times.asked += d.quotes.length;
        let g: Approved<DesiredQuotes>;
        try {
          g = o.gate(d, this.state);
        } catch (err) {
          this.#stats.errors.gate++;
          this.#log(
            'error',
            'gate',
            { market: d.market, err: errMsg(err) },
            'risk gate threw: pulling the market (fail closed)',
          );
          g = pullQuotes(d.market, d.at);
        }
        replacing?.push(g);
        this.#hand(g);
      }
    }
    if (out.orders !== undefined && out.orders.length > 0) {
      const wanted: readonly ImmediateIntent[] = out.orders.filter((x) => !this.#pulled.has(x.market));
      this.#stats.dropped += out.orders.length - wanted.length;
      let orders: readonly Approved<ImmediateIntent>[] = [];
      if (wanted.length > 0) {
        if (this.#times !== undefined) this.#times.asked += wanted.length;
        try {
          orders = o.gateOrders(wanted, this.state, replacing ?? []);
        } catch (err) {
          this.#stats.errors.gate++;
          this.#log('error', 'gateOrders', { err: errMsg(err) }, 'risk gate threw on orders: dropped (fail closed)');
          orders = [];
        }
      }
      if (orders.length > 0) {
        if (o.executeOrders === undefined) this.#stats.dropped += orders.length;
        else {
          try {
            o.executeOrders(orders);
          } catch (err) {
            this.#stats.errors.execute++;
            this.#log('error', 'executeOrders', { err: errMsg(err) }, 'executeOrders threw');
          }
        }
      }
    }
  }

  /** Hands one quote set to execution. */
  #hand(d: Approved<DesiredQuotes>): void {
    this.#stats.executed++;
    // (a Subject's next costs even with no one listening; a backtest hands ~100,000 sets)
    if (this.#desired.observed) this.#desired.next(d);
    const ex = this.#o.execute;
    if (ex === undefined) return;
    try {
      ex(d);
    } catch (err) {
      this.#stats.errors.execute++;
      this.#log('error', 'execute', { market: d.market, err: errMsg(err) }, 'execute threw');
    }
  }

  /** Logs the first 10 of a kind, then every 1000th (info lines: all; src/core/rate-limited-log.ts). */
  #log(level: RateLimitedLevel, kind: string, obj: object, msg: string): void {
    const l = this.#o.logger;
    if (l === undefined) return;
    this.#logged.log(l, level, kind, obj, msg);
  }
}

/** Timer events every `ms` on the injected clock. */
export function timer$(clock: Clock, ms: number, name: string): Observable<TimerEvent> {
  return new Observable<TimerEvent>((sub) => {
    const h = clock.setInterval(() => {
      const now = clock.now();
      sub.next({ type: 'timer', name, venueTime: now, recvTime: now });
    }, ms);
    return () => clock.clearInterval(h);
  });
}

export { errAt, errMsg, readableLocation } from '../core/error-location.ts';

/**
 * The level of a poll's failure: `info` when a fleet member's shared budgets refused the request
 * (FLEET_BUDGET_UNAVAILABLE: its Redis is away; the fleet already warned once, and the member pulled
 * its quotes), else `warn`.
 */
function failLevel(err: unknown): RateLimitedLevel {
  return (err as { code?: unknown } | null)?.code === 'FLEET_BUDGET_UNAVAILABLE' ? 'info' : 'warn';
}
