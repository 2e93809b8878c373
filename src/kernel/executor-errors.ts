/**
 * What the bot does with the errors its executor handles itself (Executor.onError): before, nobody
 * listened, so a place request that failed, a cycle retried with backoff or a write of an order to
 * the store that failed was seen only in the debug `execution cycle` line.
 *
 *  - `store` (a write of the bot's orders failed: the prepared rows, whose orders are then not sent,
 *    or an order's transition; or a read of them): the store can no longer keep what the bot does, so
 *    trading stops as on a fill that cannot be written: the kill switch trips with `storeFailure`.
 *    Nothing is ever lost: an order is on disk before it is sent, or it is not sent.
 *  - everything else (a failed cycle, a failed cancel or query, an audit row not written, a listener
 *    that threw): one WARN line, at most one per `where` every `everyMs` (a venue that is down fails
 *    every cycle of every market), the lines held back counted in the next one (`suppressed`).
 *    An audit row is the bot's own diary, not a record it relies on: its failure alone does not stop
 *    trading (on a full disk the next order or fill write trips the switch anyway).
 * Once the switch has tripped, failures of the shutdown's own cycles are not repeated as WARN lines.
 */
import type { Clock } from '../core/clock.ts';
import type { KillTrigger } from '../risk/kill-switch.ts';

/** What the reporter needs: the kill switch, a logger and a clock. */
export interface ExecutorErrorParts {
  readonly kill: { trip(trigger: KillTrigger, message: string): boolean; readonly tripped: boolean };
  readonly log: { warn(obj: object, msg: string): void };
  readonly clock: Pick<Clock, 'now'>;
  /** At most one WARN line per `where` in this window (ms). Default 10 s. */
  readonly everyMs?: number;
}

/** The message of an error, whatever was thrown. */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The listener for Executor.onError (see the module comment). */
export function executorErrorReporter(p: ExecutorErrorParts): (e: { where: string; error: unknown }) => void {
  const everyMs = p.everyMs ?? 10_000;
  const last = new Map<string, { at: number; suppressed: number }>();
  return ({ where, error }) => {
    if (where === 'store') {
      p.kill.trip('storeFailure', `an order could not be stored: ${messageOf(error)}`);
      return;
    }
    if (p.kill.tripped) return;
    const now = p.clock.now();
    const seen = last.get(where);
    if (seen !== undefined && now - seen.at < everyMs) {
      seen.suppressed++;
      return;
    }
    const code = (error as { code?: unknown } | null)?.code;
    p.log.warn(
      {
        where,
        err: messageOf(error),
        ...(typeof code === 'string' ? { code } : {}),
        ...(seen !== undefined && seen.suppressed > 0 ? { suppressed: seen.suppressed } : {}),
      },
      'execution error',
    );
    last.set(where, { at: now, suppressed: 0 });
  };
}
