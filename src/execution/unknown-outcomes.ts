/**
 * Unknown order outcomes, for the executor (src/execution/executor.ts): an order whose placement
 * outcome is unknown (an UNKNOWN answer, no answer for it, "the venue already has this hash", or a
 * transport failure that may have landed) is resolved later from the venue.
 *
 * Ambiguity is never resolved by re-signing: the order is left `unknown`; it is resolved by querying
 * its id, and when the venue does not have it, the SAME signed order is re-sent once (the venue
 * refuses a duplicate hash), else it is concluded never to have arrived. Unknown orders count as
 * live for the diff meanwhile (the tracker's doing), so a quote is never placed twice.
 *
 * Kept apart from the executor's cycles: nothing here runs on their hot path unless an outcome was
 * unknown.
 */
import type { OrderId } from '../core/ids.ts';
import type { PlaceOutcome, PreparedOrder, Venue, VenueOrder } from '../core/venue.ts';
import type { OrderTracker } from './tracker.ts';

/** Counters of unknown outcomes since start (part of `ExecutorStats`). */
export interface UnknownOutcomeCounts {
  /** Orders whose placement outcome was unknown. */
  readonly unknownOutcomes: number;
  /** Signed orders re-sent (once each) because the venue did not have them. */
  readonly resends: number;
  /** Unknown orders concluded never to have arrived. */
  readonly concludedNeverArrived: number;
}

/** The executor's parts the resolution of unknown outcomes uses, and its settings. */
export interface UnknownOutcomesOptions {
  /** The executor's tracker: the state of an order, and its transitions as resolved. */
  readonly tracker: Pick<
    OrderTracker,
    'get' | 'markUnknown' | 'markResent' | 'applyVenueOrder' | 'onPlaceOutcome' | 'concludeGone'
  >;
  /** The venue, queried by id. */
  readonly venue: Pick<Venue, 'order'>;
  /** First query after `delayMs` (default 500), doubling, `attempts` queries (default 6). */
  readonly resolve?: { readonly delayMs?: number; readonly attempts?: number };
  /** `venue.place`, counted by the executor while on its way (verifyFlat does not trust an empty listing meanwhile). */
  send(prepared: readonly PreparedOrder[]): Promise<readonly PlaceOutcome[]>;
  /**
   * The venue refused a resend (a definite refusal, not an ambiguous answer), the tracker told already:
   * counted as the refusal of a first send is (a post-only crossing, a SELL balance race, a rejection).
   */
  refused(prepared: PreparedOrder, code: string, message: string): void;
  /** False while placing is paused or halted: no resend then. */
  mayPlace(): boolean;
  /** True once the executor is closed: pending resolutions stop. */
  closed(): boolean;
  /** Sleeps on the executor's clock (ended at once by its close). */
  sleep(ms: number): Promise<void>;
  audit(kind: string, data: unknown): void;
  emitError(where: string, error: unknown): void;
}

/** The executor's resolution of unknown order outcomes (see the module comment). */
export class UnknownOutcomes {
  readonly #o: UnknownOutcomesOptions;
  readonly #resolveDelay: number;
  readonly #resolveAttempts: number;
  readonly #resolving = new Map<OrderId, Promise<void>>();
  readonly #counts = { unknownOutcomes: 0, resends: 0, concludedNeverArrived: 0 };

  constructor(opts: UnknownOutcomesOptions) {
    this.#o = opts;
    this.#resolveDelay = opts.resolve?.delayMs ?? 500;
    this.#resolveAttempts = opts.resolve?.attempts ?? 6;
  }

  /** Counters since start (a live view: read it, do not keep it). */
  get counts(): UnknownOutcomeCounts {
    return this.#counts;
  }

  /** The resolutions in flight (the executor's `idle` waits for them). */
  inFlight(): IterableIterator<Promise<void>> {
    return this.#resolving.values();
  }

  /** An order's placement outcome is unknown: marked so in the tracker (counted), and resolved later. */
  unknown(id: OrderId): void {
    this.#counts.unknownOutcomes++;
    this.#o.tracker.markUnknown(id);
    this.resolveLater(id);
  }

  /** Resolves an unknown order in the background, unless a resolution of it is in flight already. */
  resolveLater(id: OrderId): void {
    if (this.#resolving.has(id)) return;
    const p = this.#resolve(id).finally(() => this.#resolving.delete(id));
    this.#resolving.set(id, p);
  }

  /**
   * Resolve an unknown outcome by id: query; if the venue has it, adopt its state; if not, resend the
   * SAME signed order once (unless a cancel was requested, or placing is paused or halted); after a
   * resend or when resending is not allowed, two consecutive "not found" conclude it never arrived.
   * Query failures leave it unknown (the next cycle of its market tries again).
   */
  async #resolve(id: OrderId): Promise<void> {
    const tracker = this.#o.tracker;
    let notFound = 0;
    for (let attempt = 0; attempt < this.#resolveAttempts; attempt++) {
      await this.#o.sleep(this.#resolveDelay * 2 ** Math.min(attempt, 6));
      if (this.#o.closed()) return;
      let t = tracker.get(id);
      if (t === undefined || t.status !== 'unknown') return;
      let v: VenueOrder | undefined;
      try {
        v = await this.#o.venue.order(id);
      } catch (error) {
        this.#o.emitError('resolve/query', error);
        continue;
      }
      t = tracker.get(id);
      if (t === undefined || t.status !== 'unknown') return;
      if (v !== undefined) {
        tracker.applyVenueOrder(v);
        this.#o.audit('resolved', { id, status: v.status });
        return;
      }
      notFound++;
      const mayResend = !t.resent && t.prepared !== undefined && !t.cancelRequested && this.#o.mayPlace();
      if (mayResend) {
        const prepared = t.prepared!;
        tracker.markResent(id);
        this.#counts.resends++;
        this.#o.audit('resend', { id });
        let outcomes: readonly PlaceOutcome[];
        try {
          outcomes = await this.#o.send([prepared]);
        } catch (error) {
          this.#o.emitError('resolve/resend', error);
          // even a refusal of the resend (a 429) proves nothing of the FIRST copy, whose request
          // was ambiguous and may still land: query again (the order is marked resent, so two more
          // "not found" conclude it never arrived)
          notFound = 0;
          continue;
        }
        const o = outcomes.find((x) => x.id === id);
        if (o?.ok) {
          tracker.onPlaceOutcome(o);
          this.#o.audit('resolved', { id, status: o.status, resent: true });
          return;
        }
        if (o !== undefined && !o.ok && o.code !== 'UNKNOWN' && o.code !== 'INVALID_ORDER_DUPLICATED') {
          tracker.onPlaceOutcome(o);
          this.#o.refused(prepared, o.code, o.message);
          return;
        }
        notFound = 0; // ambiguous again, or a duplicate (so it IS there): query again
        continue;
      }
      if (notFound >= 2) {
        tracker.concludeGone(id);
        this.#counts.concludedNeverArrived++;
        this.#o.audit('never_arrived', { id });
        return;
      }
    }
  }
}
