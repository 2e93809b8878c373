/**
 * A fill's way into the executor (src/execution/executor.ts), from the user stream or the venue's
 * trade history: whose order it is (`fillSource`), written to the store (committed) with that
 * source, then applied to the tracker and to the SELL-balance bookkeeping (./place-outcomes.ts).
 *
 * Another fleet member's fill is in that member's ledger, not ours (answered 'duplicate'); an
 * external one (an order the bot did not place) is booked apart, in a fleet once the fleet's claim
 * is won (./foreign-orders.ts `bookExternal`).
 */
import type { FillEvent } from '../core/events.ts';
import type { ConditionId, OrderId } from '../core/ids.ts';
import type { VenueFill } from '../core/venue.ts';
import { fillFromEvent, type FillChange, type FillRecord, type Store } from '../store/store.ts';
import type { FillSource, ForeignOrders } from './foreign-orders.ts';
import type { PlaceOutcomes } from './place-outcomes.ts';
import type { OrderTracker } from './tracker.ts';

/** The executor's parts that fills use. */
export interface FillIntakeParts {
  readonly tracker: Pick<OrderTracker, 'origin' | 'onFill'>;
  readonly store: Pick<Store, 'applyFill'>;
  readonly foreign: Pick<ForeignOrders, 'fillSource' | 'bookExternal' | 'claimExternal'>;
  readonly placeOutcomes: Pick<PlaceOutcomes, 'filled'>;
}

/** The executor's fills (see the module comment). */
export class FillIntake {
  readonly #p: FillIntakeParts;

  constructor(parts: FillIntakeParts) {
    this.#p = parts;
  }

  /** `Executor.recordFill`. @throws Error when the store is closed. */
  record(e: FillEvent): { readonly change: FillChange; readonly source: FillSource } {
    const source = this.fillSource(e.orderId, e.market);
    // another member's: in its ledger, not in ours
    if (source === 'member') return { change: 'duplicate', source };
    const change = this.#book(fillFromEvent(e), source);
    this.#p.tracker.onFill(e);
    this.#p.placeOutcomes.filled(e.tokenId);
    return { change, source };
  }

  /** `Executor.onVenueFill`. @throws Error when the store is closed. */
  venueFill(f: VenueFill): FillChange {
    const source = this.fillSource(f.orderId, f.market);
    if (source === 'member') return 'duplicate';
    const change = this.#book(f, source);
    this.#p.tracker.onFill(f);
    this.#p.placeOutcomes.filled(f.tokenId);
    return change;
  }

  /** `Executor.fillSource`. */
  fillSource(orderId: OrderId, market?: ConditionId): FillSource {
    const o = this.#p.tracker.origin(orderId);
    // the bot's own order of this run (nearly every fill) is answered here: no call on the hot path
    if (o === 'own') return 'bot';
    return this.#p.foreign.fillSource(orderId, o, market);
  }

  /** `Executor.claimExternal`. @throws when the fleet cannot be asked */
  async claimExternal(fill: Pick<FillRecord, 'tradeId' | 'orderId' | 'market'>): Promise<boolean> {
    if (this.fillSource(fill.orderId, fill.market) !== 'external') return true;
    return this.#p.foreign.claimExternal(fill);
  }

  /** Stores a fill of the bot's, or an external one (in a fleet, outside its markets: once the claim is won). */
  #book(rec: FillRecord, source: 'bot' | 'external'): FillChange {
    const store = this.#p.store;
    return source === 'bot'
      ? store.applyFill(rec)
      : this.#p.foreign.bookExternal({ ...rec, source }, (f) => store.applyFill(f));
  }
}
