/**
 * `bands`: the shipped market-making strategy. Like poly-market-maker's bands: around the mid of
 * each market sit a few bands, each with a margin window [minMargin, maxMargin] (distance from the
 * mid) and an amount window [minAmount, maxAmount] (shares resting in the band on one side).
 *
 *  - A band whose live orders (on one side) all sit inside its margin window and sum inside its
 *    amount window is left alone: the strategy outputs exactly those orders again, so execution
 *    does nothing. That tolerance is what stops small mid moves from churning orders (the complaint
 *    users most often have about naive quoters: cancel/replace storms, lost queue priority, rate
 *    limits).
 *  - Otherwise the band is (re)filled: orders outside every band are dropped, an over-full band keeps
 *    the orders nearest the mid that fit under maxAmount, and an under-full band (below minAmount)
 *    keeps its orders and gets one new quote at mid -/+ avgMargin for the missing amount (up to
 *    avgAmount), so a partly filled order keeps its place in the queue.
 *  - Prices are on the token's tick (bids rounded down, asks up), never cross the opposite best,
 *    and stay inside [tick, 1 - tick]; a quote that would leave that range is dropped, not clamped
 *    nearer the mid. So is a quote outside the risk gate's price limits (`ctx.priceLimits`:
 *    `bot.risk.minPrice` / `maxPrice`), which the gate would refuse on every re-quote: on a 0.001
 *    tick the outer bands of a market near 0.05 fall below the default 0.01 (findings-4 F19). The
 *    gate refuses quote by quote, so leaving them out here sends exactly what it would approve.
 *  - Inventory-aware: both sides shift against the position by `inventorySkew` ticks at
 *    `maxPosition` (linearly), and a side stops adding exposure at `maxPosition` shares.
 *  - Minimum spread (`minSpread`): no bid above center - minSpread/2, no ask below center +
 *    minSpread/2 (center: the mid after the skew); a live order nearer than that is not kept.
 *  - Post-only (`postOnly`): a quote that would cross the opposite best is moved one tick behind the
 *    touch ('move', the default) or dropped ('drop').
 *  - Maximum order age (`maxOrderAge`): a live order older than that is no band member (execution
 *    cancels it); no quote goes out at its price while it rests; the band is refilled afterwards.
 *  - No book, a stale or crossed book, or no two-sided mid: no quotes for that market (an empty set,
 *    which pulls the market's quotes). Never a guessed price.
 *
 * When to use: the default, for most markets: predictable sizes and distances, little churn.
 * Risks: fixed margins do not follow volatility (a fast market runs over the inner band; widen
 * margins or use avellaneda); the skew is linear and bounded by inventorySkew; amounts are per
 * band and per side, so exposure grows with the number of bands (bounded by maxPosition).
 *
 * Token modes (`tokens`): one book per market serves both tokens (a NO bid at q is a YES ask at
 * 1 - q), so the strategy thinks in YES prices and routes each quote to a token:
 *  - `both` (default): bids SELL NO out of NO held, the rest BUY YES; asks SELL YES out of YES held,
 *    the rest BUY NO at 1 - price. Quoting is two-sided from the start with collateral only (a
 *    fresh bot holds nothing: with `yes` it would only buy until filled), and since every quote
 *    comes from one non-crossing YES ladder, the bot never crosses itself across the complement.
 *    The position used for skew and limits is the net YES exposure (YES - NO held).
 *  - `yes`: bids BUY YES; asks SELL YES, only out of YES held (no inventory, no ask).
 *
 * Bands from poly-market-maker (`bandsFile`: its bands file, `{"bands": [{minMargin, avgMargin,
 * maxMargin, minAmount, avgAmount, maxAmount}, ...]}`, price units and shares; `bandsJson` takes the
 * same inline). Its semantics map onto the above: its target price is the token's midpoint (ours:
 * the YES mid, NO's is 1 - it); its two band sets (buy A + sell B, buy B + sell A) are our bid and
 * ask sides in `both` mode, inventory sold before the other token is bought, as it does; a band is
 * topped up to avgAmount at target -/+ avgMargin when below minAmount, as it does. Differences
 * (README, bands): its band holds margins in [min, max), ours [min, max]; over maxAmount it cancels
 * nearest-first in the first band, farthest-first in the last and smallest-first between, we keep
 * the nearest that fit; an invalid file makes it run with no bands, we refuse to start (ConfigError
 * naming the field); it reads a band's values by key position, we by name; its minimum order is 15
 * shares, ours the market's; its buys are capped by free collateral, ours by maxPosition and the
 * risk limits; inventorySkew, minSpread and maxOrderAge still apply (set inventorySkew=0 for its
 * quotes). The file is read once, when the strategy is created (relative to the working directory).
 *
 * "YES" is the market's first token (`MarketInfo.tokens[0]`), "NO" its second.
 *
 * The handler recomputes one market on that market's book events (a snapshot, or the last level
 * change of a batch), fills and tick changes, and every market on timers and market-stream resyncs
 * (src/strategy/quoting.ts: MarketRegistry). A book event that moved nothing the quotes read (a
 * level behind the top, the same touch, orders and positions) gets no output: execution keeps the
 * quotes (src/strategy/quoting.ts: UnmovedFilter). It imports only the plugin API ('mmkit/strategy'),
 * reads no clock (`state.now` is the time). The common rules' helpers are in src/strategy/quoting.ts,
 * the bands file's parsing and checks (`Band`, `loadBandsFile`, `parseBands`) in src/strategy/band-ladder.ts.
 */
import {
  agedOrders,
  AMOUNT_SCALE,
  type Band,
  checkBand,
  ceilToTick,
  commonParam,
  type ConditionId,
  ConfigError,
  defaultSelectMarkets,
  defineStrategy,
  type DesiredQuotes,
  floorToTick,
  inventoryOf,
  type LiveOrderView,
  loadBandsFile,
  LOT_MICRO,
  lotsDown,
  type MarketRef,
  MarketRegistry,
  marketTop,
  type MarketTop,
  type Micro,
  type MmkitEvent,
  type ParamsOf,
  parseBandsJson,
  type Pips,
  PRICE_SCALE,
  type QuoteIntent,
  rewardBands,
  rewardConfigOf,
  type RewardTarget,
  rewardTarget,
  type StrategyOutput,
  type StrategyState,
  type TokenId,
  UnmovedFilter,
} from 'mmkit/strategy';

// ---- params --------------------------------------------------------------------------------------

/** The parameter schema of `bands` (prices in price units: 0.01 = 1 cent; amounts in shares). */
export const BANDS_PARAMS = {
  tokens: {
    type: 'string',
    default: 'both',
    choices: ['yes', 'both'],
    doc: "Which tokens to quote: 'both' (the default: two-sided from collateral alone; asks beyond YES held become NO bids, bids sell NO held first, as poly-market-maker does) or 'yes' (bids buy YES, asks only sell YES held: one-sided until the bot holds YES).",
  },
  bands: {
    type: 'integer',
    default: 3,
    min: 1,
    max: 10,
    doc: 'Number of bands per side (ignored when bandsJson or bandsFile is set).',
  },
  margin: {
    type: 'number',
    default: 0.01,
    min: 0.0001,
    max: 0.5,
    doc: 'avgMargin of the innermost band: distance of its quotes from the mid, in price units (0.01 = 1 cent).',
  },
  marginStep: {
    type: 'number',
    default: 0.02,
    min: 0,
    max: 0.5,
    doc: 'avgMargin added per band outward, price units.',
  },
  marginTolerance: {
    type: 'number',
    default: 0.005,
    min: 0,
    max: 0.5,
    doc: 'Half-width of each band: minMargin = avgMargin - this (at least 0), maxMargin = avgMargin + this. Live orders inside are kept (no churn).',
  },
  amount: {
    type: 'number',
    default: 10,
    min: 0.01,
    max: 100_000,
    doc: 'avgAmount of the innermost band: shares quoted per side in it.',
  },
  amountStep: { type: 'number', default: 5, min: 0, max: 100_000, doc: 'avgAmount added per band outward, shares.' },
  amountTolerance: {
    type: 'number',
    default: 0.5,
    min: 0,
    max: 1,
    doc: 'Amount window of each band as a fraction of avgAmount: minAmount = avg x (1 - t), maxAmount = avg x (1 + t).',
  },
  bandsJson: {
    type: 'string',
    default: '',
    doc: 'Explicit bands, replacing the generated ones: a JSON array of {minMargin, avgMargin, maxMargin, minAmount, avgAmount, maxAmount} (price units and shares, innermost first), or poly-market-maker\'s {"bands": [...]}.',
  },
  bandsFile: {
    type: 'string',
    default: '',
    doc: 'A poly-market-maker bands file (its config/bands.json format: {"bands": [{minMargin, avgMargin, maxMargin, minAmount, avgAmount, maxAmount}, ...]}, price units and shares), replacing the generated bands. A relative path is relative to the working directory.',
  },
  maxPosition: {
    type: 'number',
    default: 100,
    min: 0.01,
    max: 500_000,
    doc: 'Position (shares of net YES exposure) at which a side stops adding to it; also the scale of the skew.',
  },
  inventorySkew: {
    type: 'number',
    default: 2,
    min: 0,
    max: 100,
    doc: 'Ticks both sides shift against the position when it is at maxPosition (linear in between): long quotes lower, short higher.',
  },
  excludeOwnOrders: {
    type: 'boolean',
    default: true,
    doc: 'Take the mid from the book net of our own orders, so the bot does not chase its own quotes.',
  },
  minSpread: commonParam.minSpread(0),
  postOnly: commonParam.postOnly('move'),
  maxOrderAge: commonParam.maxOrderAge(0),
  rewards: {
    type: 'boolean',
    default: false,
    doc: "Target liquidity rewards: on markets with a reward config, the innermost band is kept inside the reward band around the adjusted midpoint with at least the reward min size in one order a side, and both sides are quoted (tokens 'both' there). Other markets as without it.",
  },
} as const;

/** The resolved params `create` receives. */
export type BandsParams = ParamsOf<typeof BANDS_PARAMS>;

/** The strategy's configuration in integer units (what `quoteMarket` runs on). */
export interface BandsConfig {
  readonly tokens: 'yes' | 'both';
  /** Innermost first. */
  readonly bands: readonly Band[];
  /** Micro-shares. */
  readonly maxPosition: number;
  /** Ticks at maxPosition. */
  readonly inventorySkew: number;
  readonly excludeOwnOrders: boolean;
  /** Full minimum spread around the center, pips. */
  readonly minSpread: number;
  readonly postOnly: 'move' | 'drop';
  /** Live orders at least this old (ms) are replaced; 0: never. */
  readonly maxOrderAgeMs: number;
  /** Target liquidity rewards on rewarded markets (see the `rewards` param); absent: off. */
  readonly rewards?: boolean;
}

const pips = (x: number): number => Math.round(x * PRICE_SCALE);
const micro = (x: number): number => Math.round(x * AMOUNT_SCALE);
const lotDown = lotsDown;

/**
 * The integer-unit configuration of resolved params: the bands of `bandsFile` or `bandsJson` when
 * one is set (both: a ConfigError), else
 * generated (`bands` of them, margins `margin + i x marginStep` +/- `marginTolerance`, amounts
 * `amount + i x amountStep` with the `amountTolerance` window).
 * @throws ConfigError naming `bot.params.<key>` for an inconsistent band
 */
export function bandsConfig(p: BandsParams): BandsConfig {
  let bands: Band[];
  if (p.bandsJson.trim() !== '' && p.bandsFile.trim() !== '')
    throw new ConfigError('bot.params.bandsFile', 'set bandsFile or bandsJson, not both');
  if (p.bandsFile.trim() !== '') bands = loadBandsFile(p.bandsFile.trim());
  else if (p.bandsJson.trim() !== '') bands = parseBandsJson(p.bandsJson);
  else {
    bands = [];
    for (let i = 0; i < p.bands; i++) {
      const avg = pips(p.margin + i * p.marginStep);
      const tol = pips(p.marginTolerance);
      const avgAmount = lotDown(micro(p.amount + i * p.amountStep));
      bands.push(
        checkBand(
          {
            minMargin: Math.max(0, avg - tol),
            avgMargin: avg,
            maxMargin: avg + tol,
            minAmount: Math.floor(avgAmount * (1 - p.amountTolerance)),
            avgAmount,
            maxAmount: Math.ceil(avgAmount * (1 + p.amountTolerance)),
          },
          `band ${i}`,
          'bot.params.margin',
        ),
      );
    }
  }
  return {
    tokens: p.tokens === 'both' ? 'both' : 'yes',
    bands,
    maxPosition: micro(p.maxPosition),
    inventorySkew: p.inventorySkew,
    excludeOwnOrders: p.excludeOwnOrders,
    minSpread: pips(p.minSpread),
    postOnly: p.postOnly === 'drop' ? 'drop' : 'move',
    maxOrderAgeMs: Math.round(p.maxOrderAge * 1000),
    ...(p.rewards ? { rewards: true } : {}),
  };
}

// ---- the quoting function --------------------------------------------------------------------------

/** What `quoteMarket` needs to know about a market. */
export interface MarketPlan {
  readonly market: ConditionId;
  readonly yes: TokenId;
  readonly no: TokenId;
  /** Current tick, pips. */
  readonly tick: number;
  /** Smallest order, micro-shares. */
  readonly minSize: number;
}

/**
 * A live order seen in YES prices. The records are scratch (see `Scratch`): reused from call to
 * call, never part of an output.
 */
interface Own {
  o: LiveOrderView;
  bid: boolean;
  yesPrice: number;
  remaining: number;
  dist: number;
  /** The band slot the order was assigned to (bids 0..nb-1, asks nb..2nb-1); -1: none. */
  slot: number;
}

const EPS = 1e-6;

/**
 * The working memory of `quoteAt`, reused across calls: it runs on every re-quote (tens of
 * thousands of times per backtest), and allocating its per-band and per-order arrays each time
 * cost more than the arithmetic. One module-level instance is safe because `quoteAt` is
 * synchronous and not re-entrant. Nothing in here is ever returned: the quotes array and the quote
 * objects in it are fresh per call.
 *
 * Per slot (bids 0..nb-1, asks nb..2nb-1, innermost first): `target` is the band's target price
 * (NaN when it falls outside [tick, 1 - tick] or post-only drops it; NaN equals no price, as null
 * did), `load` the amount of the orders assigned to it, `keptAmount` what pass 1 kept. The kept and
 * fresh quotes are written slot by slot, in slot order, into the flat `kept` and `fresh` lists:
 * slot s's quotes are `kept[keptAt[s] .. keptAt[s + 1])` (`fresh` likewise). Between calls it holds
 * on to the last call's orders and quotes (a few objects; overwritten by the next call).
 */
interface Scratch {
  /** Records of the market's live orders; the first `n` of a call are in use. */
  readonly own: Own[];
  readonly target: number[];
  readonly load: number[];
  readonly keptAmount: number[];
  readonly kept: QuoteIntent[];
  readonly keptAt: number[];
  readonly fresh: QuoteIntent[];
  readonly freshAt: number[];
}

const SCRATCH: Scratch = {
  own: [],
  target: [],
  load: [],
  keptAmount: [],
  kept: [],
  keptAt: [0],
  fresh: [],
  freshAt: [0],
};

/** SCRATCH with room for `slots` band slots (grown by push: packed arrays, no holes). */
function scratchFor(slots: number): Scratch {
  const s = SCRATCH;
  while (s.target.length < slots) {
    s.target.push(NaN);
    s.load.push(0);
    s.keptAmount.push(0);
    s.keptAt.push(0);
    s.freshAt.push(0);
  }
  return s;
}

/**
 * The order in which live orders claim band places: nearest the center first, then by price, then
 * by id (a total order, so any stable sort gives the same result).
 */
function ownBefore(x: Own, y: Own): number {
  return x.dist - y.dist || x.yesPrice - y.yesPrice || (x.o.id < y.o.id ? -1 : x.o.id > y.o.id ? 1 : 0);
}

/**
 * Stable in-place insertion sort of `a[0..n)` by `ownBefore`: the same order as
 * `Array.prototype.sort` (stable) for a handful of orders, without its setup cost.
 */
function sortOwn(a: Own[], n: number): void {
  for (let k = 1; k < n; k++) {
    const cur = a[k]!;
    let j = k - 1;
    while (j >= 0 && ownBefore(a[j]!, cur) > 0) {
      a[j + 1] = a[j]!;
      j--;
    }
    a[j + 1] = cur;
  }
}

/**
 * The quotes priced inside the risk gate's limits (`ctx.priceLimits`; none given: all of them).
 * The same array when every quote is inside (the common case allocates nothing).
 */
export function withinLimits(
  qs: QuoteIntent[],
  limits: { readonly min: Pips; readonly max: Pips } | undefined,
): QuoteIntent[] {
  if (limits === undefined) return qs;
  const { min, max } = limits;
  let k = 0;
  while (k < qs.length && qs[k]!.price >= min && qs[k]!.price <= max) k++;
  if (k === qs.length) return qs;
  const out = qs.slice(0, k);
  for (; k < qs.length; k++) if (qs[k]!.price >= min && qs[k]!.price <= max) out.push(qs[k]!);
  return out;
}

/**
 * The desired quotes of one market under `cfg` (see the module comment), innermost band first,
 * each band's bids before its asks. Pure: a function of the plan, the config and the state.
 * Empty when the market cannot be quoted (no/stale/crossed book, no two-sided mid).
 */
export function quoteMarket(plan: MarketPlan, cfg: BandsConfig, state: StrategyState): QuoteIntent[] {
  return quoteAt(plan, cfg, state, marketTop(state, plan, { excludeOwn: cfg.excludeOwnOrders, tokens: cfg.tokens }));
}

/**
 * `quoteMarket` on a top already computed (the plugin computes it first). Exported for the
 * equivalence test and the micro-benchmark (test/unit/strategies/bands-quote-equivalence.test.ts,
 * which compares it with a frozen copy of the straightforward version it replaced).
 *
 * Written for speed (it is one of the hottest functions of a backtest): the per-band and per-order
 * working arrays are the reused `SCRATCH`, loops are indexed, and the maximum-order-age machinery
 * is skipped when no order is aged. Only the quotes returned are allocated.
 */
export function quoteAt(
  plan: MarketPlan,
  cfg: BandsConfig,
  state: StrategyState,
  t: MarketTop | null,
  reward?: RewardTarget | null,
): QuoteIntent[] {
  if (t === null || t.mid === null || t.touchBid === null || t.touchAsk === null) return [];
  const topBid = t.touchBid;
  const topAsk = t.touchAsk;
  const mid = t.mid;
  const both = cfg.tokens === 'both';
  const tick = plan.tick;
  const minSize = Math.max(plan.minSize, LOT_MICRO);
  let bands = cfg.bands;
  const nb = bands.length;

  // everything read from `state`, read before SCRATCH is touched (so not even a state view that
  // called back into quoteAt could disturb it). With maxOrderAge off (agedOrders is then empty)
  // or nothing aged, no set or key is made.
  const live = state.openOrders(plan.market);
  let aged: Set<string> | null = null;
  if (cfg.maxOrderAgeMs > 0) {
    const a = agedOrders(live, state.now, cfg.maxOrderAgeMs);
    if (a.size > 0) aged = a;
  }
  const inv = inventoryOf(state, plan, cfg.tokens);

  // our live orders, in YES prices (aged ones are left out: execution cancels them)
  const S = scratchFor(2 * nb);
  /** (token, side, price) keys of the aged orders of this market, null when none. */
  let agedAt: Set<string> | null = null;
  const own = S.own;
  let n = 0;
  for (let k = 0; k < live.length; k++) {
    const o = live[k]!;
    const isYes = o.tokenId === plan.yes;
    if (!isYes && o.tokenId !== plan.no) continue;
    const remaining = o.originalSize - o.sizeMatched;
    if (remaining <= 0) continue;
    if (aged?.has(o.id)) {
      (agedAt ??= new Set<string>()).add(`${o.tokenId}|${o.side}|${o.price}`);
      continue;
    }
    if (!isYes && !both) continue; // 'yes' mode: a NO order is never kept (but it is on the book)
    const bid = isYes === (o.side === 'BUY');
    const yesPrice = isYes ? o.price : PRICE_SCALE - o.price;
    if (n === own.length) own.push({ o, bid, yesPrice, remaining, dist: 0, slot: -1 });
    else {
      const q = own[n]!;
      q.o = o;
      q.bid = bid;
      q.yesPrice = yesPrice;
      q.remaining = remaining;
      q.slot = -1;
    }
    n++;
  }

  const net = inv.net;
  const halfMin = cfg.minSpread / 2;
  const ratio = cfg.maxPosition > 0 ? Math.max(-1, Math.min(1, net / cfg.maxPosition)) : 0;
  const center = mid - cfg.inventorySkew * ratio * tick;
  // rewards: the innermost band inside the reward band, one order of at least the reward size a side
  const rewardSize = reward == null ? 0 : reward.size;
  if (reward != null) bands = rewardBands(bands, center, reward);
  // what each side may still add: bids to the YES exposure, asks away from it
  let capBid = Math.max(0, cfg.maxPosition - net);
  let capAsk = both ? Math.max(0, cfg.maxPosition + net) : inv.yes;
  let yesFree = inv.yes;
  let noFree = inv.no;

  // each band's target price (YES), or NaN when it falls outside [tick, 1 - tick]
  const target = S.target;
  const bidCap = floorToTick(center - halfMin, tick);
  const askFloor = ceilToTick(center + halfMin, tick);
  for (let i = 0; i < nb; i++) {
    const m = bands[i]!.avgMargin;
    let bidP = Math.min(floorToTick(center - m, tick), bidCap);
    if (bidP >= topAsk) bidP = cfg.postOnly === 'drop' ? NaN : floorToTick(topAsk - tick, tick);
    target[i] = bidP >= tick ? bidP : NaN;
    let askP = Math.max(ceilToTick(center + m, tick), askFloor);
    if (askP <= topBid) askP = cfg.postOnly === 'drop' ? NaN : ceilToTick(topBid + tick, tick);
    target[nb + i] = askP <= PRICE_SCALE - tick ? askP : NaN;
  }

  // assign live orders to bands: nearest the mid first, each to the innermost band (of its side)
  // whose margin window holds it and whose maxAmount it still fits. A common mid move shifts every
  // order the same way, so the orders keep their bands even when one lands on a shared boundary.
  const load = S.load;
  for (let s = 0; s < 2 * nb; s++) load[s] = 0;
  for (let k = 0; k < n; k++) {
    const q = own[k]!;
    q.dist = q.bid ? center - q.yesPrice : q.yesPrice - center;
  }
  sortOwn(own, n);
  for (let k = 0; k < n; k++) {
    const q = own[k]!;
    if (q.yesPrice % tick !== 0) continue; // off the current tick: replace
    if (q.dist < halfMin - EPS) continue; // nearer the center than the minimum spread: replace
    const first = q.bid ? 0 : nb;
    for (let i = 0; i < nb; i++) {
      const b = bands[i]!;
      const slot = first + i;
      // inside the margin window, or at the band's own target (a coarse tick can round it outside)
      const inside = (q.dist >= b.minMargin - EPS && q.dist <= b.maxMargin + EPS) || q.yesPrice === target[slot];
      if (!inside || load[slot]! + q.remaining > b.maxAmount) continue;
      if (i === 0 && q.remaining < rewardSize) continue; // it would not score: the band gets a fresh one
      q.slot = slot;
      load[slot]! += q.remaining;
      break;
    }
  }

  // pass 1: keep what fits each band (inner bands first take the capacity; sells need the shares).
  // Slots are visited in order, bids then asks, so each slot's kept quotes are one run of `kept`.
  const kept = S.kept;
  const keptAt = S.keptAt;
  const keptAmount = S.keptAmount;
  let nk = 0;
  for (let side = 0; side < 2; side++) {
    let capLeft = side === 0 ? capBid : capAsk;
    for (let i = 0; i < nb; i++) {
      const slot = side * nb + i;
      let cum = 0;
      // the slot's members, nearest the center first (own is in that order)
      for (let k = 0; k < n; k++) {
        const q = own[k]!;
        if (q.slot !== slot || cum + q.remaining > capLeft) continue;
        if (q.o.side === 'SELL') {
          const isYes = q.o.tokenId === plan.yes;
          if (q.remaining > (isYes ? yesFree : noFree)) continue;
          if (isYes) yesFree -= q.remaining;
          else noFree -= q.remaining;
        }
        cum += q.remaining;
        kept[nk++] = { tokenId: q.o.tokenId, side: q.o.side, price: q.o.price, size: q.remaining as Micro };
      }
      keptAt[slot + 1] = nk;
      keptAmount[slot] = cum;
      capLeft -= cum;
    }
    if (side === 0) capBid = capLeft;
    else capAsk = capLeft;
  }

  // pass 2: top up under-full bands at avgMargin, routed to tokens (slot by slot, like pass 1)
  const fresh = S.fresh;
  const freshAt = S.freshAt;
  let nf = 0;
  for (let side = 0; side < 2; side++) {
    const bid = side === 0;
    let capLeft = bid ? capBid : capAsk;
    for (let i = 0; i < nb; i++) {
      const b = bands[i]!;
      const slot = side * nb + i;
      freshAt[slot + 1] = nf; // until a quote is added below
      const have = keptAmount[slot]!;
      if (have >= b.minAmount && have > 0) continue;
      let need = b.avgAmount - have;
      if (need < minSize) {
        if (have + minSize > b.maxAmount) continue;
        need = minSize;
      }
      const size = lotDown(Math.min(need, capLeft));
      if (size < minSize) continue;
      // the rewarded band without a scoring order yet: one order of at least the reward size (the venue
      // scores orders alone), or none (cut below it by the position cap, it would score nothing)
      const whole = i === 0 && have === 0 ? rewardSize : 0;
      if (size < whole) continue;
      const price = target[slot]!;
      if (Number.isNaN(price)) continue;
      if (!both) {
        fresh[nf++] = { tokenId: plan.yes, side: bid ? 'BUY' : 'SELL', price: price as Pips, size: size as Micro };
        freshAt[slot + 1] = nf;
        if (!bid) yesFree -= size;
        capLeft -= size;
        continue;
      }
      // 'both': sell inventory of the token that expresses this side first, buy the other for the rest
      const free = bid ? noFree : yesFree;
      let sell = lotDown(Math.min(size, Math.max(0, free)));
      if (sell < minSize) sell = 0;
      // (split below the reward size, neither part would score: whole to the complement buy, the same exposure)
      if (sell > 0 && sell < size && (sell < whole || size - sell < whole)) sell = 0;
      const buy = size - sell;
      if (sell > 0) {
        fresh[nf++] = bid
          ? { tokenId: plan.no, side: 'SELL', price: (PRICE_SCALE - price) as Pips, size: sell as Micro }
          : { tokenId: plan.yes, side: 'SELL', price: price as Pips, size: sell as Micro };
        if (bid) noFree -= sell;
        else yesFree -= sell;
      }
      if (buy >= minSize) {
        fresh[nf++] = bid
          ? { tokenId: plan.yes, side: 'BUY', price: price as Pips, size: buy as Micro }
          : { tokenId: plan.no, side: 'BUY', price: (PRICE_SCALE - price) as Pips, size: buy as Micro };
      }
      freshAt[slot + 1] = nf;
      capLeft -= sell + (buy >= minSize ? buy : 0);
    }
  }

  // assemble innermost first; a last guard against self-crossing (possible only with minMargin 0):
  // no ask at or below our highest bid (the bid slots are the first nb runs of kept and fresh)
  let maxBid = -1;
  for (let k = 0; k < keptAt[nb]!; k++) maxBid = Math.max(maxBid, yesPriceOf(kept[k]!, plan));
  for (let k = 0; k < freshAt[nb]!; k++) maxBid = Math.max(maxBid, yesPriceOf(fresh[k]!, plan));
  const quotes: QuoteIntent[] = [];
  for (let i = 0; i < nb; i++) {
    for (let k = keptAt[i]!; k < keptAt[i + 1]!; k++) quotes.push(kept[k]!);
    for (let k = freshAt[i]!; k < freshAt[i + 1]!; k++) quotes.push(fresh[k]!);
    const a = nb + i;
    for (let k = keptAt[a]!; k < keptAt[a + 1]!; k++) if (yesPriceOf(kept[k]!, plan) > maxBid) quotes.push(kept[k]!);
    for (let k = freshAt[a]!; k < freshAt[a + 1]!; k++)
      if (yesPriceOf(fresh[k]!, plan) > maxBid) quotes.push(fresh[k]!);
  }
  // while an aged order rests, nothing at its (token, side, price): the diff must not keep it
  if (agedAt === null) return quotes;
  const at = agedAt;
  return quotes.filter((q) => !at.has(`${q.tokenId}|${q.side}|${q.price}`));
}

function yesPriceOf(q: QuoteIntent, plan: MarketPlan): number {
  return q.tokenId === plan.yes ? q.price : PRICE_SCALE - q.price;
}

// ---- the plugin ----------------------------------------------------------------------------------

/** The `bands` plugin (see the module comment; params in BANDS_PARAMS). */
export default defineStrategy({
  name: 'bands',
  description:
    'Quotes in bands around the mid (min/avg/max margin and amount per band), keeps live orders that still fit their band, skews against inventory.',
  params: BANDS_PARAMS,
  // the default pick (the markets with the most resting levels), declared so every shipped
  // strategy has the hook; a bands user's own plugin can start from here
  selectMarkets: (markets, ctx) => defaultSelectMarkets(markets, ctx),
  create(ctx, params) {
    const cfg = bandsConfig(params);
    // rewarded markets with `rewards`: both sides quoted
    const rewardCfg: BandsConfig = cfg.rewards === true ? { ...cfg, tokens: 'both' } : cfg;
    const reg = new MarketRegistry(ctx.markets.values());
    ctx.log.debug({ markets: reg.size, tokens: cfg.tokens, bands: cfg.bands.length }, 'bands strategy ready');

    // book events that moved nothing the quotes read get no output (execution keeps the quotes)
    const unmoved = new UnmovedFilter();
    const quotes = (ref: MarketRef, state: StrategyState): QuoteIntent[] =>
      withinLimits(quotesOf(ref, state), ctx.priceLimits?.(ref.market));
    const quotesOf = (ref: MarketRef, state: StrategyState): QuoteIntent[] => {
      if (!ref.quotable) return [];
      if (cfg.rewards === true && rewardConfigOf(ref.info) !== null) {
        // the reward band follows the adjusted midpoint (levels behind the top): every event re-quotes
        const top = marketTop(state, ref, { excludeOwn: cfg.excludeOwnOrders, tokens: 'both' });
        unmoved.quoted(ref, null, state);
        return quoteAt(ref, rewardCfg, state, top, rewardTarget(ref, state));
      }
      const top = marketTop(state, ref, { excludeOwn: cfg.excludeOwnOrders, tokens: cfg.tokens });
      // with a maximum order age the quotes depend on the time too: every event re-quotes
      unmoved.quoted(ref, cfg.maxOrderAgeMs > 0 ? null : top, state);
      return quoteAt(ref, cfg, state, top);
    };

    return {
      onEvent(e: MmkitEvent, state: StrategyState): StrategyOutput | undefined {
        const followed = unmoved.see(e, reg, state);
        const a = reg.note(e);
        if (a.kind === 'none') return undefined;
        if (followed && a.kind === 'market' && unmoved.unmoved(a.ref, state)) return undefined;
        const refs = a.kind === 'all' ? reg.all() : [a.ref];
        if (refs.length === 0) return undefined;
        return {
          quotes: refs.map((r): DesiredQuotes => ({ market: r.market, quotes: quotes(r, state), at: state.now })),
        };
      },
    };
  },
});
