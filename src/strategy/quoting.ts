/**
 * The quoting rules every shipped strategy follows, once, as pure helpers. A strategy prices (a
 * model gives a centre and a ladder of YES bids and asks, floats allowed); these helpers turn that
 * into venue quotes under the common rules:
 *
 *  - Ticks: a price is converted to pips ONCE with an explicit direction: bids round down, asks up
 *    (`bidPips`, `askPips`), never nearer the centre than the model said.
 *  - Minimum spread (`minSpread`): no bid above centre - minSpread/2, no ask below centre +
 *    minSpread/2 (hummingbot's `minimum_spread`, as a full width around the strategy's own centre).
 *  - Valid range: prices stay in [tick, 1 - tick]. `outOfRange: 'clamp'` moves a bid below one tick
 *    up to one tick (an ask above 1 - tick down to 1 - tick) when that still respects the minimum
 *    spread; `'drop'` drops it.
 *  - Post-only (`postOnly`): a quote that would cross the opposite best (the book as the venue shows
 *    it, our own orders included) is never sent: `'move'` puts it one tick behind the touch, `'drop'`
 *    drops it.
 *  - Complement awareness: a bid on YES is an offer on NO. A strategy prices ONE YES ladder; `route`
 *    expresses each level once: in `'both'` mode a YES bid sells NO held first and buys YES for the
 *    rest, a YES ask sells YES held first and buys NO at 1 - price for the rest. Limits use the net
 *    YES exposure (YES held - NO held), so the same exposure is never quoted twice.
 *  - Refresh tolerance (`priceTolerance` ticks, `sizeTolerance` fraction): a live order close enough
 *    to a desired quote is output with its exact price and remaining size, so execution's diff keeps
 *    it (no cancel/replace churn, queue priority kept). Never more size than wanted.
 *  - Maximum order age (`maxOrderAge`): a live order older than that (LiveOrderView.createdAt) is not
 *    kept, so execution cancels it; while it rests, no quote goes out at its (token, side, price),
 *    so that the diff cannot keep the old order for the new quote. The fresh quote follows on the
 *    next event after the cancel landed. Orders of unknown age (adopted) never age.
 *  - No quote without a trustworthy price: `marketTop` is null for a missing, stale or crossed book
 *    (and for a stale NO view when NO orders may rest there); strategies return an empty set then.
 *
 * Everything here is pure (no clock, no I/O). Prices are pips on the YES scale unless a quote says
 * otherwise; sizes micro-shares.
 */
import type { MmkitEvent } from '../core/events.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import type { LiveOrderView, QuoteIntent } from '../core/intents.ts';
import { AMOUNT_SCALE, LOT_MICRO, PRICE_SCALE, type Micro, type Pips } from '../core/units.ts';
import type { BookView, StrategyState } from './api.ts';
import type { MarketRef, MarketRegistry } from './market-registry.ts';

// ---- ticks and lots --------------------------------------------------------------------------------

/** Slack (in ticks) that absorbs float noise: 0.29 x 10000 = 2899.9999999999995 is still 2900. */
const EPS = 1e-6;

/** `pips` rounded DOWN to the tick grid (bids). */
export function floorToTick(pips: number, tick: number): number {
  return Math.floor(pips / tick + EPS) * tick;
}
/** `pips` rounded UP to the tick grid (asks). */
export function ceilToTick(pips: number, tick: number): number {
  return Math.ceil(pips / tick - EPS) * tick;
}
/** A probability as a bid price: pips, rounded down to the tick. */
export function bidPips(prob: number, tick: number): number {
  return floorToTick(prob * PRICE_SCALE, tick);
}
/** A probability as an ask price: pips, rounded up to the tick. */
export function askPips(prob: number, tick: number): number {
  return ceilToTick(prob * PRICE_SCALE, tick);
}
/** Micro-shares rounded down to whole 0.01-share lots. */
export function lotsDown(micro: number): number {
  return micro > 0 ? Math.floor(micro / LOT_MICRO + 1e-9) * LOT_MICRO : 0;
}
/** Shares (a decimal param) as micro-shares, rounded down to whole lots. */
export function sharesToMicro(shares: number): number {
  return lotsDown(shares * AMOUNT_SCALE);
}
/** The logit ln(p / (1 - p)) of a probability in (0, 1). */
export function logit(p: number): number {
  return Math.log(p / (1 - p));
}
/** The inverse of `logit`: 1 / (1 + e^-x). */
export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

// ---- markets: ./market-registry.ts (re-exported) -------------------------------------------------

export { type Affected, type MarketRef, MarketRegistry } from './market-registry.ts';

// ---- the top of the market ------------------------------------------------------------------------

/** The top of one market in YES pips. */
export interface MarketTop {
  /** Best YES bid / ask with size that is not ours (with `excludeOwn`; else the touch); null when none. */
  readonly bid: number | null;
  readonly ask: number | null;
  /** (bid + ask) / 2, possibly a half pip; null unless both sides exist. */
  readonly mid: number | null;
  /** The touch as the venue shows it (our orders included): what post-only must not cross. */
  readonly touchBid: number | null;
  readonly touchAsk: number | null;
}

/**
 * The top of a market from the YES book or, without one, the NO book's complement (a NO bid at q is
 * a YES ask at 1 - q), or null when the market has no trustworthy book: no book, a stale one (with
 * `tokens: 'both'` a stale NO view counts too: NO orders rest there), or a crossed one. A one-sided
 * book is returned (a side is null); strategies that need a mid check `mid`.
 * With `excludeOwn`, the best prices skip levels made only of our own orders (`state.openOrders`),
 * so a strategy does not chase its own quotes.
 */
export function marketTop(
  state: StrategyState,
  ref: Pick<MarketRef, 'market' | 'yes' | 'no'>,
  opts: { readonly excludeOwn: boolean; readonly tokens: 'yes' | 'both' },
): MarketTop | null {
  const yb = state.book(ref.yes);
  const nb = state.book(ref.no);
  if (opts.tokens === 'both' && nb !== undefined && nb.stale) return null;
  let book: BookView;
  let complement: boolean;
  if (yb !== undefined) {
    book = yb;
    complement = false;
  } else if (nb !== undefined) {
    book = nb;
    complement = true;
  } else return null;
  if (book.stale) return null;
  const touchBid = complement ? (book.bestAsk === null ? null : PRICE_SCALE - book.bestAsk) : book.bestBid;
  const touchAsk = complement ? (book.bestBid === null ? null : PRICE_SCALE - book.bestBid) : book.bestAsk;
  if (touchBid !== null && touchAsk !== null && touchBid >= touchAsk) return null;
  let bid = touchBid;
  let ask = touchAsk;
  if (opts.excludeOwn) {
    const live = state.openOrders(ref.market);
    if (live.length > 0) {
      if (bid !== null) bid = bestNotOwn(book, complement, true, live, ref);
      if (ask !== null) ask = bestNotOwn(book, complement, false, live, ref);
    }
  }
  return { bid, ask, mid: bid !== null && ask !== null ? (bid + ask) / 2 : null, touchBid, touchAsk };
}

/**
 * Book events that cannot change a top-of-book quoter's quotes, so that it can answer them with no
 * output (execution keeps the quotes it has; the engine's timer re-asserts them every tick). For a
 * strategy whose quotes of a market are a function of: the market's top (`marketTop`, our orders
 * excluded or not), the touch, the market's live orders, the YES and NO positions, the tick and the
 * minimum size (bands is one). Per market it keeps what the last quotes were computed from
 * (`quoted`), and which book events came since (`see`):
 *  - a YES level change at or better than the top read then (the bid or ask net of our orders) may
 *    move it; a level behind it cannot (the net top is the best level holding size that is not
 *    ours, so levels behind it neither make nor unmake it, and the touch is at or before it). A NO
 *    level change matters only when the top is read from the NO book (no YES book);
 *  - a snapshot of the YES book (or of the NO book when the top is read from it) may move anything.
 * `unmoved` is then true when none of those came and the touch, the live orders (the same list:
 *  the order tracker's list changes identity with any change of the market's orders), both
 * positions, the tick and the minimum size are as they were, and the NO book is not stale (the
 * engine pulls the market then: the event that makes it whole again must re-quote).
 * A market is not followed while its quotes depend on the time (`quoted(ref, null)`).
 */
export class UnmovedFilter {
  readonly #last = new Map<ConditionId, QuotedFrom>();

  /**
   * Notes a level change or a snapshot (call it before `MarketRegistry.note`, which may change the
   * tick). True when the event's market is followed: only then may `unmoved` skip it.
   */
  see(e: MmkitEvent, reg: MarketRegistry, state: StrategyState): boolean {
    if (e.type !== 'level_change' && e.type !== 'book_snapshot') return false;
    const ref = reg.byToken(e.tokenId);
    const q = ref === undefined ? undefined : this.#last.get(ref.market);
    if (q === undefined) return false;
    if (q.moved) return true;
    const yes = ref!.yes;
    if (e.type === 'book_snapshot') q.moved = e.tokenId === yes || state.book(yes) === undefined;
    else if (e.tokenId !== yes) q.moved = state.book(yes) === undefined;
    else q.moved = e.side === 'BUY' ? q.bid === null || e.price >= q.bid : q.ask === null || e.price <= q.ask;
    return true;
  }

  /** True when nothing the market's last quotes were computed from changed since (see the class comment). */
  unmoved(ref: MarketRef, state: StrategyState): boolean {
    const q = this.#last.get(ref.market);
    if (q === undefined || q.moved || q.tick !== ref.tick || q.minSize !== ref.minSize) return false;
    const b = state.book(ref.yes);
    if (b === undefined || b.stale || b.bestBid !== q.touchBid || b.bestAsk !== q.touchAsk) return false;
    if (state.book(ref.no)?.stale === true) return false;
    return (
      q.live === state.openOrders(ref.market) &&
      q.yes === state.position(ref.yes).size &&
      q.no === state.position(ref.no).size
    );
  }

  /**
   * Records what the quotes of `ref` are being computed from: `top` as the strategy read it, or
   * null to stop following the market (no top, quotes that depend on the time).
   */
  quoted(ref: MarketRef, top: MarketTop | null, state: StrategyState): void {
    if (top === null || state.book(ref.no)?.stale === true) {
      this.#last.delete(ref.market);
      return;
    }
    const live = state.openOrders(ref.market);
    const yes = state.position(ref.yes).size;
    const no = state.position(ref.no).size;
    // the market's record is overwritten in place (this runs on every re-quote)
    const q = this.#last.get(ref.market);
    if (q === undefined) {
      this.#last.set(ref.market, {
        tick: ref.tick,
        minSize: ref.minSize,
        bid: top.bid,
        ask: top.ask,
        touchBid: top.touchBid,
        touchAsk: top.touchAsk,
        live,
        yes,
        no,
        moved: false,
      });
      return;
    }
    q.tick = ref.tick;
    q.minSize = ref.minSize;
    q.bid = top.bid;
    q.ask = top.ask;
    q.touchBid = top.touchBid;
    q.touchAsk = top.touchAsk;
    q.live = live;
    q.yes = yes;
    q.no = no;
    q.moved = false;
  }
}

/** What a market's last quotes were computed from (UnmovedFilter). */
interface QuotedFrom {
  tick: number;
  minSize: number;
  bid: number | null;
  ask: number | null;
  touchBid: number | null;
  touchAsk: number | null;
  live: readonly LiveOrderView[];
  yes: number;
  no: number;
  /** A book event since may have moved what the quotes read. */
  moved: boolean;
}

/** The remaining size of `o` when it rests at YES price `yp` on that side of the YES book (a NO order at q rests at 1 - q on the other side), else 0. */
function restingAt(o: LiveOrderView, ref: Pick<MarketRef, 'yes' | 'no'>, bid: boolean, yp: number): number {
  const isYes = o.tokenId === ref.yes;
  if (
    (!isYes && o.tokenId !== ref.no) ||
    (isYes === (o.side === 'BUY')) !== bid ||
    (isYes ? o.price : PRICE_SCALE - o.price) !== yp
  )
    return 0;
  const remaining = o.originalSize - o.sizeMatched;
  return remaining > 0 ? remaining : 0;
}

/** Our resting size at YES price `yp` on one side of the YES book. */
function ownAt(live: readonly LiveOrderView[], ref: Pick<MarketRef, 'yes' | 'no'>, bid: boolean, yp: number): number {
  let s = 0;
  for (let i = 0; i < live.length; i++) s += restingAt(live[i]!, ref, bid, yp);
  return s;
}

/**
 * Of our resting size at YES price `yp` (ownAt), how much a level of `size` shows: all of it when it
 * fits; else an order of ours is in flight (placed and not shown yet, or cancelled and gone from the
 * book before its cancellation reached us, as the market channel may tell it first), and the level
 * shows the largest part of our orders there that fits its size (so the rest of it is others'
 * only when no part of ours can account for it). Taking our whole size off such a level made it
 * look like ours alone for a round trip: the mid moved, the quotes followed, and moved back once
 * the order settled, which moved them again (a place/cancel loop of the same orders).
 */
function shownOwnAt(
  live: readonly LiveOrderView[],
  ref: Pick<MarketRef, 'yes' | 'no'>,
  bid: boolean,
  yp: number,
  size: number,
): number {
  const own = ownAt(live, ref, bid, yp);
  if (own <= size) return own;
  const parts: number[] = [];
  for (let i = 0; i < live.length; i++) {
    const r = restingAt(live[i]!, ref, bid, yp);
    if (r > 0) parts.push(r);
  }
  let best = 0;
  if (parts.length <= 12) {
    // the largest sum of a subset of our orders at the level that fits its size (a few orders: every subset)
    for (let m = 1; m < 1 << parts.length; m++) {
      let sum = 0;
      for (let k = 0; k < parts.length; k++) if (m & (1 << k)) sum += parts[k]!;
      if (sum <= size && sum > best) best = sum;
    }
    return best;
  }
  // many orders at one level (never seen): the largest first, while they fit
  parts.sort((a, b) => b - a);
  for (const x of parts) if (best + x <= size) best += x;
  return best;
}

/**
 * The best YES price on a side with size that is not ours; the touch itself when we rest nothing on
 * that side. No allocation beyond the few levels read (this runs on every re-quote): our orders are
 * few, so each level's own size is a scan of them.
 */
function bestNotOwn(
  book: BookView,
  complement: boolean,
  bid: boolean,
  live: readonly LiveOrderView[],
  ref: Pick<MarketRef, 'yes' | 'no'>,
): number | null {
  let n = 0;
  for (let i = 0; i < live.length; i++) {
    const o = live[i]!;
    const isYes = o.tokenId === ref.yes;
    if ((isYes || o.tokenId === ref.no) && (isYes === (o.side === 'BUY')) === bid && o.originalSize - o.sizeMatched > 0)
      n++;
  }
  // YES bids are the NO book's asks at 1 - p, and the other way round
  const side = complement === bid ? 'asks' : 'bids';
  const b = side === 'bids' ? book.bestBid : book.bestAsk;
  const best = b === null ? null : complement ? PRICE_SCALE - b : b;
  // the best level holds size (a book has no empty level): the answer when none of it is ours
  if (n === 0 || best === null || ownAt(live, ref, bid, best) === 0) return best;
  // at most n levels are wholly ours: the first n + 1 hold the answer if any level does
  const levels = book.levels(side, n + 1);
  for (let i = 0; i < levels.length; i++) {
    const [p, size] = levels[i]!;
    const yp = complement ? PRICE_SCALE - p : p;
    if (size - shownOwnAt(live, ref, bid, yp, size) > 0) return yp;
  }
  return null;
}

/**
 * The levels of one side of `tokenId`'s book (a token of `ref`) with our own resting size taken out,
 * as much of it as each level shows (our YES and NO orders, each shown in both books), best first,
 * the levels left empty dropped, `[price, size]` in pips and micro-shares: the others' liquidity, for
 * a fair value that weighs sizes (microprice, imbalance) without chasing its own orders (trial 23
 * F6: a microprice from `levels()` moved with every re-quote). At most `depth` levels of the book
 * are read (default 10). Empty without a book.
 */
export function othersLevels(
  state: Pick<StrategyState, 'book' | 'openOrders'>,
  ref: Pick<MarketRef, 'market' | 'yes' | 'no'>,
  tokenId: TokenId,
  side: 'bids' | 'asks',
  depth = 10,
): [Pips, Micro][] {
  const book = state.book(tokenId);
  if (book === undefined) return [];
  const live = state.openOrders(ref.market);
  const isYes = tokenId === ref.yes;
  // a level of the NO book is the YES book's other side at 1 - price
  const bid = isYes === (side === 'bids');
  const out: [Pips, Micro][] = [];
  for (const [p, size] of book.levels(side, depth)) {
    const left = size - shownOwnAt(live, ref, bid, isYes ? p : PRICE_SCALE - p, size);
    if (left > 0) out.push([p, left as Micro]);
  }
  return out;
}

/** True when a reference observed at `lastAt` (unix ms; undefined: never) is at most `staleMs` old at `now`. */
export function isFresh(lastAt: number | undefined, now: number, staleMs: number): boolean {
  return lastAt !== undefined && now - lastAt <= staleMs;
}

// ---- inventory --------------------------------------------------------------------------------------

/** What the strategy holds in a market: micro-shares of each token (never negative) and the net YES exposure. */
export interface Inventory {
  readonly yes: number;
  readonly no: number;
  /** YES - NO in `'both'` mode; YES held in `'yes'` mode (NO holdings are not the strategy's). */
  readonly net: number;
}

export function inventoryOf(
  state: StrategyState,
  ref: Pick<MarketRef, 'yes' | 'no'>,
  tokens: 'yes' | 'both',
): Inventory {
  const yes = Math.max(0, state.position(ref.yes).size);
  const no = tokens === 'both' ? Math.max(0, state.position(ref.no).size) : 0;
  return { yes, no, net: yes - no };
}

// ---- the rules --------------------------------------------------------------------------------------

/** The common rules in integer units (see the module comment). */
export interface QuotingRules {
  readonly tokens: 'yes' | 'both';
  /** Full minimum width around the centre, pips (each side at least half of it away). */
  readonly minSpread: number;
  readonly postOnly: 'move' | 'drop';
  readonly outOfRange: 'clamp' | 'drop';
  /** Net YES exposure (micro-shares) beyond which a side stops adding to it. */
  readonly maxPosition: number;
  /** Ticks a live order may be from a desired quote and still be kept. */
  readonly priceTolerance: number;
  /** Fraction below the desired size a live order's remaining size may be and still be kept. */
  readonly sizeTolerance: number;
  /** Live orders at least this old (ms) are replaced; 0: never. */
  readonly maxOrderAgeMs: number;
  /**
   * The market's reward size (micro-shares; `rewardTarget(...).size`), when quoting for liquidity
   * rewards: the venue scores each order alone, only at this size or more. A level of at least this
   * size then becomes one order that keeps it: never split into parts below it (a side the held token
   * does not cover goes whole to the complement buy, the same exposure), and not quoted when the
   * position limit cuts it below it (it would add inventory and score nothing). Absent or 0: none.
   */
  readonly rewardSize?: number;
}

/** One level of a YES ladder: a bid (buy YES / sell NO) or an ask (sell YES / buy NO). */
export interface YesLevel {
  readonly bid: boolean;
  /** YES price, pips (rounded to the tick by `shapeLadder`: bids down, asks up). */
  readonly price: number;
  /** Micro-shares (rounded down to lots when routed). */
  readonly size: number;
}

/**
 * The price rules on a YES ladder: tick rounding (bids down, asks up), minimum spread around
 * `center` (pips), the valid range, post-only against the touch; then same-price levels merged,
 * each side sorted best first, and a last guard against our own bid and ask crossing (the side that
 * would add to the position gives way). Pure.
 */
export function shapeLadder(
  levels: readonly YesLevel[],
  center: number,
  top: Pick<MarketTop, 'touchBid' | 'touchAsk'>,
  tick: number,
  rules: QuotingRules,
  net: number,
): YesLevel[] {
  const lo = tick;
  const hi = PRICE_SCALE - tick;
  const bidCap = floorToTick(center - rules.minSpread / 2, tick);
  const askFloor = ceilToTick(center + rules.minSpread / 2, tick);
  const bids = new Map<number, number>();
  const asks = new Map<number, number>();
  for (const lv of levels) {
    if (!(lv.size > 0) || !Number.isFinite(lv.price)) continue;
    let p: number;
    if (lv.bid) {
      p = Math.min(floorToTick(lv.price, tick), bidCap, hi);
      if (p < lo) {
        if (rules.outOfRange === 'drop' || lo > bidCap) continue;
        p = lo;
      }
      if (top.touchAsk !== null && p >= top.touchAsk) {
        if (rules.postOnly === 'drop') continue;
        p = top.touchAsk - tick;
        if (p < lo) continue;
      }
      bids.set(p, (bids.get(p) ?? 0) + lv.size);
    } else {
      p = Math.max(ceilToTick(lv.price, tick), askFloor, lo);
      if (p > hi) {
        if (rules.outOfRange === 'drop' || hi < askFloor) continue;
        p = hi;
      }
      if (top.touchBid !== null && p <= top.touchBid) {
        if (rules.postOnly === 'drop') continue;
        p = top.touchBid + tick;
        if (p > hi) continue;
      }
      asks.set(p, (asks.get(p) ?? 0) + lv.size);
    }
  }
  let b = [...bids].sort((x, y) => y[0] - x[0]);
  let a = [...asks].sort((x, y) => x[0] - y[0]);
  if (b.length > 0 && a.length > 0 && b[0]![0] >= a[0]![0]) {
    if (net > 0) {
      const minAsk = a[0]![0];
      b = b.filter(([p]) => p < minAsk);
    } else {
      const maxBid = b[0]![0];
      a = a.filter(([p]) => p > maxBid);
    }
  }
  return [
    ...b.map(([price, size]) => ({ bid: true, price, size })),
    ...a.map(([price, size]) => ({ bid: false, price, size })),
  ];
}

/**
 * Routes a shaped YES ladder to token quotes (see the module comment: complement awareness), under
 * the position limits: bids add at most `maxPosition - net` of YES exposure, asks at most
 * `maxPosition + net` (in `'yes'` mode: only YES held is sold). Sizes are whole lots, parts below
 * the market's minimum size are dropped. Output: level by level, innermost first, bid then ask.
 */
export function routeLadder(
  levels: readonly YesLevel[],
  ref: MarketRef,
  rules: QuotingRules,
  inv: Inventory,
): QuoteIntent[] {
  const both = rules.tokens === 'both';
  const minSize = Math.max(ref.minSize, LOT_MICRO);
  const rewardSize = rules.rewardSize ?? 0;
  let yesFree = inv.yes;
  let noFree = inv.no;
  const capLeft = {
    bid: Math.max(0, rules.maxPosition - inv.net),
    ask: both ? Math.max(0, rules.maxPosition + inv.net) : inv.yes,
  };
  const q = (tokenId: TokenId, side: 'BUY' | 'SELL', price: number, size: number): QuoteIntent => ({
    tokenId,
    side,
    price: price as Pips,
    size: size as Micro,
  });
  const perLevel: { bid: QuoteIntent[][]; ask: QuoteIntent[][] } = { bid: [], ask: [] };
  for (const lv of levels) {
    const key = lv.bid ? 'bid' : 'ask';
    const here: QuoteIntent[] = [];
    perLevel[key].push(here);
    const size = lotsDown(Math.min(lv.size, capLeft[key]));
    if (size < minSize) continue;
    // a reward level (rules.rewardSize): one order of at least the reward size, or none
    const whole = rewardSize > 0 && lv.size >= rewardSize ? rewardSize : 0;
    if (size < whole) continue;
    if (!both) {
      if (lv.bid) here.push(q(ref.yes, 'BUY', lv.price, size));
      else {
        const s = Math.min(size, lotsDown(yesFree));
        if (s < minSize || s < whole) continue;
        here.push(q(ref.yes, 'SELL', lv.price, s));
        yesFree -= s;
        capLeft.ask -= s;
        continue;
      }
      capLeft.bid -= size;
      continue;
    }
    // 'both': sell what we hold of the token that expresses this side, buy the other for the rest
    const free = lv.bid ? noFree : yesFree;
    let sell = lotsDown(Math.min(size, free));
    if (sell < minSize) sell = 0;
    // (a reward level split below the reward size would not score: whole to the complement buy)
    if (sell > 0 && sell < size && (sell < whole || size - sell < whole)) sell = 0;
    const buy = size - sell;
    if (sell > 0) {
      if (lv.bid) {
        here.push(q(ref.no, 'SELL', PRICE_SCALE - lv.price, sell));
        noFree -= sell;
      } else {
        here.push(q(ref.yes, 'SELL', lv.price, sell));
        yesFree -= sell;
      }
    }
    if (buy >= minSize)
      here.push(lv.bid ? q(ref.yes, 'BUY', lv.price, buy) : q(ref.no, 'BUY', PRICE_SCALE - lv.price, buy));
    capLeft[key] -= sell + (buy >= minSize ? buy : 0);
  }
  const quotes: QuoteIntent[] = [];
  for (let i = 0; i < Math.max(perLevel.bid.length, perLevel.ask.length); i++) {
    for (const x of perLevel.bid[i] ?? []) quotes.push(x);
    for (const x of perLevel.ask[i] ?? []) quotes.push(x);
  }
  return quotes;
}

/** The YES price of a quote (a NO quote's price seen from YES), and whether it bids for YES exposure. */
export function yesView(
  q: Pick<QuoteIntent, 'tokenId' | 'side' | 'price'>,
  ref: Pick<MarketRef, 'yes'>,
): { bid: boolean; price: number } {
  const isYes = q.tokenId === ref.yes;
  return { bid: isYes === (q.side === 'BUY'), price: isYes ? q.price : PRICE_SCALE - q.price };
}

/** Ids of live orders at least `maxAgeMs` old at `now` (none when `maxAgeMs` is 0 or the age is unknown). */
export function agedOrders(live: readonly LiveOrderView[], now: number, maxAgeMs: number): Set<string> {
  const out = new Set<string>();
  if (!(maxAgeMs > 0)) return out;
  for (const o of live) if (o.createdAt !== undefined && now - o.createdAt >= maxAgeMs) out.add(o.id);
  return out;
}

const keyOf = (q: { tokenId: string; side: string; price: number }): string => `${q.tokenId}|${q.side}|${q.price}`;

/**
 * Refresh tolerance and maximum order age against the live orders of the market: each desired quote
 * takes the closest free live order of its token and side whose price is within `priceTolerance`
 * ticks and whose remaining size is between (1 - sizeTolerance) x and 1 x the desired size, and is
 * output as that order (exact price and remaining size: execution keeps it). The desired size is
 * the one the risk gate will send: cut to `maxOrderSize` (the gate's limit, whole lots) when above
 * it, so that a quote the gate cuts keeps the live order it was sent as (trial 21 F6: compared with
 * the uncut size, no live order ever matched, and every tick of the centre cancelled and replaced). Aged orders are never
 * taken, and a quote at an aged order's (token, side, price) is held back while it rests. Orders off
 * the current tick are never kept. If keeping would make our bids and asks cross, nothing is kept.
 */
export function reconcileLive(
  quotes: readonly QuoteIntent[],
  live: readonly LiveOrderView[],
  ref: MarketRef,
  rules: QuotingRules,
  now: number,
  maxOrderSize?: number,
): QuoteIntent[] {
  const aged = agedOrders(live, now, rules.maxOrderAgeMs);
  const cap = maxOrderSize !== undefined && maxOrderSize > 0 ? lotsDown(maxOrderSize) : Infinity;
  const agedKeys = new Set<string>();
  const cands: LiveOrderView[] = [];
  for (const o of live) {
    if (o.market !== ref.market || (o.tokenId !== ref.yes && o.tokenId !== ref.no)) continue;
    if (aged.has(o.id)) agedKeys.add(keyOf(o));
    else if (o.originalSize - o.sizeMatched > 0 && o.price % ref.tick === 0) cands.push(o);
  }
  const used = new Set<number>();
  const maxDp = Math.max(0, Math.floor(rules.priceTolerance)) * ref.tick;
  const kept: QuoteIntent[] = [];
  const plain: QuoteIntent[] = [];
  let anyKept = false;
  for (const q of quotes) {
    const want = Math.min(q.size, cap);
    const minRemaining = Math.ceil(want * (1 - Math.min(1, Math.max(0, rules.sizeTolerance))));
    let best = -1;
    let bestDp = Infinity;
    let bestDs = Infinity;
    for (let i = 0; i < cands.length; i++) {
      if (used.has(i)) continue;
      const o = cands[i]!;
      if (o.tokenId !== q.tokenId || o.side !== q.side) continue;
      const dp = Math.abs(o.price - q.price);
      const remaining = o.originalSize - o.sizeMatched;
      if (dp > maxDp || remaining > want || remaining < minRemaining) continue;
      const ds = want - remaining;
      if (dp < bestDp || (dp === bestDp && ds < bestDs)) {
        best = i;
        bestDp = dp;
        bestDs = ds;
      }
    }
    const held = agedKeys.has(keyOf(q));
    if (!held) plain.push(q);
    if (best >= 0) {
      used.add(best);
      const o = cands[best]!;
      kept.push({ tokenId: o.tokenId, side: o.side, price: o.price, size: (o.originalSize - o.sizeMatched) as Micro });
      anyKept = true;
    } else if (!held) kept.push(q);
  }
  if (!anyKept) return plain;
  let maxBid = -1;
  let minAsk = Infinity;
  for (const q of kept) {
    const v = yesView(q, ref);
    if (v.bid) maxBid = Math.max(maxBid, v.price);
    else minAsk = Math.min(minAsk, v.price);
  }
  return maxBid < minAsk ? kept : plain;
}

/**
 * The whole pipeline for one market: `shapeLadder` (ticks, minimum spread, range, post-only,
 * self-cross guard), `routeLadder` (limits, complement), `reconcileLive` (tolerance, age).
 * `center` is the strategy's own centre (fair or reservation price), pips.
 */
export function finishQuotes(
  levels: readonly YesLevel[],
  center: number,
  top: Pick<MarketTop, 'touchBid' | 'touchAsk'>,
  ref: MarketRef,
  rules: QuotingRules,
  state: StrategyState,
): QuoteIntent[] {
  const inv = inventoryOf(state, ref, rules.tokens);
  const shaped = shapeLadder(levels, center, top, ref.tick, rules, inv.net);
  const routed = routeLadder(shaped, ref, rules, inv);
  return reconcileLive(routed, state.openOrders(ref.market), ref, rules, state.now, state.maxOrderSize?.(ref.market));
}
