/**
 * Order and cancel round trips to the venue, as the daemon measured them: from an HTTP attempt's
 * departure (its budget admitted it) to its whole answer (the transport's `onAnswer`). They are
 * what a backtest's `--latency-ms` stands for: the one-way latency of orders and cancels is about
 * half a round trip (the round trip also holds the venue's own time).
 *
 * Each kind keeps its count and its last WINDOW round trips, of which the median, the 90th
 * percentile and the slowest are reported (`/api/status` `orders.roundTrips`, `mmkit status`, the
 * exit summary); `/metrics` has them as a histogram (`mmkit_order_round_trip_seconds{op}`).
 */

/** The venue requests measured: placing orders, and cancelling them. */
export type RoundTripOp = 'place' | 'cancel';

/** The figures of one kind of request; times in ms (2 decimals), over the last `window` answers. */
export interface RoundTripFigures {
  /** Answers measured since the start. */
  readonly count: number;
  /** How many of the last ones the times below are of. */
  readonly window: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly maxMs: number;
}

/** Both kinds; null: no such request was answered yet. */
export interface RoundTripStatus {
  readonly place: RoundTripFigures | null;
  readonly cancel: RoundTripFigures | null;
}

/** How many of the last round trips of each kind the figures are of. */
export const ROUND_TRIP_WINDOW = 1024;

/**
 * Which kind of order request a CLOB request is: `POST /order` and `/orders` place;
 * `DELETE /order`, `/orders`, `/cancel-all` and `/cancel-market-orders` cancel; anything else is none.
 */
export function roundTripOp(api: string, method: string, path: string): RoundTripOp | undefined {
  if (api !== 'clob') return undefined;
  const p = path.split('?')[0];
  if (method === 'POST') return p === '/order' || p === '/orders' ? 'place' : undefined;
  if (method === 'DELETE')
    return p === '/order' || p === '/orders' || p === '/cancel-all' || p === '/cancel-market-orders'
      ? 'cancel'
      : undefined;
  return undefined;
}

class Ring {
  readonly #v = new Float64Array(ROUND_TRIP_WINDOW);
  count = 0;

  add(ms: number): void {
    this.#v[this.count % ROUND_TRIP_WINDOW] = ms;
    this.count++;
  }

  figures(): RoundTripFigures | null {
    const n = Math.min(this.count, ROUND_TRIP_WINDOW);
    if (n === 0) return null;
    const s = this.#v.slice(0, n).sort();
    // nearest rank: the smallest value with at least q of the values at or below it
    const at = (q: number) => round2(s[Math.max(0, Math.ceil(q * n) - 1)]!);
    return { count: this.count, window: n, p50Ms: at(0.5), p90Ms: at(0.9), maxMs: round2(s[n - 1]!) };
  }
}

const round2 = (ms: number) => Math.round(ms * 100) / 100;

/** The round trips of the daemon's order requests (see the module comment). */
export class RoundTrips {
  readonly #rings: Record<RoundTripOp, Ring> = { place: new Ring(), cancel: new Ring() };

  /** One answered request of this kind, `ms` after it left; a negative or non-finite time is ignored. */
  add(op: RoundTripOp, ms: number): void {
    if (Number.isFinite(ms) && ms >= 0) this.#rings[op].add(ms);
  }

  status(): RoundTripStatus {
    return { place: this.#rings.place.figures(), cancel: this.#rings.cancel.figures() };
  }
}

/** One line of text: `place 2.1 ms median (p90 3.4, max 9.0; 39 answers)`, per kind; `none yet` without any. */
export function roundTripsText(s: RoundTripStatus): string {
  const one = (op: RoundTripOp, f: RoundTripFigures | null) =>
    f === null
      ? undefined
      : `${op} ${f.p50Ms} ms median (p90 ${f.p90Ms}, max ${f.maxMs}; ${f.count} answer${f.count === 1 ? '' : 's'}${f.window < f.count ? `, the last ${f.window}` : ''})`;
  const parts = [one('place', s.place), one('cancel', s.cancel)].filter((x) => x !== undefined);
  return parts.length > 0 ? parts.join('; ') : 'none yet';
}
