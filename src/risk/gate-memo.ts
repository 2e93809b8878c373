/**
 * The risk gate, memoised per market, for a caller that gates the same desired quotes over and over:
 * a strategy that re-states its unchanged quotes on every book event and timer tick (the backtest
 * runner gates ~160,000 sets per 200,000 recorded frames of the bench feed, ~85 % of them the same
 * quotes as the market's last set).
 *
 * Exact, because `gate` is pure: the approved quotes of the last call for a market are handed out
 * again only when the gate, run again, would make every quote the same decision with the same size.
 * Memoised only when every quote of the market's tokens is strictly inside its token's top (a BUY
 * below the ask, a SELL above the bid: the gate's crossing check then reads no level behind the
 * top, nor this market's orders), or the book refuses the whole market; then the answer is kept
 * while these are the same as then:
 *  - the desired quotes (the same tokens, sides, prices and sizes, in order), and the market's info
 *    (same object);
 *  - the kill switch tripped or not, the halt (the view's, else the market's), the heartbeat flag, the limits (same object), the
 *    market's current tick, both tokens' positions;
 *  - each token's book (same object) with its stale flag; its best bid and best ask the same, or
 *    moved so that every quote is still strictly inside usable tops and gets the same price band
 *    verdict (within maxMidDistance of its token's mid or not): nothing else the gate reads of a
 *    book (`sameBands`);
 *  - the market's foreign orders (resting on our wallet, not placed by the bot: the self-trade
 *    check): the same order views in the same order (the tracker hands the same list, and the
 *    same shared empty one, while none changed);
 * and while the rest of what the gate reads, a point (`Point`): the available collateral with what
 * this market's live buys reserve (the gate's collateral), the notional and the count of the other
 * markets' live orders, lies in the entry's RANGE. The gate's sizes are monotonic in each (a quote
 * gets no less with more collateral, less notional or fewer orders elsewhere, the decisions before
 * it being the same), so a point between a tighter and a looser point at which the gate gave every
 * quote the same decision and size gets them too, quote by quote. The range starts as the point of
 * the call that ran the gate, and grows to the points of later calls where only the point moved
 * and the gate, run again, gave every quote the same. (The same list of live orders: the tracker's
 * cached list changes identity with any order change, so its point needs no look inside.)
 * Refusal reasons (the kill switch's message...) are not kept: the memo serves callers that use the
 * approved set only. Their codes are, for a caller that counts them (`GateTally`, the backtest's
 * refusal counts): every answer, memoised or not, is told with the codes of its refusals and trims
 * as the gate gave them (a range grows only over points where the gate gave the same codes too).
 * Only an answer with a refusal or a trim costs anything: an approved set is told nothing.
 */
import type { ConditionId, TokenId } from '../core/ids.ts';
import { sameQuotes, type DesiredQuotes, type LiveOrderView, type QuoteIntent } from '../core/intents.ts';
import { notional, PRICE_SCALE } from '../core/units.ts';
import type { MarketInfo } from '../core/venue.ts';
import type { BookView } from '../core/views.ts';
import { gate, restamped, type Approved, type GateResult, type Refusal, type RiskView, type Trim } from './gate.ts';
import { limitsFor, type RiskLimits } from './limits.ts';

/** What a memoised call read, and what it approved. */
interface Entry {
  quotes: readonly QuoteIntent[];
  approved: Approved<DesiredQuotes>;
  info: MarketInfo;
  limits: RiskLimits;
  tripped: boolean;
  halted: string | null | undefined;
  heartbeatOk: boolean | undefined;
  tick: number | undefined;
  bookA: BookView | undefined;
  aStale: boolean;
  aBid: number | null;
  aAsk: number | null;
  bookB: BookView | undefined;
  bStale: boolean;
  bBid: number | null;
  bAsk: number | null;
  /**
   * Each quote's price band verdict (within maxMidDistance of its token's mid) at the tops above,
   * when every quote of the market's tokens was strictly inside usable tops; else undefined (the
   * tops must then be the very same). See `sameBands`.
   */
  bandOk: boolean[] | undefined;
  /** The list read last (what the three fields below sum up). */
  orders: readonly LiveOrderView[];
  /** What the list held at the last call: the collateral this market's live buys reserve. */
  reserved: number;
  /** And the other markets' live orders with something left: how many, and their notional (rounded up). */
  otherCount: number;
  otherNotional: number;
  /**
   * The range of (collateral, other markets' notional, other markets' count) known to give this
   * answer: the tightest point seen with it (least collateral, most notional and orders elsewhere)
   * and the loosest (see `inRange`). Undefined `sig`: the answer holds at its one point only.
   */
  tight: Point;
  loose: Point;
  /** Each quote's approved size (-1: refused), the per-quote answer the range is kept for. */
  sig: number[] | undefined;
  posA: number;
  posB: number;
  /** The market's foreign orders as read (compared view by view). */
  foreign: readonly LiveOrderView[];
  /** The gate's result when it refused or trimmed something (told again on every hit), else undefined. */
  told: GateResult | undefined;
}

/**
 * Told the refusals and trims of an answer of the memo that has any (a memoised answer's as the gate
 * gave them when it ran): e.g. to count them by code. Never called for an answer without.
 */
export type GateTally = (refusals: readonly Refusal[], trims: readonly Trim[]) => void;

/** The result when it refused or trimmed something, else undefined. */
const toldOf = (r: GateResult): GateResult | undefined => (r.refusals.length > 0 || r.trims.length > 0 ? r : undefined);

/** True when two results (undefined: none refused nor trimmed) have the same codes in the same order. */
function sameCodes(a: GateResult | undefined, b: GateResult | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (a.refusals.length !== b.refusals.length || a.trims.length !== b.trims.length) return false;
  for (let i = 0; i < a.refusals.length; i++) if (a.refusals[i]!.code !== b.refusals[i]!.code) return false;
  for (let i = 0; i < a.trims.length; i++) if (a.trims[i]!.code !== b.trims[i]!.code) return false;
  return true;
}

/**
 * What the gate reads of the collateral and of the live orders (when every quote is strictly
 * inside the top: see the module comment): the collateral with what this market's live buys
 * reserve, and the other markets' notional and count.
 */
interface Point {
  collateral: number;
  otherNotional: number;
  otherCount: number;
}

const NO_FOREIGN: readonly LiveOrderView[] = Object.freeze([]);

/** The same views in the same order. */
function sameViews(a: readonly LiveOrderView[], b: readonly LiveOrderView[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * True when `p` lies between the entry's tightest and loosest points: at least the collateral of
 * the tightest, at most that of the loosest; notional and count elsewhere the other way round.
 */
function inRange(m: Entry, collateral: number, otherNotional: number, otherCount: number): boolean {
  const t = m.tight;
  const l = m.loose;
  return (
    t.collateral <= collateral &&
    collateral <= l.collateral &&
    l.otherNotional <= otherNotional &&
    otherNotional <= t.otherNotional &&
    l.otherCount <= otherCount &&
    otherCount <= t.otherCount
  );
}

/** `gate(desired, view).approved`, memoised per market (see the module comment). */
export class GateMemo {
  readonly #last = new Map<ConditionId, Entry>();
  /** Calls answered from the memo, and calls that ran the gate. */
  hits = 0;
  misses = 0;
  // what `#readOrders` found (scratch: no object per call)
  #reserved = 0;
  #otherCount = 0;
  #otherNotional = 0;
  readonly #tally: GateTally | undefined;

  /** `tally`: told the refusals and trims of every answer that has any (see GateTally). */
  constructor(tally?: GateTally) {
    this.#tally = tally;
  }

  /** The gate's result run now: told when it refused or trimmed something; its approved set. */
  #ran(r: GateResult): Approved<DesiredQuotes> {
    if (this.#tally !== undefined && (r.refusals.length > 0 || r.trims.length > 0)) this.#tally(r.refusals, r.trims);
    return r.approved;
  }

  /**
   * `keep`: asked on a hit with the approval made earlier for the same answer; when it says true,
   * that approval is handed out as it is, with its earlier time (a caller that drops a repeated
   * set anyway spares a new approval); else, as without it, a copy stamped with `desired.at`.
   */
  approve(
    desired: DesiredQuotes,
    view: RiskView,
    keep?: (earlier: Approved<DesiredQuotes>) => boolean,
  ): Approved<DesiredQuotes> {
    const quotes = desired.quotes;
    if (quotes.length === 0) return this.#ran(gate(desired, view)); // the gate passes an empty set as it is
    const market = desired.market;
    const info = view.market(market);
    if (info === undefined) {
      this.misses++;
      return this.#ran(gate(desired, view));
    }
    const a = info.tokens[0].tokenId;
    const b = info.tokens[1].tokenId;
    const tripped = view.killSwitch?.tripped === true;
    // (a market's own halt, a fleet member's lease, counts as the halt)
    const halted = view.halted || view.marketHalted?.(market) || view.halted;
    const heartbeatOk = view.heartbeatOk;
    const limits = view.limits;
    const tick = view.tick?.(market);
    const bookA = view.book(a);
    const bookB = view.book(b);
    const aStale = bookA?.stale === true;
    const aBid = bookA?.bestBid ?? null;
    const aAsk = bookA?.bestAsk ?? null;
    const bStale = bookB?.stale === true;
    const bBid = bookB?.bestBid ?? null;
    const bAsk = bookB?.bestAsk ?? null;
    const orders = view.openOrders();
    const collateral = view.availableCollateral;
    const posA = view.position(a);
    const posB = view.position(b);
    const foreign = view.foreignOrders?.(market) ?? NO_FOREIGN;
    const m = this.#last.get(market);
    if (
      m !== undefined &&
      sameQuotes(m.quotes, quotes) &&
      m.info === info &&
      m.aStale === aStale &&
      m.bStale === bStale &&
      m.bookA === bookA &&
      m.bookB === bookB &&
      m.posA === posA &&
      m.posB === posB &&
      m.tripped === tripped &&
      m.halted === halted &&
      m.heartbeatOk === heartbeatOk &&
      m.limits === limits &&
      m.tick === tick &&
      sameViews(m.foreign, foreign)
    ) {
      if (m.orders !== orders) this.#readOrders(market, orders);
      const reserved = m.orders === orders ? m.reserved : this.#reserved;
      const otherCount = m.orders === orders ? m.otherCount : this.#otherCount;
      const otherNotional = m.orders === orders ? m.otherNotional : this.#otherNotional;
      const room = collateral + reserved;
      const sameTops = m.aBid === aBid && m.aAsk === aAsk && m.bBid === bBid && m.bAsk === bAsk;
      if (sameTops || sameBands(m, quotes, a, b, bookA, bookB, limitsFor(limits, market).maxMidDistance)) {
        // the tops give every quote the same band verdict, strictly inside them: the gate's
        // evaluation reads nothing else of the books (kept as the entry's tops from now on)
        m.aBid = aBid;
        m.aAsk = aAsk;
        m.bBid = bBid;
        m.bAsk = bAsk;
        m.orders = orders;
        m.reserved = reserved;
        m.otherCount = otherCount;
        m.otherNotional = otherNotional;
        if (
          (m.tight.collateral === room &&
            m.tight.otherNotional === otherNotional &&
            m.tight.otherCount === otherCount) ||
          (m.sig !== undefined && inRange(m, room, otherNotional, otherCount))
        ) {
          this.hits++;
          if (m.told !== undefined) this.#tally?.(m.told.refusals, m.told.trims);
          return keep?.(m.approved) ? m.approved : restamped(m.approved, desired.at);
        }
        // only the collateral or the live orders moved, out of the range: the gate's answer
        // here; when every quote gets what it got, the range grows to this point
        this.misses++;
        const r = gate(desired, view);
        if (m.sig !== undefined && sameSignature(m.sig, quotes, r) && sameCodes(m.told, toldOf(r))) {
          widen(m, room, otherNotional, otherCount);
          return this.#ran(r);
        }
        return this.#remember(desired, view, r, info, a, b, bookA, bookB, orders, collateral, foreign);
      }
    }
    this.misses++;
    return this.#remember(desired, view, gate(desired, view), info, a, b, bookA, bookB, orders, collateral, foreign);
  }

  /** Keeps what a call that ran the gate read (the view is read again: nothing changed since). */
  #remember(
    desired: DesiredQuotes,
    view: RiskView,
    r: GateResult,
    info: MarketInfo,
    a: TokenId,
    b: TokenId,
    bookA: BookView | undefined,
    bookB: BookView | undefined,
    orders: readonly LiveOrderView[],
    collateral: number,
    foreign: readonly LiveOrderView[],
  ): Approved<DesiredQuotes> {
    const market = desired.market;
    const quotes = desired.quotes;
    const approved = this.#ran(r);
    if (!topOnly(quotes, a, b, bookA, bookB)) {
      this.#last.delete(market);
      return approved;
    }
    this.#readOrders(market, orders);
    const reserved = this.#reserved;
    const otherCount = this.#otherCount;
    const otherNotional = this.#otherNotional;
    const room = collateral + reserved;
    const limits = view.limits;
    const e: Entry = {
      quotes,
      approved,
      info,
      limits,
      tripped: view.killSwitch?.tripped === true,
      halted: view.halted || view.marketHalted?.(market) || view.halted,
      heartbeatOk: view.heartbeatOk,
      tick: view.tick?.(market),
      bookA,
      aStale: bookA?.stale === true,
      aBid: bookA?.bestBid ?? null,
      aAsk: bookA?.bestAsk ?? null,
      bookB,
      bStale: bookB?.stale === true,
      bBid: bookB?.bestBid ?? null,
      bAsk: bookB?.bestAsk ?? null,
      bandOk: bandVerdicts(quotes, a, b, bookA, bookB, limitsFor(limits, market).maxMidDistance),
      orders,
      reserved,
      otherCount,
      otherNotional,
      tight: { collateral: room, otherNotional, otherCount },
      loose: { collateral: room, otherNotional, otherCount },
      sig: signature(quotes, r),
      posA: view.position(a),
      posB: view.position(b),
      foreign,
      told: toldOf(r),
    };
    this.#last.set(market, e);
    return approved;
  }

  /**
   * What the gate reads of a list of live orders (see `Point`), left in `#reserved`, `#otherCount`
   * and `#otherNotional`: the collateral this market's live buys reserve, the other markets' live
   * orders with something left and their notional, as the gate sums them.
   */
  #readOrders(market: ConditionId, orders: readonly LiveOrderView[]): void {
    let reserved = 0;
    let otherCount = 0;
    let otherNotional = 0;
    for (let i = 0; i < orders.length; i++) {
      const o = orders[i]!;
      const rem = o.originalSize - o.sizeMatched;
      if (rem <= 0) continue;
      if (o.market === market) {
        if (o.side === 'BUY') reserved += notional(rem, o.price, 'up');
      } else {
        otherCount++;
        otherNotional += notional(rem, o.price, 'up');
      }
    }
    this.#reserved = reserved;
    this.#otherCount = otherCount;
    this.#otherNotional = otherNotional;
  }

  /** Forgets everything (e.g. when the view itself is replaced). */
  clear(): void {
    this.#last.clear();
  }
}

/**
 * True when the gate read no book level beyond the top for these quotes: every quote of the
 * market's tokens is strictly inside its token's top (a BUY below the ask, a SELL above the bid),
 * or a token's book is unusable (the gate then refuses the whole market before any level is read).
 * Conservative: false whenever a quote might reach the crossing check's level scan.
 */
function topOnly(
  quotes: readonly QuoteIntent[],
  a: TokenId,
  b: TokenId,
  bookA: BookView | undefined,
  bookB: BookView | undefined,
): boolean {
  for (let i = 0; i < quotes.length; i++) {
    const q = quotes[i]!;
    const isA = q.tokenId === a;
    if (!isA && q.tokenId !== b) continue; // refused before any read
    // the gate's top of this token: its own book, else the other's through the complement
    const own = isA ? bookA : bookB;
    const src = own ?? (isA ? bookB : bookA);
    if (src === undefined || src.stale) return true;
    const bb = src.bestBid;
    const ba = src.bestAsk;
    if (bb === null || ba === null || bb >= ba) return true;
    const bid = own !== undefined ? bb : PRICE_SCALE - ba;
    const ask = own !== undefined ? ba : PRICE_SCALE - bb;
    if (q.side === 'BUY' ? q.price >= ask : q.price <= bid) return false;
  }
  return true;
}

/**
 * A quote's price band verdict at these tops (the gate's PRICE_BAND check: within `maxMid` of its
 * token's mid), when it is strictly inside its token's usable top (a BUY below the ask, a SELL
 * above the bid; usable: not stale, two-sided, not crossed); else undefined. Its token's top is
 * the gate's: its own book, else the other token's through the complement.
 */
function bandVerdict(
  q: QuoteIntent,
  isA: boolean,
  bookA: BookView | undefined,
  bookB: BookView | undefined,
  maxMid: number,
): boolean | undefined {
  const own = isA ? bookA : bookB;
  const src = own ?? (isA ? bookB : bookA);
  if (src === undefined || src.stale) return undefined;
  const bb = src.bestBid;
  const ba = src.bestAsk;
  if (bb === null || ba === null || bb >= ba) return undefined;
  const bid = own !== undefined ? bb : PRICE_SCALE - ba;
  const ask = own !== undefined ? ba : PRICE_SCALE - bb;
  if (q.side === 'BUY' ? q.price >= ask : q.price <= bid) return undefined;
  return !(Math.abs(q.price - (bid + ask) / 2) > maxMid);
}

/**
 * Each quote's price band verdict at these tops (true for a quote of another token, which the gate
 * refuses before), when every quote of the market's tokens is strictly inside a usable top (no
 * level behind it read, no whole-market refusal); else undefined.
 */
function bandVerdicts(
  quotes: readonly QuoteIntent[],
  a: TokenId,
  b: TokenId,
  bookA: BookView | undefined,
  bookB: BookView | undefined,
  maxMid: number,
): boolean[] | undefined {
  const out: boolean[] = [];
  for (let i = 0; i < quotes.length; i++) {
    const q = quotes[i]!;
    const isA = q.tokenId === a;
    if (!isA && q.tokenId !== b) {
      out.push(true);
      continue;
    }
    const v = bandVerdict(q, isA, bookA, bookB, maxMid);
    if (v === undefined) return undefined;
    out.push(v);
  }
  return out;
}

/**
 * True when the gate evaluates these quotes at these tops as at the entry's: every quote of the
 * market's tokens is strictly inside a usable top at both (the crossing check then reads nothing
 * behind the top, and nothing refuses the whole market for its book), and gets the same price
 * band verdict. Nothing else the gate does reads the books.
 */
function sameBands(
  m: Entry,
  quotes: readonly QuoteIntent[],
  a: TokenId,
  b: TokenId,
  bookA: BookView | undefined,
  bookB: BookView | undefined,
  maxMid: number,
): boolean {
  const ok = m.bandOk;
  if (ok === undefined) return false;
  for (let i = 0; i < quotes.length; i++) {
    const q = quotes[i]!;
    const isA = q.tokenId === a;
    if (!isA && q.tokenId !== b) continue;
    if (bandVerdict(q, isA, bookA, bookB, maxMid) !== ok[i]) return false;
  }
  return true;
}

/**
 * Each quote's approved size (-1: refused) in a result of the gate, or undefined when a quote
 * object is given twice (its refusals and trims could not be told apart).
 */
function signature(quotes: readonly QuoteIntent[], r: GateResult): number[] | undefined {
  const sig: number[] = [];
  for (let i = 0; i < quotes.length; i++) {
    for (let j = 0; j < i; j++) if (quotes[j] === quotes[i]) return undefined;
    sig.push(quotes[i]!.size);
  }
  for (const x of r.refusals) sig[quotes.indexOf(x.quote)] = -1;
  for (const t of r.trims) sig[quotes.indexOf(t.quote)] = t.size;
  return sig;
}

/** True when the result gives every quote what `sig` says (the same quotes: sameQuotes held). */
function sameSignature(sig: readonly number[], quotes: readonly QuoteIntent[], r: GateResult): boolean {
  const now = signature(quotes, r);
  if (now === undefined || now.length !== sig.length) return false;
  for (let i = 0; i < sig.length; i++) if (now[i] !== sig[i]) return false;
  return true;
}

/**
 * Grows the entry's range to a point where the gate gave every quote the same answer: the point
 * becomes its tightest or its loosest end; a point neither tighter than the one nor looser than
 * the other (say more collateral and more orders elsewhere) becomes the whole range.
 */
function widen(m: Entry, collateral: number, otherNotional: number, otherCount: number): void {
  const t = m.tight;
  const l = m.loose;
  const tighter = collateral <= t.collateral && otherNotional >= t.otherNotional && otherCount >= t.otherCount;
  const looser = collateral >= l.collateral && otherNotional <= l.otherNotional && otherCount <= l.otherCount;
  if (tighter || !looser) {
    t.collateral = collateral;
    t.otherNotional = otherNotional;
    t.otherCount = otherCount;
  }
  if (looser || !tighter) {
    l.collateral = collateral;
    l.otherNotional = otherNotional;
    l.otherCount = otherCount;
  }
}
