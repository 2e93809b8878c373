/**
 * The streams of the paper-exchange venue (./exchange-venue.ts): the exchange's events as the market,
 * user and price events the live streams produce (src/core/events.ts), with the market channel's
 * ordering (src/exchange/ws/market.ts): per exchange batch and market, tick-size changes, the level
 * changes (YES entry then NO entry per touched level, sizes and best prices as they are after the
 * batch, `endOfBatch` on the last), the last trades, then fresh snapshots of the traded market's
 * books, then `market_resolved`. User events follow the user channel: order updates (PLACEMENT /
 * UPDATE / CANCELLATION) and one fill per own order in a trade (the taker order, and each own maker
 * order on its own token, side and price), MATCHED at once, then MINED and CONFIRMED after the
 * exchange's `minedMs` / `confirmedMs` of virtual time. The request side (orders, cancels, queries)
 * is the venue's.
 */
import { Observable, type Subscriber } from 'rxjs';
import type { Clock, TimerHandle } from '../../core/clock.ts';
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
import { PRICE_SCALE, tickPips, type Micro, type Pips, type Side } from '../../core/units.ts';
import type { VenueOrder } from '../../core/venue.ts';
import type { ExchangeEvent, MarketEntry, PaperExchange } from '../../exchange/exchange.ts';
import type { OrderState, Trade } from '../../exchange/matching/types.ts';
import { LevelCollector, noLevelOf, sizeAt, yesLevelOf, type YesLevel } from '../../exchange/ws/market-map.ts';

/** An exchange order as the venue's `VenueOrder` (the queries' answers and the `order_update` events' fields). */
export function venueOrder(o: OrderState): VenueOrder {
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

/** The subscribers of one venue and what they are sent (see the module comment). */
export class ExchangeStreams {
  readonly clock: Clock;
  readonly address: string;
  /** The venue's counters (shared: `marketEvents`, `userEvents`, `fills` are counted here). */
  readonly stats: ExchangeVenueStats;
  readonly #ex: PaperExchange;
  readonly #marketSubs = new Set<MarketSub>();
  readonly #userSubs = new Set<UserSub>();
  /** Subscribed token -> count of subscriptions. */
  readonly #tokens = new Map<string, number>();
  /** The MINED / CONFIRMED follow-ups pending. */
  readonly #timers = new Set<TimerHandle>();
  #closed = false;

  constructor(o: { exchange: PaperExchange; clock: Clock; address: string; stats: ExchangeVenueStats }) {
    this.#ex = o.exchange;
    this.clock = o.clock;
    this.address = o.address;
    this.stats = o.stats;
  }

  /** Completes every subscriber and drops the pending follow-ups. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const h of this.#timers) this.clock.clearTimeout(h);
    this.#timers.clear();
    for (const s of [...this.#marketSubs]) s.sub.complete();
    for (const s of [...this.#userSubs]) s.sub.complete();
    this.#marketSubs.clear();
    this.#userSubs.clear();
  }

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

  /** The exchange's events of one batch, as market, user and price events to the subscribers. */
  onEvents(events: readonly ExchangeEvent[]): void {
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
          ...venueOrder(o),
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
