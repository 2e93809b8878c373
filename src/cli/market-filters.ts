/**
 * `bot.marketFilters`: which listed markets are candidates for an automatic pick (the strategy's
 * `selectMarkets`, or the default pick), the same for `mmkit run`, `mmkit strategy check` and
 * `mmkit record --top`. A market is a candidate when it is active (where known), ends at least
 * `minHoursToEnd` hours from now, passes the neg-risk choice and the text search, and, when its
 * question names a time window (a crypto up/down window: "... 10:00-10:15 UTC", "... 8:00AM-8:15AM
 * ET", hourly "... 8AM ET", daily "... Up or Down on November 27?"), that window is at least
 * `minWindowMinutes` long. Pure.
 */
import type { MarketInfo } from '../core/venue.ts';

/** The filters (config `bot.marketFilters`). */
export interface MarketFilters {
  /** Only markets ending at least this many hours from now. */
  readonly minHoursToEnd: number;
  readonly negRisk: 'include' | 'exclude' | 'only';
  /** Case-insensitive text the question must contain; empty: any. */
  readonly search: string;
  /** Markets whose question names a time window shorter than this many minutes are left out (0: any). */
  readonly minWindowMinutes: number;
}

/** The schema's defaults (src/cli/config-schema.ts). */
export const DEFAULT_MARKET_FILTERS: MarketFilters = Object.freeze({
  minHoursToEnd: 1,
  negRisk: 'include',
  search: '',
  minWindowMinutes: 0,
});

const DAY_MIN = 1440;
// "10:00-10:15 UTC", "8:00AM-8:15AM ET", "11:45PM-12:00AM ET": a colon on both ends, or AM/PM on both
const RANGE = /\b(\d{1,2})(?::(\d{2}))?\s*([AP]M)?\s*-\s*(\d{1,2})(?::(\d{2}))?\s*([AP]M)?(?![\d:])/i;

function minutesOf(h: string, m: string | undefined, ampm: string | undefined): number {
  let hour = Number(h) % 24;
  if (ampm !== undefined) hour = (Number(h) % 12) + (ampm.toUpperCase() === 'PM' ? 12 : 0);
  return hour * 60 + Number(m ?? 0);
}

/**
 * The length in minutes of the time window a market's question names, or undefined when it names
 * none: a range of clock times ("10:00-10:15 UTC": 15; "8:00AM-9:00AM ET": 60; across midnight
 * counts forward), an up/down market of one hour ("Bitcoin Up or Down - November 27, 8AM ET": 60)
 * or of a day ("Bitcoin Up or Down on November 27?": 1440).
 */
export function windowMinutes(question: string): number | undefined {
  const r = RANGE.exec(question);
  if (r !== null) {
    const [, h1, m1, ap1, h2, m2, ap2] = r;
    const clock = m1 !== undefined && m2 !== undefined;
    const ampm = ap1 !== undefined && ap2 !== undefined;
    if (clock || ampm) {
      const d = (minutesOf(h2!, m2, ap2) - minutesOf(h1!, m1, ap1) + DAY_MIN) % DAY_MIN;
      return d === 0 ? DAY_MIN : d;
    }
  }
  if (!/\bup or down\b/i.test(question)) return undefined;
  if (/\bup or down on\b/i.test(question)) return DAY_MIN;
  if (/\b\d{1,2}\s*[AP]M\s*(ET|EST|EDT|UTC)\b/i.test(question)) return 60;
  return undefined;
}

/** What the filters read of a market (a MarketInfo, or a metadata record before it becomes one). */
export interface FilterableMarket {
  readonly question: string;
  readonly endDate: string | null;
  readonly negRisk: boolean;
  readonly active?: boolean;
}

/** Whether a market is a candidate under `f` at `now` (unix ms); see the module comment. */
export function passesMarketFilters(m: FilterableMarket, f: MarketFilters, now: number): boolean {
  if (m.active === false) return false;
  const end = m.endDate === null || m.endDate === '' ? NaN : Date.parse(m.endDate);
  if (!(end - now > f.minHoursToEnd * 3_600_000)) return false;
  if (f.negRisk === 'exclude' ? m.negRisk : f.negRisk === 'only' ? !m.negRisk : false) return false;
  if (f.search !== '' && !m.question.toLowerCase().includes(f.search.toLowerCase())) return false;
  if (f.minWindowMinutes > 0) {
    const w = windowMinutes(m.question);
    if (w !== undefined && w < f.minWindowMinutes) return false;
  }
  return true;
}

/** The candidates among `all` (in their order). Missing filter keys take their defaults. */
export function filterCandidates<T extends FilterableMarket = MarketInfo>(
  all: readonly T[],
  f: Partial<MarketFilters> | undefined,
  now: number,
): T[] {
  const full: MarketFilters = { ...DEFAULT_MARKET_FILTERS, ...f };
  return all.filter((m) => passesMarketFilters(m, full, now));
}
