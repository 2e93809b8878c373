/**
 * The public Gamma API's range filters on list endpoints (trial 24 F3: they were silently ignored,
 * so a screener asking for liquid or near-dated markets got every market back):
 *
 *  - `/markets`: `volume_num_min/max`, `liquidity_num_min/max` (collateral, decimal numbers),
 *    `start_date_min/max`, `end_date_min/max` (ISO 8601 dates or times);
 *  - `/events`: `volume_min/max`, `liquidity_min/max`, `start_date_min/max`, `end_date_min/max`.
 *
 * Bounds are inclusive. A value that is no number or no date is a 400 naming the parameter, never
 * a filter dropped. Amounts compare exactly, in micro units.
 */
import { parseAmount } from '../../core/units.ts';
import { qString, type Query } from './body.ts';
import { badRequest } from './errors.ts';

/** What a range filter reads of a record: amounts in micro collateral, dates as ISO strings. */
export interface RangeFields<T> {
  readonly volume: (x: T) => number;
  readonly liquidity: (x: T) => number;
  readonly startDate: (x: T) => string | undefined;
  readonly endDate: (x: T) => string | undefined;
}

/** The query names of each range, by endpoint: `/markets` says `volume_num_min`, `/events` `volume_min`. */
const NAMES = {
  markets: { volume: 'volume_num', liquidity: 'liquidity_num' },
  events: { volume: 'volume', liquidity: 'liquidity' },
} as const;

// (to micro units: a lower bound rounded up, an upper one down: the same records as the exact bound)
function amountParam(q: Query, name: string, rounding: 'up' | 'down'): number | undefined {
  const v = qString(q, name);
  if (v === undefined) return undefined;
  try {
    return parseAmount(v.trim(), rounding);
  } catch {
    throw badRequest(`${name} must be a decimal number, got ${JSON.stringify(v)}`);
  }
}

function dateParam(q: Query, name: string): number | undefined {
  const v = qString(q, name);
  if (v === undefined) return undefined;
  const t = Date.parse(v);
  if (!Number.isFinite(t)) throw badRequest(`${name} must be an ISO 8601 date, got ${JSON.stringify(v)}`);
  return t;
}

/**
 * The predicate of the range filters `q` gives for `endpoint` (true for every record when it gives
 * none); a record missing a date a filter bounds is left out.
 * @throws HTTP 400 naming a parameter whose value is no number or date
 */
export function rangeFilter<T>(q: Query, endpoint: keyof typeof NAMES, f: RangeFields<T>): (x: T) => boolean {
  const n = NAMES[endpoint];
  const checks: ((x: T) => boolean)[] = [];
  const amount = (name: string, read: (x: T) => number) => {
    const lo = amountParam(q, `${name}_min`, 'up');
    const hi = amountParam(q, `${name}_max`, 'down');
    if (lo !== undefined) checks.push((x) => read(x) >= lo);
    if (hi !== undefined) checks.push((x) => read(x) <= hi);
  };
  const date = (name: string, read: (x: T) => string | undefined) => {
    const lo = dateParam(q, `${name}_min`);
    const hi = dateParam(q, `${name}_max`);
    const at = (x: T) => {
      const s = read(x);
      return s === undefined ? Number.NaN : Date.parse(s);
    };
    if (lo !== undefined) checks.push((x) => at(x) >= lo);
    if (hi !== undefined) checks.push((x) => at(x) <= hi);
  };
  amount(n.volume, f.volume);
  amount(n.liquidity, f.liquidity);
  date('start_date', f.startDate);
  date('end_date', f.endDate);
  if (checks.length === 0) return () => true;
  return (x) => checks.every((c) => c(x));
}
