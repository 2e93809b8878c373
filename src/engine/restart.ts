/**
 * Restart, the engine's half: before any quoting, make local state and the venue agree.
 *
 *  1. Open orders found at the venue are ADOPTED (kept, handed to the engine and the executor's
 *     tracker) or CANCELLED (the default: the strategy re-quotes from scratch) and the venue is
 *     asked again until it shows none (an incomplete cancel aborts the start: never quote on
 *     top of orders nobody tracks).
 *  2. Orders the store believes open but the venue does not list are resolved by id (filled or
 *     cancelled while we were down; or never received, when the process died between persisting
 *     the id and sending it).
 *  3. Fills are backfilled from the venue since the last stored one, minus a margin (the venue
 *     filters on whole seconds; a fill can be recorded late), each recorded once by the store
 *     (keyed by trade and order id, so a replay changes nothing; a later status updates it). The
 *     venue filters trades by MATCH time, so when the store holds a fill whose status is not final
 *     (MATCHED, MINED, RETRYING: it may have turned FAILED or CONFIRMED while we were down), the
 *     backfill starts at the oldest such fill's match time minus the margin instead, but never
 *     earlier than UNSETTLED_LOOKBACK_MAX_MS before the last stored fill.
 *
 * The store is a small interface defined here; the daemon adapts src/store to it. Any failure
 * throws: the engine's `start()` awaits this and does not quote when it rejects.
 */
import type { OrderId } from '../core/ids.ts';
import type { Venue, VenueFill, VenueOrder } from '../core/venue.ts';

/** What the restart needs of the store (sync or async). */
export interface RestartStore {
  /** Orders the store believes open (persisted before sending, not known to be final). */
  openOrders(): Iterable<{ readonly id: string }> | Promise<Iterable<{ readonly id: string }>>;
  /** Records a fill once per (trade id, order id); a later status of the same pair updates it. Returns true when new (optional). */
  recordFill(fill: VenueFill): boolean | void | Promise<boolean | void>;
  /** Match time (unix ms) of the newest stored fill, or undefined when none. */
  lastFillTime(): number | undefined | Promise<number | undefined>;
  /**
   * Match time (unix ms) of the oldest stored fill whose status is not final (not CONFIRMED, not
   * FAILED), or undefined when none. Fills matched before `sinceMs` need not be considered (the
   * backfill would not reach them anyway: the caller clamps whatever is returned). Optional:
   * without it the backfill starts from the last fill only.
   */
  oldestUnsettledFillTime?(sinceMs: number): number | undefined | Promise<number | undefined>;
  /** Records what the venue says of an order (final states of orders missed while down). Optional. */
  updateOrder?(order: VenueOrder): void | Promise<void>;
  /** Marks an order the venue never received (its id was persisted, the request never landed). Optional. */
  markOrderMissing?(id: string): void | Promise<void>;
}

/** Options of `reconcileOnStart`. */
export interface RestartOptions {
  /** What to do with open orders found at the venue (default 'cancel'). */
  policy?: 'cancel' | 'adopt';
  /** Backfill from this long before the last stored fill, ms (default 60 s). */
  marginMs?: number;
  /** Backfill start when the store has no fill yet (unix ms; default 0: the whole history). */
  firstRunSinceMs?: number;
  /** Attempts to see zero open orders after cancelling (default 5), `retryDelayMs` apart (default 300). */
  verifyAttempts?: number;
  retryDelayMs?: number;
  logger?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void };
}

/** What the reconciliation found and did. */
export interface ReconcileReport {
  readonly policy: 'cancel' | 'adopt';
  /** Open orders the venue listed at start. */
  readonly found: readonly VenueOrder[];
  /** Those kept (policy 'adopt'). */
  readonly adopted: readonly VenueOrder[];
  /** Ids cancelled (policy 'cancel'). */
  readonly canceled: readonly OrderId[];
  /** Store-open orders the venue did not list (or that were just cancelled), as the venue resolves them by id now (updated in the store). */
  readonly closed: readonly VenueOrder[];
  /** Store-open orders the venue never received. */
  readonly missing: readonly string[];
  /** Every fill the venue reported since the backfill start (recorded in the store). */
  readonly fills: readonly VenueFill[];
  /** How many of them the store did not have (when its recordFill says). */
  readonly newFills: number;
  /** Backfill start, unix ms. */
  readonly sinceMs: number;
}

/**
 * How far before the newest stored fill an unsettled one may pull the restart backfill back: 7 days.
 * A fill the venue has not settled in a week is left as stored rather than make every restart page
 * through a week of trades.
 */
export const UNSETTLED_LOOKBACK_MAX_MS = 7 * 24 * 60 * 60 * 1000;

/** Thrown when the venue still shows open orders after cancelling them. */
export class ReconcileError extends Error {
  constructor(
    message: string,
    readonly remaining: readonly VenueOrder[],
  ) {
    super(message);
    this.name = 'ReconcileError';
  }
}

/**
 * Reconciles the venue with the store before quoting (see the module comment).
 * @throws ReconcileError when open orders remain after cancelling; whatever the venue or the
 *   store throw (network, auth, I/O): the caller must not quote.
 */
export async function reconcileOnStart(
  venue: Venue,
  store: RestartStore,
  o: RestartOptions = {},
): Promise<ReconcileReport> {
  const policy = o.policy ?? 'cancel';
  const log = o.logger;
  const found = await venue.openOrders();
  let adopted: VenueOrder[] = [];
  const canceled: OrderId[] = [];
  if (policy === 'adopt') {
    adopted = [...found];
  } else if (found.length > 0) {
    const attempts = Math.max(1, o.verifyAttempts ?? 5);
    let remaining: readonly VenueOrder[] = found;
    for (let i = 0; i < attempts && remaining.length > 0; i++) {
      const r = await venue.cancelAll();
      canceled.push(...r.canceled);
      remaining = await venue.openOrders();
      if (remaining.length > 0 && i + 1 < attempts)
        await new Promise<void>((r) => venue.clock.setTimeout(r, o.retryDelayMs ?? 300));
    }
    if (remaining.length > 0)
      throw new ReconcileError(`${remaining.length} order(s) still open at the venue after cancel-all`, remaining);
  }
  const foundIds = new Set<string>(found.map((x) => x.id));

  // orders the store thinks open that the venue does not list
  const closed: VenueOrder[] = [];
  const missing: string[] = [];
  for (const s of await store.openOrders()) {
    if (policy === 'adopt' && foundIds.has(s.id)) {
      await store.updateOrder?.(found.find((x) => x.id === s.id)!);
      continue;
    }
    // not listed, or just cancelled: the venue's final word (a cancel may have raced a fill)
    const v = await venue.order(s.id as OrderId);
    if (v === undefined) {
      missing.push(s.id);
      await store.markOrderMissing?.(s.id);
    } else {
      closed.push(v);
      await store.updateOrder?.(v);
    }
  }

  // backfill
  const marginMs = o.marginMs ?? 60_000;
  const last = await store.lastFillTime();
  let sinceMs = last === undefined ? (o.firstRunSinceMs ?? 0) : Math.max(0, last - marginMs);
  let unsettled: number | undefined;
  if (last !== undefined && store.oldestUnsettledFillTime !== undefined) {
    // a fill matched before the window whose status may have changed while we were down
    const floor = Math.max(0, last - UNSETTLED_LOOKBACK_MAX_MS);
    unsettled = await store.oldestUnsettledFillTime(floor);
    if (unsettled !== undefined) sinceMs = Math.min(sinceMs, Math.max(floor, unsettled - marginMs));
  }
  const { fills, newFills } = await backfillFills(venue, sinceMs, (f) => store.recordFill(f));
  log?.info(
    {
      policy,
      found: found.length,
      adopted: adopted.length,
      canceled: canceled.length,
      closed: closed.length,
      missing: missing.length,
      fills: fills.length,
      newFills,
      sinceMs,
      oldestUnsettled: unsettled,
    },
    'restart reconciliation done',
  );
  return { policy, found, adopted, canceled, closed, missing, fills, newFills, sinceMs };
}

/**
 * The venue's own fills since `sinceMs` (unix ms), oldest first, each handed to `record` (which
 * stores it once per trade and order id and says whether it was new). Used by the start
 * reconciliation, and by the daemon at shutdown: once the engine has stopped, the user channel is
 * closed, so a fill matched between that and the venue's cancel (or one a frozen user channel never
 * delivered) is known only from the venue's trade history.
 * @throws whatever the venue or `record` throw.
 */
export async function backfillFills(
  venue: Pick<Venue, 'fills'>,
  sinceMs: number,
  record: (fill: VenueFill) => boolean | void | Promise<boolean | void>,
): Promise<{ fills: readonly VenueFill[]; newFills: number; fresh: readonly VenueFill[] }> {
  const fills = [...(await venue.fills(sinceMs))].sort((a, b) => a.matchTime - b.matchTime);
  const fresh: VenueFill[] = [];
  for (const f of fills) if ((await record(f)) === true) fresh.push(f);
  return { fills, newFills: fresh.length, fresh };
}
