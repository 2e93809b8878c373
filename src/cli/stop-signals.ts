/**
 * SIGINT, SIGTERM and SIGHUP for the daemon: the first one asks for the orderly stop (cancel all,
 * verify zero open orders, exit); every later one is reported and otherwise ignored while the stop runs.
 *
 * Why SIGHUP too: a daemon started by hand from a terminal, tmux or SSH without nohup gets it when
 * the session closes, the commonest signal a hand-started daemon receives. Node's default action
 * ends the process at once: orders left resting (until the venue's dead-man switch, where it has
 * one), no summary, its lock left behind. It is not a reload (the config is read at start only).
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
 *
 * A SIGHUP of a closed terminal leaves the daemon's stdio on a hung-up tty: every write to it fails
 * (EIO), and Node 20 aborts at exit (SIGABRT, a core) when it cannot restore the tty's settings it
 * saved at start (nodejs/node#51519, fixed in later Node versions by nodejs/node#58200). So on SIGHUP
 * each stdio descriptor that was a terminal at start and is no longer one (hung up) is pointed at
 * /dev/null (`detachHungUpTerminal`): the orderly shutdown runs to its exit code; its lines are lost
 * with the terminal (send the logs to a file, or run it under a supervisor, to keep them). A SIGHUP
 * sent by hand with the terminal still open changes nothing of the output.
 */
import { closeSync, openSync } from 'node:fs';
import { isatty } from 'node:tty';

/** The signals that stop the daemon. */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';
const STOP_SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

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

/** The stdio descriptors that were terminals when the handlers were installed. */
const ttysAtStart = (): number[] => [0, 1, 2].filter((fd) => isatty(fd));

/**
 * Points each of `fds` (stdio descriptors that were terminals at start) that is no longer a terminal
 * (its terminal hung up) at /dev/null (see the module comment). Closing the descriptor and opening
 * /dev/null at once gives the lowest free one: the same number (0, 1 and 2 are taken in order).
 * @returns the descriptors replaced
 */
export function detachHungUpTerminal(fds: readonly number[]): number[] {
  const replaced: number[] = [];
  for (const fd of fds) {
    if (isatty(fd)) continue;
    try {
      closeSync(fd);
      const again = openSync('/dev/null', fd === 0 ? 'r' : 'w');
      // (not the same number: a lower descriptor was free; this one is closed, which Node's exit also skips)
      if (again !== fd) closeSync(again);
      replaced.push(fd);
    } catch {
      /* left as it is: the writes fail, the shutdown goes on */
    }
  }
  return replaced;
}

/**
 * Install the handlers (see the module comment).
 * @param proc the process (a fake in unit tests: the terminal's descriptors are then left alone)
 */
export function watchStopSignals(proc: Pick<NodeJS.Process, 'on' | 'off'> = process): StopSignals {
  const ttys = proc === process ? ttysAtStart() : [];
  let received: StopSignal | undefined;
  let resolve!: (s: StopSignal) => void;
  const first = new Promise<StopSignal>((r) => (resolve = r));
  const repeats: Array<(s: StopSignal) => void> = [];
  const handlers = STOP_SIGNALS.map((sig) => {
    const h = () => {
      if (sig === 'SIGHUP' && ttys.length > 0) detachHungUpTerminal(ttys);
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
