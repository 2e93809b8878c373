/**
 * The backtest's venue wrapper: counts the calls made to the simulated venue (the runner's
 * "something of the bot's may be pending" signal, see runner.ts), and counts the trading requests
 * against the spec's rate rules in virtual time (src/venues/sim/sim-budget.ts), for the result.
 * A request that finds a window full waits (virtual time) until it has room, as the live client's
 * budgets make it wait: a strategy that churns is slowed to the venue's budgets, not run faster
 * than the live bot could, and a run cannot spin forever at one instant on requests its own
 * requests cause (zero latency).
 */
import type { VirtualClock } from '../core/clock.ts';
import type { ConditionId, OrderId, TokenId } from '../core/ids.ts';
import type { Micro } from '../core/units.ts';
import type {
  CancelOutcome,
  MarketInfo,
  PlaceOutcome,
  PlaceRequest,
  PreparedOrder,
  Venue,
  VenueFill,
  VenueOrder,
} from '../core/venue.ts';
import { BudgetMeter } from '../venues/sim/sim-budget.ts';
import type { DrivenVenue } from './types.ts';

/**
 * Wraps a venue: counts calls (the runner's "something may be pending" signal), and counts the
 * trading requests against the rate rules with the virtual time.
 */
export class InstrumentedVenue implements Venue {
  readonly clock: VirtualClock;
  readonly budgets = new BudgetMeter();
  started = 0;
  settled = 0;
  /** Requests held back because a budget window was full. */
  budgetWaits = 0;
  readonly counts = {
    placeRequests: 0,
    ordersSent: 0,
    ordersAccepted: 0,
    ordersRejected: 0,
    ordersUnknown: 0,
    cancelRequests: 0,
    idsCancelled: 0,
    cancelAllRequests: 0,
  };
  readonly rejectCodes = new Map<string, number>();
  readonly resync?: (ids: readonly TokenId[]) => void;

  constructor(
    readonly inner: DrivenVenue,
    clock: VirtualClock,
  ) {
    this.clock = clock;
    if (typeof inner.resync === 'function') this.resync = (ids) => inner.resync!(ids);
  }

  #track<T>(p: Promise<T>): Promise<T> {
    this.started++;
    p.then(this.#done, this.#done);
    return p;
  }
  /** Counts a call answered (one function for every call: none made per call). */
  readonly #done = (): void => {
    this.settled++;
  };

  markets(): Promise<readonly MarketInfo[]> {
    return this.#track(this.inner.markets());
  }
  marketEvents(tokenIds: readonly TokenId[]) {
    return this.inner.marketEvents(tokenIds);
  }
  userEvents(markets: readonly ConditionId[]) {
    return this.inner.userEvents(markets);
  }
  /** Recorded (feed) or simulated (world) real-time prices, when the venue has them. */
  get priceEvents(): Venue['priceEvents'] {
    const inner = this.inner;
    return inner.priceEvents ? (symbols: readonly string[]) => inner.priceEvents!(symbols) : undefined;
  }
  prepare(requests: readonly PlaceRequest[]): readonly PreparedOrder[] {
    return this.inner.prepare(requests);
  }
  /** `send` now, or after `waitMs` of virtual time when the budgets are full. */
  #within<T>(waitMs: number, send: () => Promise<T>): Promise<T> {
    if (waitMs <= 0) return send();
    this.budgetWaits++;
    return new Promise<T>((resolve, reject) => {
      this.clock.setTimeout(() => send().then(resolve, reject), waitMs);
    });
  }

  place(orders: readonly PreparedOrder[]): Promise<readonly PlaceOutcome[]> {
    this.counts.placeRequests++;
    this.counts.ordersSent += orders.length;
    const wait = this.budgets.record('POST /orders', this.clock.now());
    const p = this.#within(wait, () => this.inner.place(orders));
    p.then(
      (outs) => {
        for (const o of outs) {
          if (o.ok) this.counts.ordersAccepted++;
          else if (o.code === 'UNKNOWN') this.counts.ordersUnknown++;
          else {
            this.counts.ordersRejected++;
            this.rejectCodes.set(o.code, (this.rejectCodes.get(o.code) ?? 0) + 1);
          }
        }
      },
      () => {
        this.counts.ordersUnknown += orders.length;
      },
    );
    return this.#track(p);
  }
  cancel(ids: readonly OrderId[]): Promise<CancelOutcome> {
    this.counts.cancelRequests++;
    this.counts.idsCancelled += ids.length;
    const wait = this.budgets.record('DELETE /orders', this.clock.now());
    return this.#track(this.#within(wait, () => this.inner.cancel(ids)));
  }
  cancelAll(): Promise<CancelOutcome> {
    this.counts.cancelAllRequests++;
    const wait = this.budgets.record('DELETE /cancel-all', this.clock.now());
    return this.#track(this.#within(wait, () => this.inner.cancelAll()));
  }
  openOrders(): Promise<readonly VenueOrder[]> {
    return this.#track(this.inner.openOrders());
  }
  order(id: OrderId): Promise<VenueOrder | undefined> {
    return this.#track(this.inner.order(id));
  }
  fills(sinceMs: number): Promise<readonly VenueFill[]> {
    return this.#track(this.inner.fills(sinceMs));
  }
  heartbeat(): Promise<boolean> {
    return this.#track(this.inner.heartbeat());
  }
  balance(): Promise<{ available: Micro; reserved: Micro }> {
    return this.#track(this.inner.balance());
  }
  close(): Promise<void> {
    return this.#track(this.inner.close());
  }
}
