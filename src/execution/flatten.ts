/**
 * The executor's way to flat (src/execution/executor.ts), for shutdown and the kill switch:
 * `cancelAll` halts the executor for good and cancels every open order of ours, then what cycles in
 * flight placed meanwhile; `verifyFlat` queries the venue until none of ours is left, cancelling again
 * what it finds.
 *
 * With `foreignOrders` 'leave', and in a fleet, ours are cancelled by id (the venue's cancel-all
 * would take foreign orders, or another member's, too); otherwise with the venue's cancel-all. An
 * empty listing proves nothing while a place request is on its way: its orders may land after it.
 *
 * Apart from the executor's cycles: it runs once, at the end, and reads the executor only through the
 * parts below (never its quote path, which it stops).
 */
import type { Clock, TimerHandle } from '../core/clock.ts';
import type { OrderId } from '../core/ids.ts';
import type { CancelOutcome, Venue, VenueOrder } from '../core/venue.ts';
import type { FlatReport } from './executor-types.ts';
import type { ForeignOrders } from './foreign-orders.ts';
import type { OrderTracker } from './tracker.ts';

/** The executor's parts that cancelAll and verifyFlat use. */
export interface FlattenParts {
  readonly tracker: Pick<OrderTracker, 'liveOrders' | 'onCancelOutcome' | 'applyVenueOrder' | 'origin'>;
  readonly venue: Pick<Venue, 'cancelAll' | 'openOrders'>;
  /** The foreign-order policy and the fleet; foreign orders listed are queued for its cancels. */
  readonly foreign: Pick<ForeignOrders, 'policy' | 'fleetMarket' | 'queueListedForCancel' | 'takeCancels'>;
  readonly clock: Pick<Clock, 'now' | 'setTimeout' | 'clearTimeout'>;
  /** The executor's counters: the venue's cancel-all request is counted there. */
  readonly stats: { cancelsSent: number };
  /** Halts the executor: queued intents dropped, no place sent from now on. */
  halt(): void;
  /** The executor's cancel by ids (batched; not-canceled ids resolved by querying them). @throws the venue's error. */
  cancelIds(ids: readonly OrderId[]): Promise<CancelOutcome>;
  /** The cycles running now. */
  runningCycles(): Promise<void>[];
  /** Place requests (cycles and resends) on their way now. */
  placing(): number;
  /** Runs `fn` with the store writes of its tracker transitions collected into one transaction. */
  batched<T>(fn: () => T): T;
  /** Sleeps on the executor's clock (ended at once by its close). */
  sleep(ms: number): Promise<void>;
  audit(kind: string, data: unknown): void;
  emitError(where: string, error: unknown): void;
}

/** `Executor.cancelAll`: see there, and the module comment. Never throws. */
export async function cancelAll(p: FlattenParts, reason: string, opts: { settleMs?: number }): Promise<CancelOutcome> {
  p.halt();
  p.audit('cancel_all', { reason });
  const canceled: OrderId[] = [];
  const notCanceled = new Map<OrderId, string>();
  const merge = (o: CancelOutcome): void => {
    canceled.push(...o.canceled);
    for (const [k, v] of o.notCanceled) notCanceled.set(k, v);
  };
  try {
    // in a fleet the venue's cancel-all would take the other members' orders too: by id
    if (p.foreign.policy === 'leave' || p.foreign.fleetMarket !== undefined) {
      const ours = p.tracker.liveOrders().map((o) => o.id);
      if (ours.length > 0) merge(await p.cancelIds(ours));
    } else {
      const out = await p.venue.cancelAll();
      p.stats.cancelsSent++;
      p.batched(() => p.tracker.onCancelOutcome(out));
      merge(out);
    }
  } catch (error) {
    p.emitError('cancelAll', error);
  }
  // a cycle whose place request was already on its way may still land orders: wait for it (not
  // forever: verifyFlat keeps cancelling whatever shows up later), then cancel what it placed
  await cyclesSettled(p, opts.settleMs ?? 1500);
  const rest = p.tracker.liveOrders().map((o) => o.id);
  if (rest.length > 0) {
    try {
      merge(await p.cancelIds(rest));
    } catch (error) {
      p.emitError('cancelAll', error);
    }
  }
  return { canceled, notCanceled };
}

/** `Executor.verifyFlat`: see there, and the module comment. */
export async function verifyFlat(
  p: FlattenParts,
  opts: { timeoutMs?: number; intervalMs?: number },
): Promise<FlatReport> {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const intervalMs = opts.intervalMs ?? 200;
  const start = p.clock.now();
  let queries = 0;
  let open: readonly VenueOrder[] = [];
  for (;;) {
    queries++;
    let ok = false;
    try {
      open = await p.venue.openOrders();
      ok = true;
    } catch (error) {
      p.emitError('verifyFlat', error);
    }
    if (ok && open.length > 0) {
      // the listing shows every order of the wallet: ours, and foreign ones (classified now when new)
      p.batched(() => {
        for (const v of open) p.tracker.applyVenueOrder(v);
      });
      const ours = open.filter((v) => p.tracker.origin(v.id) !== 'foreign');
      if (ours.length < open.length) {
        p.foreign.queueListedForCancel(open);
        open = ours;
      }
    }
    // an empty listing proves nothing while a place request is on its way (a slow POST /orders,
    // or the resend of an order whose outcome was unknown): its orders may land after it. Query
    // again once it has ended, and cancel whatever it placed.
    if (ok && open.length === 0 && p.placing() === 0) {
      const r = { flat: true, open: [], queries, elapsedMs: p.clock.now() - start };
      p.audit('verify_flat', { flat: true, queries, elapsedMs: r.elapsedMs });
      return r;
    }
    if (ok) {
      const ids = open.map((v) => v.id);
      p.foreign.takeCancels(ids);
      try {
        if (ids.length > 0) await p.cancelIds(ids);
      } catch (error) {
        p.emitError('verifyFlat', error);
      }
    }
    const left = start + timeoutMs - p.clock.now();
    if (left <= 0) {
      const r = { flat: false, open, queries, elapsedMs: p.clock.now() - start, placesInFlight: p.placing() };
      p.audit('verify_flat', {
        flat: false,
        queries,
        open: open.map((v) => v.id),
        placesInFlight: p.placing(),
        elapsedMs: r.elapsedMs,
      });
      return r;
    }
    await p.sleep(Math.min(intervalMs, left));
  }
}

/** Wait until no cycle runs, at most `ms` (true when none runs). */
async function cyclesSettled(p: FlattenParts, ms: number): Promise<boolean> {
  const running = (): Promise<void>[] => p.runningCycles();
  let ps = running();
  if (ps.length === 0) return true;
  let timedOut = false;
  let handle: TimerHandle | undefined;
  const timer = new Promise<void>((resolve) => {
    handle = p.clock.setTimeout(() => {
      timedOut = true;
      resolve();
    }, ms);
  });
  while (ps.length > 0 && !timedOut) {
    await Promise.race([Promise.allSettled(ps), timer]);
    ps = running();
  }
  if (handle !== undefined) p.clock.clearTimeout(handle);
  return ps.length === 0;
}
