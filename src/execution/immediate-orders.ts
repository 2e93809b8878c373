/**
 * Immediate orders (FOK/FAK) for the executor (src/execution/executor.ts): the gate's approved
 * orders, each sent once in its market's turn (after a quote change of that market handed before
 * it, before any later one, never during a cycle), recorded in the store before it is sent like every order, audited, and never retried (a
 * failure is reported; an ambiguous outcome is resolved by id, as for quotes).
 *
 * Apart from the executor's quote cycles: immediate orders are no part of the diff of desired quotes
 * against live ones, and are rare; the executor only queues them in the market's turn and runs them
 * there.
 */
import { spendApproval, type Approved } from '../risk/gate.ts';
import type { ConditionId } from '../core/ids.ts';
import type { ImmediateIntent } from '../core/intents.ts';
import type { PlaceOutcome, PreparedOrder, Venue } from '../core/venue.ts';
import type { Store } from '../store/store.ts';
import type { ImmediateStats } from './executor-types.ts';
import { chunks, errorCode, provesNotAccepted, type AppliedOutcomes } from './place-outcomes.ts';
import { recordBeforeSending } from './order-writes.ts';
import type { OrderTracker } from './tracker.ts';
import type { UnknownOutcomes } from './unknown-outcomes.ts';

/** The executor's parts that immediate orders use, and its settings. */
export interface ImmediateOrdersParts {
  readonly venue: Pick<Venue, 'prepare'>;
  readonly store: Pick<Store, 'recordOrders'>;
  readonly tracker: Pick<OrderTracker, 'addPending' | 'markRejected'>;
  /** Where the orders of a send that may have landed go: resolved later by id. */
  readonly unknownOutcomes: Pick<UnknownOutcomes, 'unknown'>;
  /** Orders per venue.place call. */
  readonly maxPlace: number;
  /** The executor's counters: the orders sent are counted there too. */
  readonly stats: { ordersSent: number };
  /** True after cancelAll: nothing is queued any more. */
  halted(): boolean;
  /** False while placing is paused or halted: the orders are skipped then. */
  mayPlace(): boolean;
  /** Queues an order in its market's turn and starts that market's run when none runs. */
  enqueue(order: ImmediateIntent): void;
  /** `venue.place`, counted by the executor while on its way. */
  send(prepared: readonly PreparedOrder[]): Promise<readonly PlaceOutcome[]>;
  /** Runs `fn` with the store writes of its tracker transitions collected into one transaction. */
  batched<T>(fn: () => T): T;
  /** Applies the venue's answers (src/execution/place-outcomes.ts), in one batch of writes. */
  applyOutcomes(prepared: readonly PreparedOrder[], outcomes: readonly PlaceOutcome[]): AppliedOutcomes;
  audit(kind: string, data: unknown): void;
  emitError(where: string, error: unknown): void;
}

/** The executor's immediate orders (see the module comment). */
export class ImmediateOrders {
  readonly #p: ImmediateOrdersParts;
  readonly #stats = { submitted: 0, sent: 0, skipped: 0 };

  constructor(parts: ImmediateOrdersParts) {
    this.#p = parts;
  }

  /**
   * Queues approved immediate orders in their markets' turns (`Executor.execute`).
   * @throws Error when an order was not approved by the gate, or was executed already
   */
  execute(orders: readonly Approved<ImmediateIntent>[]): void {
    for (const o of orders)
      if (!spendApproval(o))
        throw new Error(
          `executor: an immediate order for ${o.market} was not approved by the risk gate (or was executed already)`,
        );
    for (const o of orders) {
      this.#stats.submitted++;
      if (this.#p.halted()) {
        this.#stats.skipped++;
        continue;
      }
      this.#p.enqueue(o);
    }
  }

  /** Sends immediate orders (at most one place request per batch); never retried: a failure is reported. */
  async send(market: ConditionId, orders: readonly ImmediateIntent[]): Promise<void> {
    for (const batch of chunks(orders, this.#p.maxPlace)) {
      if (!this.#p.mayPlace()) {
        this.#stats.skipped += batch.length;
        continue;
      }
      const prepared = this.#p.venue.prepare(
        batch.map((o) => ({ market, tokenId: o.tokenId, side: o.side, price: o.price, size: o.size, type: o.type })),
      );
      // the ids are known: on disk before anything is sent (or not sent: ./order-writes.ts)
      recordBeforeSending(this.#p.store, prepared, (w, e) => this.#p.emitError(w, e));
      for (const p of prepared) this.#p.tracker.addPending(p);
      this.#p.stats.ordersSent += prepared.length;
      this.#stats.sent += prepared.length;
      let outcomes: readonly PlaceOutcome[];
      try {
        outcomes = await this.#p.send(prepared);
      } catch (error) {
        this.#p.batched(() => {
          if (provesNotAccepted(error)) for (const p of prepared) this.#p.tracker.markRejected(p.id, errorCode(error));
          else for (const p of prepared) this.#p.unknownOutcomes.unknown(p.id);
        });
        this.#p.audit('immediate_error', {
          market,
          code: errorCode(error),
          message: error instanceof Error ? error.message : String(error),
        });
        this.#p.emitError(`immediate ${market}`, error);
        continue;
      }
      const r = this.#p.applyOutcomes(prepared, outcomes);
      this.#p.audit('immediate', { market, sent: prepared.length, rejected: r.rejected, unknown: r.unknown });
    }
  }

  /** Immediate orders since start (a copy). */
  stats(): ImmediateStats {
    return { ...this.#stats };
  }
}
