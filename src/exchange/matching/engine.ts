/**
 * The paper exchange's matching engine: one price-time priority book per market (in YES terms),
 * serving both outcome tokens, with exact integer settlement (transfer, mint, merge), taker fees,
 * order reservations and the order lifecycle (GTC, GTD, FOK, FAK, post-only); and the balance
 * ledger's operations outside the book (the relayer's split, merge, redeem and the neg-risk
 * convert). A resolution cancels orders and pays nobody: holders redeem.
 *
 * Pure and deterministic: no I/O, no wall clock, no randomness. Every call that depends on time
 * takes `now` (unix ms). The same sequence of calls always produces the same state, the same ids
 * and the same events.
 *
 * Layout, chosen for throughput (see test/bench/matching.bench.ts) and for a history that is kept
 * forever (duplicate ids are refused forever, every order stays queryable), in the modules next to
 * this one:
 *  - every order ever accepted is a handle into a record table of typed-array rows
 *    (order-layout.ts for the row fields, order-table.ts for the table and its id hash index);
 *  - order ids and trade ids in pages joined into one string each when full (id-pages.ts);
 *  - per market and side, price-indexed level FIFOs and an occupancy bitmap (half-book.ts);
 *  - GTD orders in a min-heap keyed by (expiresAt, handle), with lazy deletion (expiry-heap.ts);
 *  - the OrderState snapshots (order-snapshot.ts).
 * Accounts (balances and order-list heads) are in account.ts, markets (definition, status, the two
 * half books) in market.ts.
 *
 * Amounts: prices are pips (1e-4), amounts micro (1e-6). Sizes are multiples of LOT_MICRO, so
 * `size * price / 10000` is always an exact integer and every product stays below 2^53.
 */
import { sequentialUuid } from '../../core/ids.ts';
import { NotFoundError, ValidationError } from '../../core/errors.ts';
import { formatAmount, LOT_MICRO, PRICE_SCALE, notional } from '../../core/units.ts';
import {
  bookRuleError,
  curveFee,
  MAX_FEE_RATE_BPS,
  orderReservation,
  orderShapeError,
  REJECT_MESSAGES,
} from '../../core/order-rules.ts';
import type {
  Balance,
  BookLevel,
  BookView,
  CancelReason,
  EngineEvent,
  MakerFill,
  MarketDef,
  MarketStatus,
  NewOrder,
  OrderState,
  PlaceResult,
  PositionOpCode,
  PositionOpResult,
  RejectCode,
  TokenDelta,
  Trade,
} from './types.ts';
import { Account, type TokenBal } from './account.ts';
import { ExpiryHeap } from './expiry-heap.ts';
import * as halfBook from './half-book.ts';
import { StringPages, TRADE_ID_PAGE_BITS } from './id-pages.ts';
import { Market } from './market.ts';
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
  I_ALLNEXT,
  I_APREV,
  I_ANEXT,
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
  S_MATCHED,
  STATUS_NAMES,
  statusOf,
  T_FAK,
  T_FOK,
  T_GTD,
  TYPE_NAMES,
  typeCode,
} = layout;
const { NO_ASK, NO_BID } = halfBook;
const { NO_TRADES, orderState } = snapshot;
const { hashId, OrderTable } = orderTable;
type HalfBook = halfBook.HalfBook;

/** The account fees are credited to, unless the constructor names another. */
export const DEFAULT_FEE_ACCOUNT = '0xfee0000000000000000000000000000000000000';
/**
 * The neg-risk adapter's account: in a conversion it takes the NO tokens given up and holds the NO
 * side of the complete sets it mints (see {@link MatchingEngine.convert}).
 */
export const NEG_RISK_ADAPTER_ACCOUNT = '0xada0000000000000000000000000000000000000';
/** Tick sizes the venue uses, in pips. */
export const VALID_TICK_PIPS: readonly number[] = [1000, 100, 10, 1];

// the order rules and their messages live in src/core/order-rules.ts (shared with the simulated venue)
export { MAX_FEE_RATE_BPS, REJECT_MESSAGES } from '../../core/order-rules.ts';

/** Options of {@link MatchingEngine}. */
export interface MatchingEngineOptions {
  /** Account credited with taker fees. Default {@link DEFAULT_FEE_ACCOUNT}. */
  feeAccount?: string;
  /** Trade id of the n-th trade (n = 1, 2, ...). Default: a deterministic uuid-shaped counter. */
  tradeId?: (n: number) => string;
  /** Queue events for {@link MatchingEngine.drainEvents}. Default true. */
  recordEvents?: boolean;
}

/** Read-only view of a market: its definition plus its current tick size and status. */
export interface MarketInfo {
  readonly conditionId: string;
  readonly yesToken: string;
  readonly noToken: string;
  /** Current tick size in pips (may differ from the definition after setTickSize). */
  readonly tickPips: number;
  readonly minSizeMicro: number;
  readonly negRisk: boolean;
  readonly feeRateBps: number;
  readonly status: MarketStatus;
  /** Set once the market is resolved. */
  readonly winningToken?: string;
}

/** Result of {@link MatchingEngine.cancel}. */
export type CancelResult = { ok: true; order: OrderState } | { ok: false; reason: 'NOT_FOUND' | 'NOT_LIVE' };

/** Filter of {@link MatchingEngine.openOrders} and {@link MatchingEngine.cancelMarket}. */
export interface OrderFilter {
  market?: string;
  tokenId?: string;
}

/** Default trade id: a uuid-shaped counter (reproducible runs get reproducible ids). */
function defaultTradeId(n: number): string {
  return sequentialUuid(0x7ade, n);
}

function reject(code: RejectCode): PlaceResult {
  return { ok: false, code, message: REJECT_MESSAGES[code] };
}

function isSafeInt(n: number): boolean {
  return Number.isSafeInteger(n);
}

function opReject(code: PositionOpCode, message: string): PositionOpResult {
  return { ok: false, code, message };
}

function opOk(collateral: number, tokens: TokenDelta[]): PositionOpResult {
  return { ok: true, collateral, tokens };
}

/** The refusal of a position operation's amount, or null when it is a positive safe integer (micro). */
function amountError(amount: number): PositionOpResult | null {
  return isSafeInt(amount) && amount > 0
    ? null
    : opReject('INVALID_AMOUNT', `amount must be a positive integer of micro-units, got ${amount}`);
}

/**
 * The matching engine of the paper exchange. See the module comment and src/exchange/matching/types.ts
 * for the model. Methods that take `now` first expire due GTD orders ({@link advance}).
 *
 * Returned OrderState objects are snapshots (copies): later changes do not show in them, and they
 * must not be modified (an event and a result may share one; `tradeIds` of an order that never
 * traded is a shared frozen array). Trade objects are shared between the PlaceResult and the
 * 'trade' event and must not be modified either.
 */
export class MatchingEngine {
  private readonly feeAccountId: string;
  private readonly tradeIdOf: (n: number) => string;
  private readonly rec: boolean;

  private readonly markets = new Map<string, Market>();
  private readonly marketList: Market[] = [];
  private readonly marketByToken = new Map<string, Market>();
  private readonly accounts = new Map<string, Account>();
  private readonly accountList: Account[] = [];
  private readonly ot = new OrderTable();
  private readonly feeAcct: Account;
  /** LIVE GTD orders by expiry (and some dead entries: deletion is lazy). */
  private readonly expiries = new ExpiryHeap();
  /** LIVE GTD orders that rest (the live entries of `expiries`). */
  private gtdLive = 0;
  /** Every trade id given, at sequence number - 1 (orders refer to trades by number). */
  private readonly tradeIds = new StringPages(TRADE_ID_PAGE_BITS);
  /** Owners (API keys) by index; orders keep the index. */
  private readonly owners: string[] = [];
  private readonly ownerIdx = new Map<string, number>();
  /** Index of the owner of the last accepted order (the next one often has the same). */
  private lastOwner = 0;

  /** Queued events (a fresh array after each drain: young arrays are cheap for the GC). */
  private events: EngineEvent[] = [];
  private opSeq = 0;
  private tradeSeq = 0;
  private feesTotal = 0;
  /** Collateral minted by the neg-risk adapter in conversions (see totals()). */
  private mintedTotal = 0;
  /** Latest time seen (stamps the balance events of the funding calls, which take no time). */
  private lastNow = 0;

  // per-operation touched levels and accounts (only when recording events); the arrays are reused
  // (counts, not lengths: truncating an array would free its storage)
  private readonly tLvlBook: (HalfBook | null)[] = [];
  private readonly tLvlMarket: string[] = [];
  private readonly tLvlPrice: number[] = [];
  private readonly tLvlInit: number[] = [];
  private tLvlN = 0;
  private readonly tAccts: (Account | null)[] = [];
  private tAcctN = 0;

  /** @throws ValidationError when feeAccount is empty. */
  constructor(opts: MatchingEngineOptions = {}) {
    this.feeAccountId = opts.feeAccount ?? DEFAULT_FEE_ACCOUNT;
    if (this.feeAccountId.length === 0) throw new ValidationError('feeAccount must not be empty');
    this.tradeIdOf = opts.tradeId ?? defaultTradeId;
    this.rec = opts.recordEvents ?? true;
    this.feeAcct = this.acct(this.feeAccountId);
  }

  // ---- markets ---------------------------------------------------------------------------------

  /**
   * Registers a market (both its tokens). Its book starts empty.
   * @throws ValidationError on a duplicate condition or token id, or an invalid definition
   *   (tick not one of 1000/100/10/1 pips, negative or non-integer minimum size, fee out of 0..1000).
   */
  addMarket(def: MarketDef): void {
    if (this.markets.has(def.conditionId)) throw new ValidationError(`duplicate market ${def.conditionId}`);
    if (def.yesToken === def.noToken) throw new ValidationError('yesToken and noToken must differ');
    if (this.marketByToken.has(def.yesToken)) throw new ValidationError(`duplicate token ${def.yesToken}`);
    if (this.marketByToken.has(def.noToken)) throw new ValidationError(`duplicate token ${def.noToken}`);
    if (!VALID_TICK_PIPS.includes(def.tickPips))
      throw new ValidationError(`invalid tick size in pips: ${def.tickPips}`);
    if (!isSafeInt(def.minSizeMicro) || def.minSizeMicro < 0)
      throw new ValidationError(`invalid minSizeMicro: ${def.minSizeMicro}`);
    if (!isSafeInt(def.feeRateBps) || def.feeRateBps < 0 || def.feeRateBps > MAX_FEE_RATE_BPS)
      throw new ValidationError(`invalid feeRateBps: ${def.feeRateBps}`);
    const m = new Market({ ...def }, this.marketList.length);
    this.marketList.push(m);
    this.markets.set(def.conditionId, m);
    this.marketByToken.set(def.yesToken, m);
    this.marketByToken.set(def.noToken, m);
  }

  /** The market's definition and live state, or undefined when unknown. */
  getMarket(conditionId: string): MarketInfo | undefined {
    const m = this.markets.get(conditionId);
    return m === undefined ? undefined : info(m);
  }

  /** The market trading `tokenId`, or undefined when no market does. */
  marketOfToken(tokenId: string): MarketInfo | undefined {
    const m = this.marketByToken.get(tokenId);
    return m === undefined ? undefined : info(m);
  }

  private marketOrThrow(conditionId: string): Market {
    const m = this.markets.get(conditionId);
    if (m === undefined) throw new NotFoundError(`unknown market ${conditionId}`);
    return m;
  }

  // ---- funding ---------------------------------------------------------------------------------

  private acct(id: string): Account {
    let a = this.accounts.get(id);
    if (a === undefined) {
      a = new Account(id, this.accountList.length);
      this.accountList.push(a);
      this.accounts.set(id, a);
    }
    return a;
  }

  /**
   * Adds `micro` (may be negative) to the account's available collateral; creates the account.
   * @throws ValidationError when `micro` is not a safe integer or the result would be negative.
   */
  credit(account: string, micro: number): void {
    if (!isSafeInt(micro)) throw new ValidationError(`credit amount must be an integer: ${micro}`);
    const a = this.accounts.get(account);
    const cur = a === undefined ? 0 : a.collateral;
    if (cur + micro < 0)
      throw new ValidationError(`credit would make available collateral negative (${cur} + ${micro})`);
    this.setBalanceOp(this.acct(account), null, cur + micro);
  }

  /**
   * Sets the account's available collateral (reservations are untouched).
   * @throws ValidationError when `micro` is negative or not a safe integer.
   */
  setCollateral(account: string, micro: number): void {
    if (!isSafeInt(micro) || micro < 0)
      throw new ValidationError(`collateral must be a non-negative integer: ${micro}`);
    this.setBalanceOp(this.acct(account), null, micro);
  }

  /**
   * Sets the account's available balance of a token (reservations are untouched).
   * @throws NotFoundError when no market trades the token.
   * @throws ValidationError when `micro` is negative or not a safe integer.
   */
  setTokens(account: string, tokenId: string, micro: number): void {
    const m = this.marketByToken.get(tokenId);
    if (m === undefined) throw new NotFoundError(`unknown token ${tokenId}`);
    if (!isSafeInt(micro) || micro < 0)
      throw new ValidationError(`token balance must be a non-negative integer: ${micro}`);
    const a = this.acct(account);
    this.setBalanceOp(a, a.tok(tokenId, tokIndex(m, tokenId)), micro);
  }

  private setBalanceOp(a: Account, tok: TokenBal | null, value: number): void {
    this.beginOp();
    if (tok === null) a.collateral = value;
    else tok.available = value;
    this.touchAcct(a);
    this.endOp(this.lastNow);
  }

  /** A copy of the account's balances (all zero for an unknown account). */
  balance(account: string): Balance {
    const a = this.accounts.get(account);
    const tokens = new Map<string, { available: number; reserved: number }>();
    if (a === undefined) return { collateral: 0, collateralReserved: 0, tokens };
    for (const [id, b] of a.tokens) tokens.set(id, { available: b.available, reserved: b.reserved });
    return { collateral: a.collateral, collateralReserved: a.collateralReserved, tokens };
  }

  /**
   * Sums for invariant checks: collateral over all accounts (available + reserved, fee account
   * included), fees collected so far, per token its supply (available + reserved), and the
   * collateral the neg-risk adapter minted in conversions (backed by the complete sets of NO tokens
   * it holds). Conserved: collateral + complete YES/NO pairs of unresolved markets + winning tokens
   * of resolved ones = funded + minted.
   */
  totals(): { collateral: number; fees: number; tokenSupply: Map<string, number>; minted: number } {
    let collateral = 0;
    const tokenSupply = new Map<string, number>();
    for (const m of this.marketList) {
      tokenSupply.set(m.def.yesToken, 0);
      tokenSupply.set(m.def.noToken, 0);
    }
    for (const a of this.accountList) {
      collateral += a.collateral + a.collateralReserved;
      for (const [id, b] of a.tokens) tokenSupply.set(id, (tokenSupply.get(id) ?? 0) + b.available + b.reserved);
    }
    return { collateral, fees: this.feesTotal, tokenSupply, minted: this.mintedTotal };
  }

  // ---- operations and events ---------------------------------------------------------------------

  private beginOp(): void {
    this.opSeq++;
  }

  /** Queues the level and balance events of the operation that ends. */
  private endOp(now: number): void {
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
  private touchLevel(m: Market, b: HalfBook, p: number): void {
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

  private touchAcct(a: Account): void {
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

  private emit(e: EngineEvent): void {
    this.events.push(e);
  }

  /** A snapshot of order `o`. `reserved` overrides the reservation shown (a taker's, mid-operation). */
  private snap(o: number, reserved = -1): OrderState {
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
  private link(o: number, rem: number): void {
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
  private unlinkAccount(o: number): void {
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
  private unlink(o: number, rem: number): void {
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

  // ---- placing ---------------------------------------------------------------------------------

  /**
   * Validates and places an order: it takes liquidity at the resting orders' prices, then (GTC/GTD)
   * rests its remainder or (FOK/FAK) drops it. A rejected order changes nothing.
   * Never throws for bad order input: every refusal is `{ ok: false, code, message }`.
   */
  place(o: NewOrder, now: number): PlaceResult {
    this.advance(now);
    // -- validation, in the venue's order; nothing changes before it passes
    const m = this.marketByToken.get(o.tokenId);
    if (m === undefined || m.status !== 'active') return reject('MARKET_NOT_READY');
    const ot = this.ot;
    const idHash = hashId(o.id);
    if (ot.find(o.id, idHash) !== NIL) return reject('INVALID_ORDER_DUPLICATED');
    // the order rules (src/core/order-rules.ts), shared with the simulated venue
    const shapeError = orderShapeError(o, m.tickPips, m.def.minSizeMicro, m.def.feeRateBps, now);
    if (shapeError !== null) return reject(shapeError);
    const type = typeCode(o.type);
    const isMarketType = type === T_FOK || type === T_FAK;
    const price = o.price;
    const size = o.size;
    const bps = o.feeRateBps;
    const v2Fee = o.feeModel === 'v2';
    const isBuy = o.side === 'BUY';
    const isYes = o.tokenId === m.def.yesToken;
    const tokIdx = (m.idx << 1) | (isYes ? 0 : 1);
    const existing = this.accounts.get(o.account);
    const need = orderReservation(isBuy, size, price, bps);
    if (isBuy) {
      if ((existing === undefined ? 0 : existing.collateral) < need) return reject('INVALID_ORDER_NOT_ENOUGH_BALANCE');
    } else {
      const tb = existing === undefined ? undefined : existing.balByTok[tokIdx];
      if ((tb === undefined ? 0 : tb.available) < need) return reject('INVALID_ORDER_NOT_ENOUGH_BALANCE');
    }
    const yesPrice = isYes ? price : PRICE_SCALE - price;
    const isBid = isBuy === isYes;
    const opp = isBid ? m.asks : m.bids;
    const crosses = isBid ? opp.best <= yesPrice : opp.best >= yesPrice;
    const bookError = bookRuleError(o, crosses, type === T_FOK ? available(opp, yesPrice, size) : 0);
    if (bookError !== null) return reject(bookError);

    // -- accepted
    this.beginOp();
    const a = existing ?? this.acct(o.account);
    const bal = a.balByTok[tokIdx] ?? a.tok(o.tokenId, tokIdx);
    let owner = this.lastOwner;
    if (o.owner !== this.owners[owner]) {
      const known = this.ownerIdx.get(o.owner);
      if (known !== undefined) owner = known;
      else {
        owner = this.owners.length;
        this.owners.push(o.owner);
        this.ownerIdx.set(o.owner, owner);
      }
      this.lastOwner = owner;
    }
    const h = ot.add(o.id, idHash);
    const IP = ot.ip[h >>> PAGE_BITS]!; // after add: it may have opened a page
    const ib = (h & PAGE_MASK) << IS_BITS;
    const DP = ot.dp[h >>> PAGE_BITS]!;
    const db = (h & PAGE_MASK) * DS;
    const meta =
      (isYes ? F_YES : 0) | (isBuy ? F_BUY : 0) | (isBid ? F_BID : 0) | (type << 3) | (S_LIVE << META_STATUS_SHIFT);
    IP[ib + I_PRICE] = price;
    IP[ib + I_META] = meta;
    IP[ib + I_FEE] = bps;
    IP[ib + I_SIZE] = size / LOT_MICRO;
    IP[ib + I_MATCHED] = 0;
    IP[ib + I_PREV] = NIL;
    IP[ib + I_NEXT] = NIL;
    IP[ib + I_APREV] = NIL;
    IP[ib + I_ANEXT] = NIL;
    IP[ib + I_ALLNEXT] = NIL;
    IP[ib + I_TRADE] = 0;
    IP[ib + I_TMORE] = NIL;
    IP[ib + I_ACCT] = a.idx;
    IP[ib + I_MKT] = m.idx;
    IP[ib + I_OWNER] = owner;
    DP[db + D_EXPIRES] = type === T_GTD ? o.expiresAt : 0;
    DP[db + D_CREATED] = now;
    if (a.lastOrder === NIL) a.firstOrder = h;
    else ot.si(a.lastOrder, I_ALLNEXT, h);
    a.lastOrder = h;
    if (isBuy) {
      a.collateral -= need;
      a.collateralReserved += need;
    } else {
      bal.available -= need;
      bal.reserved += need;
    }
    let reserved = need;
    const rec = this.rec;
    // an order that takes (or cannot rest) is announced as accepted, before its fills; one that
    // rests untouched is announced below, as it rests (one snapshot serves the event and the result)
    if (rec && (crosses || isMarketType)) this.emit({ type: 'order_placed', order: this.snap(h, need), at: now });

    // -- taking phase
    let remLots = size / LOT_MICRO;
    let trade: Trade | null = null;
    let making = 0;
    let taking = 0;
    if (crosses) {
      const accts = this.accountList;
      const makers: MakerFill[] = [];
      const tseq = ++this.tradeSeq;
      const tradeId = this.tradeIdOf(tseq);
      this.tradeIds.set(tseq - 1, tradeId);
      let feeSum = 0;
      let notionalSum = 0; // sum of s * taker-scale price (for the average price)
      let firstPt = -1;
      let onePrice = true;
      const heads = opp.head;
      const totals = opp.total;
      const mktTok = m.idx << 1;
      while (remLots > 0) {
        const p = opp.best;
        if (isBid ? p > yesPrice : p < yesPrice) break;
        this.touchLevel(m, opp, p);
        const pt = isYes ? p : PRICE_SCALE - p; // fill price on the taker's scale
        if (firstPt < 0) firstPt = pt;
        else if (pt !== firstPt) onePrice = false;
        const feeBase = pt < PRICE_SCALE - pt ? pt : PRICE_SCALE - pt;
        let mk = heads[p]!;
        let levelTotal = totals[p]!;
        while (mk !== NIL && remLots > 0) {
          const MIP = ot.ip[mk >>> PAGE_BITS]!;
          const mib = (mk & PAGE_MASK) << IS_BITS;
          const mremLots = MIP[mib + I_SIZE]! - MIP[mib + I_MATCHED]!;
          const sLots = remLots < mremLots ? remLots : mremLots;
          const s = sLots * LOT_MICRO;
          // maker settlement, at the maker's own (resting) price; its reservation shrinks with it
          const mPrice = MIP[mib + I_PRICE]!;
          const mAmt = (s * mPrice) / PRICE_SCALE;
          const mf = MIP[mib + I_META]!;
          const mYes = (mf & F_YES) !== 0;
          const ma = accts[MIP[mib + I_ACCT]!]!;
          const mBal = ma.balByTok[mktTok | (mYes ? 0 : 1)]!;
          const mBuy = (mf & F_BUY) !== 0;
          if (mBuy) {
            ma.collateralReserved -= mAmt;
            mBal.available += s;
          } else {
            mBal.reserved -= s;
            ma.collateral += mAmt;
          }
          MIP[mib + I_MATCHED] = MIP[mib + I_MATCHED]! + sLots;
          ot.noteTrade(mk, tseq);
          makers.push({
            orderId: ot.ids.get(mk),
            account: ma.id,
            owner: this.owners[MIP[mib + I_OWNER]!]!,
            tokenId: mYes ? m.def.yesToken : m.def.noToken,
            outcome: mYes ? 'Yes' : 'No',
            side: mBuy ? 'BUY' : 'SELL',
            price: mPrice,
            size: s,
          });
          // taker settlement, at the taker-scale fill price, fee on top (BUY) or deducted (SELL)
          const tAmt = (s * pt) / PRICE_SCALE;
          const fee = v2Fee ? curveFee(s, pt, bps) : Math.floor((((s * feeBase) / PRICE_SCALE) * bps) / PRICE_SCALE);
          // making / taking: V1 reports them net of the fee; V2, as the public service, the fill's
          // own amounts (the fee is charged besides)
          if (isBuy) {
            a.collateralReserved -= tAmt + fee;
            reserved -= tAmt + fee;
            bal.available += s;
            making += v2Fee ? tAmt : tAmt + fee;
            taking += s;
          } else {
            bal.reserved -= s;
            reserved -= s;
            a.collateral += tAmt - fee;
            making += s;
            taking += v2Fee ? tAmt : tAmt - fee;
          }
          feeSum += fee;
          notionalSum += s * pt;
          remLots -= sLots;
          levelTotal -= s;
          this.touchAcct(ma);
          const next = MIP[mib + I_NEXT]!;
          if (sLots === mremLots) {
            // maker done: pop it from the head of the level
            MIP[mib + I_META] = (mf & ~META_STATUS_MASK) | (S_MATCHED << META_STATUS_SHIFT);
            if (((mf >> 3) & 3) === T_GTD) this.gtdLive--;
            this.unlinkAccount(mk);
            MIP[mib + I_NEXT] = NIL;
            if (next !== NIL) ot.si(next, I_PREV, NIL);
            heads[p] = next;
            if (next === NIL) opp.tail[p] = NIL;
          }
          if (rec) this.emit({ type: 'order_updated', order: this.snap(mk), at: now });
          mk = next;
        }
        totals[p] = levelTotal;
        if (heads[p] === NIL) {
          opp.unmark(p);
          opp.rescan();
        }
      }
      if (feeSum > 0) {
        this.feeAcct.collateral += feeSum;
        this.feesTotal += feeSum;
        this.touchAcct(this.feeAcct);
      }
      const filled = size - remLots * LOT_MICRO;
      IP[ib + I_MATCHED] = filled / LOT_MICRO;
      IP[ib + I_TRADE] = tseq;
      let avg = firstPt;
      if (!onePrice) {
        // nearest pip of notionalSum / filled, exactly (notionalSum < 2^53)
        let q = Math.floor(notionalSum / filled);
        let r = notionalSum - q * filled;
        if (r < 0) {
          q--;
          r += filled;
        } else if (r >= filled) {
          q++;
          r -= filled;
        }
        avg = 2 * r >= filled ? q + 1 : q;
      }
      trade = {
        id: tradeId,
        market: m.def.conditionId,
        takerOrderId: o.id,
        takerAccount: a.id,
        takerOwner: o.owner,
        tokenId: o.tokenId,
        outcome: isYes ? 'Yes' : 'No',
        side: o.side,
        price: avg,
        size: filled,
        feeRateBps: bps,
        fee: feeSum,
        makers,
        matchTime: now,
      };
    }

    // -- the remainder: rest it (GTC/GTD) or drop it (FOK/FAK); release what is not needed
    const rem = remLots * LOT_MICRO;
    const rests = rem > 0 && !isMarketType;
    const keep = rests ? (isBuy ? notional(rem, price) : rem) : 0;
    if (reserved !== keep) {
      const give = reserved - keep;
      if (isBuy) {
        a.collateralReserved -= give;
        a.collateral += give;
      } else {
        bal.reserved -= give;
        bal.available += give;
      }
    }
    if (rem === 0) IP[ib + I_META] = (meta & ~META_STATUS_MASK) | (S_MATCHED << META_STATUS_SHIFT);
    if (trade !== null || rests) this.touchAcct(a);
    // the taker's own update: also its final state, unless a remainder is dropped below
    let final: OrderState | null = null;
    if (trade !== null && rec) {
      final = this.snap(h, keep);
      this.emit({ type: 'order_updated', order: final, at: now });
      this.emit({ type: 'trade', trade, at: now });
    }
    let status: 'live' | 'matched' | 'unmatched';
    if (rests) {
      this.link(h, rem);
      if (type === T_GTD) {
        const x = this.expiries;
        // lazy deletion lets dead entries pile up: drop them when they are most of the heap
        if (x.n >= 1024 && x.n > 2 * this.gtdLive) x.filter((v) => statusOf(ot.gi(v, I_META)) === S_LIVE);
        x.push(o.expiresAt, h);
        this.gtdLive++;
      }
      status = 'live';
      if (rec && !crosses) {
        final = this.snap(h);
        this.emit({ type: 'order_placed', order: final, at: now });
      }
    } else if (rem > 0) {
      IP[ib + I_META] = (meta & ~META_STATUS_MASK) | (S_CANCELED << META_STATUS_SHIFT);
      if (rec) {
        final = this.snap(h);
        this.emit({ type: 'order_canceled', order: final, reason: 'UNFILLED_REMAINDER', at: now });
      }
      status = trade === null ? 'unmatched' : 'matched';
    } else {
      status = 'matched';
    }
    this.endOp(now);
    return { ok: true, order: final ?? this.snap(h), status, trade, makingAmount: making, takingAmount: taking };
  }

  // ---- cancelling ------------------------------------------------------------------------------

  /**
   * Takes a LIVE order off the book, releases its reservation and queues order_canceled. Returns the
   * event's snapshot (null when not recording).
   */
  private cancelOrd(o: number, reason: CancelReason, now: number): OrderState | null {
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

  /**
   * Cancels one of the account's orders. Another account's order is reported NOT_FOUND, never
   * revealed; a known order that is no longer on the book is NOT_LIVE.
   */
  cancel(account: string, orderId: string, now: number, reason: CancelReason = 'USER'): CancelResult {
    this.advance(now);
    const t = this.ot;
    const o = t.find(orderId, hashId(orderId));
    if (o === NIL || this.accountList[t.gi(o, I_ACCT)]!.id !== account) return { ok: false, reason: 'NOT_FOUND' };
    if (statusOf(t.gi(o, I_META)) !== S_LIVE) return { ok: false, reason: 'NOT_LIVE' };
    this.beginOp();
    const order = this.cancelOrd(o, reason, now) ?? this.snap(o);
    this.endOp(now);
    return { ok: true, order };
  }

  /** Cancels every LIVE order of the account; returns them (as cancelled), oldest first. */
  cancelAll(account: string, now: number, reason: CancelReason = 'USER'): OrderState[] {
    return this.cancelWhere(account, undefined, now, reason);
  }

  /**
   * Cancels the account's LIVE orders in a market and/or token (an absent or empty filter field
   * matches everything); returns them (as cancelled), oldest first.
   */
  cancelMarket(account: string, filter: OrderFilter, now: number): OrderState[] {
    return this.cancelWhere(account, filter, now, 'USER');
  }

  /** The account's LIVE order handles matching the filter, in the order they came to rest. */
  private liveOf(a: Account, filter: OrderFilter | undefined): number[] {
    const out: number[] = [];
    for (let o = a.liveHead; o !== NIL; o = this.ot.gi(o, I_ANEXT))
      if (filter === undefined || this.matches(o, filter)) out.push(o);
    return out;
  }

  private matches(o: number, f: OrderFilter): boolean {
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

  private cancelWhere(
    account: string,
    filter: OrderFilter | undefined,
    now: number,
    reason: CancelReason,
  ): OrderState[] {
    this.advance(now);
    const a = this.accounts.get(account);
    if (a === undefined || a.liveCount === 0) return [];
    const todo = this.liveOf(a, filter);
    if (todo.length === 0) return [];
    this.beginOp();
    const out: OrderState[] = [];
    for (const o of todo) out.push(this.cancelOrd(o, reason, now) ?? this.snap(o));
    this.endOp(now);
    return out;
  }

  // ---- time ------------------------------------------------------------------------------------

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

  // ---- market lifecycle ------------------------------------------------------------------------

  /** All LIVE orders of a market, oldest first. */
  private liveOrdersOf(m: Market): number[] {
    const out: number[] = [];
    for (const b of [m.bids, m.asks]) {
      for (let p = b.nextUp(0); p !== NO_ASK; p = b.nextUp(p + 1))
        for (let o = b.head[p]!; o !== NIL; o = this.ot.gi(o, I_NEXT)) out.push(o);
    }
    out.sort((x, y) => x - y);
    return out;
  }

  /**
   * Changes the market's tick size. Resting orders whose price is not a multiple of the new tick
   * are cancelled (TICK_SIZE_CHANGE). Queues tick_size_change (before the cancellations).
   * @throws NotFoundError for an unknown market; ValidationError for a tick not in 1000/100/10/1.
   */
  setTickSize(conditionId: string, tickPips: number, now: number): void {
    const m = this.marketOrThrow(conditionId);
    if (!VALID_TICK_PIPS.includes(tickPips)) throw new ValidationError(`invalid tick size in pips: ${tickPips}`);
    this.advance(now);
    this.beginOp();
    const old = m.tickPips;
    m.tickPips = tickPips;
    if (this.rec)
      this.emit({ type: 'tick_size_change', market: conditionId, oldTickPips: old, newTickPips: tickPips, at: now });
    for (const o of this.liveOrdersOf(m))
      if (this.ot.gi(o, I_PRICE) % tickPips !== 0) this.cancelOrd(o, 'TICK_SIZE_CHANGE', now);
    this.endOp(now);
  }

  /**
   * Closes the market: status 'closed', every open order cancelled (MARKET_CLOSED); new orders get
   * MARKET_NOT_READY. Closing a closed market does nothing.
   * @throws NotFoundError for an unknown market; ValidationError when it is already resolved.
   */
  closeMarket(conditionId: string, now: number): void {
    const m = this.marketOrThrow(conditionId);
    if (m.status === 'resolved') throw new ValidationError(`market ${conditionId} is resolved`);
    this.advance(now);
    if (m.status === 'closed') return;
    this.beginOp();
    m.status = 'closed';
    for (const o of this.liveOrdersOf(m)) this.cancelOrd(o, 'MARKET_CLOSED', now);
    if (this.rec) this.emit({ type: 'market_status', market: conditionId, status: 'closed', at: now });
    this.endOp(now);
  }

  /**
   * Resolves the market: open orders are cancelled (MARKET_RESOLVED), which releases their
   * reservations; balances are left as they are: holders redeem their tokens afterwards
   * ({@link redeem}: 1 per winning share, 0 per losing one), as on the public service.
   * @throws NotFoundError for an unknown market; ValidationError when the token is not one of the
   *   market's or the market is already resolved.
   */
  resolveMarket(conditionId: string, winningTokenId: string, now: number): void {
    const m = this.marketOrThrow(conditionId);
    const { yesToken, noToken } = m.def;
    if (winningTokenId !== yesToken && winningTokenId !== noToken)
      throw new ValidationError(`token ${winningTokenId} is not an outcome of market ${conditionId}`);
    if (m.status === 'resolved') throw new ValidationError(`market ${conditionId} is already resolved`);
    this.advance(now);
    this.beginOp();
    for (const o of this.liveOrdersOf(m)) this.cancelOrd(o, 'MARKET_RESOLVED', now);
    m.status = 'resolved';
    m.winningToken = winningTokenId;
    if (this.rec)
      this.emit({
        type: 'market_status',
        market: conditionId,
        status: 'resolved',
        winningToken: winningTokenId,
        at: now,
      });
    this.endOp(now);
  }

  // ---- positions outside the book: split, merge, redeem, convert ---------------------------------
  // Available balances only (what orders reserve stays locked); all or nothing; exact micro-units.

  /**
   * Split `amount` collateral into `amount` YES + `amount` NO of the market.
   * Refused (nothing changes): amount not a positive safe integer, unknown market, not enough
   * available collateral.
   */
  split(account: string, conditionId: string, amount: number, now: number): PositionOpResult {
    this.advance(now);
    const bad = amountError(amount);
    if (bad !== null) return bad;
    const m = this.markets.get(conditionId);
    if (m === undefined) return opReject('MARKET_NOT_FOUND', `unknown market ${conditionId}`);
    const a = this.accounts.get(account);
    const have = a === undefined ? 0 : a.collateral;
    if (a === undefined || have < amount)
      return opReject(
        'NOT_ENOUGH_BALANCE',
        `not enough collateral: split needs ${formatAmount(amount)}, ${formatAmount(have)} available`,
      );
    this.beginOp();
    a.collateral -= amount;
    a.tok(m.def.yesToken, m.idx << 1).available += amount;
    a.tok(m.def.noToken, (m.idx << 1) | 1).available += amount;
    this.touchAcct(a);
    this.endOp(now);
    return opOk(-amount, [
      { tokenId: m.def.yesToken, delta: amount },
      { tokenId: m.def.noToken, delta: amount },
    ]);
  }

  /**
   * Merge `amount` YES + `amount` NO of the market back into `amount` collateral.
   * Refused: amount not a positive safe integer, unknown market, fewer than `amount` of either
   * token available.
   */
  merge(account: string, conditionId: string, amount: number, now: number): PositionOpResult {
    this.advance(now);
    const bad = amountError(amount);
    if (bad !== null) return bad;
    const m = this.markets.get(conditionId);
    if (m === undefined) return opReject('MARKET_NOT_FOUND', `unknown market ${conditionId}`);
    const a = this.accounts.get(account);
    const y = a?.balByTok[m.idx << 1];
    const n = a?.balByTok[(m.idx << 1) | 1];
    const hy = y === undefined ? 0 : y.available;
    const hn = n === undefined ? 0 : n.available;
    if (a === undefined || y === undefined || n === undefined || hy < amount || hn < amount)
      return opReject(
        'NOT_ENOUGH_BALANCE',
        `not enough tokens: merge needs ${formatAmount(amount)} of each outcome, ${formatAmount(hy)} YES and ${formatAmount(hn)} NO available`,
      );
    this.beginOp();
    y.available -= amount;
    n.available -= amount;
    a.collateral += amount;
    this.touchAcct(a);
    this.endOp(now);
    return opOk(amount, [
      { tokenId: m.def.yesToken, delta: -amount },
      { tokenId: m.def.noToken, delta: -amount },
    ]);
  }

  /**
   * Redeem the account's tokens of a resolved market: each winning share pays 1 collateral, a
   * losing share 0. With `amount`: that many winning shares (losing ones are left alone); without:
   * every available share of both outcomes.
   * Refused: bad amount, unknown market, market not resolved, fewer than `amount` winning shares
   * available, nothing to redeem.
   */
  redeem(account: string, conditionId: string, amount: number | undefined, now: number): PositionOpResult {
    this.advance(now);
    if (amount !== undefined) {
      const bad = amountError(amount);
      if (bad !== null) return bad;
    }
    const m = this.markets.get(conditionId);
    if (m === undefined) return opReject('MARKET_NOT_FOUND', `unknown market ${conditionId}`);
    if (m.status !== 'resolved' || m.winningToken === undefined)
      return opReject('MARKET_NOT_RESOLVED', `market ${conditionId} is not resolved: nothing can be redeemed yet`);
    const yesWins = m.winningToken === m.def.yesToken;
    const a = this.accounts.get(account);
    const w = a?.balByTok[(m.idx << 1) | (yesWins ? 0 : 1)];
    const l = a?.balByTok[(m.idx << 1) | (yesWins ? 1 : 0)];
    const hw = w === undefined ? 0 : w.available;
    const hl = l === undefined ? 0 : l.available;
    const loser = yesWins ? m.def.noToken : m.def.yesToken;
    let win: number;
    let lose: number;
    if (amount !== undefined) {
      if (hw < amount)
        return opReject(
          'NOT_ENOUGH_BALANCE',
          `not enough winning tokens: redeem of ${formatAmount(amount)} asked, ${formatAmount(hw)} available`,
        );
      win = amount;
      lose = 0;
    } else {
      if (hw + hl === 0) return opReject('NOTHING_TO_REDEEM', `no tokens of market ${conditionId} to redeem`);
      win = hw;
      lose = hl;
    }
    this.beginOp();
    if (w !== undefined) w.available -= win;
    if (l !== undefined) l.available -= lose;
    a!.collateral += win;
    this.touchAcct(a!);
    this.endOp(now);
    const tokens: TokenDelta[] = [];
    if (win > 0) tokens.push({ tokenId: m.winningToken, delta: -win });
    if (lose > 0) tokens.push({ tokenId: loser, delta: -lose });
    return opOk(win, tokens);
  }

  /**
   * The neg-risk conversion (the public NegRiskAdapter's rule): in an event of n mutually
   * exclusive neg-risk markets (`eventMarkets`), give up `amount` NO of each of k of them
   * (`noMarkets`), receive `amount` YES of each of the n - k others and (k - 1) x `amount`
   * collateral. The adapter (NEG_RISK_ADAPTER_ACCOUNT) keeps the NO tokens and mints the complete
   * sets it needs for the YES it pays out: it ends with `amount` NO of every market of the event,
   * worth exactly (n - 1) x `amount` whichever market wins, which is the collateral it minted.
   * No conversion fee.
   * Refused: bad amount, unknown market, a market not neg-risk or not in the event, a resolved
   * market in the event, fewer than `amount` NO available in one of the k markets.
   */
  convert(
    account: string,
    noMarkets: readonly string[],
    eventMarkets: readonly string[],
    amount: number,
    now: number,
  ): PositionOpResult {
    this.advance(now);
    const bad = amountError(amount);
    if (bad !== null) return bad;
    if (noMarkets.length === 0) return opReject('INVALID_AMOUNT', 'convert needs at least one market');
    if (new Set(noMarkets).size !== noMarkets.length) return opReject('INVALID_AMOUNT', 'a market is named twice');
    const all: Market[] = [];
    for (const cid of eventMarkets) {
      const m = this.markets.get(cid);
      if (m === undefined) return opReject('MARKET_NOT_FOUND', `unknown market ${cid}`);
      all.push(m);
    }
    for (const cid of noMarkets) {
      const m = this.markets.get(cid);
      if (m === undefined) return opReject('MARKET_NOT_FOUND', `unknown market ${cid}`);
      if (!m.def.negRisk) return opReject('NOT_NEG_RISK', `market ${cid} is not a neg-risk market`);
      if (!eventMarkets.includes(cid))
        return opReject('NOT_NEG_RISK', `market ${cid} is not one of the event's neg-risk markets`);
    }
    for (const m of all) {
      if (!m.def.negRisk) return opReject('NOT_NEG_RISK', `market ${m.def.conditionId} is not a neg-risk market`);
      if (m.status === 'resolved')
        return opReject('MARKET_RESOLVED', `market ${m.def.conditionId} of the event is resolved: no conversion`);
    }
    const n = all.length;
    const k = noMarkets.length;
    if (n < 2) return opReject('NOT_NEG_RISK', 'a conversion needs an event of at least two neg-risk markets');
    if (!isSafeInt(amount * n)) return opReject('INVALID_AMOUNT', 'amount too large');
    const a = this.accounts.get(account);
    for (const cid of noMarkets) {
      const m = this.markets.get(cid)!;
      const b = a?.balByTok[(m.idx << 1) | 1];
      const have = b === undefined ? 0 : b.available;
      if (have < amount)
        return opReject(
          'NOT_ENOUGH_BALANCE',
          `not enough NO tokens of market ${cid}: convert needs ${formatAmount(amount)}, ${formatAmount(have)} available`,
        );
    }
    this.beginOp();
    const u = a!;
    const adapter = this.acct(NEG_RISK_ADAPTER_ACCOUNT);
    const tokens: TokenDelta[] = [];
    for (const m of all) {
      const noIdx = (m.idx << 1) | 1;
      // the adapter ends with `amount` NO of every market: the user's, or the NO half of a minted set
      adapter.tok(m.def.noToken, noIdx).available += amount;
      if (noMarkets.includes(m.def.conditionId)) {
        u.balByTok[noIdx]!.available -= amount;
        tokens.push({ tokenId: m.def.noToken, delta: -amount });
      } else {
        u.tok(m.def.yesToken, m.idx << 1).available += amount;
        tokens.push({ tokenId: m.def.yesToken, delta: amount });
      }
    }
    const out = (k - 1) * amount;
    u.collateral += out;
    this.mintedTotal += (n - 1) * amount;
    this.touchAcct(u);
    this.touchAcct(adapter);
    this.endOp(now);
    return opOk(out, tokens);
  }

  // ---- queries ---------------------------------------------------------------------------------

  /** A snapshot of any order ever accepted (any status), or undefined. Does not check the owner. */
  getOrder(id: string): OrderState | undefined {
    const o = this.ot.find(id, hashId(id));
    return o === NIL ? undefined : this.snap(o);
  }

  /** The account's LIVE orders, in the order they came to rest, optionally filtered. */
  openOrders(account: string, filter?: OrderFilter): OrderState[] {
    const a = this.accounts.get(account);
    if (a === undefined) return [];
    return this.liveOf(a, filter).map((o) => this.snap(o));
  }

  /** Every order the account ever placed (any status), oldest first. */
  ordersOf(account: string): OrderState[] {
    const a = this.accounts.get(account);
    const out: OrderState[] = [];
    if (a === undefined) return out;
    for (let o = a.firstOrder; o !== NIL; o = this.ot.gi(o, I_ALLNEXT)) out.push(this.snap(o));
    return out;
  }

  /**
   * Aggregated levels of a token's book, best first, on the token's own price scale. The NO book
   * mirrors the YES book: a NO bid at q is a YES ask at 10000 - q, with the same size.
   * @throws NotFoundError when no market trades the token.
   */
  book(tokenId: string): BookView {
    const m = this.marketByToken.get(tokenId);
    if (m === undefined) throw new NotFoundError(`unknown token ${tokenId}`);
    const yesBids = levels(m.bids);
    const yesAsks = levels(m.asks);
    if (tokenId === m.def.yesToken) return { market: m.def.conditionId, tokenId, bids: yesBids, asks: yesAsks };
    return { market: m.def.conditionId, tokenId, bids: yesAsks.map(mirror), asks: yesBids.map(mirror) };
  }

  /**
   * Walks the LIVE orders resting on one side of a market's YES book, best price first and in time
   * priority within a level, calling `fn(account, yesPrice, remaining)` (YES pips; remaining
   * micro-shares); stops as soon as `fn` returns false. A NO order at q rests at 10000 - q (a NO
   * bid is a YES ask). Costs the levels and orders visited, so a caller that stops near the touch
   * pays for the touch only. An unknown market walks nothing.
   */
  forEachResting(
    conditionId: string,
    side: 'bid' | 'ask',
    fn: (account: string, yesPrice: number, remaining: number) => boolean | undefined,
  ): void {
    const m = this.markets.get(conditionId);
    if (m === undefined) return;
    const t = this.ot;
    const b = side === 'bid' ? m.bids : m.asks;
    const bid = b.isBid;
    for (let p = b.best; bid ? p !== NO_BID : p !== NO_ASK; p = bid ? b.nextDown(p - 1) : b.nextUp(p + 1)) {
      for (let o = b.head[p]!; o !== NIL; o = t.gi(o, I_NEXT)) {
        const IP = t.ip[o >>> PAGE_BITS]!;
        const ib = (o & PAGE_MASK) << IS_BITS;
        const rem = (IP[ib + I_SIZE]! - IP[ib + I_MATCHED]!) * LOT_MICRO;
        if (fn(this.accountList[IP[ib + I_ACCT]!]!.id, p, rem) === false) return;
      }
    }
  }

  /**
   * Best bid and ask of a token, in pips on its own scale (null when that side is empty).
   * @throws NotFoundError when no market trades the token.
   */
  bestBidAsk(tokenId: string): { bid: number | null; ask: number | null } {
    const m = this.marketByToken.get(tokenId);
    if (m === undefined) throw new NotFoundError(`unknown token ${tokenId}`);
    const bb = m.bids.best;
    const ba = m.asks.best;
    if (tokenId === m.def.yesToken) return { bid: bb === NO_BID ? null : bb, ask: ba === NO_ASK ? null : ba };
    return { bid: ba === NO_ASK ? null : PRICE_SCALE - ba, ask: bb === NO_BID ? null : PRICE_SCALE - bb };
  }
}

function tokIndex(m: Market, tokenId: string): number {
  return (m.idx << 1) | (tokenId === m.def.yesToken ? 0 : 1);
}

function info(m: Market): MarketInfo {
  const d = m.def;
  return {
    conditionId: d.conditionId,
    yesToken: d.yesToken,
    noToken: d.noToken,
    tickPips: m.tickPips,
    minSizeMicro: d.minSizeMicro,
    negRisk: d.negRisk,
    feeRateBps: d.feeRateBps,
    status: m.status,
    ...(m.winningToken !== undefined ? { winningToken: m.winningToken } : {}),
  };
}

/** Size available on `opp` at prices crossing a YES limit of `yesPrice`, stopping once `want` is reached. */
function available(opp: HalfBook, yesPrice: number, want: number): number {
  let sum = 0;
  if (opp.isBid) {
    for (let p = opp.best; p !== NO_BID && p >= yesPrice && sum < want; p = opp.nextDown(p - 1)) sum += opp.total[p]!;
  } else {
    for (let p = opp.best; p !== NO_ASK && p <= yesPrice && sum < want; p = opp.nextUp(p + 1)) sum += opp.total[p]!;
  }
  return sum;
}

function levels(b: HalfBook): BookLevel[] {
  const out: BookLevel[] = [];
  if (b.isBid) for (let p = b.best; p !== NO_BID; p = b.nextDown(p - 1)) out.push({ price: p, size: b.total[p]! });
  else for (let p = b.best; p !== NO_ASK; p = b.nextUp(p + 1)) out.push({ price: p, size: b.total[p]! });
  return out;
}

function mirror(l: BookLevel): BookLevel {
  return { price: PRICE_SCALE - l.price, size: l.size };
}
