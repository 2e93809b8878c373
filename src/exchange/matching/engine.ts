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
 * The engine's state and the primitives its operations share are an EngineCore (engine-core.ts);
 * the operations are functions over it, one concept a module: placing and the matching loop
 * (place.ts), cancelling and the market lifecycle (cancel.ts), the positions outside the book
 * (positions.ts), queries (queries.ts). This class keeps the markets and the funding calls, and
 * delegates the rest.
 *
 * Amounts: prices are pips (1e-4), amounts micro (1e-6). Sizes are multiples of LOT_MICRO, so
 * `size * price / 10000` is always an exact integer and every product stays below 2^53.
 */
import { NotFoundError, ValidationError } from '../../core/errors.ts';
import { MAX_FEE_RATE_BPS } from '../../core/order-rules.ts';
import type {
  Balance,
  BookView,
  CancelReason,
  EngineEvent,
  MarketDef,
  MarketStatus,
  NewOrder,
  OrderState,
  PlaceResult,
  PositionOpResult,
} from './types.ts';
import type { Account, TokenBal } from './account.ts';
import * as cancelling from './cancel.ts';
import type { CancelResult } from './cancel.ts';
import { EngineCore, type MatchingEngineOptions, type OrderFilter } from './engine-core.ts';
import { Market, VALID_TICK_PIPS } from './market.ts';
import * as placing from './place.ts';
import * as positions from './positions.ts';
import * as queries from './queries.ts';

export { DEFAULT_FEE_ACCOUNT } from './engine-core.ts';
export type { MatchingEngineOptions, OrderFilter } from './engine-core.ts';
export type { CancelResult } from './cancel.ts';
export { NEG_RISK_ADAPTER_ACCOUNT } from './positions.ts';
export { VALID_TICK_PIPS } from './market.ts';
// the order rules and their messages live in src/core/order-rules.ts (shared with the simulated venue)
export { MAX_FEE_RATE_BPS, REJECT_MESSAGES } from '../../core/order-rules.ts';

// local copies of the operations (see engine-core.ts on imported bindings)
const { place } = placing;
const { cancel, cancelWhere, closeMarket, resolveMarket, setTickSize } = cancelling;
const { convert, merge, redeem, split } = positions;
const { bestBidAsk, book, forEachResting, getOrder, openOrders, ordersOf } = queries;

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

function isSafeInt(n: number): boolean {
  return Number.isSafeInteger(n);
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
  private readonly c: EngineCore;
  /** The core's accounts (test/fuzz/harness.ts reads this private table). */
  private readonly accounts: Map<string, Account>;

  /** @throws ValidationError when feeAccount is empty. */
  constructor(opts: MatchingEngineOptions = {}) {
    this.c = new EngineCore(opts);
    this.accounts = this.c.accounts;
  }

  // ---- markets ---------------------------------------------------------------------------------

  /**
   * Registers a market (both its tokens). Its book starts empty.
   * @throws ValidationError on a duplicate condition or token id, or an invalid definition
   *   (tick not one of 1000/100/10/1 pips, negative or non-integer minimum size, fee out of 0..1000).
   */
  addMarket(def: MarketDef): void {
    if (this.c.markets.has(def.conditionId)) throw new ValidationError(`duplicate market ${def.conditionId}`);
    if (def.yesToken === def.noToken) throw new ValidationError('yesToken and noToken must differ');
    if (this.c.marketByToken.has(def.yesToken)) throw new ValidationError(`duplicate token ${def.yesToken}`);
    if (this.c.marketByToken.has(def.noToken)) throw new ValidationError(`duplicate token ${def.noToken}`);
    if (!VALID_TICK_PIPS.includes(def.tickPips))
      throw new ValidationError(`invalid tick size in pips: ${def.tickPips}`);
    if (!isSafeInt(def.minSizeMicro) || def.minSizeMicro < 0)
      throw new ValidationError(`invalid minSizeMicro: ${def.minSizeMicro}`);
    if (!isSafeInt(def.feeRateBps) || def.feeRateBps < 0 || def.feeRateBps > MAX_FEE_RATE_BPS)
      throw new ValidationError(`invalid feeRateBps: ${def.feeRateBps}`);
    const m = new Market({ ...def }, this.c.marketList.length);
    this.c.marketList.push(m);
    this.c.markets.set(def.conditionId, m);
    this.c.marketByToken.set(def.yesToken, m);
    this.c.marketByToken.set(def.noToken, m);
  }

  /** The market's definition and live state, or undefined when unknown. */
  getMarket(conditionId: string): MarketInfo | undefined {
    const m = this.c.markets.get(conditionId);
    return m === undefined ? undefined : info(m);
  }

  /** The market trading `tokenId`, or undefined when no market does. */
  marketOfToken(tokenId: string): MarketInfo | undefined {
    const m = this.c.marketByToken.get(tokenId);
    return m === undefined ? undefined : info(m);
  }

  // ---- funding ---------------------------------------------------------------------------------

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
    this.setBalanceOp(this.c.acct(account), null, cur + micro);
  }

  /**
   * Sets the account's available collateral (reservations are untouched).
   * @throws ValidationError when `micro` is negative or not a safe integer.
   */
  setCollateral(account: string, micro: number): void {
    if (!isSafeInt(micro) || micro < 0)
      throw new ValidationError(`collateral must be a non-negative integer: ${micro}`);
    this.setBalanceOp(this.c.acct(account), null, micro);
  }

  /**
   * Sets the account's available balance of a token (reservations are untouched).
   * @throws NotFoundError when no market trades the token.
   * @throws ValidationError when `micro` is negative or not a safe integer.
   */
  setTokens(account: string, tokenId: string, micro: number): void {
    const m = this.c.marketByToken.get(tokenId);
    if (m === undefined) throw new NotFoundError(`unknown token ${tokenId}`);
    if (!isSafeInt(micro) || micro < 0)
      throw new ValidationError(`token balance must be a non-negative integer: ${micro}`);
    const a = this.c.acct(account);
    this.setBalanceOp(a, a.tok(tokenId, tokIndex(m, tokenId)), micro);
  }

  private setBalanceOp(a: Account, tok: TokenBal | null, value: number): void {
    this.c.beginOp();
    if (tok === null) a.collateral = value;
    else tok.available = value;
    this.c.touchAcct(a);
    this.c.endOp(this.c.lastNow);
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
    for (const m of this.c.marketList) {
      tokenSupply.set(m.def.yesToken, 0);
      tokenSupply.set(m.def.noToken, 0);
    }
    for (const a of this.c.accountList) {
      collateral += a.collateral + a.collateralReserved;
      for (const [id, b] of a.tokens) tokenSupply.set(id, (tokenSupply.get(id) ?? 0) + b.available + b.reserved);
    }
    return { collateral, fees: this.c.feesTotal, tokenSupply, minted: this.c.mintedTotal };
  }

  // ---- events ----------------------------------------------------------------------------------

  /** Returns the queued events, oldest first, and clears the queue. Always empty when recordEvents is false. */
  drainEvents(): EngineEvent[] {
    return this.c.drainEvents();
  }

  // ---- placing (place.ts) ---------------------------------------------------------------------

  /**
   * Validates and places an order: it takes liquidity at the resting orders' prices, then (GTC/GTD)
   * rests its remainder or (FOK/FAK) drops it. A rejected order changes nothing.
   * Never throws for bad order input: every refusal is `{ ok: false, code, message }`.
   */
  place(o: NewOrder, now: number): PlaceResult {
    return place(this.c, o, now);
  }

  // ---- cancelling (cancel.ts) ------------------------------------------------------------------

  /**
   * Cancels one of the account's orders. Another account's order is reported NOT_FOUND, never
   * revealed; a known order that is no longer on the book is NOT_LIVE.
   */
  cancel(account: string, orderId: string, now: number, reason: CancelReason = 'USER'): CancelResult {
    return cancel(this.c, account, orderId, now, reason);
  }

  /** Cancels every LIVE order of the account; returns them (as cancelled), oldest first. */
  cancelAll(account: string, now: number, reason: CancelReason = 'USER'): OrderState[] {
    return cancelWhere(this.c, account, undefined, now, reason);
  }

  /**
   * Cancels the account's LIVE orders in a market and/or token (an absent or empty filter field
   * matches everything); returns them (as cancelled), oldest first.
   */
  cancelMarket(account: string, filter: OrderFilter, now: number): OrderState[] {
    return cancelWhere(this.c, account, filter, now, 'USER');
  }

  // ---- time (engine-core.ts) -------------------------------------------------------------------

  /** Expires every LIVE GTD order with expiresAt <= now (cancel reason EXPIRED), earliest first. */
  advance(now: number): void {
    this.c.advance(now);
  }

  // ---- market lifecycle (cancel.ts) ------------------------------------------------------------

  /**
   * Changes the market's tick size. Resting orders whose price is not a multiple of the new tick
   * are cancelled (TICK_SIZE_CHANGE). Queues tick_size_change (before the cancellations).
   * @throws NotFoundError for an unknown market; ValidationError for a tick not in 1000/100/10/1.
   */
  setTickSize(conditionId: string, tickPips: number, now: number): void {
    setTickSize(this.c, conditionId, tickPips, now);
  }

  /**
   * Closes the market: status 'closed', every open order cancelled (MARKET_CLOSED); new orders get
   * MARKET_NOT_READY. Closing a closed market does nothing.
   * @throws NotFoundError for an unknown market; ValidationError when it is already resolved.
   */
  closeMarket(conditionId: string, now: number): void {
    closeMarket(this.c, conditionId, now);
  }

  /**
   * Resolves the market: open orders are cancelled (MARKET_RESOLVED), which releases their
   * reservations; balances are left as they are: holders redeem their tokens afterwards
   * ({@link redeem}: 1 per winning share, 0 per losing one), as on the public service.
   * @throws NotFoundError for an unknown market; ValidationError when the token is not one of the
   *   market's or the market is already resolved.
   */
  resolveMarket(conditionId: string, winningTokenId: string, now: number): void {
    resolveMarket(this.c, conditionId, winningTokenId, now);
  }

  // ---- positions outside the book: split, merge, redeem, convert (positions.ts) -----------------
  // Available balances only (what orders reserve stays locked); all or nothing; exact micro-units.

  /**
   * Split `amount` collateral into `amount` YES + `amount` NO of the market.
   * Refused (nothing changes): amount not a positive safe integer, unknown market, not enough
   * available collateral.
   */
  split(account: string, conditionId: string, amount: number, now: number): PositionOpResult {
    return split(this.c, account, conditionId, amount, now);
  }

  /**
   * Merge `amount` YES + `amount` NO of the market back into `amount` collateral.
   * Refused: amount not a positive safe integer, unknown market, fewer than `amount` of either
   * token available.
   */
  merge(account: string, conditionId: string, amount: number, now: number): PositionOpResult {
    return merge(this.c, account, conditionId, amount, now);
  }

  /**
   * Redeem the account's tokens of a resolved market: each winning share pays 1 collateral, a
   * losing share 0. With `amount`: that many winning shares (losing ones are left alone); without:
   * every available share of both outcomes.
   * Refused: bad amount, unknown market, market not resolved, fewer than `amount` winning shares
   * available, nothing to redeem.
   */
  redeem(account: string, conditionId: string, amount: number | undefined, now: number): PositionOpResult {
    return redeem(this.c, account, conditionId, amount, now);
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
    return convert(this.c, account, noMarkets, eventMarkets, amount, now);
  }

  // ---- queries (queries.ts) --------------------------------------------------------------------

  /** A snapshot of any order ever accepted (any status), or undefined. Does not check the owner. */
  getOrder(id: string): OrderState | undefined {
    return getOrder(this.c, id);
  }

  /** The account's LIVE orders, in the order they came to rest, optionally filtered. */
  openOrders(account: string, filter?: OrderFilter): OrderState[] {
    return openOrders(this.c, account, filter);
  }

  /** Every order the account ever placed (any status), oldest first. */
  ordersOf(account: string): OrderState[] {
    return ordersOf(this.c, account);
  }

  /**
   * Aggregated levels of a token's book, best first, on the token's own price scale. The NO book
   * mirrors the YES book: a NO bid at q is a YES ask at 10000 - q, with the same size.
   * @throws NotFoundError when no market trades the token.
   */
  book(tokenId: string): BookView {
    return book(this.c, tokenId);
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
    forEachResting(this.c, conditionId, side, fn);
  }

  /**
   * Best bid and ask of a token, in pips on its own scale (null when that side is empty).
   * @throws NotFoundError when no market trades the token.
   */
  bestBidAsk(tokenId: string): { bid: number | null; ask: number | null } {
    return bestBidAsk(this.c, tokenId);
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
