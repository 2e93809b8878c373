/**
 * `rewards`: quotes for liquidity rewards. On a rewarded market (a reward config with a daily pool:
 * `MarketInfo.rewards`) the venue pays resting orders of at least the min size within the max
 * spread v of the size-cutoff-adjusted midpoint, each scoring ((v - s) / v)^2 x size at distance s,
 * a two-sided maker three times a one-sided one (near 0 and 1 only two-sided makers score), shared
 * with every other maker in the band (src/core/rewards.ts). Nearer the midpoint scores more but is
 * filled more, and a fill near the midpoint is usually a loss (adverse selection). This strategy
 * chooses, per market and event, the bid and ask prices (inside the band, both at `sizeMultiple` x
 * the min size, at most `maxSize`: a market needing more is not quoted) that maximise
 *
 *     expected rewards per hour - expected adverse selection per hour
 *
 *   rewards: dailyRate / 24 x Q_min(ours) / (Q_min(ours) + Q_min(the competition in the band)),
 *     scored as the venue does at the midpoint our quotes leave (they move the adjusted midpoint
 *     when they improve the qualifying touch);
 *   adverse selection, per side at distance d (price units) from that midpoint:
 *     fillRate x size x e^(-fillDecay x d in cents) x (adverseSelection' - d)
 *     (fills per hour at the midpoint, decaying with distance; each share filled loses the expected
 *     move against us after a fill and earns d). adverseSelection' grows on the side that adds to
 *     the position (x (1 + inventoryAversion x position / maxPosition)) and shrinks on the side that
 *     reduces it, so the quotes lean against inventory.
 *
 * Hysteresis (`requoteThreshold`): our resting pair is kept while its value is within that fraction
 * of the best pair's, so a small book move does not cancel and replace it (losing queue place and
 * scoring time).
 *
 * When even the best pair's value is negative (the pool does not pay for the risk), the market gets
 * no quotes. Markets without a reward config are not quoted (choose markets with `selectMarkets`:
 * this strategy ranks them by the estimated daily reward of a two-sided min-size quote against the
 * book's competition, core `estimateMarketReward`, the figure `mmkit markets --rewards` shows).
 *
 * Candidates: every tick of the band on each side from the band's edge to one tick behind the
 * opposite touch (post-only), at most 12 per side (evenly spaced when the band holds more), so at
 * most 144 pairs per re-quote. Quotes then go through the common rules (src/strategy/quoting.ts:
 * minimum spread, post-only, position limits, complement routing with `tokens: 'both'` by default so
 * both sides quote from collateral, refresh tolerance, order age).
 *
 * When to use: markets whose pool is large against the competition resting in the band (see `mmkit
 * markets --rewards`), calm enough that a min-size quote near the midpoint is not run over.
 * Risks: the fill model is a prior, not estimated online: set adverseSelection and fillRate from
 * your own fills (a backtest's fill statistics); a news move fills the near side at a loss no
 * reward repays; the competition moves (the estimate is of this instant).
 *
 * Pure: reads no clock (state.now), does no I/O; imports only the plugin API, 'mmkit/strategy'.
 */
import {
  commonParam,
  type ConditionId,
  defineStrategy,
  type DesiredQuotes,
  estimateMarketReward,
  finishQuotes,
  inventoryOf,
  type MarketInfo,
  type MarketRef,
  MarketRegistry,
  marketTop,
  type MmkitEvent,
  type ParamsOf,
  PRICE_SCALE,
  type QuoteIntent,
  type QuotingRules,
  type RewardTarget,
  rewardConfigOf,
  rewardTarget,
  competitionBook,
  rulesOf,
  sameQuotes,
  type SelectContext,
  type StrategyOutput,
  type StrategyState,
  tickPips,
  type YesBook,
  type YesLevel,
  LOT_MICRO,
} from 'mmkit/strategy';

// ---- params --------------------------------------------------------------------------------------

export const REWARDS_PARAMS = {
  tokens: commonParam.tokens('both'),
  sizeMultiple: {
    type: 'number',
    default: 1,
    min: 1,
    max: 100,
    doc: "Each side's size as a multiple of the market's reward min size (1: the min size; more scores proportionally more and risks more).",
  },
  maxSize: {
    type: 'number',
    default: 100,
    min: 0.01,
    max: 1_000_000,
    doc: 'Largest order, shares: a market whose min size x sizeMultiple is above it is neither chosen nor quoted (an order cut below the min size would not score). Keep it at most bot.risk.maxOrderSizeShares.',
  },
  adverseSelection: {
    type: 'number',
    default: 0.01,
    min: 0,
    max: 0.5,
    doc: 'Expected price move against us after a fill, price units per share (0.01 = 1 cent): the loss a fill costs before the distance earned.',
  },
  fillRate: {
    type: 'number',
    default: 0.5,
    min: 0,
    max: 1000,
    doc: "Expected fills per hour of a quote at the midpoint, in quote sizes (0.5: half the quote's size per hour).",
  },
  fillDecay: {
    type: 'number',
    default: 1,
    min: 0,
    max: 100,
    doc: 'How fast fills thin out with distance: the fill rate is multiplied by e^(-fillDecay x distance in cents).',
  },
  inventoryAversion: {
    type: 'number',
    default: 1,
    min: 0,
    max: 10,
    doc: 'The adverse selection of the side adding to the position is multiplied by 1 + this x position / maxPosition (the other side by 1 - that, at least 0).',
  },
  minRequoteMs: {
    type: 'number',
    default: 1000,
    min: 0,
    max: 600_000,
    doc: "A market's quotes change at most once per this many ms (0: on every event). A change asked sooner keeps the resting quotes, unless the book is missing or stale or they would cross it: the book and our order list can disagree for an instant (an order acknowledged before the book shows it), and the band moves with them.",
  },
  requoteThreshold: {
    type: 'number',
    default: 0.1,
    min: 0,
    max: 1,
    doc: "Hysteresis: our live bid and ask are kept while their expected value is within this fraction of the best pair's (0: always move to the best), so small book moves cost no queue place and no scoring time.",
  },
  // (at most bot.risk.maxPositionShares, 250 by default: the gate would cut a quote above it below the
  // reward size, where it scores nothing and only adds inventory: trial 16 F6)
  maxPosition: commonParam.maxPosition(250),
  minSpread: commonParam.minSpread(0),
  postOnly: commonParam.postOnly('move'),
  priceTolerance: commonParam.priceTolerance(0),
  sizeTolerance: commonParam.sizeTolerance(0),
  maxOrderAge: commonParam.maxOrderAge(0),
} as const;

export type RewardsParams = ParamsOf<typeof REWARDS_PARAMS>;

/** The strategy's configuration in working units. */
export interface RewardsConfig {
  readonly rules: QuotingRules;
  readonly sizeMultiple: number;
  /** Largest order, micro-shares. */
  readonly maxSize: number;
  /** Price units. */
  readonly adverseSelection: number;
  /** Per hour, in quote sizes. */
  readonly fillRate: number;
  /** Per cent. */
  readonly fillDecay: number;
  readonly inventoryAversion: number;
  /** Fraction of the best value within which the live pair is kept. */
  readonly requoteThreshold: number;
  /** Least time between two changes of a market's quotes, ms. */
  readonly minRequoteMs: number;
}

export function rewardsConfig(p: RewardsParams): RewardsConfig {
  return {
    rules: rulesOf(p),
    sizeMultiple: p.sizeMultiple,
    maxSize: Math.round(p.maxSize * 1e6),
    adverseSelection: p.adverseSelection,
    fillRate: p.fillRate,
    fillDecay: p.fillDecay,
    inventoryAversion: p.inventoryAversion,
    requoteThreshold: p.requoteThreshold,
    minRequoteMs: p.minRequoteMs,
  };
}

// ---- the choice ------------------------------------------------------------------------------------

/** At most this many candidate prices per side. */
export const MAX_CANDIDATES = 12;
const LOW_MID = 0.1 * PRICE_SCALE;
const HIGH_MID = 0.9 * PRICE_SCALE;

/** The chosen pair and what it is expected to be worth (USDC per hour). */
export interface RewardChoice {
  /** YES pips. */
  readonly bid: number;
  readonly ask: number;
  /** Micro-shares, each side. */
  readonly size: number;
  /** The midpoint the pair leaves, pips. */
  readonly mid: number;
  readonly rewardPerHour: number;
  readonly adversePerHour: number;
  /** rewardPerHour - adversePerHour. */
  readonly value: number;
}

/** Each side's size: `sizeMultiple` x the reward size in whole lots, at least the reward size; micro. */
export function quoteSize(rewardSize: number, sizeMultiple: number): number {
  return Math.max(rewardSize, Math.floor((rewardSize * sizeMultiple) / LOT_MICRO) * LOT_MICRO);
}

/** Up to `max` prices from `lo` to `hi` (pips, on the tick; both ends kept), evenly spaced. */
export function candidatePrices(lo: number, hi: number, tick: number, max = MAX_CANDIDATES): number[] {
  if (hi < lo) return [];
  const n = Math.round((hi - lo) / tick) + 1;
  if (n <= max) return Array.from({ length: n }, (_, i) => lo + i * tick);
  const out: number[] = [];
  for (let i = 0; i < max; i++) {
    const p = lo + Math.round((i * (n - 1)) / (max - 1)) * tick;
    if (out[out.length - 1] !== p) out.push(p);
  }
  return out;
}

/**
 * The bid and ask (YES pips) that maximise expected rewards minus expected adverse selection (see
 * the module comment) against the competition `book` (net of our orders), or null when no pair is
 * worth quoting. `touchBid`/`touchAsk`: the touch as the venue shows it (post-only bounds);
 * `net`: our net YES exposure, micro-shares; `live`: our resting pair (YES pips), kept while it is
 * inside the bounds and its value is within `requoteThreshold` of the best. Pure.
 */
export function chooseRewardQuotes(
  t: RewardTarget,
  book: YesBook,
  touch: { readonly touchBid: number | null; readonly touchAsk: number | null },
  cfg: RewardsConfig,
  net: number,
  live?: { readonly bid: number; readonly ask: number } | null,
): RewardChoice | null {
  const tick = t.tick;
  const rc = t.config;
  const size = quoteSize(t.size, cfg.sizeMultiple);
  if (size > cfg.maxSize) return null;
  const v = rc.maxSpread;
  const mid0 = t.mid2 / 2;
  const half = cfg.rules.minSpread / 2;
  const bidHi = Math.min(
    touch.touchAsk === null ? Number.POSITIVE_INFINITY : touch.touchAsk - tick,
    Math.floor((mid0 - half) / tick + 1e-9) * tick,
  );
  const askLo = Math.max(
    touch.touchBid === null ? Number.NEGATIVE_INFINITY : touch.touchBid + tick,
    Math.ceil((mid0 + half) / tick - 1e-9) * tick,
  );
  const bids = candidatePrices(t.bidFloor, bidHi, tick);
  const asks = candidatePrices(askLo, t.askCeiling, tick);
  if (bids.length === 0 || asks.length === 0) return null;

  // the competition's qualifying levels (at least the min size), and its qualifying touch
  const cb: Array<readonly [number, number]> = [];
  const ca: Array<readonly [number, number]> = [];
  let qBid = Number.NEGATIVE_INFINITY;
  let qAsk = Number.POSITIVE_INFINITY;
  for (const [p, s] of book.bids)
    if (s >= rc.minSize) {
      cb.push([p, s]);
      if (p > qBid) qBid = p;
    }
  for (const [p, s] of book.asks)
    if (s >= rc.minSize) {
      ca.push([p, s]);
      if (p < qAsk) qAsk = p;
    }
  const mult = rc.multiplier ?? 1;
  const score = (d: number): number => (d < v ? ((v - d) / v) ** 2 * mult : 0);
  const qmin = (one: number, two: number, mid: number): number => {
    const lo = Math.min(one, two);
    if (mid < LOW_MID || mid > HIGH_MID) return lo;
    return Math.max(lo, Math.max(one, two) / 3);
  };
  const ratio = cfg.rules.maxPosition > 0 ? Math.max(-1, Math.min(1, net / cfg.rules.maxPosition)) : 0;
  const asBid = cfg.adverseSelection * Math.max(0, 1 + cfg.inventoryAversion * ratio);
  const asAsk = cfg.adverseSelection * Math.max(0, 1 - cfg.inventoryAversion * ratio);
  const shares = size / 1e6;
  const adverse = (dPips: number, as: number): number =>
    cfg.fillRate * shares * Math.exp((-cfg.fillDecay * dPips) / 100) * (as - dPips / PRICE_SCALE);
  const ratePerHour = rc.dailyRate / 1e6 / 24;

  const evaluate = (pb: number, pa: number): RewardChoice | null => {
    const mid = (Math.max(qBid, pb) + Math.min(qAsk, pa)) / 2;
    const one = shares * score(mid - pb);
    const two = shares * score(pa - mid);
    const own = qmin(one, two, mid);
    if (own <= 0) return null;
    let o1 = 0;
    let o2 = 0;
    for (const [p, s] of cb) o1 += (s / 1e6) * score(Math.abs(mid - p));
    for (const [p, s] of ca) o2 += (s / 1e6) * score(Math.abs(p - mid));
    const reward = (ratePerHour * own) / (own + qmin(o1, o2, mid));
    const cost = adverse(mid - pb, asBid) + adverse(pa - mid, asAsk);
    return { bid: pb, ask: pa, size, mid, rewardPerHour: reward, adversePerHour: cost, value: reward - cost };
  };
  let best: RewardChoice | null = null;
  for (const pb of bids) {
    for (const pa of asks) {
      if (pb >= pa) continue;
      const c = evaluate(pb, pa);
      if (c !== null && (best === null || c.value > best.value + 1e-12)) best = c;
    }
  }
  if (best === null || !(best.value > 0)) return null;
  if (
    live != null &&
    cfg.requoteThreshold > 0 &&
    live.bid >= t.bidFloor &&
    live.bid <= bidHi &&
    live.ask >= askLo &&
    live.ask <= t.askCeiling &&
    live.bid < live.ask
  ) {
    const kept = evaluate(live.bid, live.ask);
    if (kept !== null && kept.value > 0 && kept.value >= best.value * (1 - cfg.requoteThreshold)) return kept;
  }
  return best;
}

/** The desired quotes of one market (empty: not rewarded, no trustworthy book, or not worth it). */
export function quoteRewards(ref: MarketRef, cfg: RewardsConfig, state: StrategyState): QuoteIntent[] {
  if (!ref.quotable) return [];
  const top = marketTop(state, ref, { excludeOwn: true, tokens: cfg.rules.tokens });
  if (top === null || top.touchBid === null || top.touchAsk === null) return [];
  const t = rewardTarget(ref, state);
  if (t === null) return [];
  const book = competitionBook(state, ref);
  if (book === null) return [];
  const inv = inventoryOf(state, ref, cfg.rules.tokens);
  const c = chooseRewardQuotes(t, book, top, cfg, inv.net, livePair(ref, state, t.size));
  if (c === null) return [];
  const levels: YesLevel[] = [
    { bid: true, price: c.bid, size: c.size },
    { bid: false, price: c.ask, size: c.size },
  ];
  // each side one order of at least the reward size (the venue scores orders alone)
  return finishQuotes(levels, t.mid2 / 2, top, ref, { ...cfg.rules, rewardSize: t.size }, state);
}

/**
 * Our resting pair: the best YES bid and the lowest YES ask (YES pips) of our orders that still have
 * at least `size` to match each (a YES bid or a NO ask; a YES ask or a NO bid), or null without
 * both. Orders count alone, as the venue scores them: a side split over both tokens below the size
 * in each part does not score (trial 16 F1).
 */
export function livePair(
  ref: Pick<MarketRef, 'market' | 'yes' | 'no'>,
  state: StrategyState,
  size: number,
): { bid: number; ask: number } | null {
  let bid = -1;
  let ask = Number.POSITIVE_INFINITY;
  for (const o of state.openOrders(ref.market)) {
    const rest = o.originalSize - o.sizeMatched;
    const isYes = o.tokenId === ref.yes;
    if (rest <= 0 || (!isYes && o.tokenId !== ref.no)) continue;
    if (rest < size) continue;
    const p = isYes ? o.price : PRICE_SCALE - o.price;
    if (isYes === (o.side === 'BUY')) bid = Math.max(bid, p);
    else ask = Math.min(ask, p);
  }
  return bid < 0 || ask === Number.POSITIVE_INFINITY ? null : { bid, ask };
}

/** A market's quotes as last sent, and since when (ms) they have been those. */
export interface HeldQuotes {
  readonly quotes: readonly QuoteIntent[];
  readonly since: number;
}

/**
 * The requote limit (`minRequoteMs`): the quotes to send now, given those held. A change is taken
 * when the held quotes are older than `minMs`, or `urgent` (the book is missing or stale), or a
 * held quote would cross the touch (`touch`: the YES touch without our orders); otherwise the held
 * quotes stay. Pure.
 */
export function holdQuotes(
  held: HeldQuotes | undefined,
  next: readonly QuoteIntent[],
  now: number,
  minMs: number,
  ref: Pick<MarketRef, 'yes'>,
  touch: { readonly touchBid: number | null; readonly touchAsk: number | null } | null,
  urgent: boolean,
): HeldQuotes {
  if (held === undefined || sameQuotes(held.quotes, next)) return held ?? { quotes: next, since: now };
  if (urgent || touch === null || now - held.since >= minMs) return { quotes: next, since: now };
  for (const q of held.quotes) {
    const isYes = q.tokenId === ref.yes;
    const p = isYes ? q.price : PRICE_SCALE - q.price;
    const bid = isYes === (q.side === 'BUY');
    if (bid ? touch.touchAsk !== null && p >= touch.touchAsk : touch.touchBid !== null && p <= touch.touchBid)
      return { quotes: next, since: now };
  }
  return held;
}

/**
 * The markets worth quoting, best first: those with a reward config, ranked by the estimated daily
 * reward of a two-sided quote of `sizeMultiple` x the min size against the book's competition
 * (core `estimateMarketReward`), ties by the larger pool. Markets without rewards, whose book
 * cannot be read, or whose min size x sizeMultiple is above `maxSize` are left out.
 */
export async function selectRewardMarkets(
  markets: readonly MarketInfo[],
  ctx: Pick<SelectContext<RewardsParams>, 'book' | 'params'>,
): Promise<ConditionId[]> {
  const ranked: Array<{ id: ConditionId; est: number; rate: number }> = [];
  for (const m of markets) {
    const rc = rewardConfigOf(m);
    if (
      rc === null ||
      quoteSize(Math.max(rc.minSize, m.minOrderSize), ctx.params.sizeMultiple) > ctx.params.maxSize * 1e6
    )
      continue;
    const b = await ctx.book(m.tokens[0].tokenId).catch(() => undefined);
    if (b === undefined) continue;
    const e = estimateMarketReward(
      rc,
      b.levels('bids'),
      b.levels('asks'),
      tickPips(m.tick),
      rc.minSize * ctx.params.sizeMultiple,
    );
    ranked.push({ id: m.market, est: e.estDaily, rate: rc.dailyRate });
  }
  ranked.sort((x, y) => y.est - x.est || y.rate - x.rate);
  return ranked.map((r) => r.id);
}

// ---- the plugin ----------------------------------------------------------------------------------

export default defineStrategy({
  name: 'rewards',
  description:
    'Quotes both sides inside the reward band at the min size where expected rewards beat expected adverse selection; picks markets by estimated daily reward.',
  params: REWARDS_PARAMS,
  selectMarkets: (markets, ctx) => selectRewardMarkets(markets, ctx),
  create(ctx, params) {
    const cfg = rewardsConfig(params);
    const reg = new MarketRegistry(ctx.markets.values());
    const plain = reg.all().filter((r) => rewardConfigOf(r.info) === null);
    if (plain.length > 0)
      ctx.log.warn(
        { markets: plain.map((r) => r.market) },
        'rewards strategy: markets without a reward config are not quoted',
      );
    ctx.log.debug({ markets: reg.size, tokens: cfg.rules.tokens }, 'rewards strategy ready');
    const held = new Map<ConditionId, HeldQuotes>();
    const desired = (r: MarketRef, state: StrategyState): DesiredQuotes => {
      const next = quoteRewards(r, cfg, state);
      const top = marketTop(state, r, { excludeOwn: false, tokens: cfg.rules.tokens });
      const h = holdQuotes(held.get(r.market), next, state.now, cfg.minRequoteMs, r, top, top === null);
      held.set(r.market, h);
      return { market: r.market, quotes: [...h.quotes], at: state.now };
    };
    return {
      onEvent(e: MmkitEvent, state: StrategyState): StrategyOutput | undefined {
        const a = reg.note(e);
        if (a.kind === 'none') return undefined;
        const refs = a.kind === 'all' ? reg.all() : [a.ref];
        return refs.length === 0 ? undefined : { quotes: refs.map((r) => desired(r, state)) };
      },
    };
  },
});
