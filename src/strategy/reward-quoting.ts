/**
 * The liquidity-reward rule a strategy can switch on, and the estimate of what its quotes earn.
 *
 * A rewarded market (`MarketInfo.rewards` with a positive daily rate; src/core/rewards.ts has the
 * methodology) pays resting orders of at least its min size within `maxSpread` of the
 * size-cutoff-adjusted midpoint, quadratically more the nearer they sit, and a two-sided maker three
 * times a one-sided one (near the edges only two-sided makers score at all). The rule:
 *
 *  - `rewardTarget(ref, state)`: where quotes score now. The midpoint is the competition's (the book
 *    net of our own live orders: the best bid and ask among levels of at least the min size, else
 *    the plain touch); the band is every tick strictly nearer it than `maxSpread`
 *    (`bidFloor`..`askCeiling`); the size each side needs is the min size in whole lots (at least
 *    the market's minimum order size).
 *  - `applyRewardRule(levels, target)`: on a strategy's YES ladder, the innermost bid is moved up
 *    into the band when it sits below it and raised to the size; the innermost ask likewise; a side
 *    the ladder left empty (while the other is quoted) gets a quote at the mirrored distance, inside
 *    the band. The common rules then apply as always (`finishQuotes`: minimum spread, post-only,
 *    position limits and complement routing), so a side is still cut by the position limit
 *    ("both sides where the position allows"). A ladder with no level at all stays empty.
 *  - `rewardEstimate(ref, state)`: the score of the current quotes against the book's competition
 *    (core `scoreMarketNow`: our share of one sample, and what that is worth per minute and per day
 *    at the market's daily rate).
 *
 * Everything in YES terms and integer units (pips, micro-shares), pure: no clock, no I/O.
 */
import {
  adjustedMid2,
  type BookScore,
  DAY_MS,
  type RewardConfig,
  type ScoredOrder,
  scoreMarketNow,
  SHARE_SCALE,
} from '../core/rewards.ts';
import type { Micro, Pips } from '../core/units.ts';
import { LOT_MICRO, PRICE_SCALE } from '../core/units.ts';
import type { MarketInfo } from '../core/venue.ts';
import type { StrategyState } from './api.ts';
import { ceilToTick, floorToTick, type MarketRef, type YesLevel } from './quoting.ts';

/** The market's reward config when it pays (a positive daily rate and max spread), else null. */
export function rewardConfigOf(info: Pick<MarketInfo, 'rewards'>): RewardConfig | null {
  const r = info.rewards;
  return r != null && r.dailyRate > 0 && r.maxSpread > 0 ? r : null;
}

/** Aggregated YES levels, best first: [price pips, size micro]. */
export interface YesBook {
  readonly bids: ReadonlyArray<readonly [number, number]>;
  readonly asks: ReadonlyArray<readonly [number, number]>;
}

/**
 * The competition's YES levels: the YES book (or, without one, the NO book's complement) minus our
 * own live orders at their prices. Null when there is no book or it is stale.
 */
export function competitionBook(state: StrategyState, ref: Pick<MarketRef, 'market' | 'yes' | 'no'>): YesBook | null {
  const yb = state.book(ref.yes);
  const nb = yb === undefined ? state.book(ref.no) : undefined;
  const book = yb ?? nb;
  if (book === undefined || book.stale) return null;
  const own = new Map<number, number>(); // +price: our YES bids; -price - 1: our YES asks
  for (const o of state.openOrders(ref.market)) {
    const rest = o.originalSize - o.sizeMatched;
    if (rest <= 0 || (o.tokenId !== ref.yes && o.tokenId !== ref.no)) continue;
    const isYes = o.tokenId === ref.yes;
    const bid = isYes === (o.side === 'BUY');
    const p = isYes ? o.price : PRICE_SCALE - o.price;
    const k = bid ? p : -p - 1;
    own.set(k, (own.get(k) ?? 0) + rest);
  }
  const net = (levels: ReadonlyArray<readonly [number, number]>, bid: boolean): Array<readonly [number, number]> => {
    const out: Array<readonly [number, number]> = [];
    for (const [p, s] of levels) {
      const rest = s - (own.get(bid ? p : -p - 1) ?? 0);
      if (rest > 0) out.push([p, rest]);
    }
    return out;
  };
  if (yb !== undefined) return { bids: net(yb.levels('bids'), true), asks: net(yb.levels('asks'), false) };
  // the NO book seen from YES: a NO ask at q is a YES bid at 1 - q (best first either way)
  const flip = (l: ReadonlyArray<readonly [number, number]>) => l.map(([p, s]) => [PRICE_SCALE - p, s] as const);
  return { bids: net(flip(nb!.levels('asks')), true), asks: net(flip(nb!.levels('bids')), false) };
}

/**
 * Twice the size-cutoff-adjusted midpoint of a book (the best bid and ask among levels of at least
 * `minSize`), falling back to the plain touch when a side has no such level; null without a
 * two-sided book.
 */
export function rewardMid2(minSize: number, book: YesBook): number | null {
  const orders: ScoredOrder[] = [];
  for (const [p, s] of book.bids) orders.push({ maker: '', bid: true, price: p as Pips, size: s as Micro });
  for (const [p, s] of book.asks) orders.push({ maker: '', bid: false, price: p as Pips, size: s as Micro });
  const adjusted = adjustedMid2(orders, minSize);
  if (adjusted !== null) return adjusted;
  const b = book.bids[0]?.[0];
  const a = book.asks[0]?.[0];
  return b === undefined || a === undefined ? null : b + a;
}

/**
 * The ticks that score around a doubled midpoint: the lowest bid and the highest ask strictly
 * nearer the midpoint than the max spread (pips, on the tick grid).
 */
export function rewardBand(
  cfg: Pick<RewardConfig, 'maxSpread'>,
  mid2: number,
  tick: number,
): {
  bidFloor: number;
  askCeiling: number;
} {
  const v2 = 2 * cfg.maxSpread;
  return {
    bidFloor: (Math.floor((mid2 - v2) / (2 * tick)) + 1) * tick,
    askCeiling: (Math.ceil((mid2 + v2) / (2 * tick)) - 1) * tick,
  };
}

/** Where quotes of one market score now (see the module comment). */
export interface RewardTarget {
  readonly config: RewardConfig;
  /** Twice the competition's adjusted midpoint, pips. */
  readonly mid2: number;
  /** The lowest bid and the highest ask (YES pips, on the tick) that score, within [tick, 1 - tick]. */
  readonly bidFloor: number;
  readonly askCeiling: number;
  /** What each side needs to score: the min size in whole lots, at least the market's minimum order size; micro. */
  readonly size: number;
  /** The market's tick, pips. */
  readonly tick: number;
}

/**
 * Where quotes of a market score now: null when the market pays no rewards, or its book is missing,
 * stale or one-sided, or the band holds no tick on a side.
 */
export function rewardTarget(
  ref: Pick<MarketRef, 'market' | 'yes' | 'no' | 'tick' | 'minSize' | 'info'>,
  state: StrategyState,
): RewardTarget | null {
  const config = rewardConfigOf(ref.info);
  if (config === null) return null;
  const book = competitionBook(state, ref);
  if (book === null) return null;
  const mid2 = rewardMid2(config.minSize, book);
  if (mid2 === null) return null;
  const band = rewardBand(config, mid2, ref.tick);
  const bidFloor = Math.max(band.bidFloor, ref.tick);
  const askCeiling = Math.min(band.askCeiling, PRICE_SCALE - ref.tick);
  if (2 * bidFloor >= mid2 + 2 * config.maxSpread || 2 * askCeiling <= mid2 - 2 * config.maxSpread) return null;
  const size = Math.max(Math.ceil(config.minSize / LOT_MICRO) * LOT_MICRO, ref.minSize, LOT_MICRO);
  return { config, mid2, bidFloor, askCeiling, size, tick: ref.tick };
}

/**
 * The reward rule on a YES ladder (see the module comment): the innermost bid and ask inside the
 * band at the size at least; a missing side mirrored into the band. Other levels are left as they
 * are. Pure; the result goes through `finishQuotes` (or `shapeLadder`/`routeLadder`) as any ladder.
 */
export function applyRewardRule(levels: readonly YesLevel[], t: RewardTarget): YesLevel[] {
  let bestBid = -1;
  let bestAsk = -1;
  for (let i = 0; i < levels.length; i++) {
    const l = levels[i]!;
    if (!(l.size > 0) || !Number.isFinite(l.price)) continue;
    if (l.bid) {
      if (bestBid < 0 || l.price > levels[bestBid]!.price) bestBid = i;
    } else if (bestAsk < 0 || l.price < levels[bestAsk]!.price) bestAsk = i;
  }
  if (bestBid < 0 && bestAsk < 0) return [...levels];
  const out = levels.map((l, i): YesLevel => {
    if (i === bestBid) return { bid: true, price: Math.max(l.price, t.bidFloor), size: Math.max(l.size, t.size) };
    if (i === bestAsk) return { bid: false, price: Math.min(l.price, t.askCeiling), size: Math.max(l.size, t.size) };
    return l;
  });
  const mid = t.mid2 / 2;
  const tick = t.tick;
  if (bestAsk < 0) {
    const d = mid - out[bestBid]!.price;
    out.push({ bid: false, price: Math.min(ceilToTick(mid + Math.max(d, 0), tick), t.askCeiling), size: t.size });
  } else if (bestBid < 0) {
    const d = out[bestAsk]!.price - mid;
    out.push({ bid: true, price: Math.max(floorToTick(mid - Math.max(d, 0), tick), t.bidFloor), size: t.size });
  }
  return out;
}

/** What the current quotes of a market earn, estimated against the book's competition. */
export interface RewardEstimate {
  /** Our score and the competition's at this instant (core `scoreAgainstBook`). */
  readonly score: BookScore;
  /** Our share of a sample (fixed point, SHARE_SCALE) at the daily rate, per minute and per day, micro (floored). */
  readonly perMinute: Micro;
  readonly perDay: Micro;
}

/**
 * The score of our live quotes in a market now, against the rest of its book (null when the market
 * pays no rewards). `bookIncludesOwn`: the book shows our orders (live: true; a recorded book: false).
 */
export function rewardEstimate(
  ref: Pick<MarketRef, 'market' | 'yes' | 'info'>,
  state: StrategyState,
  bookIncludesOwn = true,
): RewardEstimate | null {
  const cfg = rewardConfigOf(ref.info);
  if (cfg === null) return null;
  const score = scoreMarketNow(ref.yes, cfg, state.book(ref.yes), state.openOrders(ref.market), bookIncludesOwn);
  const rate = BigInt(cfg.dailyRate) * score.share;
  return {
    score,
    perMinute: Number((rate * 60_000n) / (BigInt(DAY_MS) * SHARE_SCALE)) as Micro,
    perDay: Number(rate / SHARE_SCALE) as Micro,
  };
}
