/**
 * Placing an order in the matching engine: validation (the shared order rules), acceptance and
 * reservation, the taking phase (the matching loop: price-time priority, settlement of makers and
 * taker, fees, the trade), then the remainder rested (GTC/GTD) or dropped (FOK/FAK).
 *
 * The hottest code of the exchange and the backtester (see test/bench/matching.bench.ts).
 *
 * For the matching engine only (src/exchange/matching/engine.ts).
 */
import { LOT_MICRO, PRICE_SCALE, notional } from '../../core/units.ts';
import { takerFee } from '../../core/fees.ts';
import {
  bookRuleError,
  legacyOrderReservation,
  orderReservation,
  orderShapeError,
  REJECT_MESSAGES,
} from '../../core/order-rules.ts';
import type { MakerFill, NewOrder, OrderState, PlaceResult, RejectCode, Trade } from './types.ts';
import type { EngineCore } from './engine-core.ts';
import * as halfBook from './half-book.ts';
import * as layout from './order-layout.ts';
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
  statusOf,
  T_FAK,
  T_FOK,
  T_GTD,
  typeCode,
} = layout;
const { NO_ASK, NO_BID } = halfBook;
const { hashId } = orderTable;
type HalfBook = halfBook.HalfBook;

/**
 * Validates and places an order: it takes liquidity at the resting orders' prices, then (GTC/GTD)
 * rests its remainder or (FOK/FAK) drops it. A rejected order changes nothing.
 * Never throws for bad order input: every refusal is `{ ok: false, code, message }`.
 */
export function place(c: EngineCore, o: NewOrder, now: number): PlaceResult {
  c.advance(now);
  // -- validation, in the venue's order; nothing changes before it passes
  const m = c.marketByToken.get(o.tokenId);
  if (m === undefined || m.status !== 'active') return reject('MARKET_NOT_READY');
  const ot = c.ot;
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
  const feeProtocol = v2Fee ? 2 : 1;
  const isBuy = o.side === 'BUY';
  const isYes = o.tokenId === m.def.yesToken;
  const tokIdx = (m.idx << 1) | (isYes ? 0 : 1);
  const existing = c.accounts.get(o.account);
  const need =
    o.reservation === 2
      ? orderReservation(isBuy, size, price, bps, feeProtocol, o.postOnly)
      : legacyOrderReservation(isBuy, size, price, bps);
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
  c.beginOp();
  const a = existing ?? c.acct(o.account);
  const bal = a.balByTok[tokIdx] ?? a.tok(o.tokenId, tokIdx);
  let owner = c.lastOwner;
  if (o.owner !== c.owners[owner]) {
    const known = c.ownerIdx.get(o.owner);
    if (known !== undefined) owner = known;
    else {
      owner = c.owners.length;
      c.owners.push(o.owner);
      c.ownerIdx.set(o.owner, owner);
    }
    c.lastOwner = owner;
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
  const rec = c.rec;
  // an order that takes (or cannot rest) is announced as accepted, before its fills; one that
  // rests untouched is announced below, as it rests (one snapshot serves the event and the result)
  if (rec && (crosses || isMarketType)) c.emit({ type: 'order_placed', order: c.snap(h, need), at: now });

  // -- taking phase
  let remLots = size / LOT_MICRO;
  let trade: Trade | null = null;
  let making = 0;
  let taking = 0;
  if (crosses) {
    const accts = c.accountList;
    const makers: MakerFill[] = [];
    const tseq = ++c.tradeSeq;
    const tradeId = c.tradeIdOf(tseq);
    c.tradeIds.set(tseq - 1, tradeId);
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
      c.touchLevel(m, opp, p);
      const pt = isYes ? p : PRICE_SCALE - p; // fill price on the taker's scale
      if (firstPt < 0) firstPt = pt;
      else if (pt !== firstPt) onePrice = false;
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
          owner: c.owners[MIP[mib + I_OWNER]!]!,
          tokenId: mYes ? m.def.yesToken : m.def.noToken,
          outcome: mYes ? 'Yes' : 'No',
          side: mBuy ? 'BUY' : 'SELL',
          price: mPrice,
          size: s,
        });
        // taker settlement, at the taker-scale fill price, fee on top (BUY) or deducted (SELL)
        const tAmt = (s * pt) / PRICE_SCALE;
        // (core/fees.ts: V2 the fee curve, V1 rate × min(p, 1 − p); the bot books the same function)
        const fee = takerFee(feeProtocol, s, pt, bps);
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
        c.touchAcct(ma);
        const next = MIP[mib + I_NEXT]!;
        if (sLots === mremLots) {
          // maker done: pop it from the head of the level
          MIP[mib + I_META] = (mf & ~META_STATUS_MASK) | (S_MATCHED << META_STATUS_SHIFT);
          if (((mf >> 3) & 3) === T_GTD) c.gtdLive--;
          c.unlinkAccount(mk);
          MIP[mib + I_NEXT] = NIL;
          if (next !== NIL) ot.si(next, I_PREV, NIL);
          heads[p] = next;
          if (next === NIL) opp.tail[p] = NIL;
        }
        if (rec) c.emit({ type: 'order_updated', order: c.snap(mk), at: now });
        mk = next;
      }
      totals[p] = levelTotal;
      if (heads[p] === NIL) {
        opp.unmark(p);
        opp.rescan();
      }
    }
    if (feeSum > 0) {
      c.feeAcct.collateral += feeSum;
      c.feesTotal += feeSum;
      c.touchAcct(c.feeAcct);
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
  if (trade !== null || rests) c.touchAcct(a);
  // the taker's own update: also its final state, unless a remainder is dropped below
  let final: OrderState | null = null;
  if (trade !== null && rec) {
    final = c.snap(h, keep);
    c.emit({ type: 'order_updated', order: final, at: now });
    c.emit({ type: 'trade', trade, at: now });
  }
  let status: 'live' | 'matched' | 'unmatched';
  if (rests) {
    c.link(h, rem);
    if (type === T_GTD) {
      const x = c.expiries;
      // lazy deletion lets dead entries pile up: drop them when they are most of the heap
      if (x.n >= 1024 && x.n > 2 * c.gtdLive) x.filter((v) => statusOf(ot.gi(v, I_META)) === S_LIVE);
      x.push(o.expiresAt, h);
      c.gtdLive++;
    }
    status = 'live';
    if (rec && !crosses) {
      final = c.snap(h);
      c.emit({ type: 'order_placed', order: final, at: now });
    }
  } else if (rem > 0) {
    IP[ib + I_META] = (meta & ~META_STATUS_MASK) | (S_CANCELED << META_STATUS_SHIFT);
    if (rec) {
      final = c.snap(h);
      c.emit({ type: 'order_canceled', order: final, reason: 'UNFILLED_REMAINDER', at: now });
    }
    status = trade === null ? 'unmatched' : 'matched';
  } else {
    status = 'matched';
  }
  c.endOp(now);
  return { ok: true, order: final ?? c.snap(h), status, trade, makingAmount: making, takingAmount: taking };
}

function reject(code: RejectCode): PlaceResult {
  return { ok: false, code, message: REJECT_MESSAGES[code] };
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
