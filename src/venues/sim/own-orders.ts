/**
 * Our orders in the simulated venue (./sim-venue.ts, MATCHING in its module comment): signing
 * (`prepare`), arrival at the matching point (the order rules, then taking the recorded book and
 * resting on it), the fills of our resting orders as makers, cancels (ours and the venue's), and
 * the retention of finished orders and fills. Apart from the venue because it runs per order, not
 * per recorded event: the ingest path only calls in when a recorded event fills or cancels one of
 * our orders. It owns the order maps, the fills and the id counters; the venue hands it the parts
 * it shares: the token states, the account, the queue model, our shown sizes, the counters, and
 * two hooks (user events out; the levels our orders changed, announced on the venue's market stream).
 */
import type { Clock } from '../../core/clock.ts';
import { ValidationError } from '../../core/errors.ts';
import type { FeeProtocol } from '../../core/fees.ts';
import type { FillEvent, UserDataEvent } from '../../core/events.ts';
import { sequentialUuid, type OrderId, type TradeId } from '../../core/ids.ts';
import { MAX_ORDER_MICRO, marketBuyTerms, notional, type Micro, type Pips } from '../../core/units.ts';
import type { PlaceOutcome, PlaceRequest, PreparedOrder, VenueFill, VenueOrder } from '../../core/venue.ts';
import {
  bookRuleError,
  isMarketOrderType,
  NOT_CANCELED_REASON,
  orderReservation,
  orderShapeError,
  priceOnTick,
  REJECT_MESSAGES,
  type OrderRejectCode,
} from '../../core/order-rules.ts';
import { floorLot, type QueueModel } from './queue.ts';
import { takeFromBook, takerTotals } from './taker.ts';
import { effBest } from './recorded-book.ts';
import { finalizeBatch, joinLevel, leaveLevel, type OwnFills } from './own-queue.ts';
import type { ShownOwn } from './show-own.ts';
import { SimOrder, type MarketState, type SimWire, type TokenState } from './sim-state.ts';
import { DroppedIds, hexId } from './sim-ids.ts';
import { FinishedOrders } from './retention.ts';
import type { SimLedger } from './sim-account.ts';
import { fillEvent, orderEvent, venueOrder } from './sim-events.ts';
import type { SimVenueStats } from './sim-types.ts';

const ZERO_MICRO = 0 as Micro;
/** Seconds before its expiration a GTD order leaves the book (the venue's security threshold). */
const GTD_THRESHOLD_SEC = 60;

/** The order and fill counters (shared with the venue's counters object). */
export type OrderCounters = Pick<
  SimVenueStats,
  | 'ordersPlaced'
  | 'ordersRejected'
  | 'ordersCancelled'
  | 'cancelsTooLate'
  | 'venueCancels'
  | 'fills'
  | 'makerFills'
  | 'takerFills'
  | 'volume'
  | 'notional'
  | 'fees'
> & { rejects: Record<string, number> };

/** What the venue hands to its orders (shared, not copied). */
export interface OwnOrdersParts {
  readonly clock: Clock;
  /** The venue's seed: the ids of our orders and of the recorded takers that fill them. */
  readonly seed: number;
  /** The venue's tokens by id (markets added later by the feed included). */
  readonly tokens: ReadonlyMap<string, TokenState>;
  readonly acct: SimLedger;
  readonly model: QueueModel;
  readonly shown: ShownOwn;
  /** See SimVenueOptions.retainMs (validated by the venue). */
  readonly retainMs: number;
  readonly counters: OrderCounters;
  /** Hands a user event to the subscribers of its market. */
  readonly emitUser: (e: UserDataEvent) => void;
  /** Announces the levels our orders changed (./show-own.ts) on the venue's market stream. */
  readonly flushShown: () => void;
  /** The order protocol the taker fee is charged under (SimVenueOptions.feeProtocol). */
  readonly feeProtocol: FeeProtocol;
}

/** Our orders: by id (kept until the sweep drops them), the live ones, and the fills (see the module comment). */
export class OwnOrders {
  readonly #clock: Clock;
  readonly #seed: number;
  readonly #tokens: ReadonlyMap<string, TokenState>;
  readonly #acct: SimLedger;
  readonly #model: QueueModel;
  readonly #shown: ShownOwn;
  readonly #c: OrderCounters;
  readonly #emitUser: (e: UserDataEvent) => void;
  readonly #flushShown: () => void;

  readonly #orders = new Map<string, SimOrder>();
  readonly #live = new Map<string, SimOrder>();
  readonly #fills: VenueFill[] = [];
  // pruning (see SimVenueOptions.retainMs): the finished orders by when a sweep first saw them
  // finished, and the sequence numbers of the orders dropped
  readonly #retainMs: number;
  readonly #feeProtocol: FeeProtocol;
  readonly #finished: FinishedOrders<SimOrder>;
  readonly #dropped: DroppedIds;
  #idSeq = 0;
  #tradeSeq = 0;
  #extSeq = 0;
  #closed = false;

  constructor(p: OwnOrdersParts) {
    this.#clock = p.clock;
    this.#seed = p.seed;
    this.#tokens = p.tokens;
    this.#acct = p.acct;
    this.#model = p.model;
    this.#shown = p.shown;
    this.#c = p.counters;
    this.#emitUser = p.emitUser;
    this.#flushShown = p.flushShown;
    this.#retainMs = p.retainMs;
    this.#feeProtocol = p.feeProtocol;
    this.#finished = new FinishedOrders(p.retainMs);
    this.#dropped = new DroppedIds(p.seed);
  }

  /**
   * Signs the requests (deterministic ids: 0x + 64 hex from the seed and a counter).
   * @throws ValidationError when a token is not of a listed market (or not of `market`), a price is
   *   off the market's current tick or outside [tick, 1 − tick], or a size is below 0.01 share or
   *   above the largest order, as the live venue's prepare throws
   */
  prepare(requests: readonly PlaceRequest[]): readonly PreparedOrder[] {
    const out: PreparedOrder[] = new Array(requests.length);
    for (let i = 0; i < requests.length; i++) {
      const r = requests[i]!;
      const tok = this.#tokens.get(r.tokenId);
      if (tok === undefined)
        throw new ValidationError(`prepare: token ${String(r.tokenId).slice(0, 20)}… is not of a listed market`);
      const m = tok.market;
      if (m.info.market !== r.market)
        throw new ValidationError(
          `prepare: token ${String(r.tokenId).slice(0, 20)}… is not of market ${String(r.market).slice(0, 12)}…`,
        );
      const tick = m.tick;
      if (!priceOnTick(r.price, tick))
        throw new ValidationError(`price: ${r.price} pips is off the ${m.info.tick} tick or outside [tick, 1 - tick]`);
      let size = Number.isSafeInteger(r.size) ? floorLot(r.size) : 0;
      if (size <= 0) throw new ValidationError(`size: must be at least 0.01 share, got ${String(r.size)} micro`);
      if (size > MAX_ORDER_MICRO) throw new ValidationError(`size: at most ${MAX_ORDER_MICRO} micro-shares`);
      // a market BUY is signed for whole cents of collateral: the exchange reads the shares they buy
      // (the size, or a little more at a price of 3-4 decimals), and so does this venue
      if (r.side === 'BUY' && isMarketOrderType(r.type)) size = marketBuyTerms(size, r.price, m.info.tick).shares;
      const n = ++this.#idSeq;
      const wire: SimWire = { sim: 1, n, size, feeRateBps: m.info.feeRateBps };
      out[i] = { id: hexId(this.#seed, 1, n) as OrderId, request: r, wire };
    }
    return out;
  }

  /** The live orders (the venue's `openOrders`). */
  open(): VenueOrder[] {
    const out: VenueOrder[] = [];
    for (const o of this.#live.values()) out.push(venueOrder(o));
    return out;
  }

  /** An order by id, while it is kept (see SimVenueOptions.retainMs). */
  order(id: OrderId): VenueOrder | undefined {
    const o = this.#orders.get(id);
    return o === undefined ? undefined : venueOrder(o);
  }

  /** The fills kept that matched at or after `sinceMs` (the fills are in match time order). */
  fillsSince(sinceMs: number): VenueFill[] {
    const f = this.#fills;
    let lo = 0;
    let hi = f.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (f[mid]!.matchTime < sinceMs) lo = mid + 1;
      else hi = mid;
    }
    return f.slice(lo);
  }

  /** The venue closes: the GTD expiry timers are cleared (an expiry that still fires does nothing). */
  close(): void {
    this.#closed = true;
    for (const o of this.#live.values()) if (o.expiry !== undefined) this.#clock.clearTimeout(o.expiry);
  }

  // ==== orders at the matching point ===================================================================

  #reject(id: OrderId, code: OrderRejectCode, message = REJECT_MESSAGES[code]): PlaceOutcome {
    this.#c.ordersRejected++;
    this.#c.rejects[code] = (this.#c.rejects[code] ?? 0) + 1;
    return { id, ok: false, code, message };
  }

  /** A prepared order reaches the matching point: the exchange's checks, in its order, then matching. */
  arrive(p: PreparedOrder): PlaceOutcome {
    const now = this.#clock.now();
    const r = p.request;
    const w = p.wire as SimWire | undefined;
    if (w === undefined || w === null || typeof w !== 'object' || w.sim !== 1)
      return this.#reject(p.id, 'INVALID_ORDER_ERROR', 'invalid order: not prepared by this venue');
    const tok = this.#tokens.get(r.tokenId);
    if (tok === undefined || tok.market.resolved || !tok.market.info.active)
      return this.#reject(p.id, 'MARKET_NOT_READY');
    const m = tok.market;
    if (this.#orders.has(p.id) || this.#dropped.has(p.id)) return this.#reject(p.id, 'INVALID_ORDER_DUPLICATED');
    // the order rules (src/core/order-rules.ts), shared with the paper exchange's matching engine
    const type = r.type;
    const postOnly = r.postOnly === true;
    const price = r.price;
    const size = w.size;
    const bps = w.feeRateBps;
    let expiresAt = 0;
    if (type === 'GTD') {
      const exp = Number(r.expiration);
      expiresAt = exp > 0 ? (exp - GTD_THRESHOLD_SEC) * 1000 : Number.NaN;
    }
    const shape = { type, postOnly, price, size, feeRateBps: bps, side: r.side, expiresAt };
    const shapeError = orderShapeError(shape, m.tick, m.info.minOrderSize, m.info.feeRateBps, now);
    if (shapeError === 'INVALID_ORDER_EXPIRATION')
      return this.#reject(
        p.id,
        shapeError,
        `invalid expiration: a GTD order needs expiration > now + ${GTD_THRESHOLD_SEC}s (unix seconds)`,
      );
    if (shapeError !== null) return this.#reject(p.id, shapeError);
    const market = isMarketOrderType(type);
    const isBuy = r.side === 'BUY';
    const need = orderReservation(isBuy, size, price, bps, this.#feeProtocol, postOnly);
    if (isBuy) {
      if (this.#acct.collateral < need) return this.#reject(p.id, 'INVALID_ORDER_NOT_ENOUGH_BALANCE');
    } else if ((this.#acct.shares.get(tok.id)?.available ?? 0) < need)
      return this.#reject(p.id, 'INVALID_ORDER_NOT_ENOUGH_BALANCE');
    // would it cross what is there for us: recorded liquidity not yet taken, and our own resting orders?
    const oppRecorded = effBest(tok, !isBuy);
    const oppOwn = isBuy ? tok.shownBestAsk : tok.shownBestBid;
    const crosses =
      (oppRecorded !== 0 && (isBuy ? oppRecorded <= price : oppRecorded >= price)) ||
      (oppOwn !== 0 && (isBuy ? oppOwn <= price : oppOwn >= price));
    const bookError = bookRuleError(shape, crosses, type === 'FOK' ? this.#walk(null, tok, isBuy, price, size) : 0);
    if (bookError !== null) return this.#reject(p.id, bookError);

    // -- accepted
    if (m.pending.length > 0) finalizeBatch(m, this.#model);
    const o = new SimOrder(p.id, m, tok, r.side, price, size, type, bps, now);
    this.#orders.set(o.id, o);
    this.#c.ordersPlaced++;
    this.#acct.reserve(o, need);
    if (crosses || market) this.#emitUser(orderEvent(o, 'PLACEMENT', 'LIVE', this.#clock.now()));
    if (crosses) this.#walk(o, tok, isBuy, price, size);
    const rem = o.remaining;
    const rests = rem > 0 && !market;
    const keep = rests ? (isBuy ? notional(rem, price) : rem) : 0;
    this.#acct.release(o, o.reserved - keep);
    if (rests) {
      this.#rest(o, expiresAt);
      if (!crosses) this.#emitUser(orderEvent(o, 'PLACEMENT', 'LIVE', this.#clock.now()));
      this.#flushShown();
      return { id: o.id, ok: true, status: 'live' };
    }
    if (rem > 0) {
      this.#finish(o, 'CANCELED');
      this.#emitUser(orderEvent(o, 'CANCELLATION', 'CANCELED', this.#clock.now()));
      return { id: o.id, ok: true, status: o.matched > 0 ? 'matched' : 'unmatched' };
    }
    this.#finish(o, 'MATCHED');
    return { id: o.id, ok: true, status: 'matched' };
  }

  /**
   * Drops orders finished (MATCHED or CANCELED) at least `retainMs` ago and fills older than that
   * (see SimVenueOptions.retainMs). An order's finishing time is when a sweep first sees it finished,
   * so it is kept between retainMs and retainMs + the venue's sweep interval (./retention.ts).
   * O(orders and fills dropped).
   */
  sweep(now: number): void {
    if (this.#retainMs === Infinity) return;
    const before = now - this.#retainMs;
    this.#finished.sweep(now, (o) => {
      this.#orders.delete(o.id);
      this.#dropped.add(o.id);
    });
    const f = this.#fills;
    let k = 0;
    while (k < f.length && f[k]!.matchTime < before) k++;
    if (k > 0) f.splice(0, k);
  }

  /**
   * Takes liquidity for `o` (a BUY or SELL on `t` up to `limit`, `want` micro-shares; see
   * ./taker.ts) and settles it as one trade. With `o` null it only counts what could be taken
   * (FOK). Returns the size taken.
   */
  #walk(o: SimOrder | null, t: TokenState, isBuy: boolean, limit: number, want: number): number {
    const r = takeFromBook(t, isBuy, limit, want, o !== null);
    if (o !== null && r.taken > 0) this.#takerTrade(o, r.fills, r.makers);
    return r.taken;
  }

  /** Settles a taking order's fills (and our own makers' in a self-trade) as one trade, and reports them. */
  #takerTrade(o: SimOrder, fills: ReadonlyArray<[number, number]>, makers: ReadonlyArray<[SimOrder, number]>): void {
    const tradeId = this.#nextTradeId();
    const m = o.market;
    const { size, amount, fee, avg } = takerTotals(fills, o.feeRateBps, this.#feeProtocol);
    o.matched += size;
    this.#acct.settleTaker(o, size, amount, fee);
    const c = this.#c;
    c.fills++;
    c.takerFills++;
    c.volume += size;
    c.notional += amount;
    c.fees += fee;
    const now = this.#clock.now();
    // makers first (their UPDATEs), then the taker's UPDATE, then the fills: the paper exchange's order
    const makerEvents: FillEvent[] = [];
    for (const [mk, s] of makers) makerEvents.push(this.#applyMakerFill(mk, s, tradeId, o.id));
    // a taking order is LIVE until it is done
    if (o.remaining === 0) this.#finish(o, 'MATCHED');
    this.#emitUser(orderEvent(o, 'UPDATE', o.status, this.#clock.now()));
    const fill: VenueFill = {
      tradeId,
      orderId: o.id,
      market: m.info.market,
      tokenId: o.token.id,
      side: o.side,
      price: avg as Pips,
      size: size as Micro,
      role: 'TAKER',
      fee: fee as Micro,
      status: 'MATCHED',
      matchTime: now,
    };
    this.#fills.push(fill);
    this.#emitUser(fillEvent(fill, o.feeRateBps, o.id));
    for (const e of makerEvents) this.#emitUser(e);
    this.#flushShown();
  }

  /**
   * A recorded trade filled our resting orders as makers (./own-queue.ts: a trade at or through
   * their prices, or the recorded best opposite price reaching them): one trade of ours, its taker
   * the recorded world's.
   */
  recordedTrade(fills: OwnFills): void {
    this.#makerFills(fills, this.#nextTradeId(), this.#externalId());
  }

  /** Fills our resting orders as makers in one recorded trade (each at its own price). */
  #makerFills(fills: ReadonlyArray<[SimOrder, number]>, tradeId: TradeId, takerOrderId: OrderId): void {
    const events: FillEvent[] = [];
    for (const [o, s] of fills) events.push(this.#applyMakerFill(o, s, tradeId, takerOrderId));
    for (const e of events) this.#emitUser(e);
    this.#flushShown();
  }

  /** Settles one maker fill of a resting order, emits its UPDATE and returns its fill event (not yet emitted). */
  #applyMakerFill(o: SimOrder, s: number, tradeId: TradeId, takerOrderId: OrderId): FillEvent {
    const amount = this.#acct.settleMaker(o, s);
    o.matched += s;
    const c = this.#c;
    c.fills++;
    c.makerFills++;
    c.volume += s;
    c.notional += amount;
    this.#shown.change(o, -s);
    if (o.remaining === 0) {
      this.#finish(o, 'MATCHED');
      this.#unrest(o);
    }
    this.#emitUser(orderEvent(o, 'UPDATE', o.status, this.#clock.now()));
    const fill: VenueFill = {
      tradeId,
      orderId: o.id,
      market: o.market.info.market,
      tokenId: o.token.id,
      side: o.side,
      price: o.price as Pips,
      size: s as Micro,
      role: 'MAKER',
      fee: ZERO_MICRO,
      status: 'MATCHED',
      matchTime: this.#clock.now(),
    };
    this.#fills.push(fill);
    return fillEvent(fill, o.feeRateBps, takerOrderId);
  }

  /** Puts an accepted order's rest on its level (at the back: the recorded size there is ahead of it). */
  #rest(o: SimOrder, expiresAt: number): void {
    joinLevel(o);
    this.#live.set(o.id, o);
    this.#shown.change(o, o.remaining);
    if (expiresAt > 0) {
      o.expiry = this.#clock.setTimeout(() => {
        o.expiry = undefined;
        if (!this.#closed && o.status === 'LIVE') this.#cancelOrder(o, true);
      }, expiresAt - this.#clock.now());
    }
  }

  /** Takes a resting order off its level (filled or cancelled). */
  #unrest(o: SimOrder): void {
    if (!leaveLevel(o)) return;
    this.#live.delete(o.id);
    if (o.expiry !== undefined) {
      this.#clock.clearTimeout(o.expiry);
      o.expiry = undefined;
    }
  }

  /**
   * Our cancel of one order reaches the matching point: null if it took effect, else the venue's reason
   * (the paper exchange's one text, unknown or no longer live alike).
   */
  cancelOne(id: OrderId): string | null {
    const o = this.#orders.get(id);
    if (o === undefined) return NOT_CANCELED_REASON;
    if (o.status !== 'LIVE') {
      this.#c.cancelsTooLate++;
      return NOT_CANCELED_REASON;
    }
    this.#cancelOrder(o, false);
    return null;
  }

  /** Our cancel-all reaches the matching point: every live order is cancelled; returns their ids. */
  cancelAll(): OrderId[] {
    const ids: OrderId[] = [];
    for (const o of [...this.#live.values()]) {
      this.#cancelOrder(o, false);
      ids.push(o.id);
    }
    return ids;
  }

  /** The market's tick changed to `pips`: the venue cancels our orders on it that are off the new tick. */
  cancelOffTick(m: MarketState, pips: number): void {
    for (const o of [...this.#live.values()]) if (o.market === m && o.price % pips !== 0) this.#cancelOrder(o, true);
  }

  /** The market resolved: the venue cancels our orders on it; returns how many. */
  cancelMarket(m: MarketState): number {
    let cancelled = 0;
    for (const o of [...this.#live.values()]) {
      if (o.market !== m) continue;
      this.#cancelOrder(o, true);
      cancelled++;
    }
    return cancelled;
  }

  /** An order of ours is done (MATCHED or CANCELED: it never rests again); handed to the sweep once. */
  #finish(o: SimOrder, status: 'MATCHED' | 'CANCELED'): void {
    const was = o.status;
    o.status = status;
    if (was === 'LIVE') this.#finished.finished(o);
  }

  /**
   * Cancels a LIVE order: off its level, reservation back, CANCELLATION. `byVenue`: expiry, tick change,
   * resolution.
   */
  #cancelOrder(o: SimOrder, byVenue: boolean): void {
    if (o.status !== 'LIVE') return;
    const rem = o.remaining;
    this.#unrest(o);
    this.#shown.change(o, -rem);
    this.#acct.release(o, o.reserved);
    this.#finish(o, 'CANCELED');
    if (byVenue) this.#c.venueCancels++;
    else this.#c.ordersCancelled++;
    this.#emitUser(orderEvent(o, 'CANCELLATION', 'CANCELED', this.#clock.now()));
    this.#flushShown();
  }

  // ---- ids ------------------------------------------------------------------------------------------

  #nextTradeId(): TradeId {
    return sequentialUuid(0x51e0, ++this.#tradeSeq) as TradeId;
  }

  /** An order id for the recorded world's taker of a trade that filled us (never one of ours). */
  #externalId(): OrderId {
    return hexId(this.#seed, 2, ++this.#extSeq) as OrderId;
  }
}
