/**
 * The taker fee (src/core/fees.ts), the one function the venue charges and the bot books: V1
 * `size × rate × min(p, 1 − p)` floored to the micro, V2 the curve `size × rate × p × (1 − p)`
 * floored to 0.00001. Equal to the same formulas in bigints (whole lots and odd sizes), and to what
 * the paper exchange's matching engine charges a taker that meets several resting orders (YES and
 * NO makers, one and several levels), under both protocols: the sum of each match's fee, as the bot
 * computes it from a trade's maker orders (user-decode.ts `tradeTakerFee`).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CURVE_FEE_STEP_MICRO,
  curveFee,
  takerFee,
  takerFeeOfMatches,
  v1Fee,
  type FeeProtocol,
} from '../../../src/core/fees.ts';
import { MAX_FEE_RATE_BPS } from '../../../src/core/order-rules.ts';
import { formatAmount, formatPrice, LOT_MICRO, MAX_ORDER_MICRO, PRICE_SCALE } from '../../../src/core/units.ts';
import { tradeTakerFee, tradeRecordSchema } from '../../../src/api/streams/user-decode.ts';
import { MatchingEngine } from '../../../src/exchange/matching/engine.ts';
import type { MarketDef, NewOrder, Trade } from '../../../src/exchange/matching/types.ts';

/** V1 in bigints: size × min(p, 1 − p) × bps / 10^8, floored. */
function refV1(size: number, price: number, bps: number): number {
  const base = Math.min(price, PRICE_SCALE - price);
  return Number((BigInt(size) * BigInt(base) * BigInt(bps)) / 10n ** 8n);
}
/** V2 in bigints: size × p × (1 − p) × bps / 10^12, floored to the step. */
function refV2(size: number, price: number, bps: number): number {
  const raw = (BigInt(size) * BigInt(price) * BigInt(PRICE_SCALE - price) * BigInt(bps)) / 10n ** 12n;
  return Number(raw - (raw % BigInt(CURVE_FEE_STEP_MICRO)));
}

const lotSize = fc.integer({ min: 1, max: MAX_ORDER_MICRO / LOT_MICRO }).map((n) => n * LOT_MICRO);
const anySize = fc.integer({ min: 1, max: MAX_ORDER_MICRO });
const price = fc.integer({ min: 1, max: PRICE_SCALE - 1 });
const rate = fc.integer({ min: 0, max: MAX_FEE_RATE_BPS });

describe('takerFee', () => {
  it('V1 is rate × min(p, 1 − p), V2 the curve: the finding F8 figures (BUY 5 @ 0.45 and @ 0.51, rate 0.1)', () => {
    expect(takerFee(1, 5_000_000, 4500, 1000)).toBe(225_000);
    expect(takerFee(2, 5_000_000, 4500, 1000)).toBe(123_750);
    expect(takerFee(1, 5_000_000, 5100, 1000)).toBe(245_000);
    expect(takerFee(2, 5_000_000, 5100, 1000)).toBe(124_950);
    // the V2 floor to 0.00001: 5 × 0.07 × 0.55 × 0.45 = 0.086625 → 0.08662
    expect(takerFee(2, 5_000_000, 5500, 700)).toBe(86_620);
    expect(takerFee(1, 5_000_000, 5500, 0)).toBe(0);
    expect(takerFee(2, 5_000_000, 5500, 0)).toBe(0);
  });

  it('equals the bigint formulas for whole lots and for any micro size', () => {
    for (const size of [lotSize, anySize])
      fc.assert(
        fc.property(size, price, rate, (s, p, r) => {
          expect(takerFee(1, s, p, r)).toBe(refV1(s, p, r));
          expect(takerFee(2, s, p, r)).toBe(refV2(s, p, r));
          expect(v1Fee(s, p, r)).toBe(refV1(s, p, r));
          expect(curveFee(s, p, r)).toBe(refV2(s, p, r));
        }),
        { numRuns: 5000 },
      );
  });

  it('V2 never charges more than V1 (p × (1 − p) ≤ min(p, 1 − p)), up to the floors', () => {
    fc.assert(
      fc.property(lotSize, price, rate, (s, p, r) => {
        expect(takerFee(2, s, p, r)).toBeLessThanOrEqual(takerFee(1, s, p, r));
      }),
    );
  });

  it('takerFeeOfMatches floors each match apart', () => {
    // two 5-share matches at 0.55, rate 0.07: 2 × 0.08662, not floor(10 × ...) = 0.17325 → 0.17320
    expect(takerFeeOfMatches(2, [[5500, 5_000_000] as const, [5500, 5_000_000] as const], 700)).toBe(173_240);
    expect(takerFee(2, 10_000_000, 5500, 700)).toBe(173_250);
  });
});

/** The exchange's matching engine: a market with `bps`, makers resting, one taker crossing them. */
describe('takerFee equals the paper exchange’s charge', () => {
  const SH = 1_000_000;
  const market = (bps: number): MarketDef => ({
    conditionId: 'c',
    yesToken: 'Y',
    noToken: 'N',
    tickPips: 100,
    minSizeMicro: SH,
    negRisk: false,
    feeRateBps: bps,
  });
  let seq = 0;
  /** The market's rate: every order carries at least it (makers pay nothing all the same). */
  let marketBps = 0;
  const order = (p: Partial<NewOrder>): NewOrder => ({
    id: `o${++seq}`,
    account: 'maker',
    owner: 'k-maker',
    tokenId: 'Y',
    side: 'BUY',
    price: 5000,
    size: 10 * SH,
    type: 'GTC',
    postOnly: false,
    expiresAt: 0,
    feeRateBps: marketBps,
    ...p,
  });
  /** A trade record as the venue renders it (src/exchange/http/render.ts), parsed as the bot parses it. */
  const wire = (t: Trade) =>
    tradeRecordSchema.parse({
      id: t.id,
      taker_order_id: t.takerOrderId,
      market: t.market,
      asset_id: t.tokenId,
      side: t.side,
      size: formatAmount(t.size),
      price: formatPrice(t.price),
      status: 'MATCHED',
      fee_rate_bps: String(t.feeRateBps),
      match_time: '1',
      maker_orders: t.makers.map((m) => ({
        order_id: m.orderId,
        matched_amount: formatAmount(m.size),
        price: formatPrice(m.price),
        asset_id: m.tokenId,
        side: m.side,
        fee_rate_bps: '0',
      })),
    });

  // a maker: [YES-scale price in ticks 1..99, size in whole shares 1..40, rests as a YES or a NO order]
  const maker = fc.tuple(fc.integer({ min: 1, max: 99 }), fc.integer({ min: 1, max: 40 }), fc.boolean());

  it('for takers of either token and side meeting 1..6 makers, V1 and V2, on the rate of the market', () => {
    let traded = 0;
    let swept = 0;
    fc.assert(
      fc.property(
        fc.array(maker, { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: MAX_FEE_RATE_BPS }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom<FeeProtocol>(1, 2),
        (makers, bps, takerYes, takerBuy, protocol) => {
          marketBps = bps;
          const e = new MatchingEngine({});
          e.addMarket(market(bps));
          e.credit('maker', 1_000_000 * SH);
          e.credit('taker', 1_000_000 * SH);
          // the taker's shares to sell: minted pairs (BUY YES + BUY NO of a third account's)
          if (!takerBuy) {
            e.credit('minter', 1_000_000 * SH);
            const q = 200 * SH;
            e.place(order({ account: 'minter', tokenId: 'Y', price: 5000, size: q }), 1);
            e.place(order({ account: 'taker', tokenId: 'N', price: 5000, size: q }), 1);
            e.place(order({ account: 'minter', tokenId: 'N', price: 5000, size: q }), 1);
            e.place(order({ account: 'taker', tokenId: 'Y', price: 5000, size: q }), 1);
          }
          // makers: on the side the taker meets (a taker BUY YES meets YES asks = NO bids)
          const isBid = takerBuy === takerYes; // the taker bids on the YES book
          for (const [tick, shares, asYes] of makers) {
            const yesPx = tick * 100;
            // a resting order on the YES book's other side: YES SELL / NO BUY (asks), YES BUY / NO SELL (bids)
            const side = isBid === asYes ? 'SELL' : 'BUY';
            if (side === 'SELL') continue; // makers own no shares: only BUY makers (of YES or NO) rest
            e.place(
              order({
                tokenId: asYes ? 'Y' : 'N',
                side,
                price: asYes ? yesPx : PRICE_SCALE - yesPx,
                size: shares * SH,
              }),
              2,
            );
          }
          const limit = takerYes ? (takerBuy ? 9900 : 100) : takerBuy ? 9900 : 100;
          const r = e.place(
            {
              ...order({ account: 'taker', owner: 'k-taker', tokenId: takerYes ? 'Y' : 'N' }),
              side: takerBuy ? 'BUY' : 'SELL',
              price: limit,
              size: 150 * SH,
              type: 'FAK',
              feeRateBps: bps,
              feeModel: protocol === 2 ? 'v2' : 'v1',
            },
            3,
          );
          if (!r.ok || r.trade === null) return;
          const t = r.trade;
          traded++;
          if (t.makers.length > 1) swept++;
          const matches = t.makers.map(
            (m) => [m.tokenId === t.tokenId ? m.price : PRICE_SCALE - m.price, m.size] as const,
          );
          expect(t.fee).toBe(takerFeeOfMatches(protocol, matches, bps));
          expect(tradeTakerFee(wire(t), protocol)).toBe(t.fee);
          if (t.makers.length === 1) expect(takerFee(protocol, t.size, t.price, bps)).toBe(t.fee);
        },
      ),
      { numRuns: 400 },
    );
    // the cases are trades, many of them sweeps of several makers
    expect(traded).toBeGreaterThan(250);
    expect(swept).toBeGreaterThan(100);
  });
});
