/**
 * A token's price history built from the exchange's trades: served by the Data API
 * (`GET {data_url}/prices`, `/prices-history`, in its envelope) and by the CLOB
 * (`GET {clob_url}/prices-history`, bare `{history}`, as the public V2 client's
 * `getPricesHistory` reads it).
 *
 * Query: `market` (a token id, as the public service takes it; a condition id is read as its first
 * token) or `token_id`; `interval` (1h, 6h, 1d, 1w, 1m, max; default max) or `startTs` / `endTs`
 * (unix seconds; `start_ts` / `end_ts` also read), `fidelity` (bucket width, minutes). One point
 * per bucket that saw a trade: `{t, p}`, `t` the bucket's start (unix seconds), `p` the last fill
 * price in it on the token's own scale (a number). A malformed id is 400, an unknown one 404.
 */
import type { MarketEntry, PaperExchange } from '../exchange.ts';
import { qInt, qSeconds, qString, type Query } from './body.ts';
import { badRequest, notFound } from './errors.ts';
import { fillPriceOn, priceNumber, unixSec } from './render-meta.ts';

/** Price-history intervals: the window back from now, seconds (`1m` is a month, as at the venue). */
export const PRICE_INTERVALS: Readonly<Record<string, { seconds: number; fidelity: number }>> = {
  '1h': { seconds: 3_600, fidelity: 1 },
  '6h': { seconds: 6 * 3_600, fidelity: 1 },
  '1d': { seconds: 86_400, fidelity: 5 },
  '1w': { seconds: 7 * 86_400, fidelity: 60 },
  '1m': { seconds: 30 * 86_400, fidelity: 180 },
  max: { seconds: Infinity, fidelity: 180 },
};

export interface PriceHistory {
  token_id: string;
  condition_id: string;
  /** The interval's name, or null when the window was given as startTs / endTs. */
  interval: string | null;
  fidelity: number;
  start_ts: number;
  end_ts: number;
  history: Array<{ t: number; p: number }>;
}

export function priceHistoryOf(ex: PaperExchange, q: Query): PriceHistory {
  const ref = qString(q, 'token_id') ?? qString(q, 'market');
  if (ref === undefined) throw badRequest('missing query parameter market or token_id');
  if (!/^\d{1,78}$/.test(ref) && !/^0x[0-9a-fA-F]{64}$/.test(ref))
    throw badRequest('market must be a token id (decimal) or a condition id (0x + 64 hex digits)');
  let tokenId: string;
  let entry: MarketEntry;
  const byToken = ex.marketOfToken(ref);
  if (byToken) {
    tokenId = ref;
    entry = byToken.entry;
  } else {
    const e = ex.market(ref);
    if (e === undefined) throw notFound('no market trades that token or condition id');
    entry = e;
    tokenId = e.meta.tokens[0];
  }
  const intervalName = qString(q, 'interval') ?? 'max';
  const interval = PRICE_INTERVALS[intervalName];
  if (interval === undefined) throw badRequest(`interval must be one of ${Object.keys(PRICE_INTERVALS).join(', ')}`);
  const fidelity = qInt(q, 'fidelity', interval.fidelity, 1, 60 * 24 * 30);
  const nowSec = unixSec(ex.clock.now());
  const startTs = qSeconds(q, 'startTs', 'start_ts');
  const endTs = qSeconds(q, 'endTs', 'end_ts');
  const end = endTs ?? nowSec;
  const start = startTs ?? (Number.isFinite(interval.seconds) ? end - interval.seconds : 0);
  if (start > end) throw badRequest('startTs must not be after endTs');
  const bucketSec = fidelity * 60;
  const buckets = new Map<number, number>();
  for (const r of ex.allTrades()) {
    const t = r.trade;
    if (t.market !== entry.meta.conditionId) continue;
    const sec = unixSec(t.matchTime);
    if (sec < start || sec > end) continue;
    const b = Math.floor(sec / bucketSec) * bucketSec;
    // the fills of one trade are in match order: the last one sets the bucket's price
    for (const m of t.makers) buckets.set(b, fillPriceOn(m, tokenId));
  }
  const history = [...buckets.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([t, p]) => ({ t, p: priceNumber(p) as number }));
  return {
    token_id: tokenId,
    condition_id: entry.meta.conditionId,
    interval: startTs !== undefined || endTs !== undefined ? null : intervalName,
    fidelity,
    start_ts: start,
    end_ts: end,
    history,
  };
}
