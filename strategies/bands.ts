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
 *    nearer the mid.
 *  - Inventory-aware: both sides shift against the position by `inventorySkew` ticks at
 *    `maxPosition` (linearly), and a side stops adding exposure at `maxPosition` shares.
 *  - No book, a stale or crossed book, or no two-sided mid: no quotes for that market (an empty set,
 *    which pulls the market's quotes). Never a guessed price.
 *
 * Token modes (`tokens`): one book per market serves both tokens (a NO bid at q is a YES ask at
 * 1 - q), so the strategy thinks in YES prices and routes each quote to a token:
 *  - `yes` (default): bids BUY YES; asks SELL YES, only out of YES held (no inventory, no ask).
 *  - `both`: bids SELL NO out of NO held, the rest BUY YES; asks SELL YES out of YES held, the rest
 *    BUY NO at 1 - price. Quoting is two-sided from the start with collateral only, and since every
 *    quote comes from one non-crossing YES ladder, the bot never crosses itself across the
 *    complement. The position used for skew and limits is the net YES exposure (YES - NO held).
 *
 * "YES" is the market's first token (`MarketInfo.tokens[0]`), "NO" its second.
 *
 * The handler is cheap: it recomputes one market on that market's book events (a snapshot, or the
 * last level change of a batch), fills and tick changes, and every market on timers and market-stream
 * resyncs. It imports only the strategy API and src/core, reads no clock (`state.now` is the time).
 */
import { ConfigError } from '../src/core/errors.ts';
import { assertNever, type MmkitEvent } from '../src/core/events.ts';
import type { ConditionId, TokenId } from '../src/core/ids.ts';
import type { DesiredQuotes, LiveOrderView, QuoteIntent, StrategyOutput } from '../src/core/intents.ts';
import { AMOUNT_SCALE, LOT_MICRO, PRICE_SCALE, tickPips, type Micro, type Pips } from '../src/core/units.ts';
import { defineStrategy, type BookView, type ParamsOf, type StrategyState } from '../src/strategy/api.ts';

// ---- params --------------------------------------------------------------------------------------

/** The parameter schema of `bands` (prices in price units: 0.01 = 1 cent; amounts in shares). */
export const BANDS_PARAMS = {
  tokens: {
    type: 'string',
    default: 'yes',
    choices: ['yes', 'both'],
    doc: "Which tokens to quote: 'yes' (bids buy YES, asks sell YES held) or 'both' (asks beyond YES held become NO bids, bids sell NO held first).",
  },
  bands: { type: 'integer', default: 3, min: 1, max: 10, doc: 'Number of bands per side (ignored when bandsJson is set).' },
  margin: { type: 'number', default: 0.02, min: 0.0001, max: 0.5, doc: 'avgMargin of the innermost band: distance of its quotes from the mid, in price units (0.01 = 1 cent).' },
  marginStep: { type: 'number', default: 0.02, min: 0, max: 0.5, doc: 'avgMargin added per band outward, price units.' },
  marginTolerance: {
    type: 'number',
    default: 0.01,
    min: 0,
    max: 0.5,
    doc: 'Half-width of each band: minMargin = avgMargin - this (at least 0), maxMargin = avgMargin + this. Live orders inside are kept (no churn).',
  },
  amount: { type: 'number', default: 10, min: 0.01, max: 100_000, doc: 'avgAmount of the innermost band: shares quoted per side in it.' },
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
    doc: 'Explicit bands, replacing the generated ones: a JSON array of {minMargin, avgMargin, maxMargin, minAmount, avgAmount, maxAmount} (price units and shares, innermost first), as in poly-market-maker.',
  },
  maxPosition: { type: 'number', default: 100, min: 0.01, max: 500_000, doc: 'Position (shares of net YES exposure) at which a side stops adding to it; also the scale of the skew.' },
  inventorySkew: { type: 'number', default: 2, min: 0, max: 100, doc: 'Ticks both sides shift against the position when it is at maxPosition (linear in between): long quotes lower, short higher.' },
  excludeOwnOrders: { type: 'boolean', default: true, doc: 'Take the mid from the book net of our own orders, so the bot does not chase its own quotes.' },
} as const;

/** The resolved params `create` receives. */
export type BandsParams = ParamsOf<typeof BANDS_PARAMS>;

/** One band in integer units: margins in pips, amounts in micro-shares. */
export interface Band {
  readonly minMargin: number;
  readonly avgMargin: number;
  readonly maxMargin: number;
  readonly minAmount: number;
  readonly avgAmount: number;
  readonly maxAmount: number;
}

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
}

const pips = (x: number): number => Math.round(x * PRICE_SCALE);
const micro = (x: number): number => Math.round(x * AMOUNT_SCALE);
const lotDown = (m: number): number => Math.floor(m / LOT_MICRO) * LOT_MICRO;

const BAND_KEYS = ['minMargin', 'avgMargin', 'maxMargin', 'minAmount', 'avgAmount', 'maxAmount'] as const;

function parseBandsJson(s: string): Band[] {
  const key = 'strategy.params.bandsJson';
  let raw: unknown;
  try {
    raw = JSON.parse(s);
  } catch (e) {
    throw new ConfigError(key, `not valid JSON: ${(e as Error).message}`, { cause: e });
  }
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > 20) throw new ConfigError(key, 'expected a JSON array of 1 to 20 bands');
  return raw.map((b: unknown, i) => {
    if (typeof b !== 'object' || b === null) throw new ConfigError(key, `band ${i} must be an object`);
    const o = b as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!(BAND_KEYS as readonly string[]).includes(k)) throw new ConfigError(key, `band ${i}: unknown key ${k}`);
    const v = {} as Record<(typeof BAND_KEYS)[number], number>;
    for (const k of BAND_KEYS) {
      const x = o[k];
      if (typeof x !== 'number' || !Number.isFinite(x) || x < 0) throw new ConfigError(key, `band ${i}: ${k} must be a non-negative number`);
      v[k] = x;
    }
    return checkBand({ minMargin: pips(v.minMargin), avgMargin: pips(v.avgMargin), maxMargin: pips(v.maxMargin), minAmount: micro(v.minAmount), avgAmount: lotDown(micro(v.avgAmount)), maxAmount: micro(v.maxAmount) }, `band ${i}`, key);
  });
}

function checkBand(b: Band, what: string, key: string): Band {
  if (!(b.minMargin <= b.avgMargin && b.avgMargin <= b.maxMargin)) throw new ConfigError(key, `${what}: need minMargin <= avgMargin <= maxMargin`);
  if (b.avgMargin <= 0 || b.maxMargin >= PRICE_SCALE) throw new ConfigError(key, `${what}: avgMargin must be at least 0.0001 and maxMargin below 1`);
  if (!(b.minAmount <= b.avgAmount && b.avgAmount <= b.maxAmount)) throw new ConfigError(key, `${what}: need minAmount <= avgAmount <= maxAmount`);
  if (b.avgAmount < LOT_MICRO) throw new ConfigError(key, `${what}: avgAmount must be at least 0.01 shares`);
  return b;
}

/**
 * The integer-unit configuration of resolved params: the bands from `bandsJson` when set, else
 * generated (`bands` of them, margins `margin + i x marginStep` +/- `marginTolerance`, amounts
 * `amount + i x amountStep` with the `amountTolerance` window).
 * @throws ConfigError naming `strategy.params.<key>` for an inconsistent band
 */
export function bandsConfig(p: BandsParams): BandsConfig {
  let bands: Band[];
  if (p.bandsJson.trim() !== '') bands = parseBandsJson(p.bandsJson);
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
          'strategy.params.margin',
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

/** A live order seen in YES prices. */
interface Own {
  readonly o: LiveOrderView;
  readonly bid: boolean;
  readonly yesPrice: number;
  readonly remaining: number;
  dist: number;
}

const EPS = 1e-6;

/** Top of the market in YES prices, from the YES book or, without one, the NO book's complement. */
interface Top {
  readonly bid: number;
  readonly ask: number;
  readonly book: BookView;
  readonly complement: boolean;
}

function topOf(plan: MarketPlan, cfg: BandsConfig, state: StrategyState): Top | null {
  const yb = state.book(plan.yes);
  const nb = state.book(plan.no);
  // with 'both' NO orders rest on the NO view too: both views must be good
  if (cfg.tokens === 'both' && nb !== undefined && nb.stale) return null;
  let top: Top;
  if (yb !== undefined) {
    if (yb.stale || yb.bestBid === null || yb.bestAsk === null) return null;
    top = { bid: yb.bestBid, ask: yb.bestAsk, book: yb, complement: false };
  } else if (nb !== undefined) {
    if (nb.stale || nb.bestBid === null || nb.bestAsk === null) return null;
    top = { bid: PRICE_SCALE - nb.bestAsk, ask: PRICE_SCALE - nb.bestBid, book: nb, complement: true };
  } else return null;
  return top.bid < top.ask ? top : null;
}

/** Best YES bid (or ask) with some size that is not ours; null when only our orders are there. */
function fairBest(top: Top, bid: boolean, own: ReadonlyMap<number, number>): number | null {
  if (own.size === 0) return bid ? top.bid : top.ask;
  // YES bids are the NO book's asks at 1 - p, and the other way round
  const side = top.complement === bid ? 'asks' : 'bids';
  for (const [p, size] of top.book.levels(side, own.size + 1)) {
    const yp = top.complement ? PRICE_SCALE - p : p;
    if (size - (own.get(yp) ?? 0) > 0) return yp;
  }
  return null;
}

function floorTo(x: number, tick: number): number {
  return Math.floor(x / tick + EPS) * tick;
}
function ceilTo(x: number, tick: number): number {
  return Math.ceil(x / tick - EPS) * tick;
}

/** Holding of a token in micro-shares (never negative). */
function held(state: StrategyState, token: TokenId): number {
  const s = state.position(token).size;
  return s > 0 ? s : 0;
}

/**
 * The desired quotes of one market under `cfg` (see the module comment), innermost band first,
 * each band's bids before its asks. Pure: a function of the plan, the config and the state.
 * Empty when the market cannot be quoted (no/stale/crossed book, no two-sided mid).
 */
export function quoteMarket(plan: MarketPlan, cfg: BandsConfig, state: StrategyState): QuoteIntent[] {
  const top = topOf(plan, cfg, state);
  if (top === null) return [];
  const both = cfg.tokens === 'both';
  const tick = plan.tick;
  const minSize = Math.max(plan.minSize, LOT_MICRO);

  // our live orders, in YES prices
  const own: Own[] = [];
  const ownBid = new Map<number, number>();
  const ownAsk = new Map<number, number>();
  for (const o of state.openOrders(plan.market)) {
    const isYes = o.tokenId === plan.yes;
    if (!isYes && o.tokenId !== plan.no) continue;
    const remaining = o.originalSize - o.sizeMatched;
    if (remaining <= 0) continue;
    const bid = isYes === (o.side === 'BUY');
    const yesPrice = isYes ? o.price : PRICE_SCALE - o.price;
    const m = bid ? ownBid : ownAsk;
    m.set(yesPrice, (m.get(yesPrice) ?? 0) + remaining);
    if (!isYes && !both) continue; // 'yes' mode: a NO order is never kept (but it is on the book)
    own.push({ o, bid, yesPrice, remaining, dist: 0 });
  }

  const fb = cfg.excludeOwnOrders ? fairBest(top, true, ownBid) : top.bid;
  const fa = cfg.excludeOwnOrders ? fairBest(top, false, ownAsk) : top.ask;
  if (fb === null || fa === null || fb >= fa) return [];
  const mid = (fb + fa) / 2;

  const yesHeld = held(state, plan.yes);
  const noHeld = both ? held(state, plan.no) : 0;
  const net = yesHeld - noHeld;
  const ratio = cfg.maxPosition > 0 ? Math.max(-1, Math.min(1, net / cfg.maxPosition)) : 0;
  const center = mid - cfg.inventorySkew * ratio * tick;
  const cap = { bid: Math.max(0, cfg.maxPosition - net), ask: both ? Math.max(0, cfg.maxPosition + net) : yesHeld };
  let yesFree = yesHeld;
  let noFree = noHeld;

  // assign live orders to bands: nearest the mid first, each to the innermost band (of its side)
  // whose margin window holds it and whose maxAmount it still fits. A common mid move shifts every
  // order the same way, so the orders keep their bands even when one lands on a shared boundary.
  const nb = cfg.bands.length;
  // each band's target price (YES), or null when it falls outside [tick, 1 - tick]
  const target: (number | null)[] = new Array<number | null>(2 * nb).fill(null);
  for (let i = 0; i < nb; i++) {
    const m = cfg.bands[i]!.avgMargin;
    let bidP = floorTo(center - m, tick);
    if (bidP >= top.ask) bidP = floorTo(top.ask - tick, tick);
    target[i] = bidP >= tick ? bidP : null;
    let askP = ceilTo(center + m, tick);
    if (askP <= top.bid) askP = ceilTo(top.bid + tick, tick);
    target[nb + i] = askP <= PRICE_SCALE - tick ? askP : null;
  }
  const members: Own[][] = Array.from({ length: 2 * nb }, () => []);
  const load = new Array<number>(2 * nb).fill(0);
  for (const q of own) q.dist = q.bid ? center - q.yesPrice : q.yesPrice - center;
  own.sort((x, y) => x.dist - y.dist || x.yesPrice - y.yesPrice || (x.o.id < y.o.id ? -1 : x.o.id > y.o.id ? 1 : 0));
  for (const q of own) {
    if (q.yesPrice % tick !== 0) continue; // off the current tick: replace
    for (let i = 0; i < nb; i++) {
      const b = cfg.bands[i]!;
      const slot = (q.bid ? 0 : nb) + i;
      // inside the margin window, or at the band's own target (a coarse tick can round it outside)
      const inside = (q.dist >= b.minMargin - EPS && q.dist <= b.maxMargin + EPS) || q.yesPrice === target[slot];
      if (!inside || load[slot]! + q.remaining > b.maxAmount) continue;
      members[slot]!.push(q);
      load[slot]! += q.remaining;
      break;
    }
  }

  // pass 1: keep what fits each band (inner bands first take the capacity; sells need the shares)
  const kept: QuoteIntent[][] = Array.from({ length: 2 * nb }, () => []);
  const keptAmount = new Array<number>(2 * nb).fill(0);
  for (const bid of [true, false]) {
    let capLeft = bid ? cap.bid : cap.ask;
    for (let i = 0; i < nb; i++) {
      const slot = (bid ? 0 : nb) + i;
      let cum = 0;
      for (const q of members[slot]!) {
        if (cum + q.remaining > capLeft) continue;
        if (q.o.side === 'SELL') {
          const isYes = q.o.tokenId === plan.yes;
          if (q.remaining > (isYes ? yesFree : noFree)) continue;
          if (isYes) yesFree -= q.remaining;
          else noFree -= q.remaining;
        }
        cum += q.remaining;
        kept[slot]!.push({ tokenId: q.o.tokenId, side: q.o.side, price: q.o.price, size: q.remaining as Micro });
      }
      keptAmount[slot] = cum;
      capLeft -= cum;
    }
    if (bid) cap.bid = capLeft;
    else cap.ask = capLeft;
  }

  // pass 2: top up under-full bands at avgMargin, routed to tokens
  const fresh: QuoteIntent[][] = Array.from({ length: 2 * nb }, () => []);
  for (const bid of [true, false]) {
    let capLeft = bid ? cap.bid : cap.ask;
    for (let i = 0; i < nb; i++) {
      const b = cfg.bands[i]!;
      const slot = (bid ? 0 : nb) + i;
      const have = keptAmount[slot]!;
      if (have >= b.minAmount && have > 0) continue;
      let need = b.avgAmount - have;
      if (need < minSize) {
        if (have + minSize > b.maxAmount) continue;
        need = minSize;
      }
      const size = lotDown(Math.min(need, capLeft));
      if (size < minSize) continue;
      const price = target[slot];
      if (price === null || price === undefined) continue;
      const out = fresh[slot]!;
      if (!both) {
        out.push({ tokenId: plan.yes, side: bid ? 'BUY' : 'SELL', price: price as Pips, size: size as Micro });
        if (!bid) yesFree -= size;
        capLeft -= size;
        continue;
      }
      // 'both': sell inventory of the token that expresses this side first, buy the other for the rest
      const free = bid ? noFree : yesFree;
      let sell = lotDown(Math.min(size, Math.max(0, free)));
      if (sell < minSize) sell = 0;
      const buy = size - sell;
      if (sell > 0) {
        out.push(bid ? { tokenId: plan.no, side: 'SELL', price: (PRICE_SCALE - price) as Pips, size: sell as Micro } : { tokenId: plan.yes, side: 'SELL', price: price as Pips, size: sell as Micro });
        if (bid) noFree -= sell;
        else yesFree -= sell;
      }
      if (buy >= minSize) {
        out.push(bid ? { tokenId: plan.yes, side: 'BUY', price: price as Pips, size: buy as Micro } : { tokenId: plan.no, side: 'BUY', price: (PRICE_SCALE - price) as Pips, size: buy as Micro });
      }
      capLeft -= sell + (buy >= minSize ? buy : 0);
    }
  }

  // assemble innermost first; a last guard against self-crossing (possible only with minMargin 0)
  let maxBid = -1;
  for (let s = 0; s < nb; s++) for (const q of [...kept[s]!, ...fresh[s]!]) maxBid = Math.max(maxBid, yesPriceOf(q, plan));
  const quotes: QuoteIntent[] = [];
  for (let i = 0; i < nb; i++) {
    for (const q of kept[i]!) quotes.push(q);
    for (const q of fresh[i]!) quotes.push(q);
    for (const q of kept[nb + i]!) if (yesPriceOf(q, plan) > maxBid) quotes.push(q);
    for (const q of fresh[nb + i]!) if (yesPriceOf(q, plan) > maxBid) quotes.push(q);
  }
  return quotes;
}

function yesPriceOf(q: QuoteIntent, plan: MarketPlan): number {
  return q.tokenId === plan.yes ? q.price : PRICE_SCALE - q.price;
}

// ---- the plugin ----------------------------------------------------------------------------------

interface PlanState {
  market: ConditionId;
  yes: TokenId;
  no: TokenId;
  tick: number;
  minSize: number;
  /** False once resolved or when the venue lists it inactive: quotes stay empty. */
  quotable: boolean;
}

/** The `bands` plugin (see the module comment; params in BANDS_PARAMS). */
export default defineStrategy({
  name: 'bands',
  description: 'Quotes in bands around the mid (min/avg/max margin and amount per band), keeps live orders that still fit their band, skews against inventory.',
  params: BANDS_PARAMS,
  create(ctx, params) {
    const cfg = bandsConfig(params);
    const plans = new Map<ConditionId, PlanState>();
    const byToken = new Map<TokenId, PlanState>();
    for (const m of ctx.markets.values()) {
      const plan: PlanState = {
        market: m.market,
        yes: m.tokens[0].tokenId,
        no: m.tokens[1].tokenId,
        tick: tickPips(m.tick),
        minSize: m.minOrderSize,
        quotable: m.active,
      };
      plans.set(m.market, plan);
      byToken.set(plan.yes, plan);
      byToken.set(plan.no, plan);
    }
    ctx.log.debug({ markets: plans.size, tokens: cfg.tokens, bands: cfg.bands.length }, 'bands strategy ready');

    const desired = (plan: PlanState, state: StrategyState): DesiredQuotes => ({
      market: plan.market,
      quotes: plan.quotable ? quoteMarket(plan, cfg, state) : [],
      at: state.now,
    });
    const one = (plan: PlanState | undefined, state: StrategyState): StrategyOutput | undefined => (plan === undefined ? undefined : { quotes: [desired(plan, state)] });
    const all = (state: StrategyState): StrategyOutput | undefined => (plans.size === 0 ? undefined : { quotes: [...plans.values()].map((p) => desired(p, state)) });

    return {
      onEvent(e: MmkitEvent, state: StrategyState): StrategyOutput | undefined {
        switch (e.type) {
          case 'book_snapshot': {
            const plan = byToken.get(e.tokenId);
            if (plan === undefined) return undefined;
            if (e.tickSize !== null && e.tickSize > 0) plan.tick = e.tickSize;
            if (e.minOrderSize !== null) plan.minSize = e.minOrderSize;
            return one(plan, state);
          }
          case 'level_change':
            return e.endOfBatch ? one(byToken.get(e.tokenId), state) : undefined;
          case 'tick_size_change': {
            const plan = byToken.get(e.tokenId);
            if (plan !== undefined) plan.tick = e.new;
            return one(plan, state);
          }
          case 'fill':
            return one(plans.get(e.market), state);
          case 'market_resolved': {
            const plan = plans.get(e.market);
            if (plan !== undefined) plan.quotable = false;
            return one(plan, state);
          }
          case 'timer':
            return all(state);
          case 'disconnected':
          case 'resynced':
            return e.stream === 'rtds' ? undefined : all(state);
          case 'last_trade':
          case 'best_bid_ask':
          case 'new_market':
          case 'order_update':
          case 'price_tick':
          case 'comment':
          case 'stream_error':
            return undefined;
          default:
            return assertNever(e, 'event');
        }
      },
    };
  },
});
