/**
 * Queries of the matching engine: orders (by id, an account's open ones, an account's history)
 * and books (aggregated levels, the resting orders one by one, the best bid and ask). They change
 * nothing. The public methods and their documentation are MatchingEngine's (engine.ts).
 *
 * For the matching engine only (src/exchange/matching/engine.ts).
 */
import { NotFoundError } from '../../core/errors.ts';
import { LOT_MICRO, PRICE_SCALE } from '../../core/units.ts';
import type { BookLevel, BookView, OrderState } from './types.ts';
import type { EngineCore, OrderFilter } from './engine-core.ts';
import * as halfBook from './half-book.ts';
import * as layout from './order-layout.ts';
import * as orderTable from './order-table.ts';

const { I_ACCT, I_ALLNEXT, I_MATCHED, I_NEXT, I_SIZE, IS_BITS, NIL, PAGE_BITS, PAGE_MASK } = layout;
const { NO_ASK, NO_BID } = halfBook;
const { hashId } = orderTable;
type HalfBook = halfBook.HalfBook;

/** `MatchingEngine.getOrder` (engine.ts). */
export function getOrder(c: EngineCore, id: string): OrderState | undefined {
  const o = c.ot.find(id, hashId(id));
  return o === NIL ? undefined : c.snap(o);
}

/** `MatchingEngine.openOrders` (engine.ts). */
export function openOrders(c: EngineCore, account: string, filter?: OrderFilter): OrderState[] {
  const a = c.accounts.get(account);
  if (a === undefined) return [];
  return c.liveOf(a, filter).map((o) => c.snap(o));
}

/** `MatchingEngine.ordersOf` (engine.ts). */
export function ordersOf(c: EngineCore, account: string): OrderState[] {
  const a = c.accounts.get(account);
  const out: OrderState[] = [];
  if (a === undefined) return out;
  for (let o = a.firstOrder; o !== NIL; o = c.ot.gi(o, I_ALLNEXT)) out.push(c.snap(o));
  return out;
}

/** `MatchingEngine.book` (engine.ts). */
export function book(c: EngineCore, tokenId: string): BookView {
  const m = c.marketByToken.get(tokenId);
  if (m === undefined) throw new NotFoundError(`unknown token ${tokenId}`);
  const yesBids = levels(m.bids);
  const yesAsks = levels(m.asks);
  if (tokenId === m.def.yesToken) return { market: m.def.conditionId, tokenId, bids: yesBids, asks: yesAsks };
  return { market: m.def.conditionId, tokenId, bids: yesAsks.map(mirror), asks: yesBids.map(mirror) };
}

/** `MatchingEngine.forEachResting` (engine.ts). */
export function forEachResting(
  c: EngineCore,
  conditionId: string,
  side: 'bid' | 'ask',
  fn: (account: string, yesPrice: number, remaining: number) => boolean | undefined,
): void {
  const m = c.markets.get(conditionId);
  if (m === undefined) return;
  const t = c.ot;
  const b = side === 'bid' ? m.bids : m.asks;
  const bid = b.isBid;
  for (let p = b.best; bid ? p !== NO_BID : p !== NO_ASK; p = bid ? b.nextDown(p - 1) : b.nextUp(p + 1)) {
    for (let o = b.head[p]!; o !== NIL; o = t.gi(o, I_NEXT)) {
      const IP = t.ip[o >>> PAGE_BITS]!;
      const ib = (o & PAGE_MASK) << IS_BITS;
      const rem = (IP[ib + I_SIZE]! - IP[ib + I_MATCHED]!) * LOT_MICRO;
      if (fn(c.accountList[IP[ib + I_ACCT]!]!.id, p, rem) === false) return;
    }
  }
}

/** `MatchingEngine.bestBidAsk` (engine.ts). */
export function bestBidAsk(c: EngineCore, tokenId: string): { bid: number | null; ask: number | null } {
  const m = c.marketByToken.get(tokenId);
  if (m === undefined) throw new NotFoundError(`unknown token ${tokenId}`);
  const bb = m.bids.best;
  const ba = m.asks.best;
  if (tokenId === m.def.yesToken) return { bid: bb === NO_BID ? null : bb, ask: ba === NO_ASK ? null : ba };
  return { bid: ba === NO_ASK ? null : PRICE_SCALE - ba, ask: bb === NO_BID ? null : PRICE_SCALE - bb };
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
