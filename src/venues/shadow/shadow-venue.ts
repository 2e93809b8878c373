/**
 * The shadow venue (`mmkit run --shadow`): the Venue port (src/core/venue.ts) over the LIVE market
 * streams of a real venue (the real service or a running paper exchange), with our orders filled by
 * the backtester's simulated venue (src/venues/sim/sim-venue.ts: the same queue and latency models,
 * the same order rules) against the live books.
 *
 *   venue's public market channel (+ RTDS) ─► ./live-frames.ts ─► feed items stamped with the clock
 *        ─► SimVenue.ingest (as a feed backtest replays a recording, but in real time)
 *   kernel ─► prepare / place / cancel / cancelAll ─► SimVenue (nothing is signed, nothing is sent)
 *
 * It is exactly what a feed backtest runs, with the clock the wall clock and the feed the live
 * socket: so a recording made alongside (src/backtest/recorder.ts), backtested with the same
 * strategy, queue model, latency and seed, sees the same frames and gives the same kind of fills.
 *
 * What it is not: there is no account at the venue. No wallet, no API key, no user channel, no
 * order reaches the venue (not even signed: the simulated venue's orders carry a simulated wire
 * form). The account is the simulated one (starting collateral given here); there are no holdings
 * to reconcile (no `holdings`), no relayer (no split, merge, redeem), no rewards paid. `identity()`
 * names a shadow ledger (`shadow:<venue>`, address `shadow`), so the store keeps a shadow epoch of
 * its own and never mixes its fills with a live run's.
 */
import type { Observable } from 'rxjs';
import type { Clock } from '../../core/clock.ts';
import { ValidationError } from '../../core/errors.ts';
import type { RtdsEvent, MarketEvent, UserEvent } from '../../core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../../core/ids.ts';
import type { Micro } from '../../core/units.ts';
import type {
  CancelOutcome,
  MarketInfo,
  PlaceOutcome,
  PlaceRequest,
  PreparedOrder,
  Venue,
  VenueFill,
  VenueIdentity,
  VenueOrder,
} from '../../core/venue.ts';
import type { BackoffPolicy, StreamLogger, WsFactory } from '../../api/streams/socket.ts';
import type { QueueModelSpec } from '../sim/queue.ts';
import {
  createSimVenue,
  type SimAccount,
  type SimLatencyOptions,
  type SimVenue,
  type SimVenueStats,
} from '../sim/sim-venue.ts';
import { startLiveFrames, type LiveFrames } from './live-frames.ts';

/** The address a shadow ledger is kept under (no account: nothing is traded at the venue). */
export const SHADOW_ADDRESS = 'shadow';
/** The prefix of a shadow ledger's venue name (src/store/epochs.ts: a different venue is a new epoch). */
export const SHADOW_VENUE_PREFIX = 'shadow:';

/** Options of {@link createShadowVenue}. */
export interface ShadowVenueOptions {
  /** The venue's WebSocket base (`${ws}/ws/market`) and RTDS URL (default `${ws}/rtds`). */
  readonly urls: { readonly ws: string; readonly rtds?: string };
  /** The run's clock (the wall clock): receive times, latencies, timers. */
  readonly clock: Clock;
  /** The markets traded (both tokens of each are subscribed). */
  readonly markets: readonly MarketInfo[];
  /** The simulated venue's queue model, latencies and seed (as `mmkit backtest --feed`). */
  readonly queue: QueueModelSpec;
  readonly latency: SimLatencyOptions;
  readonly seed: number;
  /** Starting collateral of the simulated account, micro. */
  readonly collateral: Micro;
  /** The venue's name (its CLOB URL and chain) and its world (a paper exchange's; null: none), for the ledger epoch. */
  readonly venueName: string;
  readonly world: string | null;
  /** The ledger's address (default `shadow`); a shadow run names its run here, so each run has its own epoch. */
  readonly account?: string;
  /** Market channel silence after which the connection is replaced, ms (default 30 s). */
  readonly silenceMs?: number;
  /**
   * The venue's record of one market now (its public `GET /markets/{id}`), for the engine's re-read
   * of its markets (`market_updated`: a reward change, a close). Absent: the venue's `market` is
   * absent too (the markets stay as they were at start).
   */
  readonly readMarket?: (id: ConditionId) => Promise<MarketInfo | undefined>;
  readonly backoff?: Partial<BackoffPolicy>;
  readonly logger?: StreamLogger;
  /** Socket implementation (tests); default `ws`. */
  readonly createSocket?: WsFactory;
}

/** The shadow venue: the Venue port plus what the shadow run reads. */
export interface ShadowVenue extends Venue {
  /** The shadow ledger's identity (`shadow:<venue>`, the world, the shadow account). */
  identity(): Promise<VenueIdentity>;
  /** Always true: a shadow venue sends nothing to the venue. */
  readonly shadow: true;
  /** The simulated venue's counters (orders, fills, feed). */
  readonly stats: SimVenueStats;
  /** The simulated account now. */
  account(): SimAccount;
  /** Resolves once the market channel is connected (every connection opened once). */
  connected(): Promise<void>;
  /** Live frames handed to the simulated venue, by channel. */
  frames(): ReturnType<LiveFrames['stats']>;
  /** Fresh snapshots from the mirrored books (what the engine asks for on a desynced mirror). */
  resync(tokenIds: readonly TokenId[]): void;
}

/**
 * Creates the shadow venue and connects to the market channel at once (the books fill while the
 * kernel starts).
 * @throws ValidationError on a bad queue or latency spec, a bad seed or duplicate markets (the
 *   simulated venue's); RangeError when there is no market
 */
export function createShadowVenue(o: ShadowVenueOptions): ShadowVenue {
  if (o.markets.length === 0) throw new RangeError('createShadowVenue: no market');
  const sim = createSimVenue({
    clock: o.clock,
    markets: o.markets,
    account: { collateral: o.collateral },
    queue: o.queue,
    latency: o.latency,
    seed: o.seed >>> 0,
    // as the live channel shows them, and as a feed backtest does
    showOwnOrders: true,
  });
  const ws = o.urls.ws.replace(/\/+$/, '');
  const frames = startLiveFrames({
    marketUrl: `${ws}/ws/market`,
    tokens: o.markets.flatMap((m) => m.tokens.map((t) => t.tokenId)),
    sink: (item) => sim.ingest(item),
    clock: o.clock,
    ...(o.silenceMs !== undefined ? { silenceMs: o.silenceMs } : {}),
    ...(o.backoff ? { backoff: o.backoff } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
    ...(o.createSocket ? { createSocket: o.createSocket } : {}),
  });
  return new ShadowVenueImpl(sim, frames, o, o.urls.rtds ?? `${ws}/rtds`);
}

class ShadowVenueImpl implements ShadowVenue {
  readonly shadow = true as const;
  readonly clock: Clock;
  #closed: Promise<void> | undefined;

  constructor(
    private readonly sim: SimVenue,
    private readonly live: LiveFrames,
    private readonly o: ShadowVenueOptions,
    private readonly rtdsUrl: string,
  ) {
    this.clock = o.clock;
    const read = o.readMarket;
    if (read !== undefined) this.market = (id) => read(id);
  }

  market?: (id: ConditionId) => Promise<MarketInfo | undefined>;

  get stats(): SimVenueStats {
    return this.sim.stats;
  }
  account(): SimAccount {
    return this.sim.account();
  }
  connected(): Promise<void> {
    return this.live.connected();
  }
  frames(): ReturnType<LiveFrames['stats']> {
    return this.live.stats();
  }
  resync(tokenIds: readonly TokenId[]): void {
    this.sim.resync(tokenIds);
  }

  markets(): Promise<readonly MarketInfo[]> {
    return this.sim.markets();
  }
  marketEvents(tokenIds: readonly TokenId[]): Observable<MarketEvent> {
    return this.sim.marketEvents(tokenIds);
  }
  userEvents(markets: readonly ConditionId[]): Observable<UserEvent> {
    return this.sim.userEvents(markets);
  }
  /** The venue's live real-time prices (RTDS, opened on the first call with its symbols). */
  priceEvents(symbols: readonly string[]): Observable<RtdsEvent> {
    const events = this.sim.priceEvents?.(symbols);
    if (events === undefined) throw new ValidationError('the simulated venue has no price stream');
    this.live.prices(this.rtdsUrl, symbols);
    return events;
  }
  prepare(requests: readonly PlaceRequest[]): readonly PreparedOrder[] {
    return this.sim.prepare(requests);
  }
  place(orders: readonly PreparedOrder[]): Promise<readonly PlaceOutcome[]> {
    return this.sim.place(orders);
  }
  cancel(ids: readonly OrderId[]): Promise<CancelOutcome> {
    return this.sim.cancel(ids);
  }
  cancelAll(): Promise<CancelOutcome> {
    return this.sim.cancelAll();
  }
  openOrders(): Promise<readonly VenueOrder[]> {
    return this.sim.openOrders();
  }
  order(id: OrderId): Promise<VenueOrder | undefined> {
    return this.sim.order(id);
  }
  fills(sinceMs: number): Promise<readonly VenueFill[]> {
    return this.sim.fills(sinceMs);
  }
  heartbeat(): Promise<boolean> {
    return this.sim.heartbeat();
  }
  balance(): Promise<{ available: Micro; reserved: Micro }> {
    return this.sim.balance();
  }
  async identity(): Promise<VenueIdentity> {
    return {
      venue: `${SHADOW_VENUE_PREFIX}${this.o.venueName}`,
      world: this.o.world,
      address: this.o.account ?? SHADOW_ADDRESS,
    };
  }
  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.live.close();
      await this.sim.close();
    })();
    return this.#closed;
  }
}
