/**
 * `amm`: a concentrated-liquidity pool, emulated with a ladder of limit orders (as poly-market-
 * maker's AMM strategy does), re-centred on the pool's own price after fills.
 *
 * The idea: a constant-product pool with liquidity L concentrated in [pMin, pMax] (Uniswap v3
 * maths, YES shares against collateral) holds, at price p, x(p) = L (1/sqrt(p) - 1/sqrt(pMax)) YES
 * shares and y(p) = L (sqrt(p) - sqrt(pMin)) collateral. A taker moving its price from p_a to p_b
 * trades exactly
 *
 *     shares = L * |1/sqrt(p_b) - 1/sqrt(p_a)|        (collateral = L * |sqrt(p_b) - sqrt(p_a)|)
 *
 * with it: the pool buys YES as the price falls and sells YES as it rises. The ladder puts those
 * amounts on the book: bids at p - spread, p - spread - step, ... down to max(pMin, p - depth), the
 * k-th sized L (1/sqrt(b_k) - 1/sqrt(b_(k-1))) with b_0 = p (the first level carries the whole
 * move from p, the spread being the pool's fee); asks the mirror image, L (1/sqrt(a_(k-1)) -
 * 1/sqrt(a_k)), up to min(pMax, p + depth). Each level is rounded down to whole lots (never more
 * than the pool would trade); a level below the market's minimum size is carried outward into the
 * next one (quoted farther, never nearer). Walking the ladder thus moves our inventory exactly as
 * it would move the pool's.
 *
 * Re-centring: the pool's price is a function of what it holds. Anchored at (p0, n0) (the book mid
 * and our net YES exposure when quoting starts, or `initialPrice`), after fills changed the net
 * exposure to n:
 *
 *     1/sqrt(p) = 1/sqrt(p0) + (n - n0) / L        (shares; p snapped to the nearest pip, kept in [pMin, pMax])
 *
 * so a bid filled at b_1 for its full size puts the pool at b_1: the next ladder is the old one
 * shifted by one level (with step = spread the remaining bids keep their exact prices and sizes:
 * no churn). Between fills the pool price does not move with the book, as a real pool's does not;
 * if the book's mid drifts more than `maxDeviation` away, the pool is re-anchored at the mid (the
 * inventory kept), instead of waiting to be arbitraged there.
 *
 * Common rules (src/strategy/quoting.ts): refresh tolerance, max order age, minimum spread around
 * the pool price, post-only (crossing levels move behind the touch or drop), complement routing
 * from one YES ladder (`tokens: 'both'` quotes the ask side as NO bids from collateral), no quote
 * without a trustworthy book (the anchor needs a two-sided one).
 *
 * Markets (`selectMarkets`, when none are configured): `selectAmmMarkets`, long-dated two-sided
 * books whose mid leaves the whole ladder inside [pMin, pMax].
 *
 * When to use: you want passive, predictable liquidity over a price range, with inventory and
 * price moving together like a pool (e.g. a long-dated market around a stable price); sizes follow
 * one knob (L) instead of per-band amounts.
 * Risks: a pool is always adversely selected when the price moves for good (impermanent loss): it
 * buys all the way down to pMin; keep pMin/pMax and maxPosition tight. The pool price moves only
 * with our fills, so a fast market leaves it stale until maxDeviation re-anchors it. Deep ladders
 * cost many orders (rate budgets): keep depth / step small.
 *
 * Pure: reads no clock, does no I/O; imports only the plugin API, 'mmkit/strategy'.
 */
import {
  AMOUNT_SCALE,
  ceilToTick,
  commonParam,
  type ConditionId,
  ConfigError,
  defineStrategy,
  type DesiredQuotes,
  finishQuotes,
  floorToTick,
  inventoryOf,
  LOT_MICRO,
  lotsDown,
  type MarketInfo,
  type MarketRef,
  MarketRegistry,
  marketTop,
  type MarketTop,
  type MmkitEvent,
  type ParamsOf,
  PRICE_SCALE,
  type QuoteIntent,
  type QuotingRules,
  rulesOf,
  type SelectContext,
  selectTwoSidedMarkets,
  type StrategyOutput,
  type StrategyState,
  type YesLevel,
} from 'mmkit/strategy';

// ---- params --------------------------------------------------------------------------------------

/** The parameter schema of `amm` (prices in price units: 0.01 = 1 cent). */
export const AMM_PARAMS = {
  tokens: commonParam.tokens('both'),
  pMin: {
    type: 'number',
    default: 0.05,
    min: 0.0001,
    max: 0.9999,
    doc: 'Lower end of the pool range, price units: the pool holds no bids below it.',
  },
  pMax: {
    type: 'number',
    default: 0.95,
    min: 0.0001,
    max: 0.9999,
    doc: 'Upper end of the pool range, price units: the pool holds no asks above it.',
  },
  spread: {
    type: 'number',
    default: 0.01,
    min: 0,
    max: 0.5,
    doc: "Distance of the first bid and ask from the pool price, price units (the pool's fee).",
  },
  step: {
    type: 'number',
    default: 0.01,
    min: 0.0001,
    max: 0.5,
    doc: 'Distance between ladder levels, price units (rounded to whole ticks, at least one).',
  },
  depth: {
    type: 'number',
    default: 0.05,
    min: 0.0001,
    max: 1,
    doc: 'How far the ladder reaches from the pool price on each side, price units.',
  },
  liquidity: {
    type: 'number',
    default: 1000,
    min: 1,
    max: 10_000_000,
    doc: "L, the pool's liquidity (sqrt(shares x collateral)): the ladder holds about L / (200 p^1.5) shares per cent at price p (1000: ~14 shares a cent at 0.50).",
  },
  initialPrice: {
    type: 'number',
    default: 0,
    min: 0,
    max: 0.9999,
    doc: 'Price the pool starts at, price units (0: the book mid when quoting starts).',
  },
  maxDeviation: {
    type: 'number',
    default: 0.05,
    min: 0,
    max: 1,
    doc: 'Re-anchor the pool at the book mid when its price is farther than this from it, price units (0: never).',
  },
  minSpread: commonParam.minSpread(0),
  postOnly: commonParam.postOnly('move'),
  maxPosition: commonParam.maxPosition(500),
  priceTolerance: commonParam.priceTolerance(0),
  sizeTolerance: commonParam.sizeTolerance(0.1),
  maxOrderAge: commonParam.maxOrderAge(0),
  excludeOwnOrders: commonParam.excludeOwnOrders(true),
} as const;

export type AmmParams = ParamsOf<typeof AMM_PARAMS>;

/** The configuration in integer units (pips) and L. */
export interface AmmConfig {
  readonly rules: QuotingRules;
  readonly pMin: number;
  readonly pMax: number;
  readonly spread: number;
  readonly step: number;
  readonly depth: number;
  readonly liquidity: number;
  /** Pips; 0: the mid. */
  readonly initialPrice: number;
  /** Pips; 0: never. */
  readonly maxDeviation: number;
  readonly excludeOwnOrders: boolean;
}

const pips = (x: number): number => Math.round(x * PRICE_SCALE);

/** @throws ConfigError naming `bot.params.pMin` when pMin >= pMax */
export function ammConfig(p: AmmParams): AmmConfig {
  if (!(p.pMin < p.pMax)) throw new ConfigError('bot.params.pMin', `pMin (${p.pMin}) must be below pMax (${p.pMax})`);
  return {
    rules: rulesOf({ ...p, outOfRange: 'drop' }),
    pMin: pips(p.pMin),
    pMax: pips(p.pMax),
    spread: pips(p.spread),
    step: Math.max(1, pips(p.step)),
    depth: pips(p.depth),
    liquidity: p.liquidity,
    initialPrice: pips(p.initialPrice),
    maxDeviation: pips(p.maxDeviation),
    excludeOwnOrders: p.excludeOwnOrders,
  };
}

// ---- the pool ---------------------------------------------------------------------------------------

/** Shares a pool of liquidity L trades while its price moves between `pa` and `pb` (probabilities): L |1/sqrt(pb) - 1/sqrt(pa)|. */
export function poolShares(liquidity: number, pa: number, pb: number): number {
  return liquidity * Math.abs(1 / Math.sqrt(pb) - 1 / Math.sqrt(pa));
}

/** Where the pool was anchored: its price (pips) and our net YES exposure then (micro-shares). */
export interface PoolAnchor {
  readonly price: number;
  readonly net: number;
}

/**
 * The pool's price (pips, nearest pip, inside [pMin, pMax]) when our net YES exposure is `net`
 * micro-shares: 1/sqrt(p) = 1/sqrt(p0) + (net - n0) / L.
 */
export function poolPrice(
  anchor: PoolAnchor,
  cfg: Pick<AmmConfig, 'liquidity' | 'pMin' | 'pMax'>,
  net: number,
): number {
  const inv = 1 / Math.sqrt(anchor.price / PRICE_SCALE) + (net - anchor.net) / AMOUNT_SCALE / cfg.liquidity;
  if (!(inv > 0)) return cfg.pMax;
  const p = Math.round(PRICE_SCALE / (inv * inv));
  return Math.min(cfg.pMax, Math.max(cfg.pMin, p));
}

/**
 * The anchor to quote from: the current one, or a new one at the book mid (nearest pip, inside
 * [pMin, pMax]) when there is none yet (`initialPrice` first, if set) or when the pool price is
 * more than `maxDeviation` from the mid. Undefined when a new anchor is needed and there is no mid.
 */
export function nextAnchor(
  anchor: PoolAnchor | undefined,
  mid: number | null,
  net: number,
  cfg: AmmConfig,
): PoolAnchor | undefined {
  const clamp = (p: number): number => Math.min(cfg.pMax, Math.max(cfg.pMin, Math.round(p)));
  if (anchor === undefined) {
    if (cfg.initialPrice > 0) return { price: clamp(cfg.initialPrice), net };
    return mid === null ? undefined : { price: clamp(mid), net };
  }
  if (cfg.maxDeviation > 0 && mid !== null && Math.abs(poolPrice(anchor, cfg, net) - mid) > cfg.maxDeviation)
    return { price: clamp(mid), net };
  return anchor;
}

/**
 * The ladder of a pool at price `p` (pips) on a `tick` grid (see the module comment): YES bids
 * best first then asks best first, sizes in micro-shares (lots), each at least `minSize` (smaller
 * levels carried outward).
 */
export function ammLadder(
  p: number,
  cfg: Pick<AmmConfig, 'pMin' | 'pMax' | 'spread' | 'step' | 'depth' | 'liquidity'>,
  tick: number,
  minSize: number,
): YesLevel[] {
  const out: YesLevel[] = [];
  const step = Math.max(tick, Math.round(cfg.step / tick) * tick);
  const min = Math.max(minSize, LOT_MICRO);
  const shares = (pa: number, pb: number): number =>
    lotsDown(poolShares(cfg.liquidity, pa / PRICE_SCALE, pb / PRICE_SCALE) * AMOUNT_SCALE);
  // bids: the pool buys as the price falls from p
  const lower = Math.max(cfg.pMin, p - cfg.depth, tick);
  let prev = p;
  let pending = 0;
  for (let b = floorToTick(p - cfg.spread, tick); b >= lower; b -= step) {
    pending += shares(prev, b);
    prev = b;
    if (pending >= min) {
      out.push({ bid: true, price: b, size: pending });
      pending = 0;
    }
  }
  // asks: the pool sells as the price rises from p
  const upper = Math.min(cfg.pMax, p + cfg.depth, PRICE_SCALE - tick);
  prev = p;
  pending = 0;
  for (let a = ceilToTick(p + cfg.spread, tick); a <= upper; a += step) {
    pending += shares(prev, a);
    prev = a;
    if (pending >= min) {
      out.push({ bid: false, price: a, size: pending });
      pending = 0;
    }
  }
  return out;
}

/** The desired quotes of one market for a pool anchored at `anchor` (empty without a trustworthy book). Pure. */
export function quoteAmm(
  ref: MarketRef,
  cfg: AmmConfig,
  anchor: PoolAnchor | undefined,
  top: MarketTop | null,
  state: StrategyState,
): QuoteIntent[] {
  if (top === null || anchor === undefined) return [];
  const inv = inventoryOf(state, ref, cfg.rules.tokens);
  const p = poolPrice(anchor, cfg, inv.net);
  return finishQuotes(ammLadder(p, cfg, ref.tick, ref.minSize), p, top, ref, cfg.rules, state);
}

// ---- the plugin ------------------------------------------------------------------------------------

/** The `amm` plugin (see the module comment; params in AMM_PARAMS). */
// ---- market choice ---------------------------------------------------------------------------------

/** The least time to a chosen market's end, ms: a pool is for a long-dated market (a day). */
export const AMM_MIN_MS_TO_END = 86_400_000;
/** The widest book chosen, price units. */
export const AMM_MAX_SPREAD = 0.1;

/**
 * The markets a pool suits, best first (`selectMarkets`): two-sided YES books whose mid leaves the
 * whole ladder inside the pool range ([pMin + depth, pMax - depth]; [pMin, pMax] when that is
 * empty), at most AMM_MAX_SPREAD wide, ending at least AMM_MIN_MS_TO_END from now, tightest first,
 * then the deepest (src/strategy/select.ts `selectTwoSidedMarkets`; deterministic).
 */
export function selectAmmMarkets(
  markets: readonly MarketInfo[],
  ctx: Pick<SelectContext<AmmParams>, 'now' | 'count' | 'book' | 'params'>,
): Promise<ConditionId[]> {
  const { pMin, pMax, depth } = ctx.params;
  const inner = pMin + depth < pMax - depth;
  return selectTwoSidedMarkets(markets, ctx, {
    minMid: inner ? pMin + depth : pMin,
    maxMid: inner ? pMax - depth : pMax,
    maxSpread: AMM_MAX_SPREAD,
    minMsToEnd: AMM_MIN_MS_TO_END,
  });
}

export default defineStrategy({
  name: 'amm',
  description:
    'A concentrated-liquidity pool in [pMin, pMax] as a ladder of orders sized by the pool maths (L), re-centred on the pool price after fills.',
  params: AMM_PARAMS,
  selectMarkets: (markets, ctx) => selectAmmMarkets(markets, ctx),
  create(ctx, params) {
    const cfg = ammConfig(params);
    const reg = new MarketRegistry(ctx.markets.values());
    const anchors = new Map<ConditionId, PoolAnchor>();
    ctx.log.debug({ markets: reg.size, tokens: cfg.rules.tokens }, 'amm strategy ready');

    const desired = (ref: MarketRef, state: StrategyState): DesiredQuotes => {
      if (!ref.quotable) return { market: ref.market, quotes: [], at: state.now };
      const top = marketTop(state, ref, { excludeOwn: cfg.excludeOwnOrders, tokens: cfg.rules.tokens });
      let anchor = anchors.get(ref.market);
      if (top !== null) {
        const next = nextAnchor(anchor, top.mid, inventoryOf(state, ref, cfg.rules.tokens).net, cfg);
        if (next !== anchor && next !== undefined) {
          anchors.set(ref.market, next);
          ctx.log.debug(
            { market: ref.market, price: next.price, net: next.net },
            anchor === undefined ? 'pool anchored' : 'pool re-anchored at the mid',
          );
        }
        anchor = next;
      }
      return { market: ref.market, quotes: quoteAmm(ref, cfg, anchor, top, state), at: state.now };
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
