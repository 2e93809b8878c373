/**
 * A rate-limited log: per kind (the caller's key: a code, a market, a failing part), the first 10
 * occurrences are logged, then every 1000th with its count (`occurrences`, on every line past the
 * tenth). A failure repeated on every event of a backtest (~200,000 of them) or a quote the gate
 * cuts on every re-quote then costs a map update, not a log line each, and the log still shows
 * that it goes on and how often.
 *
 * Two policies, one counter (they were two copies of it: the engine loop's `#log` and the kernel's
 * gate log):
 * - the engine loop (src/engine/loop.ts): warnings and errors past the limit are dropped; its info
 *   lines (ready, quoting resumes) are rare and all logged (`alwaysInfo`);
 * - the kernel's gate (src/kernel/gate-path.ts): refusals and trims past the limit are logged at
 *   debug (`others: 'debug'`), so that every one is logged once, at some level.
 *
 * In core: both use it, and it does no I/O (the logger is handed in with each line, so one counter
 * serves a logger per market).
 */

/** One method of a structured logger (pino's fit). */
type LogMethod = (obj: object, msg?: string) => void;

/** The logger a line goes to (pino's Logger fits; a missing `error` falls back to `warn`, then `info`). */
export interface RateLimitedLogger {
  debug?: LogMethod;
  info: LogMethod;
  warn?: LogMethod;
  error?: LogMethod;
}

/** The level of a rate-limited line. */
export type RateLimitedLevel = 'info' | 'warn' | 'error';

/** The policy of a RateLimitedLog. */
export interface RateLimitPolicy {
  /** An occurrence past the limit: logged at debug (every one logged once) or dropped. */
  readonly others: 'debug' | 'drop';
  /** Info lines are never limited (counted all the same: `occurrences` past the first 10). Default false. */
  readonly alwaysInfo?: boolean;
}

/** Occurrences of a kind logged in full before the limit applies. */
const FIRST = 10;
/** Past the first ones, every this many-th occurrence is logged in full. */
const EVERY = 1000;

/** Counts lines by kind and logs them under a RateLimitPolicy (see the module comment). */
export class RateLimitedLog {
  readonly #count = new Map<string, number>();
  readonly #debug: boolean;
  readonly #alwaysInfo: boolean;

  constructor(policy: RateLimitPolicy) {
    this.#debug = policy.others === 'debug';
    this.#alwaysInfo = policy.alwaysInfo === true;
  }

  /**
   * Counts one line of `kind` and logs it, at `level` while within the limit, else as the policy
   * says. `obj` is passed on as it is up to the 10th; past it, a copy with `occurrences` (the count).
   */
  log(l: RateLimitedLogger, level: RateLimitedLevel, kind: string, obj: object, msg: string): void {
    const n = (this.#count.get(kind) ?? 0) + 1;
    this.#count.set(kind, n);
    if (n <= FIRST || n % EVERY === 0 || (this.#alwaysInfo && level === 'info')) {
      const fn = level === 'error' ? (l.error ?? l.warn ?? l.info) : level === 'warn' ? (l.warn ?? l.info) : l.info;
      fn.call(l, n > FIRST ? { ...obj, occurrences: n } : obj, msg);
    } else if (this.#debug && l.debug !== undefined) l.debug({ ...obj, occurrences: n }, msg);
  }

  /** How many lines of `kind` were counted (0 when none). */
  count(kind: string): number {
    return this.#count.get(kind) ?? 0;
  }
}
