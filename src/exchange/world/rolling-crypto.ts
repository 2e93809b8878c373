/**
 * The rolling crypto up/down series: their series records, the event a market belongs to, the market
 * of each window ("Up" when the price at the window's end is at least the price at its start) and the
 * first window at a given time. The generator (generator.ts) opens the first window of each series;
 * the lifecycle (lifecycle.ts) opens the next one as each window ends.
 */
import { ROLLING_CRYPTO, type RollingCrypto } from './catalog.ts';
import { CRYPTO_PARAMS, roundPrice } from './crypto.ts';
import { iso, MONTHS, toMeta } from './market-drafts.ts';
import type { MarketMeta } from '../markets.ts';
import type { CryptoSymbol, EventRec, SeriesRec } from './model.ts';
import { hash32 } from './seeding.ts';

const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

export function coinTags(symbol: CryptoSymbol): string[] {
  const name = CRYPTO_PARAMS[symbol].name;
  return ['Crypto', name === 'Dogecoin' ? 'Dogecoin' : name, 'Up or Down', 'Crypto Prices'];
}

function windowLabel(rc: RollingCrypto): string {
  if (rc.windowMin === 1440) return 'daily';
  if (rc.windowMin === 60) return 'hourly';
  return `${rc.windowMin}m`;
}

function hhmm(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
}

/** The series record of a rolling crypto up/down event. */
export function rollingSeries(rc: RollingCrypto): SeriesRec {
  const p = CRYPTO_PARAMS[rc.symbol];
  return {
    id: String(9_000 + (hash32(rc.slug) % 1000)),
    slug: rc.slug,
    title: `${p.ticker} Up or Down ${rc.windowMin === 1440 ? 'Daily' : rc.windowMin === 60 ? 'Hourly' : `${rc.windowMin}m`}`,
    recurrence: rc.windowMin >= 1440 ? 'daily' : 'hourly',
    category: 'crypto',
  };
}

/** The rolling crypto series an event belongs to, if it is one. */
export function rollingOf(ev: EventRec): RollingCrypto | undefined {
  return ev.seriesSlug === undefined
    ? undefined
    : ROLLING_CRYPTO.find((r) => r.slug === ev.seriesSlug && ev.slug === r.slug);
}

/**
 * The up/down market of window [startMs, endMs] of a rolling crypto event: YES ("Up") when the
 * price at the end is at least the strike (the price when the window opened).
 * @param index the market's number in the event (0 for the first), which fixes its ids
 */
export function cryptoWindowMarket(
  seed: number,
  ev: EventRec,
  rc: RollingCrypto,
  index: number,
  startMs: number,
  endMs: number,
  strike: number,
  nowMs: number,
): MarketMeta {
  const p = CRYPTO_PARAMS[rc.symbol];
  const last = new Date(endMs - 1);
  const first = new Date(startMs);
  const question =
    rc.windowMin >= 1440
      ? `${p.name} Up or Down on ${MONTHS[last.getUTCMonth()]!} ${last.getUTCDate()}?`
      : `${p.name} Up or Down - ${MON[first.getUTCMonth()]!} ${first.getUTCDate()}, ${hhmm(startMs)}-${hhmm(endMs)} UTC`;
  const k = roundPrice(rc.symbol, strike);
  const description =
    `This market will resolve to "Up" ("Yes") if the ${p.ticker}/USDT price at the end of the window (${iso(endMs)}) is greater than or equal to the price at its start (${iso(startMs)}), ` +
    `and to "Down" ("No") otherwise. Price to beat: $${k.toLocaleString('en-US', { maximumFractionDigits: p.decimals })}. ` +
    `The resolution source is the exchange's ${p.ticker}/USDT price feed (RTDS crypto_prices).`;
  return toMeta(
    {
      label: `${seed}:${rc.slug}:${index}`,
      question,
      description,
      slug: `${p.ticker.toLowerCase()}-updown-${windowLabel(rc)}-${Math.floor(endMs / 1000)}`,
      negRisk: false,
      tick: '0.01',
      endMs,
      createdMs: nowMs,
      cryptoSymbol: rc.symbol,
    },
    ev,
  );
}

/**
 * The first window of a rolling series at time `nowMs`: it ends on the next window boundary (the one
 * after, when that is less than a minute away) and has started, at the latest now.
 */
export function firstWindow(rc: RollingCrypto, nowMs: number): { startMs: number; endMs: number } {
  const L = rc.windowMin * 60_000;
  let endMs = Math.ceil(nowMs / L) * L;
  if (endMs - nowMs < 60_000) endMs += L;
  return { startMs: Math.min(endMs - L, Math.floor(nowMs / 1000) * 1000), endMs };
}
