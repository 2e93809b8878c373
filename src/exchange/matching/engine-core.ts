/**
 * The matching engine's shared state and the primitives every operation uses: the tables
 * (markets, accounts, orders, expiries, trade ids, owners), the operation's bookkeeping and its
 * events, order snapshots, linking orders into and out of their level and account, taking one
 * LIVE order off the book (cancelOrd), and expiring due GTD orders (advance).
 *
 * The operations themselves are functions over an EngineCore, one concept a module: placing
 * (place.ts), cancelling and the market lifecycle (cancel.ts), the positions outside the book
 * (positions.ts), queries (queries.ts). MatchingEngine (engine.ts) is the public class over them.
 *
 * For the matching engine only (src/exchange/matching/engine.ts).
 */
import { sequentialUuid } from '../../core/ids.ts';
import { NotFoundError, ValidationError } from '../../core/errors.ts';
import { LOT_MICRO, PRICE_SCALE } from '../../core/units.ts';
import type { CancelReason, EngineEvent, OrderState } from './types.ts';
import { Account } from './account.ts';
import { ExpiryHeap } from './expiry-heap.ts';
import type * as halfBook from './half-book.ts';
import { StringPages, TRADE_ID_PAGE_BITS } from './id-pages.ts';
import type { Market } from './market.ts';
import * as layout from './order-layout.ts';
import * as snapshot from './order-snapshot.ts';
import * as orderTable from './order-table.ts';

// V8 detail, for speed only: a binding imported from another module is read through the module
// on every use, where a module's own constant is folded into the optimised code; the hot paths
// below use these local copies of the data structures' constants and helpers (same values).
const {
  D_CREATED,
  D_EXPIRES,
  DS,
  F_BID,
  F_BUY,
  F_YES,
  I_ACCT,
  I_ANEXT,
  I_APREV,
  I_FEE,
  I_MATCHED,
  I_META,
  I_MKT,
  I_NEXT,
  I_OWNER,
  I_PREV,
  I_PRICE,
  I_SIZE,
  I_TMORE,
  I_TRADE,
  IS_BITS,
  META_STATUS_MASK,
  META_STATUS_SHIFT,
  NIL,
  PAGE_BITS,
  PAGE_MASK,
  S_CANCELED,
  S_LIVE,
  STATUS_NAMES,
  statusOf,
  T_GTD,
  TYPE_NAMES,
} = layout;
const { NO_TRADES, orderState } = snapshot;
const { OrderTable } = orderTable;
type HalfBook = halfBook.HalfBook;

/** The account fees are credited to, unless the constructor names another. */
export const DEFAULT_FEE_ACCOUNT = '0xfee0000000000000000000000000000000000000';

/** Options of {@link MatchingEngine}. */
export interface MatchingEngineOptions {
  /** Account credited with taker fees. Default {@link DEFAULT_FEE_ACCOUNT}. */
  feeAccount?: string;
  /** Trade id of the n-th trade (n = 1, 2, ...). Default: a deterministic uuid-shaped counter. */
  tradeId?: (n: number) => string;
  /** Queue events for {@link MatchingEngine.drainEvents}. Default true. */
  recordEvents?: boolean;
}

/** Filter of {@link MatchingEngine.openOrders} and {@link MatchingEngine.cancelMarket}. */
export interface OrderFilter {
  market?: string;
  tokenId?: string;
}

/** Default trade id: a uuid-shaped counter (reproducible runs get reproducible ids). */
function defaultTradeId(n: number): string {
  return sequentialUuid(0x7ade, n);
}

/**
 * The engine's state and shared primitives (see the module comment). Its fields are the
 * operation modules' to read and write; MatchingEngine keeps its EngineCore private.
 */
export class EngineCore {
  readonly feeAccountId: string;
  readonly tradeIdOf: (n: number) => string;
  readonly rec: boolean;

  readonly markets = new Map<string, Market>();
  readonly marketList: Market[] = [];
  readonly marketByToken = new Map<string, Market>();
  readonly accounts = new Map<string, Account>();
  readonly accountList: Account[] = [];
  readonly ot = new OrderTable();
  readonly feeAcct: Account;
  /** LIVE GTD orders by expiry (and some dead entries: deletion is lazy). */
  readonly expiries = new ExpiryHeap();
  /** LIVE GTD orders that rest (the live entries of `expiries`). */
  gtdLive = 0;
  /** Every trade id given, at sequence number - 1 (orders refer to trades by number). */
  readonly tradeIds = new StringPages(TRADE_ID_PAGE_BITS);
  /** Owners (API keys) by index; orders keep the index. */
  readonly owners: string[] = [];
  readonly ownerIdx = new Map<string, number>();
  /** Index of the owner of the last accepted order (the next one often has the same). */
  lastOwner = 0;

  /** Queued events (a fresh array after each drain: young arrays are cheap for the GC). */
  events: EngineEvent[] = [];
  opSeq = 0;
  tradeSeq = 0;
  feesTotal = 0;
  /** Collateral minted by the neg-risk adapter in conversions (see totals()). */
  mintedTotal = 0;
  /** Latest time seen (stamps the balance events of the funding calls, which take no time). */
  lastNow = 0;

  // per-operation touched levels and accounts (only when recording events); the arrays are reused
  // (counts, not lengths: truncating an array would free its storage)
  readonly tLvlBook: (HalfBook | null)[] = [];
  readonly tLvlMarket: string[] = [];
  readonly tLvlPrice: number[] = [];
  readonly tLvlInit: number[] = [];
  tLvlN = 0;
  readonly tAccts: (Account | null)[] = [];
  tAcctN = 0;

  /** @throws ValidationError when feeAccount is empty. */
  constructor(opts: MatchingEngineOptions) {
    this.feeAccountId = opts.feeAccount ?? DEFAULT_FEE_ACCOUNT;
    if (this.feeAccountId.length === 0) throw new ValidationError('feeAccount must not be empty');
    this.tradeIdOf = opts.tradeId ?? defaultTradeId;
    this.rec = opts.recordEvents ?? true;
    this.feeAcct = this.acct(this.feeAccountId);
  }

  /** @throws NotFoundError for an unknown market. */
  marketOrThrow(conditionId: string): Market {
    const m = this.markets.get(conditionId);
    if (m === undefined) throw new NotFoundError(`unknown market ${conditionId}`);
    return m;
  }

  /** The account, created (empty) when new. */
  acct(id: string): Account {
    let a = this.accounts.get(id);
    if (a === undefined) {
      a = new Account(id, this.accountList.length);
      this.accountList.push(a);
      this.accounts.set(id, a);
    }
    return a;
  }

  // ---- operations and events ---------------------------------------------------------------------

  beginOp(): void {
    this.opSeq++;
  }

  /** Queues the level and balance events of the operation that ends. */
  endOp(now: number): void {
    if (!this.rec) return;
    const n = this.tLvlN;
    if (n > 0) {
      const books = this.tLvlBook;
      for (let i = 0; i < n; i++) {
        const b = books[i]!;
        const p = this.tLvlPrice[i]!;
        const size = b.total[p]!;
        if (size !== this.tLvlInit[i])
          this.emit({
            type: 'level',
            market: this.tLvlMarket[i]!,
            side: b.isBid ? 'bid' : 'ask',
            yesPrice: p,
            size,
            at: now,
          });
        books[i] = null;
      }
      this.tLvlN = 0;
    }
    const na = this.tAcctN;
    if (na > 0) {
      const accts = this.tAccts;
      for (let i = 0; i < na; i++) {
        this.emit({ type: 'balance', account: accts[i]!.id, at: now });
        accts[i] = null;
      }
      this.tAcctN = 0;
    }
  }

  /** Call before a level's total changes. */
  touchLevel(m: Market, b: HalfBook, p: number): void {
    if (!this.rec || b.stamp[p] === this.opSeq) return;
    b.stamp[p] = this.opSeq;
    const i = this.tLvlN++;
    if (i === this.tLvlBook.length) {
      this.tLvlBook.push(b);
      this.tLvlMarket.push(m.def.conditionId);
      this.tLvlPrice.push(p);
      this.tLvlInit.push(b.total[p]!);
    } else {
      this.tLvlBook[i] = b;
      this.tLvlMarket[i] = m.def.conditionId;
      this.tLvlPrice[i] = p;
      this.tLvlInit[i] = b.total[p]!;
    }
  }

  touchAcct(a: Account): void {
    if (!this.rec || a.stamp === this.opSeq) return;
    a.stamp = this.opSeq;
    const i = this.tAcctN++;
    if (i === this.tAccts.length) this.tAccts.push(a);
    else this.tAccts[i] = a;
  }

  /** Returns the queued events, oldest first, and clears the queue. Always empty when recordEvents is false. */
  drainEvents(): EngineEvent[] {
    const out = this.events;
    if (out.length === 0) return [];
    this.events = [];
    return out;
  }

  emit(e: EngineEvent): void {
    this.events.push(e);
  }

  /** A snapshot of order `o`. `reserved` overrides the reservation shown (a taker's, mid-operation). */
  snap(o: number, reserved = -1): OrderState {
    const t = this.ot;
    const IP = t.ip[o >>> PAGE_BITS]!;
    const ib = (o & PAGE_MASK) << IS_BITS;
    const DP = t.dp[o >>> PAGE_BITS]!;
    const db = (o & PAGE_MASK) * DS;
    const meta = IP[ib + I_META]!;
    const m = this.marketList[IP[ib + I_MKT]!]!;
    const first = IP[ib + I_TRADE]!;
    let tradeIds = NO_TRADES;
    if (first !== 0) {
      tradeIds = [this.tradeIds.get(first - 1)];
      const more = IP[ib + I_TMORE]!;
      if (more !== NIL) {
        // the chain runs newest first
        const links = t.links;
        const later: number[] = [];
        for (let k = more; k !== NIL; k = links[2 * k + 1]!) later.push(links[2 * k]!);
        for (let i = later.length - 1; i >= 0; i--) tradeIds.push(this.tradeIds.get(later[i]! - 1));
      }
    }
    const price = IP[ib + I_PRICE]!;
    const size = IP[ib + I_SIZE]! * LOT_MICRO;
    const matched = IP[ib + I_MATCHED]! * LOT_MICRO;
    const status = (meta & META_STATUS_MASK) >> META_STATUS_SHIFT;
    if (reserved < 0)
      reserved =
        status !== S_LIVE ? 0 : (meta & F_BUY) !== 0 ? ((size - matched) * price) / PRICE_SCALE : size - matched;
    return orderState(
      t.ids.get(o),
      this.accountList[IP[ib + I_ACCT]!]!.id,
      this.owners[IP[ib + I_OWNER]!]!,
      m.def.conditionId,
      (meta & F_YES) !== 0 ? m.def.yesToken : m.def.noToken,
      (meta & F_YES) !== 0 ? 'Yes' : 'No',
      (meta & F_BUY) !== 0 ? 'BUY' : 'SELL',
      price,
      size,
      matched,
      STATUS_NAMES[status]!,
      TYPE_NAMES[(meta >> 3) & 3]!,
      DP[db + D_EXPIRES]!,
      IP[ib + I_FEE]!,
      DP[db + D_CREATED]!,
      reserved,
      tradeIds,
    );
  }

  // ---- book structure --------------------------------------------------------------------------

  /** Appends a LIVE order with `rem` (micro) unfilled to its level and to its account's live list. */
  link(o: number, rem: number): void {
    const t = this.ot;
    const IP = t.ip[o >>> PAGE_BITS]!;
    const ib = (o & PAGE_MASK) << IS_BITS;
    const m = this.marketList[IP[ib + I_MKT]!]!;
    const meta = IP[ib + I_META]!;
    const isBid = (meta & F_BID) !== 0;
    const b = isBid ? m.bids : m.asks;
    const p = (meta & F_YES) !== 0 ? IP[ib + I_PRICE]! : PRICE_SCALE - IP[ib + I_PRICE]!;
    this.touchLevel(m, b, p);
    const tl = b.tail[p]!;
    IP[ib + I_NEXT] = NIL;
    IP[ib + I_PREV] = tl;
    if (tl === NIL) {
      b.head[p] = o;
      b.mark(p);
    } else t.si(tl, I_NEXT, o);
    b.tail[p] = o;
    b.total[p] = b.total[p]! + rem;
    if (isBid ? p > b.best : p < b.best) b.best = p;
    // account live list
    const a = this.accountList[IP[ib + I_ACCT]!]!;
    const at = a.liveTail;
    IP[ib + I_ANEXT] = NIL;
    IP[ib + I_APREV] = at;
    if (at === NIL) a.liveHead = o;
    else t.si(at, I_ANEXT, o);
    a.liveTail = o;
    a.liveCount++;
  }

  /** Removes an order from its account's live list. */
  unlinkAccount(o: number): void {
    const t = this.ot;
    const IP = t.ip[o >>> PAGE_BITS]!;
    const ib = (o & PAGE_MASK) << IS_BITS;
    const a = this.accountList[IP[ib + I_ACCT]!]!;
    const pr = IP[ib + I_APREV]!;
    const nx = IP[ib + I_ANEXT]!;
    if (pr === NIL) a.liveHead = nx;
    else t.si(pr, I_ANEXT, nx);
    if (nx === NIL) a.liveTail = pr;
    else t.si(nx, I_APREV, pr);
    a.liveCount--;
  }

  /** Removes a LIVE order with `rem` (micro) unfilled from its level (anywhere in the FIFO) and from its account's live list. */
  unlink(o: number, rem: number): void {
    const t = this.ot;
    const IP = t.ip[o >>> PAGE_BITS]!;
    const ib = (o & PAGE_MASK) << IS_BITS;
    const m = this.marketList[IP[ib + I_MKT]!]!;
    const meta = IP[ib + I_META]!;
    const b = (meta & F_BID) !== 0 ? m.bids : m.asks;
    const p = (meta & F_YES) !== 0 ? IP[ib + I_PRICE]! : PRICE_SCALE - IP[ib + I_PRICE]!;
    this.touchLevel(m, b, p);
    const pr = IP[ib + I_PREV]!;
    const nx = IP[ib + I_NEXT]!;
    if (pr === NIL) b.head[p] = nx;
    else t.si(pr, I_NEXT, nx);
    if (nx === NIL) b.tail[p] = pr;
    else t.si(nx, I_PREV, pr);
    b.total[p] = b.total[p]! - rem;
    if (b.head[p] === NIL) {
      b.unmark(p);
      if (p === b.best) b.rescan();
    }
    this.unlinkAccount(o);
  }

  // ---- taking an order off the book, expiry -------------------------------------------------------

  /**
   * Takes a LIVE order off the book, releases its reservation and queues order_canceled. Returns the
   * event's snapshot (null when not recording).
   */
  cancelOrd(o: number, reason: CancelReason, now: number): OrderState | null {
    const IP = this.ot.ip[o >>> PAGE_BITS]!;
    const ib = (o & PAGE_MASK) << IS_BITS;
    const meta = IP[ib + I_META]!;
    const rem = (IP[ib + I_SIZE]! - IP[ib + I_MATCHED]!) * LOT_MICRO;
    this.unlink(o, rem);
    const a = this.accountList[IP[ib + I_ACCT]!]!;
    // release the reservation of the rest
    if ((meta & F_BUY) !== 0) {
      const r = (rem * IP[ib + I_PRICE]!) / PRICE_SCALE;
      a.collateralReserved -= r;
      a.collateral += r;
    } else {
      const b = a.balByTok[(IP[ib + I_MKT]! << 1) | ((meta & F_YES) !== 0 ? 0 : 1)]!;
      b.reserved -= rem;
      b.available += rem;
    }
    IP[ib + I_META] = (meta & ~META_STATUS_MASK) | (S_CANCELED << META_STATUS_SHIFT);
    if (((meta >> 3) & 3) === T_GTD) this.gtdLive--;
    this.touchAcct(a);
    if (!this.rec) return null;
    const order = this.snap(o);
    this.emit({ type: 'order_canceled', order, reason, at: now });
    return order;
  }

  /** Expires every LIVE GTD order with expiresAt <= now (cancel reason EXPIRED), earliest first. */
  advance(now: number): void {
    if (now > this.lastNow) this.lastNow = now;
    const x = this.expiries;
    if (!(x.peekKey() <= now)) return;
    let began = false;
    while (x.peekKey() <= now) {
      const o = x.pop();
      if (statusOf(this.ot.gi(o, I_META)) !== S_LIVE) continue;
      if (!began) {
        this.beginOp();
        began = true;
      }
      this.cancelOrd(o, 'EXPIRED', now);
    }
    if (began) this.endOp(now);
  }

  // ---- an account's LIVE orders -----------------------------------------------------------------

  /** The account's LIVE order handles matching the filter, in the order they came to rest. */
  liveOf(a: Account, filter: OrderFilter | undefined): number[] {
    const out: number[] = [];
    for (let o = a.liveHead; o !== NIL; o = this.ot.gi(o, I_ANEXT))
      if (filter === undefined || this.matches(o, filter)) out.push(o);
    return out;
  }

  /** Whether order `o` is in the filter's market and token (an absent or empty field matches all). */
  matches(o: number, f: OrderFilter): boolean {
    const d = this.marketList[this.ot.gi(o, I_MKT)]!.def;
    if (f.market !== undefined && f.market !== '' && d.conditionId !== f.market) return false;
    if (
      f.tokenId !== undefined &&
      f.tokenId !== '' &&
      ((this.ot.gi(o, I_META) & F_YES) !== 0 ? d.yesToken : d.noToken) !== f.tokenId
    )
      return false;
    return true;
  }
}
