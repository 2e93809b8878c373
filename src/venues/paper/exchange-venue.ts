/**
 * The Venue port over an in-process PaperExchange, for synthetic backtests (`mmkit backtest
 * --world SEED`): the paper exchange's world and matching engine run in virtual time with our
 * orders inside them, so our quotes take liquidity from, and give it to, the flow agents (market
 * impact included). No HTTP, no WebSocket, no JSON:
 *
 *  - every state change goes through `PaperExchange.exec(command)` (src/exchange/commands.ts), the
 *    same commands the HTTP layer and the world's agents use;
 *  - market, user and price events are built from the exchange's event listener, in the shapes and
 *    the order the live streams produce them (./exchange-streams.ts).
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
 * (`size × rate × min(p, 1 − p)`), unless `feeProtocol` 2 marks our orders V2 (`feeModel`), charged on
 * the V2 curve as the exchange charges a signed V2 order (a synthetic backtest passes the protocol its
 * world's exchange speaks: src/backtest/synthetic.ts).
 *
 * Requests take effect `latencyMs` of virtual time after the call, and their answer comes back
 * `latencyMs` after that (0: both at once, in a microtask).
 */
import type { Observable } from 'rxjs';
import { keccak256, toUtf8Bytes } from 'ethers';
import type { Clock, TimerHandle } from '../../core/clock.ts';
import type { FeeProtocol } from '../../core/fees.ts';
import type { MarketEvent, RtdsEvent, UserEvent } from '../../core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../../core/ids.ts';
import { isMarketOrderType } from '../../core/order-rules.ts';
import { marketBuyTerms, type Micro, type Pips, type TickSize } from '../../core/units.ts';
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
import type { MarketEntry, PaperExchange } from '../../exchange/exchange.ts';
import type { NewOrder, PlaceResult } from '../../exchange/matching/types.ts';
import { ExchangeStreams, type ExchangeVenueStats, venueOrder } from './exchange-streams.ts';

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

export type { ExchangeVenueStats } from './exchange-streams.ts';

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
  /** The market, user and price streams (./exchange-streams.ts). */
  readonly #streams: ExchangeStreams;
  /** The latency timers of requests in flight. */
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
    this.#streams = new ExchangeStreams({
      exchange: this.#ex,
      clock: this.clock,
      address: this.address,
      stats: this.stats,
    });
    this.#unsubscribe = this.#ex.subscribe((events) => {
      if (!this.#closed) this.#streams.onEvents(events);
    });
  }

  // ---- listing ---------------------------------------------------------------------------------

  async markets(): Promise<readonly MarketInfo[]> {
    const all = this.#ex.listMarkets().map((e) => marketInfo(e));
    return [...all.filter((m) => m.active), ...all.filter((m) => !m.active)];
  }

  /** One market as the exchange lists it now, undefined when unknown (the engine's re-read of its markets). */
  async market(id: ConditionId): Promise<MarketInfo | undefined> {
    const e = this.#ex.market(id);
    return e === undefined ? undefined : marketInfo(e);
  }

  // ---- streams ---------------------------------------------------------------------------------

  marketEvents(tokenIds: readonly TokenId[]): Observable<MarketEvent> {
    return this.#streams.marketEvents(tokenIds);
  }

  /**
   * The world's crypto prices (its seeded random walks, the same values the exchange's RTDS
   * serves) as `price_tick` events; a new subscriber first gets the last price of each symbol,
   * flagged `snapshot`.
   */
  priceEvents(symbols: readonly string[]): Observable<RtdsEvent> {
    return this.#streams.priceEvents(symbols);
  }

  userEvents(markets: readonly ConditionId[]): Observable<UserEvent> {
    return this.#streams.userEvents(markets);
  }

  resync(tokenIds: readonly TokenId[]): void {
    this.#streams.resync(tokenIds);
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
    this.#streams.close();
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
      // a market BUY is signed for whole cents of collateral: the exchange reads the shares they buy
      // (the size, or a little more at a price of 3-4 decimals: core/units.ts marketBuyTerms)
      size:
        r.side === 'BUY' && isMarketOrderType(r.type)
          ? (marketBuyTerms(r.size, r.price, found.entry.state.tick as TickSize).shares as Micro)
          : r.size,
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
