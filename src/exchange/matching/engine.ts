/**
 * The paper exchange's matching engine: one price-time priority book per market (in YES terms),
 * serving both outcome tokens, with exact integer settlement (transfer, mint, merge), taker fees,
 * order reservations and the order lifecycle (GTC, GTD, FOK, FAK, post-only).
 *
 * Pure and deterministic: no I/O, no wall clock, no randomness. Every call that depends on time
 * takes `now` (unix ms). The same sequence of calls always produces the same state, the same ids
 * and the same events.
 *
 * Layout, chosen for throughput (see test/bench/matching.bench.ts):
 *  - per market and side, dense arrays indexed by YES price (0..10000): the head and tail of an
 *    intrusive doubly linked FIFO of resting orders (O(1) append, O(1) cancel, no compaction), and
 *    the level's aggregate size;
 *  - a cached best bid / best ask index, moved by scanning when its level empties;
 *  - orders in a Map by id (kept forever: duplicate ids are refused forever, history is queryable);
 *  - GTD orders in a binary min-heap keyed by (expiresAt, sequence), with lazy deletion.
 *
 * Amounts: prices are pips (1e-4), amounts micro (1e-6). Sizes are multiples of LOT_MICRO, so
 * `size * price / 10000` is always an exact integer and every product stays below 2^53.
 */
import { sequentialUuid } from '../../core/ids.ts';
import { NotFoundError, ValidationError } from '../../core/errors.ts';
import { LOT_MICRO, MAX_ORDER_MICRO, PRICE_SCALE, notional } from '../../core/units.ts';
import type { Side } from '../../core/units.ts';
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
  OrderStatus,
  OrderType,
  PlaceResult,
  RejectCode,
  Trade,
} from './types.ts';

/** The account fees are credited to, unless the constructor names another. */
export const DEFAULT_FEE_ACCOUNT = '0xfee0000000000000000000000000000000000000';
/** Highest feeRateBps an order may carry (10%). */
export const MAX_FEE_RATE_BPS = 1000;
/** Tick sizes the venue uses, in pips. */
export const VALID_TICK_PIPS: readonly number[] = [1000, 100, 10, 1];

/** The venue's message text for each rejection code (old CLOB "insert error messages" table). */
export const REJECT_MESSAGES: Readonly<Record<RejectCode, string>> = {
  MARKET_NOT_READY: 'the market is not yet ready to process new orders',
  INVALID_ORDER_DUPLICATED: "order is invalid. Duplicated. Same order has already been placed, can't be placed again",
  INVALID_POST_ONLY_ORDER_TYPE: 'invalid post-only order: only GTC and GTD order types are allowed',
  INVALID_ORDER_MIN_TICK_SIZE: 'order is invalid. Price breaks minimum tick size rules',
  INVALID_ORDER_MIN_SIZE: 'order is invalid. Size lower than the minimum',
  INVALID_ORDER_ERROR: 'could not insert order',
  INVALID_ORDER_EXPIRATION: 'invalid expiration',
  INVALID_ORDER_NOT_ENOUGH_BALANCE: 'not enough balance / allowance',
  INVALID_POST_ONLY_ORDER: 'invalid post-only order: order crosses book',
  FOK_ORDER_NOT_FILLED_ERROR: "order couldn't be fully filled, FOK orders are fully filled/killed",
};

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

const N_LEVELS = PRICE_SCALE + 1;
/** Sentinel best-ask index of an empty ask side (above every price). */
const NO_ASK = N_LEVELS;
/** Sentinel best-bid index of an empty bid side (below every price). */
const NO_BID = -1;
/** "No order" in the linked lists (order handles are array indices). */
const NIL = -1;

// order flags
const F_YES = 1;
const F_BUY = 2;
const F_BID = 4; // a YES bid: BUY YES or SELL NO

// order types and statuses, stored as small integers
const T_GTC = 0;
const T_GTD = 1;
const T_FOK = 2;
const T_FAK = 3;
const TYPE_NAMES: readonly OrderType[] = ['GTC', 'GTD', 'FOK', 'FAK'];
const S_LIVE = 0;
const S_MATCHED = 1;
const S_CANCELED = 2;
const STATUS_NAMES: readonly OrderStatus[] = ['LIVE', 'MATCHED', 'CANCELED'];

function typeCode(t: string): number {
  switch (t) {
    case 'GTC':
      return T_GTC;
    case 'GTD':
      return T_GTD;
    case 'FOK':
      return T_FOK;
    case 'FAK':
      return T_FAK;
    default:
      return -1;
  }
}

class TokenBal {
  available = 0;
  reserved = 0;
}

class Account {
  collateral = 0;
  collateralReserved = 0;
  readonly tokens = new Map<string, TokenBal>();
  /** Every accepted order (any status), a singly linked list in acceptance order. */
  firstOrder = NIL;
  lastOrder = NIL;
  /** LIVE orders, a doubly linked list in the order they came to rest. */
  liveHead = NIL;
  liveTail = NIL;
  liveCount = 0;
  /** Operation stamp: the account already has its 'balance' event queued for this operation. */
  stamp = 0;
  constructor(readonly id: string) {}

  tok(tokenId: string): TokenBal {
    let b = this.tokens.get(tokenId);
    if (b === undefined) {
      b = new TokenBal();
      this.tokens.set(tokenId, b);
    }
    return b;
  }
}

const N_WORDS = (N_LEVELS + 31) >>> 5;
const N_SUMMARY = (N_WORDS + 31) >>> 5;

/** Index of the lowest set bit of a non-zero 32-bit value. */
function ctz(x: number): number {
  return 31 - Math.clz32(x & -x);
}
/** Index of the highest set bit of a non-zero 32-bit value. */
function msb(x: number): number {
  return 31 - Math.clz32(x);
}

/**
 * One side of a market's YES book: per YES price, a FIFO of order handles and its total size, plus
 * a two-level occupancy bitmap so the next non-empty level is found in a few word operations
 * (no linear scan over the 10,001 prices when a book thins out).
 */
class HalfBook {
  readonly head = new Int32Array(N_LEVELS).fill(NIL);
  readonly tail = new Int32Array(N_LEVELS).fill(NIL);
  /** Aggregate remaining size per YES price. */
  readonly total = new Float64Array(N_LEVELS);
  /** Operation stamp per level: the level is already in this operation's touched list. */
  readonly stamp = new Float64Array(N_LEVELS);
  /** Bit p set when level p has orders; summary bit w set when word w is non-zero. */
  readonly words = new Int32Array(N_WORDS);
  readonly summary = new Int32Array(N_SUMMARY);
  best: number;
  constructor(readonly isBid: boolean) {
    this.best = isBid ? NO_BID : NO_ASK;
  }

  mark(p: number): void {
    const w = p >>> 5;
    this.words[w] = this.words[w]! | (1 << (p & 31));
    this.summary[w >>> 5] = this.summary[w >>> 5]! | (1 << (w & 31));
  }

  unmark(p: number): void {
    const w = p >>> 5;
    const v = this.words[w]! & ~(1 << (p & 31));
    this.words[w] = v;
    if (v === 0) this.summary[w >>> 5] = this.summary[w >>> 5]! & ~(1 << (w & 31));
  }

  /** Lowest non-empty level >= p, or NO_ASK. */
  nextUp(p: number): number {
    if (p >= N_LEVELS) return NO_ASK;
    if (p < 0) p = 0;
    let w = p >>> 5;
    const bits = this.words[w]! & (-1 << (p & 31));
    if (bits !== 0) return (w << 5) + ctz(bits);
    w++;
    if (w >= N_WORDS) return NO_ASK;
    let sw = w >>> 5;
    let sbits = this.summary[sw]! & (-1 << (w & 31));
    while (sbits === 0) {
      if (++sw >= N_SUMMARY) return NO_ASK;
      sbits = this.summary[sw]!;
    }
    w = (sw << 5) + ctz(sbits);
    return (w << 5) + ctz(this.words[w]!);
  }

  /** Highest non-empty level <= p, or NO_BID. */
  nextDown(p: number): number {
    if (p < 0) return NO_BID;
    if (p >= N_LEVELS) p = N_LEVELS - 1;
    let w = p >>> 5;
    const bits = this.words[w]! & (-1 >>> (31 - (p & 31)));
    if (bits !== 0) return (w << 5) + msb(bits);
    if (w === 0) return NO_BID;
    w--;
    let sw = w >>> 5;
    let sbits = this.summary[sw]! & (-1 >>> (31 - (w & 31)));
    while (sbits === 0) {
      if (--sw < 0) return NO_BID;
      sbits = this.summary[sw]!;
    }
    w = (sw << 5) + msb(sbits);
    return (w << 5) + msb(this.words[w]!);
  }

  /** Moves `best` to the best non-empty level (after the best level emptied). */
  rescan(): void {
    this.best = this.isBid ? this.nextDown(this.best) : this.nextUp(this.best);
  }
}

class Market {
  tickPips: number;
  status: MarketStatus;
  winningToken: string | undefined = undefined;
  readonly bids = new HalfBook(true);
  readonly asks = new HalfBook(false);
  constructor(readonly def: MarketDef) {
    this.tickPips = def.tickPips;
    this.status = def.status ?? 'active';
  }
}

/**
 * Every order ever accepted, as a struct of arrays indexed by a handle (0, 1, 2, ... in acceptance
 * order, so the handle is also the time priority). Numbers live in typed arrays, which the garbage
 * collector never scans: keeping millions of orders costs no GC time.
 */
class OrderTable {
  n = 0;
  cap: number;
  price: Int32Array;
  fee: Int32Array;
  flags: Uint8Array;
  type: Uint8Array;
  status: Uint8Array;
  size: Float64Array;
  matched: Float64Array;
  reserved: Float64Array;
  expires: Float64Array;
  created: Float64Array;
  /** Level FIFO links. */
  prev: Int32Array;
  next: Int32Array;
  /** Account live-list links. */
  aprev: Int32Array;
  anext: Int32Array;
  /** Account all-orders list link. */
  allNext: Int32Array;
  readonly id: string[] = [];
  readonly owner: string[] = [];
  readonly acct: Account[] = [];
  readonly mkt: Market[] = [];
  readonly bal: TokenBal[] = [];
  /** Sequence number of the first trade the order took part in (0: none); later ones in `moreTrades`. */
  firstTrade: Int32Array;
  /** Trade sequence numbers after the first, per order handle (few orders have them). */
  readonly moreTrades = new Map<number, number[]>();

  // id index: open addressing, linear probing; slot value = handle + 1 (0 = empty)
  private slotHash: Int32Array;
  private slotVal: Int32Array;
  private mask: number;

  constructor(cap = 1024) {
    this.cap = cap;
    this.price = new Int32Array(cap);
    this.fee = new Int32Array(cap);
    this.flags = new Uint8Array(cap);
    this.type = new Uint8Array(cap);
    this.status = new Uint8Array(cap);
    this.size = new Float64Array(cap);
    this.matched = new Float64Array(cap);
    this.reserved = new Float64Array(cap);
    this.expires = new Float64Array(cap);
    this.created = new Float64Array(cap);
    this.prev = new Int32Array(cap);
    this.next = new Int32Array(cap);
    this.aprev = new Int32Array(cap);
    this.anext = new Int32Array(cap);
    this.allNext = new Int32Array(cap);
    this.firstTrade = new Int32Array(cap);
    this.slotHash = new Int32Array(cap * 2);
    this.slotVal = new Int32Array(cap * 2);
    this.mask = cap * 2 - 1;
  }

  /** The handle of the order with this id, or NIL. */
  find(id: string, h: number): number {
    const sv = this.slotVal;
    const sh = this.slotHash;
    const mask = this.mask;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const v = sv[i]!;
      if (v === 0) return NIL;
      if (sh[i] === h && this.id[v - 1] === id) return v - 1;
    }
  }

  /** Appends an order (the caller fills the numeric fields) and indexes its id. */
  add(id: string, h: number, owner: string, acct: Account, mkt: Market, bal: TokenBal): number {
    if (this.n === this.cap) this.grow();
    const o = this.n++;
    this.id.push(id);
    this.owner.push(owner);
    this.acct.push(acct);
    this.mkt.push(mkt);
    this.bal.push(bal);
    const sv = this.slotVal;
    const mask = this.mask;
    let i = h & mask;
    while (sv[i] !== 0) i = (i + 1) & mask;
    sv[i] = o + 1;
    this.slotHash[i] = h;
    return o;
  }

  private grow(): void {
    const cap = this.cap * 2;
    this.cap = cap;
    const f64 = (a: Float64Array): Float64Array => {
      const b = new Float64Array(cap);
      b.set(a);
      return b;
    };
    const i32 = (a: Int32Array): Int32Array => {
      const b = new Int32Array(cap);
      b.set(a);
      return b;
    };
    const u8 = (a: Uint8Array): Uint8Array => {
      const b = new Uint8Array(cap);
      b.set(a);
      return b;
    };
    this.price = i32(this.price);
    this.fee = i32(this.fee);
    this.flags = u8(this.flags);
    this.type = u8(this.type);
    this.status = u8(this.status);
    this.size = f64(this.size);
    this.matched = f64(this.matched);
    this.reserved = f64(this.reserved);
    this.expires = f64(this.expires);
    this.created = f64(this.created);
    this.prev = i32(this.prev);
    this.next = i32(this.next);
    this.aprev = i32(this.aprev);
    this.anext = i32(this.anext);
    this.allNext = i32(this.allNext);
    this.firstTrade = i32(this.firstTrade);
    // rehash the id index (hashes are kept, strings are not touched)
    const oh = this.slotHash;
    const ov = this.slotVal;
    const sh = new Int32Array(cap * 2);
    const sv = new Int32Array(cap * 2);
    const mask = cap * 2 - 1;
    for (let j = 0; j < ov.length; j++) {
      const v = ov[j]!;
      if (v === 0) continue;
      const h = oh[j]!;
      let i = h & mask;
      while (sv[i] !== 0) i = (i + 1) & mask;
      sv[i] = v;
      sh[i] = h;
    }
    this.slotHash = sh;
    this.slotVal = sv;
    this.mask = mask;
  }
}

/** Records that order `o` took part in trade number `seq`. */
function noteTrade(t: OrderTable, o: number, seq: number): void {
  if (t.firstTrade[o] === 0) t.firstTrade[o] = seq;
  else {
    const more = t.moreTrades.get(o);
    if (more === undefined) t.moreTrades.set(o, [seq]);
    else more.push(seq);
  }
}

/** Shared tradeIds of snapshots of orders that never traded (frozen: snapshots are read-only). */
const NO_TRADES: string[] = Object.freeze([] as string[]) as string[];

/** 32-bit hash of an order id for the id index (FNV-1a over UTF-16 units, murmur finaliser). */
function hashId(s: string): number {
  const n = s.length;
  let h = 0x811c9dc5 ^ n;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/** Default trade id: a uuid-shaped counter, reproducible from the trade's sequence number. */
function defaultTradeId(n: number): string {
  return sequentialUuid(0x7ade, n);
}

function reject(code: RejectCode): PlaceResult {
  return { ok: false, code, message: REJECT_MESSAGES[code] };
}

function isSafeInt(n: number): boolean {
  return Number.isSafeInteger(n);
}

/**
 * The matching engine of the paper exchange. See the module comment and src/exchange/matching/types.ts
 * for the model. Methods that take `now` first expire due GTD orders ({@link advance}).
 *
 * Returned OrderState objects are snapshots (copies): later changes do not show in them, and
 * changing them does not change the engine. Trade objects are shared between the PlaceResult and the
 * 'trade' event and must not be mutated.
 */
export class MatchingEngine {
  private readonly feeAccountId: string;
  private readonly tradeIdOf: (n: number) => string;
  /** Every trade id given, by sequence number - 1 (orders refer to trades by sequence number). */
  private readonly tradeIdStrs: string[] = [];
  private readonly rec: boolean;

  private readonly markets = new Map<string, Market>();
  private readonly marketByToken = new Map<string, Market>();
  private readonly accounts = new Map<string, Account>();
  private readonly ot = new OrderTable();
  private readonly feeAcct: Account;
  /** GTD min-heap of order handles keyed by (expiresAt, handle); lazy deletion. */
  private heap: number[] = [];

  private events: EngineEvent[] = [];
  private opSeq = 0;
  private tradeSeq = 0;
  private feesTotal = 0;
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
    if (!VALID_TICK_PIPS.includes(def.tickPips)) throw new ValidationError(`invalid tick size in pips: ${def.tickPips}`);
    if (!isSafeInt(def.minSizeMicro) || def.minSizeMicro < 0) throw new ValidationError(`invalid minSizeMicro: ${def.minSizeMicro}`);
    if (!isSafeInt(def.feeRateBps) || def.feeRateBps < 0 || def.feeRateBps > MAX_FEE_RATE_BPS)
      throw new ValidationError(`invalid feeRateBps: ${def.feeRateBps}`);
    const m = new Market({ ...def });
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
      a = new Account(id);
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
    if (cur + micro < 0) throw new ValidationError(`credit would make available collateral negative (${cur} + ${micro})`);
    this.setBalanceOp(this.acct(account), null, cur + micro);
  }

  /**
   * Sets the account's available collateral (reservations are untouched).
   * @throws ValidationError when `micro` is negative or not a safe integer.
   */
  setCollateral(account: string, micro: number): void {
    if (!isSafeInt(micro) || micro < 0) throw new ValidationError(`collateral must be a non-negative integer: ${micro}`);
    this.setBalanceOp(this.acct(account), null, micro);
  }

  /**
   * Sets the account's available balance of a token (reservations are untouched).
   * @throws NotFoundError when no market trades the token.
   * @throws ValidationError when `micro` is negative or not a safe integer.
   */
  setTokens(account: string, tokenId: string, micro: number): void {
    if (!this.marketByToken.has(tokenId)) throw new NotFoundError(`unknown token ${tokenId}`);
    if (!isSafeInt(micro) || micro < 0) throw new ValidationError(`token balance must be a non-negative integer: ${micro}`);
    const a = this.acct(account);
    this.setBalanceOp(a, a.tok(tokenId), micro);
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
   * included), fees collected so far, and per token its supply (available + reserved).
   */
  totals(): { collateral: number; fees: number; tokenSupply: Map<string, number> } {
    let collateral = 0;
    const tokenSupply = new Map<string, number>();
    for (const m of this.markets.values()) {
      tokenSupply.set(m.def.yesToken, 0);
      tokenSupply.set(m.def.noToken, 0);
    }
    for (const a of this.accounts.values()) {
      collateral += a.collateral + a.collateralReserved;
      for (const [id, b] of a.tokens) tokenSupply.set(id, (tokenSupply.get(id) ?? 0) + b.available + b.reserved);
    }
    return { collateral, fees: this.feesTotal, tokenSupply };
  }

  // ---- operations and events ---------------------------------------------------------------------

  private beginOp(): void {
    this.opSeq++;
  }

  /** Queues the level and balance events of the operation that ends. */
  private endOp(now: number): void {
    if (!this.rec) return;
    const ev = this.events;
    const n = this.tLvlN;
    if (n > 0) {
      const books = this.tLvlBook;
      for (let i = 0; i < n; i++) {
        const b = books[i]!;
        const p = this.tLvlPrice[i]!;
        const size = b.total[p]!;
        if (size !== this.tLvlInit[i]) ev.push({ type: 'level', market: this.tLvlMarket[i]!, side: b.isBid ? 'bid' : 'ask', yesPrice: p, size, at: now });
        books[i] = null;
      }
      this.tLvlN = 0;
    }
    const na = this.tAcctN;
    if (na > 0) {
      const accts = this.tAccts;
      for (let i = 0; i < na; i++) {
        ev.push({ type: 'balance', account: accts[i]!.id, at: now });
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

  /** The id of trade number `seq`. */
  private tradeIdString(seq: number): string {
    return this.tradeIdStrs[seq - 1]!;
  }

  /** A snapshot of order `o`. */
  private snap(o: number): OrderState {
    const t = this.ot;
    const f = t.flags[o]!;
    const m = t.mkt[o]!;
    const first = t.firstTrade[o]!;
    let tradeIds = NO_TRADES;
    if (first !== 0) {
      tradeIds = [this.tradeIdString(first)];
      const more = t.moreTrades.get(o);
      if (more !== undefined) for (const seq of more) tradeIds.push(this.tradeIdString(seq));
    }
    return {
      id: t.id[o]!,
      account: t.acct[o]!.id,
      owner: t.owner[o]!,
      market: m.def.conditionId,
      tokenId: (f & F_YES) !== 0 ? m.def.yesToken : m.def.noToken,
      outcome: (f & F_YES) !== 0 ? 'Yes' : 'No',
      side: (f & F_BUY) !== 0 ? 'BUY' : 'SELL',
      price: t.price[o]!,
      originalSize: t.size[o]!,
      sizeMatched: t.matched[o]!,
      status: STATUS_NAMES[t.status[o]!]!,
      type: TYPE_NAMES[t.type[o]!]!,
      expiresAt: t.expires[o]!,
      feeRateBps: t.fee[o]!,
      createdAt: t.created[o]!,
      reserved: t.reserved[o]!,
      tradeIds,
    };
  }

  // ---- book structure --------------------------------------------------------------------------

  /** Appends a LIVE order to its level and to its account's live list. */
  private link(o: number, rem: number): void {
    const t = this.ot;
    const m = t.mkt[o]!;
    const f = t.flags[o]!;
    const isBid = (f & F_BID) !== 0;
    const b = isBid ? m.bids : m.asks;
    const p = (f & F_YES) !== 0 ? t.price[o]! : PRICE_SCALE - t.price[o]!;
    this.touchLevel(m, b, p);
    const tl = b.tail[p]!;
    t.next[o] = NIL;
    t.prev[o] = tl;
    if (tl === NIL) {
      b.head[p] = o;
      b.mark(p);
    } else t.next[tl] = o;
    b.tail[p] = o;
    b.total[p] = b.total[p]! + rem;
    if (isBid ? p > b.best : p < b.best) b.best = p;
    // account live list
    const a = t.acct[o]!;
    const at = a.liveTail;
    t.anext[o] = NIL;
    t.aprev[o] = at;
    if (at === NIL) a.liveHead = o;
    else t.anext[at] = o;
    a.liveTail = o;
    a.liveCount++;
  }

  /** Removes an order from its account's live list. */
  private unlinkAccount(o: number): void {
    const t = this.ot;
    const a = t.acct[o]!;
    const pr = t.aprev[o]!;
    const nx = t.anext[o]!;
    if (pr === NIL) a.liveHead = nx;
    else t.anext[pr] = nx;
    if (nx === NIL) a.liveTail = pr;
    else t.aprev[nx] = pr;
    a.liveCount--;
  }

  /** Removes a LIVE order from its level (anywhere in the FIFO) and from its account's live list. */
  private unlink(o: number, rem: number): void {
    const t = this.ot;
    const m = t.mkt[o]!;
    const f = t.flags[o]!;
    const b = (f & F_BID) !== 0 ? m.bids : m.asks;
    const p = (f & F_YES) !== 0 ? t.price[o]! : PRICE_SCALE - t.price[o]!;
    this.touchLevel(m, b, p);
    const pr = t.prev[o]!;
    const nx = t.next[o]!;
    if (pr === NIL) b.head[p] = nx;
    else t.next[pr] = nx;
    if (nx === NIL) b.tail[p] = pr;
    else t.prev[nx] = pr;
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
    const type = typeCode(o.type);
    if (type < 0) return reject('INVALID_ORDER_ERROR');
    const isMarketType = type === T_FOK || type === T_FAK;
    if (o.postOnly && isMarketType) return reject('INVALID_POST_ONLY_ORDER_TYPE');
    const tick = m.tickPips;
    const price = o.price;
    if (!Number.isInteger(price) || price % tick !== 0 || price < tick || price > PRICE_SCALE - tick) return reject('INVALID_ORDER_MIN_TICK_SIZE');
    const size = o.size;
    if (size < m.def.minSizeMicro) return reject('INVALID_ORDER_MIN_SIZE');
    if (!Number.isInteger(size) || size <= 0 || size % LOT_MICRO !== 0 || size > MAX_ORDER_MICRO) return reject('INVALID_ORDER_ERROR');
    const bps = o.feeRateBps;
    if (!Number.isInteger(bps) || bps < m.def.feeRateBps || bps > MAX_FEE_RATE_BPS) return reject('INVALID_ORDER_ERROR');
    if (o.side !== 'BUY' && o.side !== 'SELL') return reject('INVALID_ORDER_ERROR');
    if (type === T_GTD && !(o.expiresAt > now)) return reject('INVALID_ORDER_EXPIRATION');
    const isBuy = o.side === 'BUY';
    const isYes = o.tokenId === m.def.yesToken;
    const existing = this.accounts.get(o.account);
    let need: number;
    if (isBuy) {
      const n = notional(size, price, 'up');
      need = n + Math.floor((n * bps) / PRICE_SCALE);
      if ((existing === undefined ? 0 : existing.collateral) < need) return reject('INVALID_ORDER_NOT_ENOUGH_BALANCE');
    } else {
      need = size;
      const tb = existing === undefined ? undefined : existing.tokens.get(o.tokenId);
      if ((tb === undefined ? 0 : tb.available) < need) return reject('INVALID_ORDER_NOT_ENOUGH_BALANCE');
    }
    const yesPrice = isYes ? price : PRICE_SCALE - price;
    const isBid = isBuy === isYes;
    const opp = isBid ? m.asks : m.bids;
    if (o.postOnly && (isBid ? opp.best <= yesPrice : opp.best >= yesPrice)) return reject('INVALID_POST_ONLY_ORDER');
    if (type === T_FOK && available(opp, yesPrice, size) < size) return reject('FOK_ORDER_NOT_FILLED_ERROR');

    // -- accepted
    this.beginOp();
    const a = existing ?? this.acct(o.account);
    const bal = a.tok(o.tokenId);
    const h = ot.add(o.id, idHash, o.owner, a, m, bal);
    ot.price[h] = price;
    ot.fee[h] = bps;
    ot.flags[h] = (isYes ? F_YES : 0) | (isBuy ? F_BUY : 0) | (isBid ? F_BID : 0);
    ot.type[h] = type;
    ot.status[h] = S_LIVE;
    ot.size[h] = size;
    ot.matched[h] = 0;
    ot.expires[h] = type === T_GTD ? o.expiresAt : 0;
    ot.created[h] = now;
    ot.prev[h] = NIL;
    ot.next[h] = NIL;
    ot.aprev[h] = NIL;
    ot.anext[h] = NIL;
    ot.allNext[h] = NIL;
    ot.firstTrade[h] = 0;
    if (a.lastOrder === NIL) a.firstOrder = h;
    else ot.allNext[a.lastOrder] = h;
    a.lastOrder = h;
    if (isBuy) {
      a.collateral -= need;
      a.collateralReserved += need;
    } else {
      bal.available -= need;
      bal.reserved += need;
    }
    ot.reserved[h] = need;
    let reserved = need;
    const rec = this.rec;
    const crosses = isBid ? opp.best <= yesPrice : opp.best >= yesPrice;
    // an order that takes is announced as accepted, before its fills; one that rests untouched is
    // announced below, as it rests (one snapshot serves the event and the result)
    if (rec && (crosses || isMarketType)) this.events.push({ type: 'order_placed', order: this.snap(h), at: now });

    // -- taking phase
    let rem = size;
    let trade: Trade | null = null;
    let making = 0;
    let taking = 0;
    if (crosses) {
      const tPrice = ot.price;
      const tFlags = ot.flags;
      const tSize = ot.size;
      const tMatched = ot.matched;
      const tReserved = ot.reserved;
      const tStatus = ot.status;
      const tNext = ot.next;
      const tPrev = ot.prev;
      const tAcct = ot.acct;
      const tBal = ot.bal;
      const makers: MakerFill[] = [];
      const tseq = ++this.tradeSeq;
      const tradeId = this.tradeIdOf(tseq);
      this.tradeIdStrs.push(tradeId);
      let feeSum = 0;
      let notionalSum = 0; // sum of s * taker-scale price (for the average price)
      let firstPt = -1;
      let onePrice = true;
      const heads = opp.head;
      const totals = opp.total;
      while (rem > 0) {
        const p = opp.best;
        if (isBid ? p > yesPrice : p < yesPrice) break;
        this.touchLevel(m, opp, p);
        const pt = isYes ? p : PRICE_SCALE - p; // fill price on the taker's scale
        if (firstPt < 0) firstPt = pt;
        else if (pt !== firstPt) onePrice = false;
        const feeBase = pt < PRICE_SCALE - pt ? pt : PRICE_SCALE - pt;
        let mk = heads[p]!;
        let levelTotal = totals[p]!;
        while (mk !== NIL && rem > 0) {
          const mrem = tSize[mk]! - tMatched[mk]!;
          const s = rem < mrem ? rem : mrem;
          // maker settlement, at the maker's own (resting) price
          const mPrice = tPrice[mk]!;
          const mAmt = (s * mPrice) / PRICE_SCALE;
          const mf = tFlags[mk]!;
          const ma = tAcct[mk]!;
          const mBuy = (mf & F_BUY) !== 0;
          if (mBuy) {
            ma.collateralReserved -= mAmt;
            tReserved[mk] = tReserved[mk]! - mAmt;
            tBal[mk]!.available += s;
          } else {
            tBal[mk]!.reserved -= s;
            tReserved[mk] = tReserved[mk]! - s;
            ma.collateral += mAmt;
          }
          tMatched[mk] = tMatched[mk]! + s;
          noteTrade(ot, mk, tseq);
          makers.push({
            orderId: ot.id[mk]!,
            account: ma.id,
            owner: ot.owner[mk]!,
            tokenId: (mf & F_YES) !== 0 ? m.def.yesToken : m.def.noToken,
            outcome: (mf & F_YES) !== 0 ? 'Yes' : 'No',
            side: mBuy ? 'BUY' : 'SELL',
            price: mPrice,
            size: s,
          });
          // taker settlement, at the taker-scale fill price, fee on top (BUY) or deducted (SELL)
          const tAmt = (s * pt) / PRICE_SCALE;
          const f = Math.floor((((s * feeBase) / PRICE_SCALE) * bps) / PRICE_SCALE);
          if (isBuy) {
            a.collateralReserved -= tAmt + f;
            reserved -= tAmt + f;
            bal.available += s;
            making += tAmt + f;
            taking += s;
          } else {
            bal.reserved -= s;
            reserved -= s;
            a.collateral += tAmt - f;
            making += s;
            taking += tAmt - f;
          }
          feeSum += f;
          notionalSum += s * pt;
          rem -= s;
          levelTotal -= s;
          this.touchAcct(ma);
          const next = tNext[mk]!;
          if (s === mrem) {
            // maker done: pop it from the head of the level
            tStatus[mk] = S_MATCHED;
            this.unlinkAccount(mk);
            tNext[mk] = NIL;
            if (next !== NIL) tPrev[next] = NIL;
            heads[p] = next;
            if (next === NIL) opp.tail[p] = NIL;
          }
          if (rec) this.events.push({ type: 'order_updated', order: this.snap(mk), at: now });
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
      const filled = size - rem;
      tMatched[h] = filled;
      ot.firstTrade[h] = tseq;
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
    ot.reserved[h] = keep;
    if (rem === 0) ot.status[h] = S_MATCHED;
    if (trade !== null || rests) this.touchAcct(a);
    if (trade !== null && rec) {
      this.events.push({ type: 'order_updated', order: this.snap(h), at: now });
      this.events.push({ type: 'trade', trade, at: now });
    }
    let status: 'live' | 'matched' | 'unmatched';
    let final: OrderState | null = null;
    if (rests) {
      this.link(h, rem);
      if (type === T_GTD) this.heapPush(h);
      status = 'live';
      if (rec && !crosses) {
        final = this.snap(h);
        this.events.push({ type: 'order_placed', order: final, at: now });
      }
    } else if (rem > 0) {
      ot.status[h] = S_CANCELED;
      if (rec) {
        final = this.snap(h);
        this.events.push({ type: 'order_canceled', order: final, reason: 'UNFILLED_REMAINDER', at: now });
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
    const t = this.ot;
    this.unlink(o, t.size[o]! - t.matched[o]!);
    const r = t.reserved[o]!;
    const a = t.acct[o]!;
    if (r !== 0) {
      if ((t.flags[o]! & F_BUY) !== 0) {
        a.collateralReserved -= r;
        a.collateral += r;
      } else {
        const b = t.bal[o]!;
        b.reserved -= r;
        b.available += r;
      }
      t.reserved[o] = 0;
    }
    t.status[o] = S_CANCELED;
    this.touchAcct(a);
    if (!this.rec) return null;
    const order = this.snap(o);
    this.events.push({ type: 'order_canceled', order, reason, at: now });
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
    if (o === NIL || t.acct[o]!.id !== account) return { ok: false, reason: 'NOT_FOUND' };
    if (t.status[o] !== S_LIVE) return { ok: false, reason: 'NOT_LIVE' };
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
    const t = this.ot;
    const out: number[] = [];
    for (let o = a.liveHead; o !== NIL; o = t.anext[o]!) if (filter === undefined || this.matches(o, filter)) out.push(o);
    return out;
  }

  private matches(o: number, f: OrderFilter): boolean {
    const t = this.ot;
    if (f.market !== undefined && f.market !== '' && t.mkt[o]!.def.conditionId !== f.market) return false;
    if (f.tokenId !== undefined && f.tokenId !== '') {
      const d = t.mkt[o]!.def;
      if (((t.flags[o]! & F_YES) !== 0 ? d.yesToken : d.noToken) !== f.tokenId) return false;
    }
    return true;
  }

  private cancelWhere(account: string, filter: OrderFilter | undefined, now: number, reason: CancelReason): OrderState[] {
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

  /** True when advance(now) would have something to do (a GTD order is due); cheap. */
  hasExpiredBy(now: number): boolean {
    const h = this.heap;
    return h.length > 0 && this.ot.expires[h[0]!]! <= now;
  }

  /** Expires every LIVE GTD order with expiresAt <= now (cancel reason EXPIRED), earliest first. */
  advance(now: number): void {
    if (now > this.lastNow) this.lastNow = now;
    const h = this.heap;
    if (h.length === 0 || this.ot.expires[h[0]!]! > now) return;
    let began = false;
    while (h.length > 0 && this.ot.expires[h[0]!]! <= now) {
      const o = this.heapPop();
      if (this.ot.status[o] !== S_LIVE) continue;
      if (!began) {
        this.beginOp();
        began = true;
      }
      this.cancelOrd(o, 'EXPIRED', now);
    }
    if (began) this.endOp(now);
  }

  /** Heap order: earlier expiry first, then earlier acceptance (smaller handle). */
  private before(x: number, y: number): boolean {
    const e = this.ot.expires;
    const ex = e[x]!;
    const ey = e[y]!;
    return ex < ey || (ex === ey && x < y);
  }

  private heapPush(o: number): void {
    const h = this.heap;
    // lazy deletion lets cancelled GTD orders pile up: rebuild when most entries are dead
    if (h.length >= 1024 && (h.length & 1023) === 0) this.heapCompact();
    let i = h.length;
    h.push(o);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = h[parent]!;
      if (!this.before(o, p)) break;
      h[i] = p;
      i = parent;
    }
    h[i] = o;
  }

  private heapPop(): number {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    const n = h.length;
    if (n > 0) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        let c = l;
        if (r < n && this.before(h[r]!, h[l]!)) c = r;
        if (!this.before(h[c]!, last)) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }

  private heapCompact(): void {
    const st = this.ot.status;
    let live = 0;
    for (const o of this.heap) if (st[o] === S_LIVE) live++;
    if (live * 2 > this.heap.length) return;
    const keep = this.heap.filter((o) => st[o] === S_LIVE);
    // a list sorted by the heap order is a valid heap
    keep.sort((x, y) => (this.before(x, y) ? -1 : this.before(y, x) ? 1 : 0));
    this.heap = keep;
  }

  // ---- market lifecycle ------------------------------------------------------------------------

  /** All LIVE orders of a market, oldest first. */
  private liveOrdersOf(m: Market): number[] {
    const t = this.ot;
    const out: number[] = [];
    for (const b of [m.bids, m.asks]) {
      for (let p = 0; p < N_LEVELS; p++) for (let o = b.head[p]!; o !== NIL; o = t.next[o]!) out.push(o);
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
    if (this.rec) this.events.push({ type: 'tick_size_change', market: conditionId, oldTickPips: old, newTickPips: tickPips, at: now });
    const price = this.ot.price;
    for (const o of this.liveOrdersOf(m)) if (price[o]! % tickPips !== 0) this.cancelOrd(o, 'TICK_SIZE_CHANGE', now);
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
    if (this.rec) this.events.push({ type: 'market_status', market: conditionId, status: 'closed', at: now });
    this.endOp(now);
  }

  /**
   * Resolves the market: open orders are cancelled (MARKET_RESOLVED), every holder of the winning
   * token receives 1 micro of collateral per micro-share, and both tokens' balances go to zero.
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
    for (const a of this.accounts.values()) {
      const y = a.tokens.get(yesToken);
      const n = a.tokens.get(noToken);
      if (y === undefined && n === undefined) continue;
      const w = winningTokenId === yesToken ? y : n;
      let changed = false;
      if (w !== undefined && w.available + w.reserved > 0) {
        a.collateral += w.available + w.reserved;
        changed = true;
      }
      for (const t of [y, n]) {
        if (t === undefined) continue;
        if (t.available !== 0 || t.reserved !== 0) changed = true;
        t.available = 0;
        t.reserved = 0;
      }
      if (changed) this.touchAcct(a);
    }
    if (this.rec) this.events.push({ type: 'market_status', market: conditionId, status: 'resolved', winningToken: winningTokenId, at: now });
    this.endOp(now);
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
    const next = this.ot.allNext;
    for (let o = a.firstOrder; o !== NIL; o = next[o]!) out.push(this.snap(o));
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
