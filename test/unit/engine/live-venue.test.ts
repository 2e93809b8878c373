import { describe, expect, it } from 'vitest';
import { feeOf, venueFillsOf } from '../../../src/engine/live-venue.ts';

const ME = { apiKey: 'my-key', address: '0xme' };

/** A /data/trades record as the venue renders it. */
function trade(o: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 't1',
    taker_order_id: '0xtaker',
    market: '0xm',
    asset_id: 'NO',
    side: 'BUY',
    size: '15',
    price: '0.58',
    status: 'MATCHED',
    fee_rate_bps: '0',
    trader_side: 'MAKER',
    owner: 'someone',
    maker_address: '0xthem',
    match_time: '1700000000',
    maker_orders: [
      { order_id: '0xmine1', owner: 'my-key', maker_address: '0xme', matched_amount: '10', price: '0.42', asset_id: 'YES', side: 'BUY', fee_rate_bps: '0' },
      { order_id: '0xother', owner: 'x', maker_address: '0xthem', matched_amount: '5', price: '0.58', asset_id: 'NO', side: 'SELL', fee_rate_bps: '0' },
    ],
    ...o,
  };
}

describe('live venue: fills of trade records', () => {
  it('a maker fill is ours when a maker order is, on that order own token, side and price (a complementary match)', () => {
    const f = venueFillsOf([trade()], ME);
    expect(f).toEqual([
      { tradeId: 't1', orderId: '0xmine1', market: '0xm', tokenId: 'YES', side: 'BUY', price: 4200, size: 10_000_000, role: 'MAKER', fee: 0, status: 'MATCHED', matchTime: 1_700_000_000_000 },
    ]);
  });

  it('a taker fill is the taker order (with its taker fee); our maker orders in the same trade are fills too', () => {
    const rec = trade({
      trader_side: 'TAKER',
      owner: 'my-key',
      maker_address: '0xme',
      fee_rate_bps: '100',
      maker_orders: [{ order_id: '0xmine2', owner: 'my-key', matched_amount: '3', price: '0.42', asset_id: 'YES', side: 'BUY', fee_rate_bps: '0' }],
    });
    const f = venueFillsOf([rec], ME);
    expect(f.map((x) => [x.orderId, x.role, x.tokenId, x.size, x.fee])).toEqual([
      ['0xtaker', 'TAKER', 'NO', 15_000_000, feeOf(15_000_000, 5800, 100)],
      ['0xmine2', 'MAKER', 'YES', 3_000_000, 0],
    ]);
  });

  it('records that are not ours or not valid give nothing', () => {
    expect(venueFillsOf([trade({ maker_orders: [] }), { nonsense: true }], ME)).toEqual([]);
  });

  it('fee: size × min(p, 1 − p) × bps, floored to a micro', () => {
    expect(feeOf(10_000_000, 5800, 100)).toBe(42_000); // 10 × 0.42 × 1%
    expect(feeOf(10_000_000, 2000, 100)).toBe(20_000);
    expect(feeOf(10_000_000, 2000, 0)).toBe(0);
    expect(feeOf(1, 5000, 1)).toBe(0);
  });
});
