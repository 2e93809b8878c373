/**
 * The PnL series on the status page's event stream (/api/events), sent once and then only what
 * changed. The snapshot carries the series of the whole run (up to 720 points: hundreds after a
 * few minutes), and resending it every second made an open page pull ~75 KB/s. So each client gets
 * the whole series in its first `status` frame (`pnl.series`, as /api/status has it), and in every
 * later frame, instead of `pnl.series`, a `pnl.seriesUpdate` `{keep, points}`: keep the first `keep`
 * points of the series it holds and append `points`.
 *
 * Why this is exact (./status.ts): the series is the points the monitor kept, plus the current
 * sample as its last point (replaced each second unless it is kept). Its points before the last
 * stay as they are until the series is full and thinned (every other point dropped, the first one
 * kept): then the point at index `keep - 1` is no longer the one the client holds there (its time
 * differs), and the whole series is sent again.
 */
import type { PnlPoint } from './status-snapshot.ts';

/** What a client holds of the series: its length and the times that identify its kept prefix. */
export interface SeriesSent {
  readonly length: number;
  readonly firstT: number | undefined;
  /** Time of the point at index length - 2 (the last one before the current sample). */
  readonly lastKeptT: number | undefined;
}

/** A change of the series for a client that holds an earlier one: keep `keep` points, append `points`. */
export interface SeriesUpdate {
  readonly keep: number;
  readonly points: readonly PnlPoint[];
}

/** What a client holds after receiving `series` (whole, or through an update). */
export function seriesSent(series: readonly PnlPoint[]): SeriesSent {
  return {
    length: series.length,
    firstT: series[0]?.t,
    lastKeptT: series.length >= 2 ? series[series.length - 2]!.t : undefined,
  };
}

/**
 * The update that turns what the client holds into `next`; undefined when it holds nothing yet or
 * the series was thinned since (send `next` whole).
 */
export function seriesUpdate(held: SeriesSent | undefined, next: readonly PnlPoint[]): SeriesUpdate | undefined {
  if (held === undefined || held.length === 0) return undefined;
  const keep = held.length - 1;
  if (keep > next.length) return undefined;
  if (keep > 0 && (next[0]!.t !== held.firstT || next[keep - 1]!.t !== held.lastKeptT)) return undefined;
  return { keep, points: next.slice(keep) };
}
