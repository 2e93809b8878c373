/**
 * `avellaneda`: Avellaneda–Stoikov market making, adapted to prices bounded in (0, 1).
 *
 * The idea (Avellaneda & Stoikov, "High-frequency trading in a limit order book", 2008): a market
 * maker holding inventory q should quote around a RESERVATION price shifted against q, with an
 * OPTIMAL spread that grows with volatility, risk aversion and time left, and shrinks when orders
 * arrive densely near the mid:
 *
 *     r = s - q * gamma * sigma^2 * (T - t)
 *     delta = gamma * sigma^2 * (T - t) + (2 / gamma) * ln(1 + gamma / kappa)
 *     bid = r - delta / 2,  ask = r + delta / 2
 *
 * Where the model lives: LOGIT space, x = ln(p / (1 - p)), s = logit(mid). Why:
 *  - a prediction-market price is bounded; its moves shrink near 0 and 1 (a 0.97 market cannot go
 *    up 5 cents). In logit space the same news moves the price by similar amounts wherever it is,
 *    so sigma and kappa estimated at one price level stay meaningful as the price moves;
 *  - r, bid and ask map back through the sigmoid, so however large the inventory term gets they
 *    stay inside (0, 1) (in probability space r = s - q*gamma*sigma^2*(T-t) leaves [0, 1] and the
 *    model breaks down);
 *  - the inventory penalty in price terms scales with p(1 - p), the price sensitivity of a share.
 * Bounded-domain adaptations on top of that:
 *  - Widening near 0 and 1: the diffusion ignores jumps (news, resolution), which dominate near the
 *    edges; the logit half-spread is multiplied by 1 + edgeWidening * (1 - 4 p (1 - p)) (x1 at 0.50,
 *    up to x(1 + edgeWidening) at the edges).
 *  - Quotes on valid ticks inside [tick, 1 - tick]: bids rounded down, asks up; a quote beyond the
 *    range is clamped to its edge (when the minimum spread allows; `outOfRange`) or dropped; never
 *    crossing the book (post-only).
 *
 * Estimated online (src/strategy/models.ts), per market:
 *  - sigma^2: EWMA of the logit mid's variance per second (mid net of our own orders), sampled at
 *    most every `volSampleMs` (sparser sampling limits bid/ask bounce noise), prior `initialVol`.
 *  - kappa: from public trades (`last_trade`): their logit distance from the mid before them is
 *    exponential with rate kappa under the model, so kappa = 1 / EWMA(distance), prior `initialKappa`.
 *  - T - t: min(`horizon`, time to the market's endDate) when `useEndDate`, else `horizon` (a
 *    rolling horizon). Near the end the inventory term fades, as in the finite-horizon model.
 *  - q: net YES exposure (YES - NO held with `tokens: 'both'`) in units of `orderSize`.
 *
 * Sizes: `orderSize` a side, shaped by hummingbot's eta (`sizeShape`): the side that would add to
 * the position quotes orderSize * e^(-eta |q|). Limits: a side stops at `maxPosition`.
 * Common rules (src/strategy/quoting.ts): refresh tolerance, max order age, minimum spread,
 * post-only, complement routing from one YES ladder, no quote without a trustworthy two-sided book.
 *
 * Markets (`selectMarkets`, when none are configured): `selectAvellanedaMarkets`, two-sided books
 * in the mid range where the model works.
 *
 * When to use: liquid two-sided markets where the mid moves like a diffusion (no imminent
 * resolution), and you want inventory control that is principled rather than hand-tuned.
 * Risks: the model assumes no informed flow and no jumps: a market about to resolve, or news, will
 * run over the quotes (edgeWidening and minSpread only soften that); gamma and kappa interact
 * non-intuitively (hummingbot #3198, #4852): start from the defaults and widen with minSpread;
 * the estimators start from priors and need minutes of data; a stale or one-sided book pulls the
 * quotes (never a guessed mid).
 *
 * Pure: reads no clock (state.now), does no I/O; imports only the plugin API, 'mmkit/strategy'.
 */
import {
  commonParam,
  type ConditionId,
  defineStrategy,
  type DesiredQuotes,
  EwmaArrivalDecay,
  EwmaVariance,
  finishQuotes,
  inventoryOf,
  logit,
  type MarketInfo,
  type MarketRef,
  MarketRegistry,
  marketTop,
  type MmkitEvent,
  type ParamsOf,
  PRICE_SCALE,
  type QuoteIntent,
  type QuotingRules,
  rulesOf,
  type SelectContext,
  selectTwoSidedMarkets,
  sharesToMicro,
  sigmoid,
  type StrategyOutput,
  type StrategyState,
  type YesLevel,
} from 'mmkit/strategy';

// ---- params --------------------------------------------------------------------------------------

/** The parameter schema of `avellaneda`. */
export const AVELLANEDA_PARAMS = {
  tokens: commonParam.tokens('both'),
  orderSize: {
    type: 'number',
    default: 10,
    min: 0.01,
    max: 100_000,
    doc: 'Shares quoted on each side (before sizeShape); also the unit of the inventory q.',
  },
  riskAversion: {
    type: 'number',
    default: 1,
    min: 0.001,
    max: 100,
    doc: 'gamma: risk aversion. Higher: stronger skew against inventory and a wider spread.',
  },
  horizon: {
    type: 'number',
    default: 3600,
    min: 1,
    max: 31_536_000,
    doc: 'T - t in seconds: the rolling horizon (and the cap on the time to the end date when useEndDate).',
  },
  useEndDate: {
    type: 'boolean',
    default: true,
    doc: "T - t = min(horizon, time to the market's endDate): the inventory term fades as the end nears.",
  },
  initialVol: {
    type: 'number',
    default: 0.002,
    min: 0,
    max: 1,
    doc: 'Prior sigma: volatility of the logit mid per sqrt(second) (0.002 is about 3 cents an hour at 0.50).',
  },
  volHalfLife: {
    type: 'number',
    default: 300,
    min: 1,
    max: 86_400,
    doc: 'Half-life of the volatility EWMA, seconds of observed time.',
  },
  volSampleMs: {
    type: 'integer',
    default: 1000,
    min: 0,
    max: 60_000,
    doc: 'Minimum time between two volatility samples of the mid, ms.',
  },
  initialKappa: {
    type: 'number',
    default: 20,
    min: 0.01,
    max: 10_000,
    doc: 'Prior kappa: order-arrival decay per logit unit of distance from the mid (20: intensity falls by e every 0.05 logit, about 1.25 cents at 0.50).',
  },
  kappaHalfLife: { type: 'number', default: 50, min: 1, max: 100_000, doc: 'Half-life of the kappa EWMA, in trades.' },
  edgeWidening: {
    type: 'number',
    default: 1,
    min: 0,
    max: 20,
    doc: 'Extra widening of the logit half-spread near 0 and 1: factor 1 + edgeWidening x (1 - 4p(1 - p)).',
  },
  sizeShape: {
    type: 'number',
    default: 0,
    min: 0,
    max: 10,
    doc: 'eta: the side adding to the position quotes orderSize x e^(-eta |q|) (0: constant sizes).',
  },
  minSpread: commonParam.minSpread(0.02),
  postOnly: commonParam.postOnly('move'),
  outOfRange: commonParam.outOfRange('clamp'),
  maxPosition: commonParam.maxPosition(100),
  priceTolerance: commonParam.priceTolerance(1),
  sizeTolerance: commonParam.sizeTolerance(0.2),
  maxOrderAge: commonParam.maxOrderAge(0),
  excludeOwnOrders: commonParam.excludeOwnOrders(true),
} as const;

export type AvellanedaParams = ParamsOf<typeof AVELLANEDA_PARAMS>;

/** The configuration in working units. */
export interface AvellanedaConfig {
  readonly rules: QuotingRules;
  /** Micro-shares. */
  readonly orderSize: number;
  readonly gamma: number;
  /** Seconds. */
  readonly horizonSec: number;
  readonly useEndDate: boolean;
  /** Variance of the logit mid per second (initialVol^2). */
  readonly initialVariance: number;
  readonly volHalfLifeMs: number;
  readonly volSampleMs: number;
  readonly initialKappa: number;
  readonly kappaHalfLife: number;
  readonly edgeWidening: number;
  readonly sizeShape: number;
  readonly excludeOwnOrders: boolean;
}

export function avellanedaConfig(p: AvellanedaParams): AvellanedaConfig {
  return {
    rules: rulesOf(p),
    orderSize: sharesToMicro(p.orderSize),
    gamma: p.riskAversion,
    horizonSec: p.horizon,
    useEndDate: p.useEndDate,
    initialVariance: p.initialVol * p.initialVol,
    volHalfLifeMs: p.volHalfLife * 1000,
    volSampleMs: p.volSampleMs,
    initialKappa: p.initialKappa,
    kappaHalfLife: p.kappaHalfLife,
    edgeWidening: p.edgeWidening,
    sizeShape: p.sizeShape,
    excludeOwnOrders: p.excludeOwnOrders,
  };
}

// ---- the model -------------------------------------------------------------------------------------

/** Inputs of the pricing model (floats). */
export interface AvellanedaInputs {
  /** The market mid as a probability, in (0, 1). */
  readonly mid: number;
  /** Inventory in order sizes (signed YES exposure). */
  readonly q: number;
  /** sigma^2: variance of the logit mid per second. */
  readonly variance: number;
  /** kappa, per logit unit. */
  readonly kappa: number;
  /** T - t, seconds. */
  readonly tau: number;
  readonly gamma: number;
  readonly edgeWidening: number;
}

/** The model's prices (probabilities) and its logit spread. */
export interface AvellanedaPrices {
  readonly reservation: number;
  readonly bid: number;
  readonly ask: number;
  /** delta, logit units, before edge widening. */
  readonly spread: number;
  /** The half-spread used, logit units, after edge widening. */
  readonly half: number;
}

/**
 * Avellaneda–Stoikov in logit space (see the module comment): x_r = logit(mid) - q gamma sigma^2 tau,
 * delta = gamma sigma^2 tau + (2 / gamma) ln(1 + gamma / kappa), half = delta / 2 x (1 + edgeWidening
 * x (1 - 4 mid (1 - mid))); reservation = sigmoid(x_r), bid/ask = sigmoid(x_r -/+ half).
 */
export function avellanedaPrices(i: AvellanedaInputs): AvellanedaPrices {
  const x = logit(i.mid);
  const inv = i.gamma * i.variance * Math.max(0, i.tau);
  const xr = x - i.q * inv;
  const spread = inv + (2 / i.gamma) * Math.log(1 + i.gamma / i.kappa);
  const half = (spread / 2) * (1 + i.edgeWidening * (1 - 4 * i.mid * (1 - i.mid)));
  return { reservation: sigmoid(xr), bid: sigmoid(xr - half), ask: sigmoid(xr + half), spread, half };
}

/** The per-market estimates the quotes use. */
export interface AvellanedaEstimates {
  /** Variance of the logit mid per second. */
  readonly variance: number;
  readonly kappa: number;
}

/** T - t in seconds at `now` for a market ending at `endMs` (NaN: unknown). */
export function horizonAt(
  cfg: Pick<AvellanedaConfig, 'horizonSec' | 'useEndDate'>,
  endMs: number,
  now: number,
): number {
  if (!cfg.useEndDate || !Number.isFinite(endMs)) return cfg.horizonSec;
  return Math.min(cfg.horizonSec, Math.max(0, (endMs - now) / 1000));
}

/**
 * The desired quotes of one market: empty without a trustworthy two-sided book; otherwise the
 * model's bid and ask around the reservation price, through the common rules. Pure.
 */
export function quoteAvellaneda(
  ref: MarketRef,
  cfg: AvellanedaConfig,
  est: AvellanedaEstimates,
  state: StrategyState,
): QuoteIntent[] {
  const top = marketTop(state, ref, { excludeOwn: cfg.excludeOwnOrders, tokens: cfg.rules.tokens });
  if (top === null || top.mid === null) return [];
  const inv = inventoryOf(state, ref, cfg.rules.tokens);
  const q = inv.net / cfg.orderSize;
  const endMs = Date.parse(ref.info.endDate);
  const px = avellanedaPrices({
    mid: top.mid / PRICE_SCALE,
    q,
    variance: est.variance,
    kappa: est.kappa,
    tau: horizonAt(cfg, endMs, state.now),
    gamma: cfg.gamma,
    edgeWidening: cfg.edgeWidening,
  });
  const shrink = Math.exp(-cfg.sizeShape * Math.abs(q));
  const levels: YesLevel[] = [
    { bid: true, price: px.bid * PRICE_SCALE, size: q > 0 ? cfg.orderSize * shrink : cfg.orderSize },
    { bid: false, price: px.ask * PRICE_SCALE, size: q < 0 ? cfg.orderSize * shrink : cfg.orderSize },
  ];
  return finishQuotes(levels, px.reservation * PRICE_SCALE, top, ref, cfg.rules, state);
}

// ---- the plugin ------------------------------------------------------------------------------------

/** The online estimators of one market. */
export class AvellanedaEstimators implements AvellanedaEstimates {
  readonly vol: EwmaVariance;
  readonly arrivals: EwmaArrivalDecay;
  #lastSample = -Infinity;
  /** Logit of the last mid seen (the reference of the next trade's distance). */
  lastMidX: number | undefined;
  readonly #sampleMs: number;

  constructor(cfg: AvellanedaConfig) {
    this.#sampleMs = cfg.volSampleMs;
    this.vol = new EwmaVariance(cfg.volHalfLifeMs, cfg.initialVariance);
    // a trade can print no nearer than half a tick at the mid: 0.005 at 0.50 is 0.02 logit
    this.arrivals = new EwmaArrivalDecay(cfg.kappaHalfLife, cfg.initialKappa, 1e-4);
  }
  get variance(): number {
    return this.vol.rate;
  }
  get kappa(): number {
    return this.arrivals.kappa;
  }
  /** A mid (probability) seen at `now`: sampled for the volatility at most every volSampleMs. */
  observeMid(now: number, mid: number): void {
    const x = logit(mid);
    this.lastMidX = x;
    if (now - this.#lastSample < this.#sampleMs) return;
    this.#lastSample = now;
    this.vol.observe(now, x);
  }
  /** A public trade at `price` (YES probability): its logit distance from the last mid. */
  observeTrade(price: number): void {
    if (this.lastMidX === undefined || !(price > 0 && price < 1)) return;
    this.arrivals.observe(Math.abs(logit(price) - this.lastMidX));
  }
}

/** The `avellaneda` plugin (see the module comment; params in AVELLANEDA_PARAMS). */
// ---- market choice ---------------------------------------------------------------------------------

/** The mid range the model is chosen for: in the tails the diffusion is mostly jumps (news, resolution). */
export const AVELLANEDA_MID_RANGE: readonly [number, number] = [0.15, 0.85];
/** The widest book chosen, price units: a wider one has too little flow for kappa to mean anything. */
export const AVELLANEDA_MAX_SPREAD = 0.08;

/**
 * The markets the model suits, best first (`selectMarkets`): two-sided YES books with a mid in
 * AVELLANEDA_MID_RANGE, at most AVELLANEDA_MAX_SPREAD wide, ending no sooner than `horizon` from
 * now when `useEndDate` (a market about to end is the jump the model ignores), tightest first, then
 * the deepest (src/strategy/select.ts `selectTwoSidedMarkets`; deterministic).
 */
export function selectAvellanedaMarkets(
  markets: readonly MarketInfo[],
  ctx: Pick<SelectContext<AvellanedaParams>, 'now' | 'count' | 'book' | 'params'>,
): Promise<ConditionId[]> {
  return selectTwoSidedMarkets(markets, ctx, {
    minMid: AVELLANEDA_MID_RANGE[0],
    maxMid: AVELLANEDA_MID_RANGE[1],
    maxSpread: AVELLANEDA_MAX_SPREAD,
    minMsToEnd: ctx.params.useEndDate ? ctx.params.horizon * 1000 : 0,
  });
}

export default defineStrategy({
  name: 'avellaneda',
  description:
    'Avellaneda–Stoikov in logit space: reservation price against inventory, optimal spread from online volatility and order-arrival estimates, widened near 0 and 1.',
  params: AVELLANEDA_PARAMS,
  selectMarkets: (markets, ctx) => selectAvellanedaMarkets(markets, ctx),
  create(ctx, params) {
    const cfg = avellanedaConfig(params);
    const reg = new MarketRegistry(ctx.markets.values());
    const est = new Map<ConditionId, AvellanedaEstimators>();
    for (const ref of reg.all()) est.set(ref.market, new AvellanedaEstimators(cfg));
    ctx.log.debug({ markets: reg.size, tokens: cfg.rules.tokens }, 'avellaneda strategy ready');

    const desired = (ref: MarketRef, state: StrategyState): DesiredQuotes => {
      const e = est.get(ref.market)!;
      if (!ref.quotable) return { market: ref.market, quotes: [], at: state.now };
      const top = marketTop(state, ref, { excludeOwn: cfg.excludeOwnOrders, tokens: cfg.rules.tokens });
      if (top !== null && top.mid !== null) e.observeMid(state.now, top.mid / PRICE_SCALE);
      return { market: ref.market, quotes: quoteAvellaneda(ref, cfg, e, state), at: state.now };
    };

    return {
      onEvent(e: MmkitEvent, state: StrategyState): StrategyOutput | undefined {
        if (e.type === 'last_trade') {
          const ref = reg.byToken(e.tokenId);
          if (ref !== undefined)
            est.get(ref.market)!.observeTrade((e.tokenId === ref.yes ? e.price : PRICE_SCALE - e.price) / PRICE_SCALE);
          return undefined;
        }
        const a = reg.note(e);
        if (a.kind === 'none') return undefined;
        const refs = a.kind === 'all' ? reg.all() : [a.ref];
        return refs.length === 0 ? undefined : { quotes: refs.map((r) => desired(r, state)) };
      },
    };
  },
});
