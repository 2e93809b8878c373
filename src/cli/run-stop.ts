/**
 * Why `mmkit run` stopped, as a type, and the exit code that follows from it (README "Exit codes"):
 *
 *   0  stopped on request (a signal, `mmkit kill`, the end of --duration) with zero open orders seen at the venue
 *   1  orders left open, or the venue could not be checked at exit
 *   3  the kill switch tripped on heartbeats the venue never answered (hung, down: no refusal), flat
 *      at exit: an availability fault, restartable (trial 17 F1)
 *   4  the kill switch tripped on a risk event (loss limit, rejections, heartbeat failures, a fill
 *      that could not be stored, an invariant): the bot stopped itself; also when orders were left open (the summary says how
 *      many): a supervisor must not simply restart it
 */
import type { KillSwitch, KillTrigger } from '../risk/kill-switch.ts';
import { isRiskTrigger } from '../risk/kill-switch.ts';
import { ExitCode } from './exit-codes.ts';
import type { StopSignal, StopSignals } from './stop-signals.ts';

/** Why the daemon stopped. */
export type RunStop =
  | { readonly kind: 'signal'; readonly signal: StopSignal }
  | { readonly kind: 'duration' }
  /** The caller's AbortSignal (runBot's third argument). */
  | { readonly kind: 'abort' }
  | {
      readonly kind: 'killSwitch';
      readonly trigger: KillTrigger;
      readonly message: string;
      /** Heartbeats the venue never answered (TripReason.venueUnavailable). */
      readonly venueUnavailable?: boolean;
    };

/**
 * Resolves with the first of: a stop signal (`stops.first`; one received while starting resolves
 * this at once: the daemon stops as soon as it is started), the caller's `signal` aborting, the kill
 * switch tripping, or `durationMs` passing (0: no end).
 */
export function whenStopped(
  stops: Pick<StopSignals, 'first'>,
  signal: AbortSignal | undefined,
  kill: Pick<KillSwitch, 'onTrip'>,
  durationMs: number,
): Promise<RunStop> {
  return new Promise<RunStop>((res) => {
    stops.first.then((s) => res({ kind: 'signal', signal: s }));
    if (signal?.aborted) res({ kind: 'abort' });
    signal?.addEventListener('abort', () => res({ kind: 'abort' }));
    kill.onTrip((t) =>
      res({
        kind: 'killSwitch',
        trigger: t.trigger,
        message: t.message,
        ...(t.venueUnavailable ? { venueUnavailable: true } : {}),
      }),
    );
    if (durationMs > 0) setTimeout(() => res({ kind: 'duration' }), durationMs).unref();
  });
}

/**
 * The words the summary and the logs print (`SIGTERM`, `duration`, `kill switch: lossLimit: ...`).
 * The trigger 'cli' is any kill through the control API (`mmkit kill`, the status page's button, a
 * `curl` with the token): said as `kill switch over HTTP: <reason>`, not as a command line's.
 */
export function describeStop(s: RunStop): string {
  switch (s.kind) {
    case 'signal':
      return s.signal;
    case 'duration':
    case 'abort':
      return s.kind;
    case 'killSwitch':
      return s.trigger === 'cli' ? `kill switch over HTTP: ${s.message}` : `kill switch: ${s.trigger}: ${s.message}`;
  }
}

/** True when the kill switch stopped the daemon on a risk event (not an operator's `mmkit kill`). */
export function isRiskStop(s: RunStop): boolean {
  return s.kind === 'killSwitch' && isRiskTrigger(s.trigger);
}

/**
 * The exit code of `mmkit run` (see the module comment).
 * @param verifiedFlat the venue was seen with zero open orders of the bot at exit
 */
export function runExitCode(stop: RunStop, verifiedFlat: boolean): ExitCode {
  // a venue that stopped answering (hung, down): an availability fault, restartable once flat (trial 17 F1)
  if (stop.kind === 'killSwitch' && stop.venueUnavailable === true && verifiedFlat) return ExitCode.UNREACHABLE;
  if (isRiskStop(stop)) return ExitCode.RISK_STOP;
  return verifiedFlat ? ExitCode.OK : ExitCode.FAILURE;
}
