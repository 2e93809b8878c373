/**
 * The kill switch: a one-way state machine, ARMED → TRIPPED. Once tripped it stays tripped for the
 * life of the process (fail closed): the gate refuses every quote and order, and nothing re-arms it
 * short of a restart, which reconciles before quoting again.
 *
 * Triggers:
 *  - `signal`           SIGINT/SIGTERM/SIGHUP (the daemon calls `trip('signal', ...)`);
 *  - `cli`              an operator command (`mmkit kill`, the status page);
 *  - `lossLimit`        realized + unrealized PnL below -maxLoss, or the UTC day's PnL (now less its
 *                       value at the day's open) below -maxDailyLoss (`recordPnl`);
 *  - `rejections`       maxRejections order rejections within rejectionWindowMs (`recordRejection`);
 *  - `heartbeatFailure` maxHeartbeatFailures consecutive failed heartbeats (`recordHeartbeat`);
 *  - `storeFailure`     a fill, an order (before it is sent: then it is not sent), an order's
 *                       outcome or a ledger entry (a position adjustment, a merge or redemption)
 *                       that could not be written to the store (disk full, I/O error; the orders:
 *                       src/kernel/executor-errors.ts), or
 *                       the store file deleted or replaced under the running daemon: the positions
 *                       and orders are no longer known for sure (src/kernel/create-trader.ts);
 *  - `manual`           anything else a component decides is fatal (an invariant, a reconciliation
 *                       that cannot be completed).
 *
 * CONTRACT with the engine (which owns the venue): subscribe with `onTrip` at start. A listener is
 * called synchronously, once, on the trip (or at once when subscribing to a switch that has already
 * tripped). The engine must then: stop handing intents to execution (the gate already refuses them
 * all), drop queued places, cancel the bot's orders (the executor's `cancelAll`: by id, or the
 * venue's cancel-all when `bot.foreignOrders` is not 'leave'), then poll `venue.openOrders()` until
 * none of them is left (re-issuing cancels for what is left) and log/emit the result: zero open
 * orders of the bot within 2 s is the target. After a `signal` or `cli` trip it exits normally once verified; after the others it stays
 * up without quoting (so the operator sees why) or exits, per the daemon's policy.
 *
 * Time comes from the injected clock; nothing here reads the wall clock.
 */
import type { Clock } from '../core/clock.ts';
import { formatAmount } from '../core/units.ts';
import type { KillSwitchLimits } from './limits.ts';
import { DEFAULT_RISK_LIMITS } from './limits.ts';

/** What tripped the switch. */
export type KillTrigger =
  | 'signal'
  | 'cli'
  | 'lossLimit'
  | 'rejections'
  | 'heartbeatFailure'
  | 'storeFailure'
  | 'manual';

/**
 * True when a trip is a risk event (a loss limit, rejections, heartbeat failures, a store that
 * could not take a fill, an invariant):
 * the bot stopped itself; false for a stop an operator asked for (a signal, `mmkit kill`, the
 * status page). `mmkit run` exits 4 after a risk trip (README "Exit codes"), so a supervisor can
 * tell the two apart. Exhaustive: a new trigger must be classified here.
 */
export function isRiskTrigger(trigger: KillTrigger): boolean {
  switch (trigger) {
    case 'signal':
    case 'cli':
      return false;
    case 'lossLimit':
    case 'rejections':
    case 'heartbeatFailure':
    case 'storeFailure':
    case 'manual':
      return true;
    default: {
      const unknown: never = trigger;
      return unknown;
    }
  }
}

/** Why and when the switch tripped. */
export interface TripReason {
  readonly trigger: KillTrigger;
  readonly message: string;
  /** Clock time of the trip, unix ms. */
  readonly at: number;
  /**
   * `heartbeatFailure` only: every failed heartbeat went unanswered or the venue was unavailable (no
   * refusal): an availability fault, not a risk breach (`mmkit run` exits 3 then when flat: trial 17 F1).
   */
  readonly venueUnavailable?: true;
}

/** What the gate reads of the switch. */
export interface KillSwitchState {
  readonly tripped: boolean;
  readonly reason: TripReason | null;
}

/** Called once when the switch trips (see the engine contract in the module comment). */
export type TripListener = (reason: TripReason) => void;

/** Options of `new KillSwitch(clock, options)`. */
export interface KillSwitchOptions {
  /** Thresholds (default: DEFAULT_RISK_LIMITS.killSwitch). */
  readonly limits?: KillSwitchLimits;
  /** Called with an error a listener threw (the other listeners still run, the switch stays tripped). */
  readonly onListenerError?: (err: unknown, reason: TripReason) => void;
  /**
   * The day's open for maxDailyLoss: the PnL `date`'s first complete reading (given as `pnl`) or, when
   * the day was opened before (by this process or an earlier one: the store keeps it), that reading;
   * answers it. Without `pnl` (an incomplete reading), only reads it: undefined when the day has not
   * opened. Default: kept in memory.
   */
  readonly dayOpen?: (date: string, pnl?: number) => number | undefined;
}

/** The UTC date of `ms`, `YYYY-MM-DD` (the day of maxDailyLoss). */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The day's PnL maxDailyLoss judges: the UTC date, its open and the PnL since, µ. */
export interface DayPnl {
  readonly date: string;
  readonly open: number;
  readonly pnl: number;
}

/** The kill switch (see the module comment). */
export class KillSwitch implements KillSwitchState {
  private readonly limits: KillSwitchLimits;
  private readonly onListenerError: ((err: unknown, reason: TripReason) => void) | undefined;
  private readonly listeners = new Set<TripListener>();
  private why: TripReason | null = null;
  private pnl: number | undefined;
  private pnlComplete: number | undefined;
  private dayComplete: DayPnl | undefined;
  private readonly dayOpen: (date: string, pnl?: number) => number | undefined;
  /** The current day's open (asked of `dayOpen` once per date). */
  private day: { date: string; open: number } | undefined;
  private dayNow: DayPnl | undefined;
  /** Times of recent rejections (unix ms), oldest first. */
  private rejections: number[] = [];
  private heartbeatFailures = 0;
  /** A failure since the last success was a refusal (not the venue's availability). */
  private heartbeatRefused = false;

  constructor(
    private readonly clock: Pick<Clock, 'now'>,
    options: KillSwitchOptions = {},
  ) {
    this.limits = options.limits ?? DEFAULT_RISK_LIMITS.killSwitch;
    this.onListenerError = options.onListenerError;
    if (options.dayOpen !== undefined) this.dayOpen = options.dayOpen;
    else {
      const opens = new Map<string, number>();
      this.dayOpen = (date, pnl) => {
        if (pnl !== undefined && !opens.has(date)) opens.set(date, pnl);
        return opens.get(date);
      };
    }
  }

  /** The UTC day's PnL at the last `recordPnl` once its day opened (maxDailyLoss on), else undefined. */
  get dailyPnl(): DayPnl | undefined {
    return this.dayNow;
  }

  /** The daily loss limit, µ (0: off). */
  get maxDailyLoss(): number {
    return this.limits.maxDailyLoss;
  }

  /** True once tripped; never false again. */
  /** The last PnL fed to `recordPnl` (realized + unrealized, µ), undefined before the first. */
  get lastPnl(): number | undefined {
    return this.pnl;
  }

  /**
   * The last PnL of a complete reading (every held position marked: `recordPnl`'s `complete`), and
   * the UTC day's PnL at it; undefined before the first. What a fleet member writes for the fleet's
   * sums (trial 22 F2: an incomplete reading, its unrealized part missing, understated a loss there).
   */
  get lastCompletePnl(): number | undefined {
    return this.pnlComplete;
  }
  get completeDailyPnl(): DayPnl | undefined {
    return this.dayComplete;
  }

  get tripped(): boolean {
    return this.why !== null;
  }

  /** Why it tripped (the first trip), or null while armed. */
  get reason(): TripReason | null {
    return this.why;
  }

  /**
   * Trips the switch. Only the first trip counts (its reason is kept, listeners run once); later
   * calls are no-ops that return false.
   * @returns true when this call tripped it
   */
  trip(trigger: KillTrigger, message: string = trigger): boolean {
    return this.tripWith(trigger, message, false);
  }

  private tripWith(trigger: KillTrigger, message: string, venueUnavailable: boolean): boolean {
    if (this.why !== null) return false;
    const reason: TripReason = Object.freeze({
      trigger,
      message,
      at: this.clock.now(),
      ...(venueUnavailable ? { venueUnavailable: true as const } : {}),
    });
    this.why = reason;
    for (const l of [...this.listeners]) this.call(l, reason);
    this.listeners.clear();
    return true;
  }

  /**
   * Subscribes to the trip. Called once, synchronously, when the switch trips; called immediately
   * when it has already tripped. Returns the unsubscribe function.
   */
  onTrip(listener: TripListener): () => void {
    if (this.why !== null) {
      this.call(listener, this.why);
      return () => {};
    }
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /**
   * Feeds the current PnL (micro-collateral, signed). Trips `lossLimit` when realized + unrealized
   * is below -maxLoss (maxLoss 0 disables), or when it fell by more than maxDailyLoss since the UTC
   * day's open (0 disables; the day opens at its first complete reading).
   * @param realized realized PnL net of fees
   * @param fees the fees inside `realized` (for the message only: realized is said before them)
   * @param complete every held position that should be marked is (false: a position is unmarked for
   *   now, or the start has not reconciled yet, so the reading may not open a day; it is still judged
   *   against a day opened before, by this process or, after a restart the same day, the store's)
   * @returns whether the switch is tripped afterwards
   */
  recordPnl(realized: number, unrealized: number, fees = 0, complete = true): boolean {
    const total = realized + unrealized;
    if (!Number.isFinite(total)) return this.tripped;
    this.pnl = total;
    // to the micro, as every other surface says them
    const usd = (m: number): string => formatAmount(Math.round(m));
    if (this.limits.maxLoss > 0 && total < -this.limits.maxLoss) {
      const parts = [
        `realized ${usd(realized + fees)}`,
        ...(fees !== 0 ? [`fees ${usd(fees)}`] : []),
        `unrealized ${usd(unrealized)}`,
      ];
      this.trip('lossLimit', `PnL ${usd(total)} below -${usd(this.limits.maxLoss)} (${parts.join(', ')})`);
    }
    const day = this.limits.maxDailyLoss > 0 ? this.openDay(Math.round(total), complete) : undefined;
    this.dayNow = undefined;
    if (day !== undefined) {
      this.dayNow = { date: day.date, open: day.open, pnl: total - day.open };
      if (total - day.open < -this.limits.maxDailyLoss)
        this.trip(
          'lossLimit',
          `PnL of the day ${usd(total - day.open)} below -${usd(this.limits.maxDailyLoss)} (UTC ${day.date}: ${usd(day.open)} at its open, ${usd(total)} now); a start before 00:00 UTC stops again`,
        );
    }
    if (complete) {
      this.pnlComplete = total;
      this.dayComplete = this.dayNow;
    }
    return this.tripped;
  }

  /**
   * The current UTC day's open: the one known (this process's, or the store's after a restart), else,
   * on a complete reading, `total` (the day opens at it); undefined while it cannot open.
   */
  private openDay(total: number, complete: boolean): { date: string; open: number } | undefined {
    const date = utcDate(this.clock.now());
    if (this.day?.date === date) return this.day;
    let open: number | undefined;
    try {
      // an incomplete reading opens no day, but a day opened before (a restart the same day) is judged
      open = complete ? (this.dayOpen(date, total) ?? total) : this.dayOpen(date);
    } catch (e) {
      // the store could not keep it: a restart would not know the day's open (nor, likely, the fills)
      this.trip('storeFailure', `the day's open PnL could not be kept: ${(e as Error).message}`);
      return undefined;
    }
    if (open === undefined) return undefined;
    this.day = { date, open };
    return this.day;
  }

  /**
   * Counts an order rejection by the venue (`code`, e.g. INVALID_ORDER_NOT_ENOUGH_BALANCE). Trips
   * `rejections` at maxRejections within rejectionWindowMs (maxRejections 0 disables).
   * @returns whether the switch is tripped afterwards
   */
  recordRejection(code = 'rejected'): boolean {
    if (this.limits.maxRejections <= 0) return this.tripped;
    const now = this.clock.now();
    const from = now - this.limits.rejectionWindowMs;
    this.rejections.push(now);
    let drop = 0;
    while (drop < this.rejections.length && this.rejections[drop]! <= from) drop++;
    if (drop > 0) this.rejections = this.rejections.slice(drop);
    if (this.rejections.length >= this.limits.maxRejections) {
      this.trip(
        'rejections',
        `${this.rejections.length} order rejections within ${this.limits.rejectionWindowMs} ms (last: ${code})`,
      );
    }
    return this.tripped;
  }

  /**
   * Records a heartbeat result. Trips `heartbeatFailure` after maxHeartbeatFailures consecutive
   * failures (0 disables); a success resets the count. (Execution separately stops placing after a
   * single failure until a heartbeat succeeds; this is the give-up point.)
   * @param error the last failure's cause (the venue's error), said in the trip reason
   * @param unavailable this failure was the venue's availability (no answer, 5xx...), not a refusal:
   *   when every failure of the run that trips was, the trip says so (`venueUnavailable`)
   * @returns whether the switch is tripped afterwards
   */
  recordHeartbeat(ok: boolean, error?: string, unavailable = false): boolean {
    if (ok) {
      this.heartbeatFailures = 0;
      this.heartbeatRefused = false;
      return this.tripped;
    }
    this.heartbeatFailures++;
    if (!unavailable) this.heartbeatRefused = true;
    if (this.limits.maxHeartbeatFailures > 0 && this.heartbeatFailures >= this.limits.maxHeartbeatFailures) {
      const last = error !== undefined && error !== '' ? ` (last: ${error.slice(0, 300)})` : '';
      this.tripWith(
        'heartbeatFailure',
        `${this.heartbeatFailures} consecutive heartbeat failures${last}`,
        !this.heartbeatRefused,
      );
    }
    return this.tripped;
  }

  private call(l: TripListener, reason: TripReason): void {
    try {
      l(reason);
    } catch (e) {
      this.onListenerError?.(e, reason);
    }
  }
}
