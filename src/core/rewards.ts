/**
 * Liquidity rewards: the public methodology of the service this kind (its "Liquidity Rewards"
 * page), in exact integer arithmetic. One module, used by the paper exchange (which samples,
 * scores and pays), the bot (which estimates what its quotes earn) and the backtester (which scores
 * the bot's own quotes against a recorded book).
 *
 * Everything is in YES terms, as a market's one book is: a bid on the complement (NO) at p is an
 * ask at 1 - p, an ask on NO is a bid. So Q_one (bids on the first token plus asks on the complement)
 * is the score of a maker's bids in YES terms, Q_two the score of its asks.
 *
 *  - v (max spread) is kept in pips (the wire's cents x 100: 4.5 cents = 450 pips).
 *  - The size-cutoff-adjusted midpoint is the midpoint of the best bid and the best ask among the
 *    orders of at least the min size (each order on its own, not price levels). It is kept doubled
 *    (`mid2` = best bid + best ask, in pips) so it is an integer. A sample whose adjusted midpoint
 *    does not exist (no qualifying order on one side) scores nothing.
 *  - An order scores when its remaining size is at least the min size and its distance s from the
 *    adjusted midpoint is below v: S(v, s) * size with S = ((v - s) / v)^2 * b. With doubled
 *    distances that is (2v - s2)^2 * size * b / (2v)^2: the numerator is an exact bigint and every
 *    score of a market shares the denominator (2v)^2.
 *  - Q_min = max(min(Q_one, Q_two), max(Q_one, Q_two) / c) with c = 3 when the adjusted midpoint is
 *    in [0.10, 0.90], and min(Q_one, Q_two) outside it. Kept as 3 x Q_min, so it stays an integer.
 *  - A sample's shares: each maker's Q_min over the sum of all, in fixed point (SHARE_SCALE = 1e18,
 *    floored). A maker's epoch share is the sum of its sample shares over the sum of everyone's.
 *  - The epoch's pool is the daily rate times the epoch's length over a day (floored to the micro),
 *    so a short epoch (tests, demos) pays the same per hour as a day. Each maker is paid its share
 *    of the pool floored to the micro-unit; a payout below the minimum is not paid; the remainder is
 *    not paid.
 */
import type { TokenId } from './ids.ts';
import type { LiveOrderView } from './intents.ts';
import { PRICE_SCALE, type Micro, type Pips } from './units.ts';
import type { BookView } from './views.ts';

/** A market's reward configuration. */
export interface RewardConfig {
  /** v: the max distance from the adjusted midpoint that scores, in pips (wire: cents). */
  readonly maxSpread: Pips;
  /** Orders below this remaining size (micro-shares) neither score nor move the adjusted midpoint. */
  readonly minSize: Micro;
  /** The pool, micro-collateral per day. */
  readonly dailyRate: Micro;
  /** b, the in-game multiplier (a positive integer; default 1). */
  readonly multiplier?: number;
}

/** Whether two reward configs score and pay alike. */
export function sameRewardConfig(a: RewardConfig, b: RewardConfig): boolean {
  return (
    a.maxSpread === b.maxSpread &&
    a.minSize === b.minSize &&
    a.dailyRate === b.dailyRate &&
    (a.multiplier ?? 1) === (b.multiplier ?? 1)
  );
}

/** One resting order, in YES terms. */
export interface ScoredOrder {
  readonly maker: string;
  /** A YES bid (a bid on YES, or an ask on NO). */
  readonly bid: boolean;
  /** YES price, pips. */
  readonly price: Pips;
  /** Remaining size, micro-shares. */
  readonly size: Micro;
}

/** c, the single-sided scaling factor ("currently 3.0 on all markets"). */
export const SINGLE_SIDED_FACTOR = 3n;
/** Fixed point of the normalised shares. */
export const SHARE_SCALE = 10n ** 18n;
export const DAY_MS = 86_400_000;
/** The band [0.10, 0.90] of the adjusted midpoint where one-sided quoting scores (a third). */
const LOW_MID2 = 2_000;
const HIGH_MID2 = 18_000;

/** Twice the size-cutoff-adjusted midpoint (best qualifying bid + best qualifying ask), pips; null when a side has none. */
export function adjustedMid2(orders: Iterable<ScoredOrder>, minSize: number): number | null {
  let bestBid = -1;
  let bestAsk = Number.POSITIVE_INFINITY;
  for (const o of orders) {
    if (o.size < minSize) continue;
    if (o.bid) {
      if (o.price > bestBid) bestBid = o.price;
    } else if (o.price < bestAsk) bestAsk = o.price;
  }
  return bestBid < 0 || bestAsk === Number.POSITIVE_INFINITY ? null : bestBid + bestAsk;
}

/** Whether one-sided quoting scores (a third) at this adjusted midpoint: [0.10, 0.90]. */
export function oneSidedScores(mid2: number): boolean {
  return mid2 >= LOW_MID2 && mid2 <= HIGH_MID2;
}

/** The denominator every score of this market shares: (2v)^2. */
export function scoreDenominator(cfg: RewardConfig): bigint {
  const v2 = BigInt(2 * cfg.maxSpread);
  return v2 * v2;
}

/**
 * The numerator of S(v, s) * size (over {@link scoreDenominator}) of a quote at `price` with `size`
 * (YES terms) against the doubled adjusted midpoint: 0 below the min size or at v or beyond.
 */
export function quoteScore(cfg: RewardConfig, mid2: number, price: number, size: number): bigint {
  if (size < cfg.minSize || size <= 0) return 0n;
  const v2 = 2 * cfg.maxSpread;
  const s2 = Math.abs(2 * price - mid2);
  if (s2 >= v2) return 0n;
  const d = BigInt(v2 - s2);
  return d * d * BigInt(size) * BigInt(cfg.multiplier ?? 1);
}

/** Q_one (bids) and Q_two (asks) of one maker, numerators over {@link scoreDenominator}. */
export interface SideScores {
  qOne: bigint;
  qTwo: bigint;
}

/** 3 x Q_min of one maker's side scores at this adjusted midpoint. */
export function qMin3(s: SideScores, mid2: number): bigint {
  const lo = s.qOne < s.qTwo ? s.qOne : s.qTwo;
  if (!oneSidedScores(mid2)) return SINGLE_SIDED_FACTOR * lo;
  const hi = s.qOne < s.qTwo ? s.qTwo : s.qOne;
  const a = SINGLE_SIDED_FACTOR * lo;
  return a > hi ? a : hi;
}

/** One sample of one market. */
export interface Sample {
  /** Twice the adjusted midpoint, pips; null: nothing scored. */
  readonly mid2: number | null;
  /** Each scoring maker's side scores (makers with a zero Q_min left out of `qMin3`). */
  readonly sides: ReadonlyMap<string, SideScores>;
  /** 3 x Q_min per maker with a positive score, numerators over {@link scoreDenominator}. */
  readonly qMin3: ReadonlyMap<string, bigint>;
  /** Their sum. */
  readonly total: bigint;
}

/** Score every maker's resting orders of one market at one instant. */
export function scoreSample(cfg: RewardConfig, orders: readonly ScoredOrder[]): Sample {
  const mid2 = adjustedMid2(orders, cfg.minSize);
  const sides = new Map<string, SideScores>();
  const q = new Map<string, bigint>();
  if (mid2 === null) return { mid2, sides, qMin3: q, total: 0n };
  for (const o of orders) {
    const sc = quoteScore(cfg, mid2, o.price, o.size);
    if (sc === 0n) continue;
    let s = sides.get(o.maker);
    if (s === undefined) {
      s = { qOne: 0n, qTwo: 0n };
      sides.set(o.maker, s);
    }
    if (o.bid) s.qOne += sc;
    else s.qTwo += sc;
  }
  let total = 0n;
  for (const [maker, s] of sides) {
    const m = qMin3(s, mid2);
    if (m === 0n) continue;
    q.set(maker, m);
    total += m;
  }
  return { mid2, sides, qMin3: q, total };
}

/** Each maker's share of one sample, floor(Q_min x SHARE_SCALE / sum), in fixed point. */
export function normaliseSample(sample: Pick<Sample, 'qMin3' | 'total'>): Map<string, bigint> {
  const out = new Map<string, bigint>();
  if (sample.total === 0n) return out;
  for (const [maker, q] of sample.qMin3) out.set(maker, (q * SHARE_SCALE) / sample.total);
  return out;
}

/** The epoch's pool: the daily rate over the epoch's length, floored to the micro. */
export function epochPool(dailyRate: number, epochMs: number): Micro {
  return Number((BigInt(dailyRate) * BigInt(Math.round(epochMs))) / BigInt(DAY_MS)) as Micro;
}

/** What one epoch pays. */
export interface Payout {
  /** Each maker's payout, micro (only makers at or above the minimum). */
  readonly paid: ReadonlyMap<string, Micro>;
  /** Each maker's share floored to the micro, before the minimum (every scoring maker). */
  readonly earned: ReadonlyMap<string, Micro>;
  /** Each maker's epoch share, in fixed point (sums to about SHARE_SCALE). */
  readonly shares: ReadonlyMap<string, bigint>;
  /** The pool minus what was paid, micro. */
  readonly unpaid: Micro;
}

/**
 * Split a pool by the makers' summed sample shares: each is paid floor(pool x its sum / all sums)
 * micro, when that reaches `minPayout` (micro).
 */
export function splitPool(sums: ReadonlyMap<string, bigint>, pool: number, minPayout: number): Payout {
  let all = 0n;
  for (const v of sums.values()) all += v;
  const paid = new Map<string, Micro>();
  const earned = new Map<string, Micro>();
  const shares = new Map<string, bigint>();
  let out = 0;
  if (all > 0n && pool > 0) {
    const p = BigInt(pool);
    for (const [maker, v] of sums) {
      if (v === 0n) continue;
      const amount = Number((p * v) / all) as Micro;
      shares.set(maker, (v * SHARE_SCALE) / all);
      earned.set(maker, amount);
      if (amount > 0 && amount >= minPayout) {
        paid.set(maker, amount);
        out += amount;
      }
    }
  }
  return { paid, earned, shares, unpaid: (pool - out) as Micro };
}

/** Sums the sample shares of one market over an epoch. */
export class EpochScores {
  private readonly sums = new Map<string, bigint>();
  private sampleCount = 0;
  private scoredCount = 0;

  /** Add one sample (its shares are normalised here). */
  add(sample: Pick<Sample, 'qMin3' | 'total'>): void {
    this.sampleCount++;
    if (sample.total === 0n) return;
    this.scoredCount++;
    for (const [maker, share] of normaliseSample(sample)) this.sums.set(maker, (this.sums.get(maker) ?? 0n) + share);
  }
  /** Samples taken, and those in which somebody scored. */
  get samples(): number {
    return this.sampleCount;
  }
  get scoredSamples(): number {
    return this.scoredCount;
  }
  /** Each maker's summed sample shares (fixed point). */
  totals(): ReadonlyMap<string, bigint> {
    return this.sums;
  }
  /** A maker's share of the epoch so far, fixed point (0 when nobody scored). */
  shareOf(maker: string): bigint {
    let all = 0n;
    for (const v of this.sums.values()) all += v;
    return all === 0n ? 0n : ((this.sums.get(maker) ?? 0n) * SHARE_SCALE) / all;
  }
  /** What the epoch pays. */
  payout(pool: number, minPayout: number): Payout {
    return splitPool(this.sums, pool, minPayout);
  }
}

/** A price level (YES terms) of an aggregated book, for estimates against the competition. */
export interface ScoredLevel {
  readonly price: Pips;
  readonly size: Micro;
}

/**
 * Side scores of aggregated levels (as one maker): what the competition rests inside the band.
 * Levels below the min size are ignored, like orders (a level may hold several small orders: an
 * estimate).
 */
export function levelScores(
  cfg: RewardConfig,
  mid2: number,
  bids: Iterable<ScoredLevel>,
  asks: Iterable<ScoredLevel>,
): SideScores {
  let qOne = 0n;
  let qTwo = 0n;
  for (const l of bids) qOne += quoteScore(cfg, mid2, l.price, l.size);
  for (const l of asks) qTwo += quoteScore(cfg, mid2, l.price, l.size);
  return { qOne, qTwo };
}

/**
 * The estimated reward per day of a maker with side scores `own` against a competition with side
 * scores `others` (scored as one maker): floor(daily rate x Q_min(own) / (Q_min(own) + Q_min(others))), micro.
 */
export function estimateDailyReward(cfg: RewardConfig, mid2: number, own: SideScores, others: SideScores): Micro {
  const a = qMin3(own, mid2);
  if (a === 0n) return 0 as Micro;
  const b = qMin3(others, mid2);
  return Number((BigInt(cfg.dailyRate) * a) / (a + b)) as Micro;
}

/** A score as a plain number of share-units (S x size in shares), for display only. */
export function scoreToShares(cfg: RewardConfig, numerator: bigint): number {
  return Number(numerator) / Number(scoreDenominator(cfg)) / 1_000_000;
}

/** A 3 x Q_min numerator (see {@link qMin3}) as share-units, for display only. */
export function qMinToShares(cfg: RewardConfig, qMin3Numerator: bigint): number {
  return scoreToShares(cfg, qMin3Numerator) / 3;
}

/** The wire's max spread (cents, a number like 4.5) in pips; null when not a positive whole pip count. */
export function maxSpreadFromCents(cents: number): Pips | null {
  const p = Math.round(cents * 100);
  return Number.isFinite(cents) && cents > 0 && Math.abs(p - cents * 100) < 1e-6 ? (p as Pips) : null;
}
/** Pips as the wire's cents (450 -> 4.5). */
export function maxSpreadToCents(pips: number): number {
  return pips / 100;
}

/** One of our resting orders, in YES terms, for {@link scoreAgainstBook}. */
export interface OwnQuote {
  readonly bid: boolean;
  readonly price: Pips;
  /** Remaining size, micro-shares. */
  readonly size: Micro;
}

/** Our score against a book's competition at one instant. */
export interface BookScore {
  /** Twice the adjusted midpoint, pips (null: none, nothing scores). */
  readonly mid2: number | null;
  readonly own: SideScores;
  /** The rest of the book inside the band, scored as one maker. */
  readonly others: SideScores;
  /** 3 x Q_min of ours and of the competition (numerators over {@link scoreDenominator}). */
  readonly ownQMin3: bigint;
  readonly othersQMin3: bigint;
  /** Our share of the sample, fixed point (SHARE_SCALE), when the competition is one maker. */
  readonly share: bigint;
}

/**
 * Score our quotes against an aggregated book (YES levels, best first): the competition is the book
 * minus our own sizes when `bookIncludesOwn` (a live book shows our orders), the whole book otherwise
 * (a recorded book). The adjusted midpoint is the best qualifying price of either: a competition
 * level of at least the min size, or one of our orders of at least the min size.
 */
export function scoreAgainstBook(
  cfg: RewardConfig,
  bids: Iterable<readonly [number, number]>,
  asks: Iterable<readonly [number, number]>,
  own: readonly OwnQuote[],
  bookIncludesOwn: boolean,
): BookScore {
  const ownAt = new Map<number, number>(); // signed key: +price for bids, -price-1 for asks
  if (bookIncludesOwn) for (const q of own) addTo(ownAt, q.bid ? q.price : -q.price - 1, q.size);
  const otherBids: ScoredLevel[] = [];
  const otherAsks: ScoredLevel[] = [];
  for (const [p, s] of bids) {
    const rest = s - (ownAt.get(p) ?? 0);
    if (rest > 0) otherBids.push({ price: p as Pips, size: rest as Micro });
  }
  for (const [p, s] of asks) {
    const rest = s - (ownAt.get(-p - 1) ?? 0);
    if (rest > 0) otherAsks.push({ price: p as Pips, size: rest as Micro });
  }
  const all: ScoredOrder[] = [];
  for (const l of otherBids) all.push({ maker: '', bid: true, price: l.price, size: l.size });
  for (const l of otherAsks) all.push({ maker: '', bid: false, price: l.price, size: l.size });
  for (const q of own) all.push({ maker: '', bid: q.bid, price: q.price, size: q.size });
  const mid2 = adjustedMid2(all, cfg.minSize);
  const zero: SideScores = { qOne: 0n, qTwo: 0n };
  if (mid2 === null) return { mid2, own: zero, others: zero, ownQMin3: 0n, othersQMin3: 0n, share: 0n };
  const mine: SideScores = { qOne: 0n, qTwo: 0n };
  for (const q of own) {
    const sc = quoteScore(cfg, mid2, q.price, q.size);
    if (q.bid) mine.qOne += sc;
    else mine.qTwo += sc;
  }
  const others = levelScores(cfg, mid2, otherBids, otherAsks);
  const a = qMin3(mine, mid2);
  const b = qMin3(others, mid2);
  return { mid2, own: mine, others, ownQMin3: a, othersQMin3: b, share: a === 0n ? 0n : (a * SHARE_SCALE) / (a + b) };
}

function addTo(m: Map<number, number>, k: number, v: number): void {
  m.set(k, (m.get(k) ?? 0) + v);
}

/** What a share of one sample is worth: the pool of `sampleMs` at the daily rate, times the share, micro (exact rational as [numerator, denominator]). */
export function sampleValue(dailyRate: number, sampleMs: number, share: bigint): [bigint, bigint] {
  return [BigInt(dailyRate) * BigInt(Math.round(sampleMs)) * share, BigInt(DAY_MS) * SHARE_SCALE];
}

/** Accrues the estimated value of sample shares exactly; reads floored to the micro. */
export class RewardAccrual {
  private num = 0n; // over DAY_MS * SHARE_SCALE
  add(dailyRate: number, sampleMs: number, share: bigint): void {
    this.num += sampleValue(dailyRate, sampleMs, share)[0];
  }
  /** Accrued so far, micro (floored). */
  get micro(): Micro {
    return Number(this.num / (BigInt(DAY_MS) * SHARE_SCALE)) as Micro;
  }
}

/** Our orders of a market in YES terms (an order on the second token mirrored at 1 - p). */
export function ownQuotes(yes: TokenId, orders: readonly LiveOrderView[]): OwnQuote[] {
  const out: OwnQuote[] = [];
  for (const o of orders) {
    const size = (o.originalSize - o.sizeMatched) as Micro;
    if (size <= 0) continue;
    const buy = o.side === 'BUY';
    if (o.tokenId === yes) out.push({ bid: buy, price: o.price, size });
    else out.push({ bid: !buy, price: (PRICE_SCALE - o.price) as Pips, size });
  }
  return out;
}

/** Score our quotes in one market now (pure: the bot's tracker, strategies and backtests use it). */
export function scoreMarketNow(
  yes: TokenId,
  config: RewardConfig,
  book: BookView | undefined,
  orders: readonly LiveOrderView[],
  bookIncludesOwn: boolean,
): BookScore {
  return scoreAgainstBook(
    config,
    book?.levels('bids') ?? [],
    book?.levels('asks') ?? [],
    ownQuotes(yes, orders),
    bookIncludesOwn,
  );
}

/** What {@link estimateMarketReward} finds for one market. */
export interface MarketRewardEstimate {
  /** Twice the adjusted midpoint with the two quotes in the book, pips; null: no two-sided book (nothing estimated). */
  readonly mid2: number | null;
  /** Where the two hypothetical quotes sit (YES pips); null without a two-sided book. */
  readonly bid: Pips | null;
  readonly ask: Pips | null;
  /** Their size (micro-shares): the min size (one share when the config has none). */
  readonly size: Micro;
  /** 3 x Q_min of the two quotes and of the competition (the book inside the band, as one maker). */
  readonly ownQMin3: bigint;
  readonly othersQMin3: bigint;
  /** The competition's Q_min as share-units (S x shares), for display and ranking. */
  readonly competitionScore: number;
  /** floor(daily rate x own / (own + competition)), micro per day. */
  readonly estDaily: Micro;
}

/**
 * The estimated daily reward of a two-sided quote of the min size inside the band, against a book
 * (YES levels best first, integer units; the competition: it holds none of ours): daily pool x its
 * score / (its score + the competition's score in the band).
 *
 * Where the quotes sit: each joins its side's touch (post-only, no queue jumping) when the touch is
 * inside the band around the touch midpoint; a touch outside the band is replaced by the first tick
 * inside it (never crossing the other side). The score is then taken with the quotes in the book
 * (they move the size-cutoff-adjusted midpoint like any qualifying order), as {@link scoreAgainstBook}
 * does. A book without a bid or without an ask gives no estimate (zero, `mid2` null).
 * @param tick the market's tick, pips
 * @param size the quotes' size, micro (default and floor: the config's min size)
 */
export function estimateMarketReward(
  cfg: RewardConfig,
  bids: readonly (readonly [number, number])[],
  asks: readonly (readonly [number, number])[],
  tick: number,
  size?: number,
): MarketRewardEstimate {
  const qs = Math.max(cfg.minSize, size ?? 0, 0) || SHARE_MICRO;
  const none: MarketRewardEstimate = {
    mid2: null,
    bid: null,
    ask: null,
    size: qs as Micro,
    ownQMin3: 0n,
    othersQMin3: 0n,
    competitionScore: 0,
    estDaily: 0 as Micro,
  };
  const bb = bids[0]?.[0];
  const ba = asks[0]?.[0];
  if (bb === undefined || ba === undefined || bb >= ba || !(tick > 0)) return none;
  const raw2 = bb + ba;
  const v2 = 2 * cfg.maxSpread;
  // a bid scores when 2p > raw2 - v2: the lowest such tick; an ask when 2p < raw2 + v2: the highest
  const lowest = (Math.floor((raw2 - v2) / (2 * tick)) + 1) * tick;
  const highest = (Math.ceil((raw2 + v2) / (2 * tick)) - 1) * tick;
  let bid = Math.max(bb, lowest);
  let ask = Math.min(ba, highest);
  if (bid >= ba) bid = ba - tick;
  if (ask <= bb) ask = bb + tick;
  if (bid < tick || ask > PRICE_SCALE - tick || bid >= ask) return none;
  const own: OwnQuote[] = [
    { bid: true, price: bid as Pips, size: qs as Micro },
    { bid: false, price: ask as Pips, size: qs as Micro },
  ];
  const s = scoreAgainstBook(cfg, bids, asks, own, false);
  const a = s.ownQMin3;
  const b = s.othersQMin3;
  return {
    mid2: s.mid2,
    bid: bid as Pips,
    ask: ask as Pips,
    size: qs as Micro,
    ownQMin3: a,
    othersQMin3: b,
    competitionScore: qMinToShares(cfg, b),
    estDaily: (a === 0n ? 0 : Number((BigInt(cfg.dailyRate) * a) / (a + b))) as Micro,
  };
}

const SHARE_MICRO = 1_000_000;
