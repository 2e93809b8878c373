/**
 * SIGINT and SIGTERM for the daemon: the first one asks for the orderly stop (cancel all, verify
 * zero open orders, exit); every later one is reported and otherwise ignored while the stop runs.
 *
 * Why handlers that stay installed (not `process.once`): under `npm start`, Ctrl-C in a terminal
 * sends SIGINT to the whole foreground process group (npm and the daemon) and npm forwards its own
 * SIGINT to the daemon as well, so the daemon gets two at once. With the handler gone after the
 * first, the second would kill it in the middle of cancelling its orders.
 *
 * Why installed first thing: node running as PID 1 (the Docker image) ignores any signal it has no
 * handler for; one sent while the daemon is still starting would be lost, and the daemon would go
 * on to quote until the supervisor's SIGKILL. A signal received during the start is kept: the
 * daemon stops as soon as it is started.
 */

/** The signals that stop the daemon. */
export type StopSignal = 'SIGINT' | 'SIGTERM';
const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM'];

/** The daemon's stop signals (see the module comment). */
export interface StopSignals {
  /** The first signal received, once one was. */
  readonly received: StopSignal | undefined;
  /** Resolves with the first signal. */
  readonly first: Promise<StopSignal>;
  /** `cb` is called with every signal after the first (the stop is under way). */
  onRepeat(cb: (signal: StopSignal) => void): void;
  /** Remove the handlers (the process's default behaviour is back). Idempotent. */
  dispose(): void;
}

/** Install the handlers (see the module comment). */
export function watchStopSignals(proc: Pick<NodeJS.Process, 'on' | 'off'> = process): StopSignals {
  let received: StopSignal | undefined;
  let resolve!: (s: StopSignal) => void;
  const first = new Promise<StopSignal>((r) => (resolve = r));
  const repeats: Array<(s: StopSignal) => void> = [];
  const handlers = STOP_SIGNALS.map((sig) => {
    const h = () => {
      if (received === undefined) {
        received = sig;
        resolve(sig);
      } else for (const cb of repeats) cb(sig);
    };
    proc.on(sig, h);
    return [sig, h] as const;
  });
  let disposed = false;
  return {
    get received() {
      return received;
    },
    first,
    onRepeat(cb) {
      repeats.push(cb);
    },
    dispose() {
      if (disposed) return;
      disposed = true;
      for (const [sig, h] of handlers) proc.off(sig, h);
    },
  };
}
