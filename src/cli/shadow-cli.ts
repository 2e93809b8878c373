/**
 * The `mmkit run` command's shadow side (src/cli/main.ts calls these): the runner of a shadow run
 * (src/cli/run-shadow.ts, loaded only when shadowing) with the `shadow.*` configuration, and the
 * SHADOW line the summary starts with.
 */
import type { Logger } from 'pino';
import { parseAmount } from '../core/units.ts';
import type { MmkitConfig } from './config-schema.ts';
import type { RunConfig } from './run.ts';
import type { ShadowRunSummary } from './run-shadow.ts';
import type { StopSignals } from './stop-signals.ts';

/** A runner with `runBot`'s signature that runs the shadow daemon with `shadow.*`. */
export async function shadowRunner(
  sh: MmkitConfig['shadow'],
): Promise<(cfg: RunConfig, log: Logger, signal?: AbortSignal, stops?: StopSignals) => Promise<ShadowRunSummary>> {
  const { runShadow } = await import('./run-shadow.ts');
  const shadow = {
    queue: sh.queue,
    latencyMs: sh.latencyMs,
    collateral: parseAmount(sh.collateral),
    seed: sh.seed,
  };
  return (cfg, log, signal, stops) => runShadow(cfg, shadow, log, signal, stops);
}

/** The summary's first line: what a shadow run is, and what it did not do. */
export function shadowBanner(s: ShadowRunSummary): string {
  return (
    `SHADOW run: live books, simulated fills (queue ${s.simulated.queue}, latency ${s.simulated.latencyMs} ms, ` +
    `${s.simulated.frames} live frames); orders sent to the venue: ${s.sentToVenue}`
  );
}
