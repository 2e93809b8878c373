/**
 * The Venue port over an in-process PaperExchange, for synthetic backtests (`mmkit backtest
 * --world SEED`): the paper exchange's world and matching engine run in virtual time with our
 * orders inside them, so our quotes take liquidity from, and give it to, the flow agents (market
 * impact included). No HTTP, no WebSocket, no JSON:
 *
 *  - every state change goes through `PaperExchange.exec(command)` (src/exchange/commands.ts), the
 *    same commands the HTTP layer and the world's agents use;
 *  - market and user events are built from the exchange's event listener, in the shapes the live
 *    streams produce (src/core/events.ts), with the ordering of the market channel
 *    (src/exchange/ws/market.ts): per exchange batch and market, tick-size changes, the level
 *    changes (YES entry then NO entry per touched level, sizes and best prices as they are after
 *    the batch, `endOfBatch` on the last), the last trades, then fresh snapshots of the traded
 *    market's books, then `market_resolved`. User events follow the user channel: order updates
 *    (PLACEMENT / UPDATE / CANCELLATION) and one fill per own order in a trade (the taker order,
 *    and each own maker order on its own token, side and price), MATCHED at once, then MINED and
 *    CONFIRMED after the exchange's `minedMs` / `confirmedMs` of virtual time.
 *
 * Orders take the exchange's INTERNAL place path (a `place` command with a `NewOrder`), not the
 * signed EIP-712 path: signing and recovering a secp256k1 signature costs far more than matching,
 * and a backtest has nothing to prove about signatures (the live adapter's contract test covers
 * them). Order ids are still 32-byte hex strings known before sending (`prepare`), derived from a
 * seed and a counter, so runs are deterministic and a re-sent prepared order is refused as a
 * duplicate, as on the real venue. Book hashes are left empty (they are opaque to the engine; the
 * wire's SHA-1 of the rendered book would dominate the cost).
 *
 * The taker fee: an order placed on the internal path is charged as the exchange's own flow, V1
 * (`size × rate × min(p, 1 − p)`), as synthetic backtests always were; `feeProtocol` 2 marks our
 * orders V2 (`feeModel`), charged on the V2 curve as the exchange charges a signed V2 order.
 *
 * Requests take effect `latencyMs` of virtual time after the call, and their answer comes back
 * `latencyMs` after that (0: both at once, in a microtask).
 */
import { Observable, type Subscriber } from 'rxjs';
import { keccak256, toUtf8Bytes } from 'ethers';
import type { Clock, TimerHandle } from '../../core/clock.ts';
import type { FeeProtocol } from '../../core/fees.ts';
import type {
  BookSnapshotEvent,
  MarketEvent,
  PriceTickEvent,
  RtdsEvent,
  TradeStatus,
  UserEvent,
} from '../../core/events.ts';
import { priceLevel } from '../../core/events.ts';
import type { ConditionId, OrderId, TokenId, TradeId } from '../../core/ids.ts';
import { PRICE_SCALE, tickPips, type Micro, type Pips, type Side, type TickSize } from '../../core/units.ts';
import type {
  CancelOutcome,
  MarketInfo,
  PlaceOutcome,
  PlaceRequest,
  PreparedOrder,
  Venue,
  VenueFill,
  VenueOrder,
} from '../../core/venue.ts';
import type { ExchangeEvent, MarketEntry, PaperExchange } from '../../exchange/exchange.ts';
import type { NewOrder, OrderState, PlaceResult, Trade } from '../../exchange/matching/types.ts';
import { LevelCollector, noLevelOf, sizeAt, yesLevelOf, type YesLevel } from '../../exchange/ws/market-map.ts';

/** Options of `createExchangeVenue`. */
export interface ExchangeVenueOptions {
  readonly exchange: PaperExchange;
  /** Time of requests and events (default: the exchange's clock). */
  readonly clock?: Clock;
  /** Our account (lower-case address). Default: a fixed backtest address. */
  readonly address?: string;
  /** Collateral credited to the account at creation, micro (default 0: fund it yourself). */
  readonly collateral?: number;
  /** One-way latency, virtual ms: a request takes effect this long after the call, its answer comes this long after that (default 0). */
  readonly latencyMs?: number;
  /** Namespace of order ids (default 0): the same seed gives the same ids. */
  readonly idSeed?: number;
  /** The order protocol whose taker fee our orders pay (see the module comment). Default 1. */
  readonly feeProtocol?: FeeProtocol;
}

/** Counters of the adapter. */
export interface ExchangeVenueStats {
  marketEvents: number;
  userEvents: number;
  placeRequests: number;
  ordersSent: number;
  ordersRejected: number;
  cancelRequests: number;
  cancelAllRequests: number;
  fills: number;
}

/** The adapter: a Venue plus what a backtest driver reads. */
export interface ExchangeVenue extends Venue {
  readonly address: string;
  readonly exchange: PaperExchange;
  readonly stats: Readonly<ExchangeVenueStats>;
  /** Fresh snapshots of these tokens (the engine asks after a crossed or desynced book). */
  resync(tokenIds: readonly TokenId[]): void;
}

/** The default account of a backtest. */
export const BACKTEST_ADDRESS = '0x00000000000000000000000000000000006d6d6b';
const OWNER = 'mmkit-backtest';

/** Creates the adapter and subscribes it to the exchange (see the module comment). */
export function createExchangeVenue(o: ExchangeVenueOptions): ExchangeVenue {
  return new ExchangeVenueImpl(o);
}

interface MarketSub {
  readonly sub: Subscriber<MarketEvent>;
  readonly tokens: Set<string>;
}
interface UserSub {
  readonly sub: Subscriber<UserEvent>;
  /** Empty: every market. */
  readonly markets: Set<string>;
}

interface Batch {
  entry: MarketEntry;
  at: number;
  levels: LevelCollector;
  trades: Trade[];
  ticks: Array<{ oldTickPips: number; newTickPips: number }>;
  resolved: string | undefined;
}

const ORDER_KIND = { order_placed: 'PLACEMENT', order_updated: 'UPDATE', order_canceled: 'CANCELLATION' } as const;

class ExchangeVenueImpl implements ExchangeVenue {
  readonly clock: Clock;
  readonly address: string;
  readonly exchange: PaperExchange;
  readonly stats: ExchangeVenueStats = {
    marketEvents: 0,
    userEvents: 0,
    placeRequests: 0,
    ordersSent: 0,
    ordersRejected: 0,
    cancelRequests: 0,
    cancelAllRequests: 0,
    fills: 0,
  };
  readonly #ex: PaperExchange;
  readonly #latency: number;
  readonly #idSeed: number;
  readonly #v2Fee: boolean;
  #idSeq = 0;
  readonly #marketSubs = new Set<MarketSub>();
  readonly #userSubs = new Set<UserSub>();
  /** Subscribed token -> count of subscriptions. */
  readonly #tokens = new Map<string, number>();
  readonly #timers = new Set<TimerHandle>();
  readonly #unsubscribe: () => void;
  #closed = false;

  constructor(o: ExchangeVenueOptions) {
    this.#ex = this.exchange = o.exchange;
    this.clock = o.clock ?? o.exchange.clock;
    this.address = (o.address ?? BACKTEST_ADDRESS).toLowerCase();
    this.#latency = Math.max(0, o.latencyMs ?? 0);
    this.#idSeed = o.idSeed ?? 0;
    this.#v2Fee = o.feeProtocol === 2;
    if ((o.collateral ?? 0) > 0) this.#ex.fund(this.address, o.collateral!);
    this.#unsubscribe = this.#ex.subscribe((events) => this.#onEvents(events));
  }

  // ---- listing ---------------------------------------------------------------------------------

  async markets(): Promise<readonly MarketInfo[]> {
    const all = this.#ex.listMarkets().map((e) => marketInfo(e));
    return [...all.filter((m) => m.active), ...all.filter((m) => !m.active)];
  }

  // ---- streams ---------------------------------------------------------------------------------

  marketEvents(tokenIds: readonly TokenId[]): Observable<MarketEvent> {
    return new Observable<MarketEvent>((sub) => {
      const s: MarketSub = { sub, tokens: new Set(tokenIds) };
      this.#marketSubs.add(s);
      for (const t of s.tokens) this.#tokens.set(t, (this.#tokens.get(t) ?? 0) + 1);
      const now = this.clock.now();
      for (const t of s.tokens) {
        const snap = this.#snapshot(t, now);
        if (snap !== undefined) this.#emitMarket(s, snap);
      }
      this.#emitMarket(s, { type: 'resynced', stream: 'market', initial: true, venueTime: now, recvTime: now });
      return () => {
        this.#marketSubs.delete(s);
        for (const t of s.tokens) {
          const n = (this.#tokens.get(t) ?? 1) - 1;
          if (n <= 0) this.#tokens.delete(t);
          else this.#tokens.set(t, n);
        }
      };
    });
  }

  readonly #priceSubs = new Set<{ readonly sub: Subscriber<RtdsEvent>; readonly symbols: ReadonlySet<string> }>();
  readonly #lastPrice = new Map<string, PriceTickEvent>();

  /**
   * The world's crypto prices (its seeded random walks, the same values the exchange's RTDS
   * serves) as `price_tick` events; a new subscriber first gets the last price of each symbol,
   * flagged `snapshot`.
   */
  priceEvents(symbols: readonly string[]): Observable<RtdsEvent> {
    const set = new Set(symbols.map((x) => x.toLowerCase()));
    return new Observable<RtdsEvent>((sub) => {
      const s = { sub, symbols: set };
      this.#priceSubs.add(s);
      for (const sym of set) {
        const last = this.#lastPrice.get(sym);
        if (last !== undefined) sub.next({ ...last, snapshot: true });
      }
      return () => this.#priceSubs.delete(s);
    });
  }

  userEvents(markets: readonly ConditionId[]): Observable<UserEvent> {
    return new Observable<UserEvent>((sub) => {
      const s: UserSub = { sub, markets: new Set(markets) };
      this.#userSubs.add(s);
      const now = this.clock.now();
      this.stats.userEvents++;
      sub.next({ type: 'resynced', stream: 'user', initial: true, venueTime: now, recvTime: now });
      return () => this.#userSubs.delete(s);
    });
  }

  resync(tokenIds: readonly TokenId[]): void {
    const now = this.clock.now();
    for (const t of tokenIds) {
      const snap = this.#snapshot(t, now);
      if (snap === undefined) continue;
      for (const s of this.#marketSubs) if (s.tokens.has(t)) this.#emitMarket(s, snap);
    }
  }

  // ---- orders ----------------------------------------------------------------------------------

  prepare(requests: readonly PlaceRequest[]): readonly PreparedOrder[] {
    return requests.map((request) => {
      const id = keccak256(toUtf8Bytes(`mmkit-backtest:${this.#idSeed}:${++this.#idSeq}`)) as OrderId;
      return { id, request, wire: null };
    });
  }

  place(orders: readonly PreparedOrder[]): Promise<readonly PlaceOutcome[]> {
    this.stats.placeRequests++;
    return this.#later(() => orders.map((p) => this.#placeOne(p)));
  }

  cancel(ids: readonly OrderId[]): Promise<CancelOutcome> {
    this.stats.cancelRequests++;
    return this.#later(() => {
      const r = this.#ex.cancel(this.address, ids, 'USER');
      return {
        canceled: r.canceled as OrderId[],
        notCanceled: new Map(Object.entries(r.not_canceled)) as Map<OrderId, string>,
      };
    });
  }

  cancelAll(): Promise<CancelOutcome> {
    this.stats.cancelAllRequests++;
    return this.#later(() => {
      const r = this.#ex.cancelAll(this.address, 'USER');
      return { canceled: r.canceled as OrderId[], notCanceled: new Map() };
    });
  }

  async openOrders(): Promise<readonly VenueOrder[]> {
    return this.#ex.openOrders(this.address).map(venueOrder);
  }

  async order(id: OrderId): Promise<VenueOrder | undefined> {
    const o = this.#ex.getOrder(this.address, id);
    return o === undefined ? undefined : venueOrder(o);
  }

  async fills(sinceMs: number): Promise<readonly VenueFill[]> {
    const out: VenueFill[] = [];
    const now = this.clock.now();
    for (const rec of this.#ex.tradesOf(this.address)) {
      const t = rec.trade;
      if (t.matchTime < sinceMs) continue;
      const status = this.#ex.tradeStatus(t, now);
      if (t.takerAccount === this.address) {
        out.push({
          tradeId: t.id,
          orderId: t.takerOrderId as OrderId,
          market: t.market as ConditionId,
          tokenId: t.tokenId as TokenId,
          side: t.side,
          price: t.price as Pips,
          size: t.size as Micro,
          role: 'TAKER',
          fee: t.fee as Micro,
          status,
          matchTime: t.matchTime,
        });
      }
      for (const m of t.makers) {
        if (m.account !== this.address) continue;
        out.push({
          tradeId: t.id,
          orderId: m.orderId as OrderId,
          market: t.market as ConditionId,
          tokenId: m.tokenId as TokenId,
          side: m.side,
          price: m.price as Pips,
          size: m.size as Micro,
          role: 'MAKER',
          fee: 0 as Micro,
          status,
          matchTime: t.matchTime,
        });
      }
    }
    return out;
  }

  async heartbeat(): Promise<boolean> {
    this.#ex.heartbeat(this.address);
    return true;
  }

  async balance(): Promise<{ available: Micro; reserved: Micro }> {
    const b = this.#ex.engine.balance(this.address);
    return { available: b.collateral as Micro, reserved: b.collateralReserved as Micro };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
    for (const h of this.#timers) this.clock.clearTimeout(h);
    this.#timers.clear();
    for (const s of [...this.#marketSubs]) s.sub.complete();
    for (const s of [...this.#userSubs]) s.sub.complete();
    this.#marketSubs.clear();
    this.#userSubs.clear();
  }

  // ---- internals -------------------------------------------------------------------------------

  /**
   * Runs `fn` (the request's effect at the exchange) after the latency, and resolves with its
   * result after the latency again (the answer's way back). Latency 0: both at once, in a microtask.
   */
  #later<T>(fn: () => T): Promise<T> {
    if (this.#closed) return Promise.reject(new Error('venue closed'));
    if (this.#latency <= 0) return Promise.resolve().then(fn);
    return new Promise<T>((resolve, reject) => {
      this.#after(() => {
        let out: T;
        try {
          out = fn();
        } catch (e) {
          reject(e);
          return;
        }
        this.#after(() => resolve(out));
      });
    });
  }

  #after(fn: () => void): void {
    const h = this.clock.setTimeout(() => {
      this.#timers.delete(h);
      fn();
    }, this.#latency);
    this.#timers.add(h);
  }

  #placeOne(p: PreparedOrder): PlaceOutcome {
    const r = p.request;
    const found = this.#ex.marketOfToken(r.tokenId);
    this.stats.ordersSent++;
    const fail = (code: string, message: string): PlaceOutcome => {
      this.stats.ordersRejected++;
      return { id: p.id, ok: false, code, message };
    };
    if (found === undefined)
      return fail('MARKET_NOT_READY', `no market trades token ${String(r.tokenId).slice(0, 20)}`);
    let expiresAt = 0;
    if (r.type === 'GTD') {
      const exp = r.expiration ?? 0;
      const threshold = this.#ex.opts.gtdThresholdSec;
      if (!(exp > 0) || (exp - threshold) * 1000 <= this.clock.now())
        return fail('INVALID_ORDER_EXPIRATION', `a GTD order needs expiration > now + ${threshold}s`);
      expiresAt = (exp - threshold) * 1000;
    }
    const order: NewOrder = {
      id: p.id,
      account: this.address,
      owner: OWNER,
      tokenId: r.tokenId,
      side: r.side,
      price: r.price,
      size: r.size,
      type: r.type,
      postOnly: r.postOnly ?? false,
      expiresAt,
      feeRateBps: found.entry.meta.feeRateBps,
      ...(this.#v2Fee ? { feeModel: 'v2' as const } : {}),
    };
    const res = this.#ex.exec({ k: 'place', order }) as PlaceResult;
    if (!res.ok) return fail(res.code, res.message);
    return { id: p.id, ok: true, status: res.status };
  }

  #snapshot(tokenId: string, at: number): BookSnapshotEvent | undefined {
    const found = this.#ex.marketOfToken(tokenId);
    if (found === undefined) return undefined;
    const view = this.#ex.engine.book(tokenId);
    const last = this.#ex.lastTradePrice(tokenId);
    return {
      type: 'book_snapshot',
      venueTime: at,
      recvTime: at,
      market: found.entry.meta.conditionId as ConditionId,
      tokenId: tokenId as TokenId,
      bids: view.bids.map((l) => priceLevel(l.price, l.size)),
      asks: view.asks.map((l) => priceLevel(l.price, l.size)),
      hash: '',
      tickSize: tickPips(found.entry.state.tick),
      minOrderSize: found.entry.meta.minSizeMicro as Micro,
      lastTradePrice: last === undefined ? null : (last.price as Pips),
    };
  }

  #emitMarket(s: MarketSub, e: MarketEvent): void {
    this.stats.marketEvents++;
    s.sub.next(e);
  }

  #emitUser(market: string, e: UserEvent): void {
    for (const s of this.#userSubs) {
      if (s.markets.size > 0 && !s.markets.has(market)) continue;
      this.stats.userEvents++;
      s.sub.next(e);
    }
  }

  #onEvents(events: readonly ExchangeEvent[]): void {
    if (this.#closed) return;
    if (this.#marketSubs.size > 0 && this.#tokens.size > 0) this.#marketBatch(events);
    if (this.#userSubs.size > 0) this.#userBatch(events);
    for (const e of events) {
      if (e.type !== 'crypto_price') continue;
      const t: PriceTickEvent = {
        type: 'price_tick',
        venueTime: e.at,
        recvTime: this.clock.now(),
        symbol: e.symbol,
        value: e.value,
        snapshot: false,
      };
      this.#lastPrice.set(e.symbol, t);
      for (const s of this.#priceSubs) if (s.symbols.has(e.symbol)) s.sub.next(t);
    }
  }

  #marketBatch(events: readonly ExchangeEvent[]): void {
    let batches: Map<string, Batch> | undefined;
    for (const e of events) {
      let cid: string;
      switch (e.type) {
        case 'level':
        case 'tick_size_change':
        case 'market_status':
          cid = e.market;
          break;
        case 'trade':
          cid = e.trade.market;
          break;
        default:
          continue;
      }
      let b = batches?.get(cid);
      if (b === undefined) {
        const entry = this.#ex.market(cid);
        if (entry === undefined || (!this.#tokens.has(entry.meta.tokens[0]) && !this.#tokens.has(entry.meta.tokens[1])))
          continue;
        b = { entry, at: e.at, levels: new LevelCollector(), trades: [], ticks: [], resolved: undefined };
        (batches ??= new Map()).set(cid, b);
      }
      b.at = e.at;
      if (e.type === 'level') b.levels.add(e.side, e.yesPrice, e.size);
      else if (e.type === 'trade') b.trades.push(e.trade);
      else if (e.type === 'tick_size_change') b.ticks.push({ oldTickPips: e.oldTickPips, newTickPips: e.newTickPips });
      else if (e.type === 'market_status' && e.status === 'resolved' && e.winningToken !== undefined)
        b.resolved = e.winningToken;
    }
    if (batches === undefined) return;
    for (const b of batches.values()) this.#emitBatch(b);
  }

  #emitBatch(b: Batch): void {
    const meta = b.entry.meta;
    const cid = meta.conditionId as ConditionId;
    const [yes, no] = meta.tokens;
    const recv = this.clock.now();
    const at = b.at;
    for (const s of this.#marketSubs) {
      const hasYes = s.tokens.has(yes);
      const hasNo = s.tokens.has(no);
      if (!hasYes && !hasNo) continue;
      const tokens: string[] = [];
      if (hasYes) tokens.push(yes);
      if (hasNo) tokens.push(no);
      for (const t of b.ticks) {
        for (const tok of tokens)
          this.#emitMarket(s, {
            type: 'tick_size_change',
            venueTime: at,
            recvTime: recv,
            market: cid,
            tokenId: tok as TokenId,
            old: t.oldTickPips as Pips,
            new: t.newTickPips as Pips,
          });
      }
      if (b.levels.size > 0) {
        const view = this.#ex.engine.book(yes);
        const levels: YesLevel[] = b.levels.levels().map((l) => ({
          side: l.side,
          yesPrice: l.yesPrice,
          size: l.side === 'bid' ? sizeAt(view.bids, l.yesPrice, true) : sizeAt(view.asks, l.yesPrice, false),
        }));
        const yb = view.bids[0]?.price ?? null;
        const ya = view.asks[0]?.price ?? null;
        const best = {
          yes: { bid: yb as Pips | null, ask: ya as Pips | null },
          no: {
            bid: (ya === null ? null : PRICE_SCALE - ya) as Pips | null,
            ask: (yb === null ? null : PRICE_SCALE - yb) as Pips | null,
          },
        };
        const n = levels.length * tokens.length;
        let i = 0;
        for (const l of levels) {
          for (const tok of tokens) {
            const isYes = tok === yes;
            const tl = isYes ? yesLevelOf(l) : noLevelOf(l);
            const bb = isYes ? best.yes : best.no;
            i++;
            this.#emitMarket(s, {
              type: 'level_change',
              venueTime: at,
              recvTime: recv,
              market: cid,
              tokenId: tok as TokenId,
              side: tl.side,
              price: tl.price as Pips,
              size: tl.size as Micro,
              bestBid: bb.bid,
              bestAsk: bb.ask,
              hash: '',
              endOfBatch: i === n,
            });
          }
        }
      }
      for (const t of b.trades) {
        const last = t.makers[t.makers.length - 1];
        for (const tok of tokens) {
          const price = last === undefined ? t.price : last.tokenId === tok ? last.price : PRICE_SCALE - last.price;
          const side: Side = tok === t.tokenId ? t.side : t.side === 'BUY' ? 'SELL' : 'BUY';
          this.#emitMarket(s, {
            type: 'last_trade',
            venueTime: t.matchTime,
            recvTime: recv,
            market: cid,
            tokenId: tok as TokenId,
            price: price as Pips,
            size: t.size as Micro,
            side,
            feeRateBps: t.feeRateBps,
          });
        }
      }
      if (b.trades.length > 0) {
        for (const tok of tokens) {
          const snap = this.#snapshot(tok, at);
          if (snap !== undefined) this.#emitMarket(s, { ...snap, recvTime: recv });
        }
      }
      if (b.resolved !== undefined) {
        const idx = meta.tokens.indexOf(b.resolved);
        this.#emitMarket(s, {
          type: 'market_resolved',
          venueTime: at,
          recvTime: recv,
          market: cid,
          winningTokenId: b.resolved as TokenId,
          winningOutcome: meta.outcomes[idx] ?? '',
        });
      }
    }
  }

  #userBatch(events: readonly ExchangeEvent[]): void {
    const me = this.address;
    const recv = this.clock.now();
    for (const e of events) {
      if (e.type === 'order_placed' || e.type === 'order_updated' || e.type === 'order_canceled') {
        const o = e.order;
        if (o.account !== me) continue;
        this.#emitUser(o.market, {
          type: 'order_update',
          kind: ORDER_KIND[e.type],
          venueTime: e.at,
          recvTime: recv,
          id: o.id as OrderId,
          market: o.market as ConditionId,
          tokenId: o.tokenId as TokenId,
          side: o.side,
          price: o.price as Pips,
          originalSize: o.originalSize as Micro,
          sizeMatched: o.sizeMatched as Micro,
          status: o.status,
          source: 'stream',
        });
      } else if (e.type === 'trade') {
        const t = e.trade;
        if (t.takerAccount !== me && !t.makers.some((m) => m.account === me)) continue;
        this.#emitFills(t, 'MATCHED', t.matchTime, recv);
        this.#followUp(t);
      }
    }
  }

  #emitFills(t: Trade, status: TradeStatus, venueTime: number, recv: number): void {
    const me = this.address;
    const base = {
      type: 'fill' as const,
      venueTime,
      recvTime: recv,
      tradeId: t.id as TradeId,
      status,
      market: t.market as ConditionId,
      takerOrderId: t.takerOrderId as OrderId,
      source: 'stream' as const,
    };
    if (t.takerAccount === me) {
      if (status === 'MATCHED') this.stats.fills++;
      this.#emitUser(t.market, {
        ...base,
        orderId: t.takerOrderId as OrderId,
        role: 'TAKER',
        tokenId: t.tokenId as TokenId,
        side: t.side,
        price: t.price as Pips,
        size: t.size as Micro,
        feeRateBps: t.feeRateBps,
        // the fee the engine charged (each match apart, under the order's protocol)
        fee: t.fee as Micro,
      });
    }
    for (const m of t.makers) {
      if (m.account !== me) continue;
      if (status === 'MATCHED') this.stats.fills++;
      const bps = this.#ex.engine.getOrder(m.orderId)?.feeRateBps ?? 0;
      this.#emitUser(t.market, {
        ...base,
        orderId: m.orderId as OrderId,
        role: 'MAKER',
        tokenId: m.tokenId as TokenId,
        side: m.side,
        price: m.price as Pips,
        size: m.size as Micro,
        feeRateBps: bps,
        fee: 0 as Micro,
      });
    }
  }

  /** MINED and CONFIRMED of one of our trades, on the clock (as the user channel sends them). */
  #followUp(t: Trade): void {
    const steps: Array<[TradeStatus, number]> = [
      ['MINED', this.#ex.opts.minedMs],
      ['CONFIRMED', this.#ex.opts.confirmedMs],
    ];
    for (const [status, after] of steps) {
      const h = this.clock.setTimeout(
        () => {
          this.#timers.delete(h);
          if (this.#closed) return;
          const now = this.clock.now();
          this.#emitFills(t, status, now, now);
        },
        Math.max(0, t.matchTime + after - this.clock.now()),
      );
      this.#timers.add(h);
    }
  }
}

/** A paper-exchange market as the Venue port's MarketInfo. */
export function marketInfo(e: MarketEntry): MarketInfo {
  const m = e.meta;
  return {
    market: m.conditionId as ConditionId,
    question: m.question,
    tokens: [
      { tokenId: m.tokens[0] as TokenId, outcome: m.outcomes[0] },
      { tokenId: m.tokens[1] as TokenId, outcome: m.outcomes[1] },
    ],
    tick: e.state.tick as TickSize,
    minOrderSize: m.minSizeMicro as Micro,
    negRisk: m.negRisk,
    feeRateBps: m.feeRateBps,
    active: e.state.status === 'active',
    endDate: m.endDate,
  };
}

function venueOrder(o: OrderState): VenueOrder {
  return {
    id: o.id as OrderId,
    market: o.market as ConditionId,
    tokenId: o.tokenId as TokenId,
    side: o.side,
    price: o.price as Pips,
    originalSize: o.originalSize as Micro,
    sizeMatched: o.sizeMatched as Micro,
    status: o.status,
  };
}
