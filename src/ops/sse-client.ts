/**
 * What one client of the status page's event stream (/api/events) holds, and the frame that brings
 * it up to date. The snapshot changes every second in its figures (book tops, PnL, uptime), but its
 * bulky parts mostly do not: the PnL series grows by a point (./sse-series.ts), the own quotes stay
 * as they are until the bot replaces them, and the recent fills (up to 50) only get a new one on
 * top now and then. Resending them every second made an open page pull tens of KB/s. So each
 * client gets them whole in its first frame (as /api/status has them), and in every later frame:
 *
 *   - `pnl.seriesUpdate` `{keep, points}` instead of `pnl.series` (./sse-series.ts);
 *   - a market's `quotes` only when they differ from the last ones this client got for that
 *     market (left out otherwise: the client keeps those it holds);
 *   - `fills.recentUpdate` `{keep, add}` instead of `fills.recent`: the recent fills are `add`
 *     followed by the first `keep` of those the client holds (new fills come on top, the oldest
 *     drop off the end). When the list changed otherwise (never, as ./status.ts builds it), it is
 *     sent whole again.
 *
 * A quiet second (no new fill, no quote replaced) thus sends no quote and no fill at all. Each
 * update is checked against what the client holds (compared as JSON), so what it rebuilds is the
 * snapshot's content exactly, whatever the monitor did in between.
 */
import type { FillStatus, QuoteStatus, StatusSnapshot } from './status-snapshot.ts';
import { type SeriesSent, seriesSent, seriesUpdate } from './sse-series.ts';

/** A change of the recent fills: they are `add` followed by the first `keep` of those held. */
export interface RecentFillsUpdate {
  readonly keep: number;
  readonly add: readonly FillStatus[];
}

/**
 * The update that turns the recent fills `held` (newest first) into `next`; undefined when `next`
 * is not new fills on top of a prefix of `held` (send it whole).
 */
export function recentFillsUpdate(
  held: readonly string[] | undefined,
  next: readonly FillStatus[],
  nextJson: readonly string[],
): RecentFillsUpdate | undefined {
  if (held === undefined) return undefined;
  // the smallest number of new fills on top after which `next` goes on as `held` does
  for (let added = 0; added <= next.length; added++) {
    const keep = next.length - added;
    if (keep > held.length) continue;
    let same = true;
    for (let i = 0; i < keep && same; i++) same = nextJson[added + i] === held[i];
    if (same) return { keep, add: next.slice(0, added) };
  }
  return undefined;
}

/** One event-stream client: what it holds of the snapshot's bulky parts. */
export class SseClientView {
  #series: SeriesSent | undefined;
  /** The quotes it holds, per market (as JSON). */
  #quotes = new Map<string, string>();
  /** The recent fills it holds, each as JSON, newest first; undefined: none sent yet. */
  #fills: string[] | undefined;

  /**
   * The snapshot as this client is sent it now (see the module comment), and what it holds after.
   * An error snapshot (`{error}`) goes as it is and changes nothing held.
   */
  frame(s: StatusSnapshot | { error: string }): unknown {
    if (!('schema' in s)) return s;
    let out: Record<string, unknown> = { ...s };
    const series = Array.isArray(s.pnl?.series) ? s.pnl.series : undefined;
    if (series !== undefined) {
      const update = seriesUpdate(this.#series, series);
      this.#series = seriesSent(series);
      if (update !== undefined) {
        const { series: _whole, ...pnl } = s.pnl;
        out = { ...out, pnl: { ...pnl, seriesUpdate: update } };
      }
    }
    if (Array.isArray(s.markets)) {
      const held = new Map<string, string>();
      out.markets = s.markets.map((m) => {
        if (!Array.isArray(m.quotes)) return m;
        const json = JSON.stringify(m.quotes satisfies readonly QuoteStatus[]);
        held.set(m.market, json);
        if (this.#quotes.get(m.market) !== json) return m;
        const { quotes: _same, ...rest } = m;
        return rest;
      });
      this.#quotes = held;
    }
    const recent = Array.isArray(s.fills?.recent) ? s.fills.recent : undefined;
    if (recent !== undefined) {
      const json = recent.map((f) => JSON.stringify(f));
      const update = recentFillsUpdate(this.#fills, recent, json);
      this.#fills = json;
      if (update !== undefined) {
        const { recent: _whole, ...fills } = s.fills;
        out.fills = { ...fills, recentUpdate: update };
      }
    }
    return out;
  }
}
