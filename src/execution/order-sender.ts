/**
 * One execution cycle of the executor (src/execution/executor.ts): the requests that bring one
 * market's live orders to a desired quote set.
 *
 *   cycle = diff(desired, live orders, tolerance)
 *         ─► cancels first (venue.cancel, batched), awaited
 *         ─► places, ≤ 15 per venue.place call: prepare (sign locally: ids known)
 *            ─► store.recordOrders (BEFORE sending) ─► venue.place ─► tracker + store
 *
 * The executor decides WHEN a market's cycle runs (one at a time per market, the latest intent
 * wins, backoff after a failure); this module decides WHAT it sends, and reads the executor only
 * through the parts below. Its cancel-by-ids is also the executor's way to flat (./flatten.ts) and
 * to cancel foreign orders (./foreign-orders.ts); its `send` is every place request's (quotes,
 * immediate orders, resends of unknown outcomes), counted while on its way.
 */
import type { Clock } from '../core/clock.ts';
import type { ConditionId, OrderId } from '../core/ids.ts';
import type { DesiredQuotes, QuoteIntent } from '../core/intents.ts';
import type { CancelOutcome, PlaceOutcome, PlaceRequest, PreparedOrder, Venue, VenueOrder } from '../core/venue.ts';
import type { Store } from '../store/store.ts';
import { diffQuotes, type DiffTolerance } from './diff.ts';
import type { CycleReport } from './executor-types.ts';
import { chunks, errorCode, provesNotAccepted, type AppliedOutcomes, type PlaceOutcomes } from './place-outcomes.ts';
import { recordBeforeSending } from './order-writes.ts';
import { isOpen, type OrderTracker } from './tracker.ts';
import type { UnknownOutcomes } from './unknown-outcomes.ts';

/** The executor's view of a market's orders: the live ones, without those it is cancelling already. */
const EXCLUDE_CANCELLING = Object.freeze({ excludeCancelling: true });

/** The counts of a cycle's report. */
interface CycleCounts {
  kept: number;
  cancelled: number;
  placed: number;
  skipped: number;
  rejected: number;
  postOnly: number;
  unknown: number;
}

/** A cycle's report: its counts, and the error that ended it early. */
function cycleReport(
  market: ConditionId,
  intentAt: number,
  startedAt: number,
  finishedAt: number,
  n: CycleCounts,
  error?: unknown,
): CycleReport {
  return {
    market,
    intentAt,
    startedAt,
    finishedAt,
    kept: n.kept,
    cancelled: n.cancelled,
    placed: n.placed,
    skipped: n.skipped,
    rejected: n.rejected,
    postOnlyRejected: n.postOnly,
    unknown: n.unknown,
    ...(error !== undefined ? { error } : {}),
  };
}

/** The executor's parts that its cycles use, and its settings. */
export interface OrderSenderParts {
  readonly venue: Pick<Venue, 'prepare' | 'place' | 'cancel' | 'order'>;
  readonly store: Pick<Store, 'recordOrders'>;
  readonly tracker: OrderTracker;
  readonly clock: Pick<Clock, 'now'>;
  readonly tolerance: DiffTolerance;
  /** The market's current tick in pips; undefined → price tolerance 0. */
  readonly tickPips: (market: ConditionId) => number | undefined;
  readonly orderType: 'GTC' | 'GTD';
  readonly postOnly: boolean;
  readonly expiration: ((nowMs: number) => number) | undefined;
  /** Orders per venue.place call; ids per venue.cancel call. */
  readonly maxPlace: number;
  readonly maxCancel: number;
  /** The executor's counters: orders and cancel requests sent are counted there. */
  readonly stats: { ordersSent: number; cancelsSent: number };
  /** Orders whose placement outcome is unknown, resolved from the venue. */
  readonly unknownOutcomes: Pick<UnknownOutcomes, 'unknown' | 'resolveLater'>;
  /** The venue's answers to places (src/execution/place-outcomes.ts). */
  readonly placeOutcomes: Pick<PlaceOutcomes, 'apply'>;
  /** The market's intent queued behind the running cycle, if any (the latest set wins). */
  queued(market: ConditionId): DesiredQuotes | undefined;
  /** False while placing is paused or halted: the rest of a cycle's places are skipped then. */
  mayPlace(): boolean;
  /** Runs `fn` with the store writes of its tracker transitions collected into one transaction. */
  batched<T>(fn: () => T): T;
  audit(kind: string, data: unknown): void;
  emitError(where: string, error: unknown): void;
}

/** The executor's requests: a cycle's cancels and places (see the module comment). */
export class OrderSender {
  readonly #p: OrderSenderParts;
  /** Place requests (cycles, immediate orders, resends) on their way: orders may land until they end. */
  #placing = 0;

  constructor(parts: OrderSenderParts) {
    this.#p = parts;
  }

  /** Place requests on their way now (verifyFlat does not trust an empty listing meanwhile). */
  get placing(): number {
    return this.#placing;
  }

  /** Runs one cycle towards `d`; never throws: an error ends the cycle early and is in its report. */
  async cycle(d: DesiredQuotes): Promise<CycleReport> {
    const p = this.#p;
    const startedAt = p.clock.now();
    const market = d.market;
    // the counts of the report (an object, not a closure over locals: one fewer function per cycle)
    const n: CycleCounts = { kept: 0, cancelled: 0, placed: 0, skipped: 0, rejected: 0, postOnly: 0, unknown: 0 };
    try {
      // orders whose fate is unknown and not being resolved (e.g. resolution ran out): try again
      for (const u of p.tracker.unknownOrders()) if (u.market === market) p.unknownOutcomes.resolveLater(u.id);
      const again = p.tracker.cancellingOrders(market);
      const live = p.tracker.liveOrdersCached(market, EXCLUDE_CANCELLING);
      const diff = diffQuotes(d, live, p.tolerance, p.tickPips(market) ?? 0);
      n.kept = diff.kept.length;
      const cancels = again.length === 0 ? diff.cancels : [...again, ...diff.cancels];
      if (cancels.length > 0) {
        await this.cancelIds(cancels);
        n.cancelled = cancels.length;
      }
      // a newer intent queued while the cancels were out: what it no longer wants is not placed (the
      // latest set wins: a market pulled meanwhile gets nothing); what it still wants goes out now
      const places = cancels.length > 0 ? this.#stillWanted(market, diff.places) : diff.places;
      n.skipped = diff.places.length - places.length;
      if (places.length > 0) {
        const r = await this.#place(market, places);
        n.placed = r.placed;
        n.skipped += r.skipped;
        n.rejected = r.rejected;
        n.postOnly = r.postOnly;
        n.unknown = r.unknown;
      }
      const { kept, cancelled, placed, skipped, rejected, postOnly, unknown } = n;
      if (cancelled + placed + skipped > 0)
        p.audit('cycle', {
          market,
          intentAt: d.at,
          kept,
          cancelled,
          placed,
          skipped,
          rejected,
          ...(postOnly > 0 ? { postOnlyRejected: postOnly } : {}),
          unknown,
        });
      return cycleReport(market, d.at, startedAt, p.clock.now(), n);
    } catch (error) {
      p.audit('cycle_error', {
        market,
        intentAt: d.at,
        code: errorCode(error),
        message: error instanceof Error ? error.message : String(error),
      });
      return cycleReport(market, d.at, startedAt, p.clock.now(), n, error);
    }
  }

  /** Cancel ids in batches; not-canceled ids are resolved by querying them. @throws the venue's error. */
  async cancelIds(ids: readonly OrderId[]): Promise<CancelOutcome> {
    const p = this.#p;
    const canceled: OrderId[] = [];
    const notCanceled = new Map<OrderId, string>();
    for (const batch of chunks(ids, p.maxCancel)) {
      p.tracker.markCancelRequested(batch);
      const out = await p.venue.cancel(batch);
      p.stats.cancelsSent++;
      canceled.push(...out.canceled);
      for (const [k, v] of out.notCanceled) notCanceled.set(k, v);
      const check = p.batched(() => p.tracker.onCancelOutcome(out));
      for (const id of check) {
        const t = p.tracker.get(id);
        if (t === undefined || !isOpen(t.status)) continue;
        let v: VenueOrder | undefined;
        try {
          v = await p.venue.order(id);
        } catch (error) {
          p.emitError('cancel/query', error);
          continue; // still cancelRequested: the next cycle cancels it again
        }
        if (v !== undefined) p.tracker.applyVenueOrder(v);
        else if (t.status === 'live' || t.status === 'partially_filled') p.tracker.concludeGone(id);
        // pending/unknown ones are left to their resolution (which will not resend them)
      }
    }
    return { canceled, notCanceled };
  }

  /** The venue's answers to a place request, applied in one batch of writes (src/execution/place-outcomes.ts). */
  applyOutcomes(prepared: readonly PreparedOrder[], outcomes: readonly PlaceOutcome[]): AppliedOutcomes {
    return this.#p.batched(() => this.#p.placeOutcomes.apply(prepared, outcomes));
  }

  /** `venue.place`, counted while on its way (verifyFlat does not trust an empty listing meanwhile). */
  async send(prepared: readonly PreparedOrder[]): Promise<readonly PlaceOutcome[]> {
    this.#placing++;
    try {
      return await this.#p.venue.place(prepared);
    } finally {
      this.#placing--;
    }
  }

  #request(market: ConditionId, q: QuoteIntent): PlaceRequest {
    const p = this.#p;
    const base: PlaceRequest = {
      market,
      tokenId: q.tokenId,
      side: q.side,
      price: q.price,
      size: q.size,
      type: p.orderType,
    };
    return {
      ...base,
      ...(p.postOnly ? { postOnly: true } : {}),
      ...(p.orderType === 'GTD' && p.expiration !== undefined ? { expiration: p.expiration(p.clock.now()) } : {}),
    };
  }

  /**
   * Of `quotes` (places of a running cycle), those the market's queued intent, when one came in since
   * the cycle began, still wants (the same token, side, price and size): the latest set wins, so a
   * newer one is never overtaken by places it no longer wants (e.g. a market pulled while a cycle's
   * cancels were out). Without a queued intent, all.
   */
  #stillWanted(market: ConditionId, quotes: readonly QuoteIntent[]): readonly QuoteIntent[] {
    const q = this.#p.queued(market);
    if (q === undefined) return quotes;
    return quotes.filter((p) =>
      q.quotes.some((w) => w.tokenId === p.tokenId && w.side === p.side && w.price === p.price && w.size === p.size),
    );
  }

  async #place(
    market: ConditionId,
    quotes: readonly QuoteIntent[],
  ): Promise<{ placed: number; skipped: number; rejected: number; postOnly: number; unknown: number }> {
    const p = this.#p;
    let placed = 0;
    let rejected = 0;
    let postOnly = 0;
    let unknown = 0;
    const batches = chunks(quotes, p.maxPlace);
    let superseded = 0;
    for (let i = 0; i < batches.length; i++) {
      if (!p.mayPlace()) {
        let skipped = superseded;
        for (let j = i; j < batches.length; j++) skipped += batches[j]!.length;
        return { placed, skipped, rejected, postOnly, unknown };
      }
      // (after a batch was sent, a newer intent may have come in: see #stillWanted)
      const batch = i === 0 ? batches[i]! : this.#stillWanted(market, batches[i]!);
      superseded += batches[i]!.length - batch.length;
      if (batch.length === 0) continue;
      const prepared = p.venue.prepare(batch.map((q) => this.#request(market, q)));
      // the ids are known: on disk before anything is sent (or not sent: ./order-writes.ts)
      recordBeforeSending(p.store, prepared, (w, e) => p.emitError(w, e));
      for (const o of prepared) p.tracker.addPending(o);
      let outcomes: readonly PlaceOutcome[];
      try {
        p.stats.ordersSent += prepared.length;
        outcomes = await this.send(prepared);
      } catch (error) {
        p.batched(() => {
          if (provesNotAccepted(error)) {
            for (const o of prepared) p.tracker.markRejected(o.id, errorCode(error));
          } else {
            for (const o of prepared) p.unknownOutcomes.unknown(o.id);
          }
        });
        throw error;
      }
      const r = this.applyOutcomes(prepared, outcomes);
      placed += prepared.length;
      rejected += r.rejected;
      postOnly += r.postOnly;
      unknown += r.unknown;
    }
    return { placed, skipped: superseded, rejected, postOnly, unknown };
  }
}
