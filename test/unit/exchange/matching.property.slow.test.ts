/**
 * Property test: random operation sequences run against the MatchingEngine and against a naive
 * reference model written here from the rules (plain arrays, a sort by price then sequence for
 * every match, each settlement case spelled out). After every operation both must agree on
 * accept/reject codes, fills, balances and open orders, and the engine's invariants must hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MatchingEngine } from '../../../src/exchange/matching/engine.ts';
import type {
  CancelReason,
  MarketDef,
  NewOrder,
  OrderType,
  PlaceResult,
} from '../../../src/exchange/matching/types.ts';

const S = 10_000; // price scale
const LOT = 10_000;
const MAX = 500_000 * 1_000_000;
const ACCOUNTS = ['a', 'b', 'c'] as const;
const START = 1_000 * 1_000_000;
/** Each account starts by splitting this much collateral into YES + NO of each market. */
const SPLIT = 100 * 1_000_000;
const MARKETS: MarketDef[] = [
  {
    conditionId: 'm0',
    yesToken: 'Y0',
    noToken: 'N0',
    tickPips: 100,
    minSizeMicro: 2_000_000,
    negRisk: false,
    feeRateBps: 0,
  },
  {
    conditionId: 'm1',
    yesToken: 'Y1',
    noToken: 'N1',
    tickPips: 10,
    minSizeMicro: 1_000_000,
    negRisk: true,
    feeRateBps: 10,
  },
];

// ---------------------------------------------------------------------------------------------
// the reference model

interface MMarket {
  def: MarketDef;
  tick: number;
  status: 'active' | 'closed' | 'resolved';
  winner?: string;
}
interface MOrder {
  id: string;
  account: string;
  market: MMarket;
  tokenId: string;
  yes: boolean;
  buy: boolean;
  price: number;
  size: number;
  matched: number;
  status: 'LIVE' | 'MATCHED' | 'CANCELED';
  type: OrderType;
  expiresAt: number;
  fee: number;
  seq: number;
  reserved: number;
}
interface MBal {
  coll: number;
  collRes: number;
  tok: Map<string, { avail: number; res: number }>;
}
interface MFill {
  orderId: string;
  size: number;
  price: number;
}
type MResult =
  | { ok: false; code: string }
  | {
      ok: true;
      status: string;
      orderStatus: string;
      sizeMatched: number;
      reserved: number;
      fills: MFill[];
      price: number | null;
      fee: number;
      making: number;
      taking: number;
    };

const yesPriceOf = (o: MOrder): number => (o.yes ? o.price : S - o.price);
/** A YES bid: BUY YES or SELL NO. */
const isBidOf = (o: MOrder): boolean => (o.yes ? o.buy : !o.buy);

class Model {
  readonly markets = MARKETS.map((def): MMarket => ({ def, tick: def.tickPips, status: 'active' }));
  readonly bal = new Map<string, MBal>();
  readonly orders: MOrder[] = [];
  readonly ids = new Set<string>();
  seq = 0;
  fees = 0;

  acct(a: string): MBal {
    let b = this.bal.get(a);
    if (!b) this.bal.set(a, (b = { coll: 0, collRes: 0, tok: new Map() }));
    return b;
  }
  tok(a: string, t: string): { avail: number; res: number } {
    const b = this.acct(a);
    let x = b.tok.get(t);
    if (!x) b.tok.set(t, (x = { avail: 0, res: 0 }));
    return x;
  }
  marketOf(token: string): MMarket | undefined {
    return this.markets.find((m) => m.def.yesToken === token || m.def.noToken === token);
  }
  live(): MOrder[] {
    return this.orders.filter((o) => o.status === 'LIVE');
  }

  private cancelOrder(o: MOrder): void {
    if (o.buy) {
      this.acct(o.account).coll += o.reserved;
      this.acct(o.account).collRes -= o.reserved;
    } else {
      this.tok(o.account, o.tokenId).avail += o.reserved;
      this.tok(o.account, o.tokenId).res -= o.reserved;
    }
    o.reserved = 0;
    o.status = 'CANCELED';
  }

  advance(now: number): void {
    const due = this.live()
      .filter((o) => o.type === 'GTD' && o.expiresAt <= now)
      .sort((x, y) => x.expiresAt - y.expiresAt || x.seq - y.seq);
    for (const o of due) this.cancelOrder(o);
  }

  cancel(account: string, id: string, now: number): string {
    this.advance(now);
    const o = this.orders.find((x) => x.id === id);
    if (!o || o.account !== account) return 'NOT_FOUND';
    if (o.status !== 'LIVE') return 'NOT_LIVE';
    this.cancelOrder(o);
    return 'OK';
  }

  cancelAll(account: string, now: number): string[] {
    this.advance(now);
    const out = this.live().filter((o) => o.account === account);
    for (const o of out) this.cancelOrder(o);
    return out.map((o) => o.id);
  }

  setTick(mi: number, tick: number, now: number): void {
    this.advance(now);
    const m = this.markets[mi]!;
    m.tick = tick;
    for (const o of this.live()) if (o.market === m && o.price % tick !== 0) this.cancelOrder(o);
  }

  close(mi: number, now: number): void {
    this.advance(now);
    const m = this.markets[mi]!;
    if (m.status !== 'active') return;
    m.status = 'closed';
    for (const o of this.live()) if (o.market === m) this.cancelOrder(o);
  }

  /** Resolution pays nobody: orders are cancelled, holders redeem later. */
  resolve(mi: number, yesWins: boolean, now: number): void {
    this.advance(now);
    const m = this.markets[mi]!;
    for (const o of this.live()) if (o.market === m) this.cancelOrder(o);
    m.status = 'resolved';
    m.winner = yesWins ? m.def.yesToken : m.def.noToken;
  }

  /** Split / merge / redeem (available balances only); the refusal code, or 'OK'. */
  position(kind: 'split' | 'merge' | 'redeem', a: string, mi: number, amount: number | undefined, now: number): string {
    this.advance(now);
    const m = this.markets[mi]!;
    const b = this.acct(a);
    const y = this.tok(a, m.def.yesToken);
    const n = this.tok(a, m.def.noToken);
    if (amount !== undefined && !(amount > 0)) return 'INVALID_AMOUNT';
    if (kind === 'split') {
      if (b.coll < amount!) return 'NOT_ENOUGH_BALANCE';
      b.coll -= amount!;
      y.avail += amount!;
      n.avail += amount!;
      return 'OK';
    }
    if (kind === 'merge') {
      if (y.avail < amount! || n.avail < amount!) return 'NOT_ENOUGH_BALANCE';
      y.avail -= amount!;
      n.avail -= amount!;
      b.coll += amount!;
      return 'OK';
    }
    if (m.status !== 'resolved') return 'MARKET_NOT_RESOLVED';
    const w = m.winner === m.def.yesToken ? y : n;
    const l = m.winner === m.def.yesToken ? n : y;
    if (amount !== undefined) {
      if (w.avail < amount) return 'NOT_ENOUGH_BALANCE';
      w.avail -= amount;
      b.coll += amount;
      return 'OK';
    }
    if (w.avail + l.avail === 0) return 'NOTHING_TO_REDEEM';
    b.coll += w.avail;
    w.avail = 0;
    l.avail = 0;
    return 'OK';
  }

  place(o: NewOrder, now: number): MResult {
    this.advance(now);
    const m = this.marketOf(o.tokenId);
    if (m?.status !== 'active') return { ok: false, code: 'MARKET_NOT_READY' };
    if (this.ids.has(o.id)) return { ok: false, code: 'INVALID_ORDER_DUPLICATED' };
    const market = o.type === 'FOK' || o.type === 'FAK';
    if (o.postOnly && market) return { ok: false, code: 'INVALID_POST_ONLY_ORDER_TYPE' };
    if (o.price % m.tick !== 0 || o.price < m.tick || o.price > S - m.tick)
      return { ok: false, code: 'INVALID_ORDER_MIN_TICK_SIZE' };
    if (o.size < m.def.minSizeMicro) return { ok: false, code: 'INVALID_ORDER_MIN_SIZE' };
    if (o.size <= 0 || o.size % LOT !== 0 || o.size > MAX) return { ok: false, code: 'INVALID_ORDER_ERROR' };
    if (o.feeRateBps < m.def.feeRateBps || o.feeRateBps > 1000) return { ok: false, code: 'INVALID_ORDER_ERROR' };
    if (o.type === 'GTD' && o.expiresAt <= now) return { ok: false, code: 'INVALID_ORDER_EXPIRATION' };
    const buy = o.side === 'BUY';
    const notionalAll = (o.size * o.price) / S; // exact: sizes are whole lots
    // a BUY also reserves the most fee its fills can pay (reservation rule 2): its size at its own price,
    // floored to the micro (fills are at its price or better, and a share's cost with its fee rises with the
    // price); a post-only one never takes. An order of the older rule (journaled before it): rate × notional.
    const maxFee =
      o.reservation === 2
        ? o.postOnly
          ? 0
          : Number((BigInt(o.size) * BigInt(Math.min(o.price, S - o.price)) * BigInt(o.feeRateBps)) / BigInt(S * S))
        : Math.floor((notionalAll * o.feeRateBps) / S);
    const need = buy ? notionalAll + maxFee : o.size;
    if (
      buy
        ? (this.bal.get(o.account)?.coll ?? 0) < need
        : (this.bal.get(o.account)?.tok.get(o.tokenId)?.avail ?? 0) < need
    )
      return { ok: false, code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE' };
    const t: MOrder = {
      id: o.id,
      account: o.account,
      market: m,
      tokenId: o.tokenId,
      yes: o.tokenId === m.def.yesToken,
      buy,
      price: o.price,
      size: o.size,
      matched: 0,
      status: 'LIVE',
      type: o.type,
      expiresAt: o.type === 'GTD' ? o.expiresAt : 0,
      fee: o.feeRateBps,
      seq: 0,
      reserved: need,
    };
    const ty = yesPriceOf(t);
    const bid = isBidOf(t);
    const crossing = (): MOrder[] =>
      this.live()
        .filter((x) => x.market === m && isBidOf(x) !== bid && (bid ? yesPriceOf(x) <= ty : yesPriceOf(x) >= ty))
        .sort((x, y) => (bid ? yesPriceOf(x) - yesPriceOf(y) : yesPriceOf(y) - yesPriceOf(x)) || x.seq - y.seq);
    if (o.postOnly && crossing().length > 0) return { ok: false, code: 'INVALID_POST_ONLY_ORDER' };
    if (o.type === 'FOK' && crossing().reduce((s, x) => s + x.size - x.matched, 0) < o.size)
      return { ok: false, code: 'FOK_ORDER_NOT_FILLED_ERROR' };

    // accepted
    t.seq = ++this.seq;
    this.ids.add(o.id);
    this.orders.push(t);
    if (buy) {
      this.acct(o.account).coll -= need;
      this.acct(o.account).collRes += need;
    } else {
      this.tok(o.account, o.tokenId).avail -= need;
      this.tok(o.account, o.tokenId).res += need;
    }
    let reserved = need;
    const fills: MFill[] = [];
    let fee = 0;
    let making = 0;
    let taking = 0;
    const takerPrices: [number, number][] = [];
    for (;;) {
      const rem = t.size - t.matched;
      if (rem === 0) break;
      const mk = crossing()[0];
      if (!mk) break;
      const s = Math.min(rem, mk.size - mk.matched);
      const P = yesPriceOf(mk); // the resting order's YES price
      const yesAmt = (s * P) / S;
      const noAmt = (s * (S - P)) / S;
      const Y = m.def.yesToken;
      const N = m.def.noToken;
      // each side's part, spelled out per case
      const pay = (acct: string, amount: number, isMaker: boolean, order: MOrder) => {
        // a buyer pays from its reservation
        this.acct(acct).collRes -= amount;
        if (isMaker) order.reserved -= amount;
        else reserved -= amount;
      };
      const give = (acct: string, token: string, isMaker: boolean, order: MOrder) => {
        // a seller gives tokens from its reservation
        this.tok(acct, token).res -= s;
        if (isMaker) order.reserved -= s;
        else reserved -= s;
      };
      const takerToken = t.yes ? Y : N;
      const makerToken = mk.yes ? Y : N;
      let takerCash: number; // collateral the taker pays (BUY) or gets (SELL), before the fee
      if (t.yes === mk.yes) {
        // same token: a transfer, at the token's price
        const amt = t.yes ? yesAmt : noAmt;
        takerCash = amt;
        if (t.buy) {
          pay(t.account, amt, false, t);
          give(mk.account, makerToken, true, mk);
          this.acct(mk.account).coll += amt;
          this.tok(t.account, takerToken).avail += s;
        } else {
          give(t.account, takerToken, false, t);
          pay(mk.account, amt, true, mk);
          this.tok(mk.account, makerToken).avail += s;
          this.acct(t.account).coll += amt;
        }
      } else if (t.buy) {
        // BUY x BUY on complementary tokens: mint a pair
        const tAmt = t.yes ? yesAmt : noAmt;
        const mAmt = mk.yes ? yesAmt : noAmt;
        takerCash = tAmt;
        pay(t.account, tAmt, false, t);
        pay(mk.account, mAmt, true, mk);
        this.tok(t.account, takerToken).avail += s;
        this.tok(mk.account, makerToken).avail += s;
      } else {
        // SELL x SELL on complementary tokens: merge a pair
        const tAmt = t.yes ? yesAmt : noAmt;
        const mAmt = mk.yes ? yesAmt : noAmt;
        takerCash = tAmt;
        give(t.account, takerToken, false, t);
        give(mk.account, makerToken, true, mk);
        this.acct(t.account).coll += tAmt;
        this.acct(mk.account).coll += mAmt;
      }
      const pt = t.yes ? P : S - P;
      const f = Math.floor((Math.floor((s * Math.min(pt, S - pt)) / S) * t.fee) / S);
      if (t.buy) {
        this.acct(t.account).collRes -= f;
        reserved -= f;
        making += takerCash + f;
        taking += s;
      } else {
        this.acct(t.account).coll -= f;
        making += s;
        taking += takerCash - f;
      }
      this.fees += f;
      this.acct('fees').coll += f;
      fee += f;
      mk.matched += s;
      t.matched += s;
      if (mk.matched === mk.size) mk.status = 'MATCHED';
      fills.push({ orderId: mk.id, size: s, price: mk.price });
      takerPrices.push([s, pt]);
    }
    const rem = t.size - t.matched;
    const rests = rem > 0 && !market;
    const keep = rests ? (buy ? (rem * t.price) / S : rem) : 0;
    const give = reserved - keep;
    if (buy) {
      this.acct(t.account).collRes -= give;
      this.acct(t.account).coll += give;
    } else {
      this.tok(t.account, t.tokenId).res -= give;
      this.tok(t.account, t.tokenId).avail += give;
    }
    t.reserved = keep;
    let status: string;
    if (rem === 0) {
      t.status = 'MATCHED';
      status = 'matched';
    } else if (rests) status = 'live';
    else {
      t.status = 'CANCELED';
      status = fills.length > 0 ? 'matched' : 'unmatched';
    }
    let price: number | null = null;
    if (takerPrices.length > 0) {
      if (takerPrices.every(([, p]) => p === takerPrices[0]![1])) price = takerPrices[0]![1];
      else {
        const num = takerPrices.reduce((a, [s, p]) => a + BigInt(s) * BigInt(p), 0n);
        const den = BigInt(takerPrices.reduce((a, [s]) => a + s, 0));
        price = Number((2n * num + den) / (2n * den));
      }
    }
    return {
      ok: true,
      status,
      orderStatus: t.status,
      sizeMatched: t.matched,
      reserved: t.reserved,
      fills,
      price,
      fee,
      making,
      taking,
    };
  }
}

// ---------------------------------------------------------------------------------------------
// operations

type Op =
  | {
      k: 'place';
      acct: number;
      market: number;
      yes: boolean;
      buy: boolean;
      type: OrderType;
      postOnly: boolean;
      level: number;
      onTick: boolean;
      jitter: number;
      shares: number;
      extra: number;
      fee: number | 'min' | 'bad';
      ttl: number;
      reuse: number;
    }
  | { k: 'cancel'; acct: number; pick: number }
  | { k: 'cancelAll'; acct: number }
  | { k: 'time'; dt: number }
  | { k: 'tick'; market: number; tick: number }
  | { k: 'close'; market: number }
  | { k: 'resolve'; market: number; yes: boolean }
  | { k: 'position'; kind: 'split' | 'merge' | 'redeem'; acct: number; market: number; amount: number | undefined };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      k: fc.constant('place' as const),
      acct: fc.nat(2),
      market: fc.nat(1),
      yes: fc.boolean(),
      buy: fc.boolean(),
      type: fc.constantFrom<OrderType>('GTC', 'GTC', 'GTC', 'GTC', 'GTD', 'FOK', 'FAK'),
      postOnly: fc.constantFrom(false, false, false, false, false, true),
      level: fc.integer({ min: 38, max: 62 }), // price around the middle (x 100 pips), so orders cross
      onTick: fc.constantFrom(true, true, true, true, true, true, true, true, true, false),
      jitter: fc.constantFrom(10, 50, 1), // off-tick offsets
      shares: fc.oneof(
        { weight: 15, arbitrary: fc.integer({ min: 0, max: 25 }) },
        { weight: 1, arbitrary: fc.integer({ min: 90, max: 2000 }) },
      ),
      extra: fc.oneof(
        { weight: 12, arbitrary: fc.constantFrom(0, 0, 0, 10_000, 370_000) },
        { weight: 1, arbitrary: fc.constant(5_000) },
      ), // 5_000: not a whole lot
      fee: fc.oneof(
        { weight: 14, arbitrary: fc.constantFrom<number | 'min'>('min', 'min', 'min', 'min', 30, 100, 1000) },
        { weight: 1, arbitrary: fc.constant('bad' as const) },
      ),
      ttl: fc.integer({ min: -5, max: 60 }),
      reuse: fc.oneof({ weight: 19, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat(3) }), // reuse an earlier id
    }),
  },
  { weight: 4, arbitrary: fc.record({ k: fc.constant('cancel' as const), acct: fc.nat(2), pick: fc.nat(1000) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('cancelAll' as const), acct: fc.nat(2) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('position' as const),
      kind: fc.constantFrom<'split' | 'merge' | 'redeem'>('split', 'merge', 'redeem'),
      acct: fc.nat(2),
      market: fc.nat(1),
      // micro-units, not whole lots; sometimes more than is held; undefined: a redeem of everything
      amount: fc.oneof(
        { weight: 8, arbitrary: fc.integer({ min: 1, max: 150_000_000 }) },
        { weight: 1, arbitrary: fc.constantFrom(undefined, 0, -5) },
      ),
    }),
  },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('time' as const), dt: fc.integer({ min: 0, max: 30 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('tick' as const),
      market: fc.nat(1),
      tick: fc.constantFrom(1000, 100, 100, 10, 10, 1),
    }),
  },
);

const endArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ k: fc.constant('close' as const), market: fc.nat(1) }),
  fc.record({ k: fc.constant('resolve' as const), market: fc.nat(1), yes: fc.boolean() }),
);

// closing or resolving ends a market for the rest of a sequence: at most one, near the end
const seqArb = fc
  .tuple(fc.array(opArb, { maxLength: 200, size: 'max' }), fc.option(endArb), fc.array(opArb, { maxLength: 20 }))
  .map(([main, end, tail]) => (end === null ? main : [...main, end, ...tail]));

// ---------------------------------------------------------------------------------------------
// comparison and invariants

function toModelResult(r: PlaceResult): MResult {
  if (!r.ok) return { ok: false, code: r.code };
  return {
    ok: true,
    status: r.status,
    orderStatus: r.order.status,
    sizeMatched: r.order.sizeMatched,
    reserved: r.order.reserved,
    fills: r.trade ? r.trade.makers.map((m) => ({ orderId: m.orderId, size: m.size, price: m.price })) : [],
    price: r.trade ? r.trade.price : null,
    fee: r.trade ? r.trade.fee : 0,
    making: r.makingAmount,
    taking: r.takingAmount,
  };
}

/** Deep equality, fast path first (the sequences are long); vitest's diff on a mismatch. */
function same(got: unknown, want: unknown): void {
  if (JSON.stringify(got) !== JSON.stringify(want)) expect(got).toEqual(want);
}
function invariant(ok: boolean, what: string): void {
  if (!ok) throw new Error(`invariant broken: ${what}`);
}

function check(e: MatchingEngine, model: Model): void {
  const tokens = MARKETS.flatMap((m) => [m.yesToken, m.noToken]);
  // balances: engine and model agree; nothing is negative
  const accounts = [...ACCOUNTS, 'fees'];
  const engineBal = accounts.map((a) => {
    const b = e.balance(a);
    return [
      a,
      b.collateral,
      b.collateralReserved,
      ...tokens.map((t) => [b.tokens.get(t)?.available ?? 0, b.tokens.get(t)?.reserved ?? 0]),
    ];
  });
  const modelBal = accounts.map((a) => {
    const b = model.bal.get(a);
    return [
      a,
      b?.coll ?? 0,
      b?.collRes ?? 0,
      ...tokens.map((t) => [b?.tok.get(t)?.avail ?? 0, b?.tok.get(t)?.res ?? 0]),
    ];
  });
  same(engineBal, modelBal);
  for (const row of engineBal)
    invariant(
      row.flat().every((x) => typeof x === 'string' || x >= 0),
      `negative balance ${JSON.stringify(row)}`,
    );

  // open orders agree; each account's reservations are exactly what its live orders need
  for (const a of ACCOUNTS) {
    const open = e.openOrders(a);
    same(
      open.map((o) => [o.id, o.sizeMatched, o.reserved]),
      model
        .live()
        .filter((o) => o.account === a)
        .map((o) => [o.id, o.matched, o.reserved]),
    );
    let coll = 0;
    const toks = new Map<string, number>();
    for (const o of open) {
      const rem = o.originalSize - o.sizeMatched;
      invariant(rem > 0, 'a live order has something left');
      if (o.side === 'BUY') {
        invariant(o.reserved === (rem * o.price) / S, 'a resting BUY reserves its notional');
        coll += o.reserved;
      } else {
        invariant(o.reserved === rem, 'a resting SELL reserves its tokens');
        toks.set(o.tokenId, (toks.get(o.tokenId) ?? 0) + rem);
      }
    }
    const b = e.balance(a);
    invariant(
      b.collateralReserved === coll,
      `${a}: reserved collateral ${b.collateralReserved} != ${coll} needed by live orders`,
    );
    for (const t of tokens)
      invariant(
        (b.tokens.get(t)?.reserved ?? 0) === (toks.get(t) ?? 0),
        `${a}: reserved ${t} != needed by live orders`,
      );
  }

  // books: never crossed; level totals are the live orders' remainders
  for (const m of MARKETS) {
    const bba = e.bestBidAsk(m.yesToken);
    invariant(bba.bid === null || bba.ask === null || bba.bid < bba.ask, `crossed book ${JSON.stringify(bba)}`);
    const want = { bids: new Map<number, number>(), asks: new Map<number, number>() };
    for (const o of model.live().filter((x) => x.market.def === m)) {
      const side = isBidOf(o) ? want.bids : want.asks;
      side.set(yesPriceOf(o), (side.get(yesPriceOf(o)) ?? 0) + o.size - o.matched);
    }
    const book = e.book(m.yesToken);
    same(
      [book.bids, book.asks],
      [
        [...want.bids].sort((x, y) => y[0] - x[0]).map(([price, size]) => ({ price, size })),
        [...want.asks].sort((x, y) => x[0] - y[0]).map(([price, size]) => ({ price, size })),
      ],
    );
  }

  // conservation: every unit of collateral is either collateral, or backs a YES/NO pair of an
  // unresolved market, or a winning token of a resolved one not redeemed yet
  const t = e.totals();
  let backed = 0;
  for (const mm of model.markets) {
    const m = mm.def;
    if (mm.status === 'resolved') {
      backed += t.tokenSupply.get(mm.winner!)!;
      continue;
    }
    invariant(
      t.tokenSupply.get(m.yesToken) === t.tokenSupply.get(m.noToken),
      `YES supply != NO supply in ${m.conditionId}`,
    );
    backed += t.tokenSupply.get(m.yesToken)!;
  }
  invariant(
    t.collateral + backed === ACCOUNTS.length * START + t.minted,
    `collateral + backing supply = ${t.collateral + backed}`,
  );
  invariant(t.fees === model.fees, 'fees');
}

/** `p` rounded to a multiple of `tick` inside [tick, 1 - tick]. */
function onTick(p: number, tick: number): number {
  return Math.min(S - tick, Math.max(tick, Math.round(p / tick) * tick));
}

/** What the generated sequences exercised (checked at the end: the generator must stay meaningful). */
const COVERAGE = { placed: 0, fills: 0, codes: new Set<string>(), positions: new Set<string>() };

function runSequence(ops: Op[]): void {
  const e = new MatchingEngine({ feeAccount: 'fees' });
  const model = new Model();
  for (const m of MARKETS) e.addMarket(m);
  for (const a of ACCOUNTS) {
    e.credit(a, START - SPLIT * MARKETS.length);
    model.acct(a).coll += START - SPLIT * MARKETS.length;
    for (const m of MARKETS) {
      for (const t of [m.yesToken, m.noToken]) {
        e.setTokens(a, t, SPLIT);
        model.tok(a, t).avail += SPLIT;
      }
    }
  }
  let now = 1_000;
  let n = 0;
  const placed: { id: string; acct: string }[] = [];
  for (const op of ops) {
    switch (op.k) {
      case 'place': {
        const md = MARKETS[op.market]!;
        const id = op.reuse >= 0 && placed.length > op.reuse ? placed[op.reuse]!.id : `o${++n}`;
        const o: NewOrder = {
          id,
          account: ACCOUNTS[op.acct]!,
          owner: `k-${op.acct}`,
          tokenId: op.yes ? md.yesToken : md.noToken,
          side: op.buy ? 'BUY' : 'SELL',
          price: op.onTick ? onTick(op.level * 100, model.markets[op.market]!.tick) : op.level * 100 + op.jitter,
          size: op.shares * 1_000_000 + op.extra,
          type: op.type,
          postOnly: op.postOnly,
          expiresAt: op.type === 'GTD' ? now + op.ttl : 0,
          feeRateBps:
            op.fee === 'min' ? md.feeRateBps : op.fee === 'bad' ? (n % 2 === 0 ? 1001 : md.feeRateBps - 1) : op.fee,
          // both reservation rules: the current one, and that of an order replayed from an older journal
          ...(op.jitter % 2 === 0 ? { reservation: 2 as const } : {}),
        };
        const got = toModelResult(e.place(o, now));
        COVERAGE.placed++;
        if (got.ok) COVERAGE.fills += got.fills.length;
        else COVERAGE.codes.add(got.code);
        const want = model.place(o, now);
        same(got, want);
        if (got.ok) placed.push({ id, acct: o.account });
        break;
      }
      case 'cancel': {
        if (placed.length === 0) break;
        const target = placed[op.pick % placed.length]!;
        const r = e.cancel(ACCOUNTS[op.acct]!, target.id, now);
        const want = model.cancel(ACCOUNTS[op.acct]!, target.id, now);
        expect(r.ok ? 'OK' : r.reason).toBe(want);
        if (r.ok) expect(r.order.status).toBe('CANCELED');
        break;
      }
      case 'cancelAll': {
        const reason: CancelReason = 'USER';
        const got = e.cancelAll(ACCOUNTS[op.acct]!, now, reason).map((o) => o.id);
        expect(got).toEqual(model.cancelAll(ACCOUNTS[op.acct]!, now));
        break;
      }
      case 'time':
        now += op.dt;
        e.advance(now);
        model.advance(now);
        break;
      case 'tick':
        e.setTickSize(MARKETS[op.market]!.conditionId, op.tick, now);
        model.setTick(op.market, op.tick, now);
        break;
      case 'close':
        if (model.markets[op.market]!.status === 'resolved') break;
        e.closeMarket(MARKETS[op.market]!.conditionId, now);
        model.close(op.market, now);
        break;
      case 'resolve': {
        if (model.markets[op.market]!.status === 'resolved') break;
        const md = MARKETS[op.market]!;
        e.resolveMarket(md.conditionId, op.yes ? md.yesToken : md.noToken, now);
        model.resolve(op.market, op.yes, now);
        break;
      }
      case 'position': {
        const a = ACCOUNTS[op.acct]!;
        const cid = MARKETS[op.market]!.conditionId;
        const r =
          op.kind === 'split'
            ? e.split(a, cid, op.amount ?? 0, now)
            : op.kind === 'merge'
              ? e.merge(a, cid, op.amount ?? 0, now)
              : e.redeem(a, cid, op.amount, now);
        const amount = op.kind === 'redeem' ? op.amount : (op.amount ?? 0);
        expect(r.ok ? 'OK' : r.code).toBe(model.position(op.kind, a, op.market, amount, now));
        COVERAGE.positions.add(`${op.kind}:${r.ok ? 'OK' : r.code}`);
        break;
      }
    }
    check(e, model);
    e.drainEvents();
  }
}

describe('matching engine against a reference model', () => {
  it('agrees on every operation and keeps its invariants', { timeout: 180_000 }, () => {
    fc.assert(
      fc.property(seqArb, (ops) => {
        runSequence(ops);
      }),
      { numRuns: 300 },
    );
  });

  it('agrees on long sequences without market endings', { timeout: 180_000 }, () => {
    const longArb = fc.array(
      opArb.filter((o) => o.k !== 'close' && o.k !== 'resolve'),
      { minLength: 150, maxLength: 250, size: 'max' },
    );
    fc.assert(
      fc.property(longArb, (ops) => {
        runSequence(ops);
      }),
      { numRuns: 60 },
    );
  });

  it('exercised fills and every rejection code', () => {
    expect(COVERAGE.fills).toBeGreaterThan(1000);
    expect([...COVERAGE.codes].sort()).toEqual([
      'FOK_ORDER_NOT_FILLED_ERROR',
      'INVALID_ORDER_DUPLICATED',
      'INVALID_ORDER_ERROR',
      'INVALID_ORDER_EXPIRATION',
      'INVALID_ORDER_MIN_SIZE',
      'INVALID_ORDER_MIN_TICK_SIZE',
      'INVALID_ORDER_NOT_ENOUGH_BALANCE',
      'INVALID_POST_ONLY_ORDER',
      'INVALID_POST_ONLY_ORDER_TYPE',
      'MARKET_NOT_READY',
    ]);
    for (const c of [
      'split:OK',
      'split:NOT_ENOUGH_BALANCE',
      'split:INVALID_AMOUNT',
      'merge:OK',
      'merge:NOT_ENOUGH_BALANCE',
      'redeem:OK',
      'redeem:MARKET_NOT_RESOLVED',
    ])
      expect(COVERAGE.positions).toContain(c);
  });
});
