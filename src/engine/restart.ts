/**
 * Restart, the engine's half: before any quoting, make local state and the venue agree.
 *
 *  1. Open orders found at the venue are sorted into the bot's OWN (the store recorded them: placed
 *     by an earlier run) and FOREIGN ones (placed by someone else on the same wallet). Own ones
 *     are CANCELLED (`policy` 'cancel', the default: the strategy re-quotes from scratch) or
 *     ADOPTED (kept, handed to the engine and the executor's tracker); foreign ones follow
 *     `foreign`: LEFT alone (the default), CANCELLED, or ADOPTED. Cancels go by id (never the
 *     venue's cancel-all, which would take orders that are to be left), in requests of at most
 *     MAX_CANCEL_IDS, and the venue is asked again until none of those ids is open (an incomplete
 *     cancel aborts the start: never quote on top of orders nobody tracks).
 *  2. Orders the store believes open but the venue does not list are resolved by id (filled or
 *     cancelled while we were down; or never received, when the process died between persisting
 *     the id and sending it).
 *  3. Fills are backfilled from the venue since the last stored one, minus a margin (the venue
 *     filters on whole seconds; a fill can be recorded late), each recorded once by the store
 *     (keyed by trade and order id, so a replay changes nothing; a later status updates it). The
 *     venue filters trades by MATCH time, so when the store holds a fill whose status is not final
 *     (MATCHED, MINED, RETRYING: it may have turned FAILED or CONFIRMED while we were down), the
 *     backfill starts at the oldest such fill's match time minus the margin instead, but never
 *     earlier than UNSETTLED_LOOKBACK_MAX_MS before the last stored fill. A fill of an order the
 *     store does not know is recorded with source 'external' (it is the wallet's, not the bot's),
 *     except, in a fleet, one of an order another member placed (`othersOrder`, `othersOrders`) and
 *     one another member books (`bookExternal`: from outside, on a market outside the fleet's).
 *
 * The store is a small interface defined here; the daemon adapts src/store to it. Any failure
 * throws: the engine's `start()` awaits this and does not quote when it rejects.
 */
import type { OrderId } from '../core/ids.ts';
import { MAX_CANCEL_IDS } from '../core/rate-limits.ts';
import { formatPrice } from '../core/units.ts';
import type { Venue, VenueFill, VenueOrder } from '../core/venue.ts';

/** A fill as the restart records it: the venue's, with whose order it is ('external': not the bot's). */
export type RestartFill = VenueFill & { readonly source?: 'bot' | 'external' };

/** What the restart needs of the store (sync or async). */
export interface RestartStore {
  /** Orders the store believes open (persisted before sending, not known to be final). */
  openOrders():
    | Iterable<{ readonly id: string; readonly createdAt?: number }>
    | Promise<Iterable<{ readonly id: string; readonly createdAt?: number }>>;
  /**
   * True when the store recorded this order id (placed by this bot in any run, or adopted), in any
   * status. Optional: without it, an order is the store's when it is among its open orders.
   */
  knowsOrder?(id: string): boolean | Promise<boolean>;
  /**
   * Records a fill once per (trade id, order id); a later status of the same pair updates it.
   * `source` is 'external' for a fill of an order the store does not know. Returns true when new (optional).
   */
  recordFill(fill: RestartFill): boolean | void | Promise<boolean | void>;
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
  /** What to do with the bot's own open orders found at the venue (default 'cancel'; `bot.restartPolicy`). */
  policy?: 'cancel' | 'adopt';
  /** What to do with open orders the store does not know (default 'leave'; `bot.foreignOrders`). */
  foreign?: 'leave' | 'cancel' | 'adopt';
  /**
   * A fleet member (issue 21): true for an order of another member (on one of its markets). Such
   * an order the store does not know is not foreign: left out of the report (neither left,
   * cancelled nor adopted), and its fills are not recorded (they are in that member's ledger).
   */
  othersOrder?(id: string, market: string): boolean;
  /**
   * A fleet member: of the backfilled fills' orders the store does not know, the ids other members
   * placed (whatever market they are on), asked once before the fills are recorded. Their fills are
   * not recorded either. @throws when it cannot tell (the start fails: no fill is booked wrongly)
   */
  othersOrders?(ids: readonly string[]): Promise<ReadonlySet<string>>;
  /**
   * In a fleet: whether this member books a fill it would book as external (false: another member's
   * ledger has it, e.g. a fill from outside on a market outside the fleet's that another member
   * claimed). Absent: every one is booked.
   * @throws when it cannot be told (the reconciliation fails: nothing is booked twice)
   */
  bookExternal?(fill: VenueFill): Promise<boolean>;
  /**
   * The current ledger epoch's start (unix ms). A store-open order recorded before it belongs to an
   * earlier epoch (another venue, world or account: e.g. a paper world gone with its in-process
   * exchange); the venue not knowing it is counted `previousEpoch`, not `neverReceived` (it was
   * received, by a venue that is gone). Absent: every such order is `neverReceived`.
   */
  epochStartedAt?: number;
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
  readonly foreignPolicy: 'leave' | 'cancel' | 'adopt';
  /** Open orders the venue listed at start. */
  readonly found: readonly VenueOrder[];
  /** Of those, the ones the store does not know (placed by someone else on the wallet). */
  readonly foreign: readonly VenueOrder[];
  /** Those kept as the bot's (own ones with policy 'adopt', foreign ones with foreign 'adopt'). */
  readonly adopted: readonly VenueOrder[];
  /** Foreign orders left alone (foreign 'leave'). */
  readonly left: readonly VenueOrder[];
  /** Ids cancelled (own ones with policy 'cancel', foreign ones with foreign 'cancel'). */
  readonly canceled: readonly OrderId[];
  /** Store-open orders the venue did not list (or that were just cancelled), as the venue resolves them by id now (updated in the store). */
  readonly closed: readonly VenueOrder[];
  /** Store-open orders the venue never received. */
  readonly missing: readonly string[];
  /** Every fill the venue reported since the backfill start (recorded in the store). */
  readonly fills: readonly VenueFill[];
  /** Of those, the fills of orders the store does not know (recorded with source 'external'), as keys `${tradeId}|${orderId}`. */
  readonly externalFills: ReadonlySet<string>;
  /** How many of them the store did not have (when its recordFill says). */
  readonly newFills: number;
  /** Those fills, oldest first: made while the bot was down (each is logged by the kernel). */
  readonly freshFills: readonly VenueFill[];
  /** Backfill start, unix ms. */
  readonly sinceMs: number;
}

/**
 * How far before the newest stored fill an unsettled one may pull the restart backfill back: 7 days.
 * A fill the venue has not settled in a week is left as stored rather than make every restart page
 * through a week of trades.
 */
export const UNSETTLED_LOOKBACK_MAX_MS = 7 * 24 * 60 * 60 * 1000;

/** Thrown when the venue still shows open orders it was asked to cancel. */
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
  const foreignPolicy = o.foreign ?? 'leave';
  const log = o.logger;
  const found = await venue.openOrders();
  const storeOpen = [...(await store.openOrders())];
  const openIds = new Set(storeOpen.map((x) => x.id));
  const known = async (id: string): Promise<boolean> =>
    openIds.has(id) || (store.knowsOrder !== undefined && (await store.knowsOrder(id)));
  const own: VenueOrder[] = [];
  const foreign: VenueOrder[] = [];
  for (const v of found) {
    if (await known(v.id)) own.push(v);
    else if (o.othersOrder?.(v.id, v.market) !== true) foreign.push(v);
  }
  const adopted: VenueOrder[] = [...(policy === 'adopt' ? own : []), ...(foreignPolicy === 'adopt' ? foreign : [])];
  const left = foreignPolicy === 'leave' ? foreign : [];
  const toCancel = [...(policy === 'cancel' ? own : []), ...(foreignPolicy === 'cancel' ? foreign : [])];
  const canceled: OrderId[] = [];
  if (toCancel.length > 0) {
    const attempts = Math.max(1, o.verifyAttempts ?? 5);
    const want = new Set<string>(toCancel.map((x) => x.id));
    const done = new Set<string>();
    let remaining: readonly VenueOrder[] = toCancel;
    for (let i = 0; i < attempts && remaining.length > 0; i++) {
      const ids = remaining.map((x) => x.id);
      for (let k = 0; k < ids.length; k += MAX_CANCEL_IDS) {
        const r = await venue.cancel(ids.slice(k, k + MAX_CANCEL_IDS));
        for (const id of r.canceled) {
          if (!want.has(id) || done.has(id)) continue;
          done.add(id);
          canceled.push(id);
        }
      }
      // what should be gone is gone: none of those ids is listed open any more
      remaining = (await venue.openOrders()).filter((x) => want.has(x.id));
      if (remaining.length > 0 && i + 1 < attempts)
        await new Promise<void>((r) => venue.clock.setTimeout(r, o.retryDelayMs ?? 300));
    }
    if (remaining.length > 0)
      throw new ReconcileError(`${remaining.length} order(s) still open at the venue after cancelling them`, remaining);
  }
  // one line at start that says what it likely means: another daemon (another data dir, same wallet)
  // or a manual client trades this account; the per-order lines come later only for orders seen
  // while running
  if (foreign.length > 0) {
    const markets = [...new Set(foreign.map((x) => x.market))];
    log?.warn(
      {
        foreign: foreign.length,
        policy: foreignPolicy,
        markets: markets.length,
        marketIds: markets.slice(0, 20),
        orders: foreign
          .slice(0, 20)
          .map((x) => ({ id: x.id, market: x.market, side: x.side, price: formatPrice(x.price) })),
      },
      `${foreign.length} open order(s) on this account in ${markets.length} market(s) were not placed from this ` +
        'data dir: another daemon or client may be trading this wallet (bot.foreignOrders ' +
        (foreignPolicy === 'leave'
          ? 'leave: left alone)'
          : foreignPolicy === 'cancel'
            ? 'cancel: cancelled)'
            : 'adopt: adopted as the bot’s own)'),
    );
  }
  const foundIds = new Set<string>(found.map((x) => x.id));

  // orders the store thinks open that the venue does not list
  const closed: VenueOrder[] = [];
  const missing: string[] = [];
  let previousEpoch = 0;
  const epochStart = o.epochStartedAt;
  for (const s of storeOpen) {
    if (policy === 'adopt' && foundIds.has(s.id)) {
      await store.updateOrder?.(found.find((x) => x.id === s.id)!);
      continue;
    }
    // not listed, or just cancelled: the venue's final word (a cancel may have raced a fill)
    const v = await venue.order(s.id as OrderId);
    if (v === undefined) {
      if (epochStart !== undefined && s.createdAt !== undefined && s.createdAt < epochStart) previousEpoch++;
      else missing.push(s.id);
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
  // a fill of an order the store does not know is the wallet's, not the bot's
  const externalFills = new Set<string>();
  let members: ReadonlySet<string> = new Set();
  const { fills, newFills, fresh } = await backfillFills(
    venue,
    sinceMs,
    async (f) => {
      if (await known(f.orderId)) return store.recordFill(f);
      if (o.othersOrder?.(f.orderId, f.market) === true || members.has(f.orderId)) return false;
      if (o.bookExternal !== undefined && !(await o.bookExternal(f))) return false;
      externalFills.add(`${f.tradeId}|${f.orderId}`);
      return store.recordFill({ ...f, source: 'external' });
    },
    async (all) => {
      if (o.othersOrders === undefined) return;
      const unknown: string[] = [];
      for (const f of all) if (!(await known(f.orderId))) unknown.push(f.orderId);
      if (unknown.length > 0) members = await o.othersOrders(unknown);
    },
  );
  log?.info(
    {
      policy,
      foreignPolicy,
      found: found.length,
      foreign: foreign.length,
      left: left.length,
      adopted: adopted.length,
      canceled: canceled.length,
      // store-open orders the venue had closed meanwhile (filled, cancelled: resolved by id) and those it never
      // received; the ones it still listed open are counted once, as `canceled` (or `adopted`), not again here
      closedWhileDown: closed.filter((x) => !foundIds.has(x.id)).length,
      neverReceived: missing.length,
      // store-open orders of an earlier ledger epoch (a venue, world or account gone): closed with it
      previousEpoch,
      fills: fills.length,
      externalFills: externalFills.size,
      newFills,
      // times as ISO 8601 (UTC), never raw epoch ms; 'none' on a first start (no fill stored, no start given):
      // the whole history, not a backfill from 1970
      backfillSince: sinceMs > 0 ? new Date(sinceMs).toISOString() : 'none',
      ...(unsettled !== undefined ? { oldestUnsettled: new Date(unsettled).toISOString() } : {}),
    },
    'restart reconciliation done',
  );
  return {
    policy,
    foreignPolicy,
    found,
    foreign,
    adopted,
    left,
    canceled,
    closed,
    missing,
    fills,
    externalFills,
    newFills,
    freshFills: fresh,
    sinceMs,
  };
}

/**
 * The venue's own fills since `sinceMs` (unix ms), oldest first, each handed to `record` (which
 * stores it once per trade and order id and says whether it was new); `before` sees them all first. Used by the start
 * reconciliation, and by the daemon at shutdown: once the engine has stopped, the user channel is
 * closed, so a fill matched between that and the venue's cancel (or one a frozen user channel never
 * delivered) is known only from the venue's trade history.
 * @throws whatever the venue or `record` throw.
 */
export async function backfillFills(
  venue: Pick<Venue, 'fills'>,
  sinceMs: number,
  record: (fill: VenueFill) => boolean | void | Promise<boolean | void>,
  before?: (fills: readonly VenueFill[]) => Promise<void>,
): Promise<{ fills: readonly VenueFill[]; newFills: number; fresh: readonly VenueFill[] }> {
  const fills = [...(await venue.fills(sinceMs))].sort((a, b) => a.matchTime - b.matchTime);
  await before?.(fills);
  const fresh: VenueFill[] = [];
  for (const f of fills) if ((await record(f)) === true) fresh.push(f);
  return { fills, newFills: fresh.length, fresh };
}
