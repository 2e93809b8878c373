/**
 * Counts by code (the risk gate's refusals and trims, the venue's rejections) and the strategy's
 * first error, as every human-readable output shows them: the backtest's summary, the sweep's notes,
 * `mmkit run`'s exit summary, `mmkit status` and `mmkit strategy check`. One order (most first, ties
 * by code) and one text form (`OFF_TICK x30, PRICE_BAND x2`) so that the same counts read the same
 * wherever an operator meets them. JSON outputs keep their own shapes (objects keyed by code).
 */

/** Counts by code: a record or a map. */
export type CodeCounts = Readonly<Record<string, number>> | ReadonlyMap<string, number>;

const entriesOf = (c: CodeCounts): Array<[string, number]> =>
  c instanceof Map ? [...(c as ReadonlyMap<string, number>)] : Object.entries(c as Readonly<Record<string, number>>);

/** The counts as a record, most first (ties by code), zeros left out. */
export function sortedCounts(c: CodeCounts | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  if (c === undefined) return out;
  const sorted = entriesOf(c)
    .filter(([, n]) => n > 0)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0));
  for (const [k, n] of sorted) out[k] = n;
  return out;
}

/** "OFF_TICK x30, PRICE_BAND x2" (most first, ties by code; zeros left out); "" for none. */
export function codeCountsText(c: CodeCounts | undefined): string {
  return Object.entries(sortedCounts(c))
    .map(([k, n]) => `${k} x${n}`)
    .join(', ');
}

/** The sum of the counts. */
export function countsTotal(c: CodeCounts | undefined): number {
  if (c === undefined) return 0;
  let n = 0;
  for (const [, v] of entriesOf(c)) n += v;
  return n;
}

/** A strategy's first error as the engine keeps it (`at`: `file:line:column`; absent or null when unknown). */
export interface FirstStrategyError {
  readonly message: string;
  readonly at?: string | null;
}

/** "boom in onEvent at /x/bad.ts:15:44" (the message, then where when known); "" when there is none. */
export function firstErrorText(first: FirstStrategyError | null | undefined): string {
  if (first === null || first === undefined) return '';
  return `${first.message}${first.at === undefined || first.at === null ? '' : ` at ${first.at}`}`;
}
