import { describe, expect, it } from 'vitest';
import { Wallet } from 'ethers';
import { OrderBuilder } from '../../../../src/api/orders.ts';
import { orderFromWire, recoverSigner, type WireOrder } from '../../../../src/api/signing/order.ts';
import { LiveClock } from '../../../../src/core/clock.ts';
import type { ConditionId, TokenId } from '../../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../../src/core/units.ts';
import { feeOf, liveVenueFromParts, venueFillsOf } from '../../../../src/venues/live/live-venue.ts';
import type { MarketInfo, PlaceRequest } from '../../../../src/core/venue.ts';

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
      {
        order_id: '0xmine1',
        owner: 'my-key',
        maker_address: '0xme',
        matched_amount: '10',
        price: '0.42',
        asset_id: 'YES',
        side: 'BUY',
        fee_rate_bps: '0',
      },
      {
        order_id: '0xother',
        owner: 'x',
        maker_address: '0xthem',
        matched_amount: '5',
        price: '0.58',
        asset_id: 'NO',
        side: 'SELL',
        fee_rate_bps: '0',
      },
    ],
    ...o,
  };
}

describe('live venue: fills of trade records', () => {
  it('a maker fill is ours when a maker order is, on that order own token, side and price (a complementary match)', () => {
    const f = venueFillsOf([trade()], ME);
    expect(f).toEqual([
      {
        tradeId: 't1',
        orderId: '0xmine1',
        market: '0xm',
        tokenId: 'YES',
        side: 'BUY',
        price: 4200,
        size: 10_000_000,
        role: 'MAKER',
        fee: 0,
        status: 'MATCHED',
        matchTime: 1_700_000_000_000,
      },
    ]);
  });

  it('a taker fill is the taker order (with its taker fee); our maker orders in the same trade are fills too', () => {
    const rec = trade({
      trader_side: 'TAKER',
      owner: 'my-key',
      maker_address: '0xme',
      fee_rate_bps: '100',
      maker_orders: [
        {
          order_id: '0xmine2',
          owner: 'my-key',
          matched_amount: '3',
          price: '0.42',
          asset_id: 'YES',
          side: 'BUY',
          fee_rate_bps: '0',
        },
      ],
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

  it('fee, protocol 1: size × min(p, 1 − p) × bps, floored to a micro', () => {
    expect(feeOf(10_000_000, 5800, 100, 1)).toBe(42_000); // 10 × 0.42 × 1%
    expect(feeOf(10_000_000, 2000, 100, 1)).toBe(20_000);
    expect(feeOf(10_000_000, 2000, 0, 1)).toBe(0);
    expect(feeOf(1, 5000, 1, 1)).toBe(0);
  });

  it('fee, protocol 2 (the default): size × bps × p × (1 − p), floored to 0.00001', () => {
    expect(feeOf(10_000_000, 5800, 100)).toBe(24_360); // 10 × 1% × 0.58 × 0.42
    expect(feeOf(10_000_000, 2000, 100, 2)).toBe(16_000);
    expect(feeOf(10_000_000, 2000, 0)).toBe(0);
    expect(feeOf(5_000_000, 5500, 700)).toBe(86_620); // 0.086625 floored
  });

  it('a taker fill of a sweep: each maker match charged apart (the record carries no fee), by protocol', () => {
    const mo = (id: string, asset: string, side: string, price: string) => ({
      order_id: id,
      owner: 'x',
      matched_amount: '5',
      price,
      asset_id: asset,
      side,
      fee_rate_bps: '0',
    });
    const rec = trade({
      trader_side: 'TAKER',
      owner: 'my-key',
      maker_address: '0xme',
      asset_id: 'YES',
      size: '10',
      price: '0.55',
      fee_rate_bps: '700',
      // a YES seller at 0.55 and a NO buyer at 0.45: both matches at 0.55 on the taker's token
      maker_orders: [mo('0xm1', 'YES', 'SELL', '0.55'), mo('0xm2', 'NO', 'BUY', '0.45')],
    });
    const taker = (p: 1 | 2) => venueFillsOf([rec], ME, p).find((f) => f.role === 'TAKER');
    // 2 × floor10(5 × 0.07 × 0.55 × 0.45 = 0.086625) = 0.17324, not floor10(10 × ...) = 0.17325
    expect(taker(2)?.fee).toBe(173_240);
    expect(taker(1)?.fee).toBe(2 * 157_500);
  });
});

describe('live venue: speculative signing (presign)', () => {
  const PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
  const wallet = new Wallet(PK);
  const CIDX = '0xcid' as ConditionId;
  const Y = '71321045679252212594626385532706912750332728571942532289631379312455583992563' as TokenId;
  const N = '52114319501245915516055106046884209969926127482827954674443846427813813222426' as TokenId;
  const info = (o: Partial<MarketInfo> = {}): MarketInfo => ({
    market: CIDX,
    question: 'q?',
    tokens: [
      { tokenId: Y, outcome: 'Yes' },
      { tokenId: N, outcome: 'No' },
    ],
    tick: '0.01',
    minOrderSize: 5_000_000 as Micro,
    negRisk: false,
    feeRateBps: 0,
    active: true,
    endDate: '',
    ...o,
  });
  const venue = (presign: { ticks?: number; copies?: number; capacity?: number } | false = { ticks: 1 }) => {
    const transport = { request: () => Promise.reject(new Error('no network in this test')) };
    const v = liveVenueFromParts({
      transport,
      creds: { apiKey: 'k', secret: 'AAAA', passphrase: 'p' },
      address: wallet.address,
      builder: new OrderBuilder({ wallet, chainId: 137, protocol: 1 }),
      urls: { ws: 'ws://x' },
      clock: new LiveClock(),
      presign,
    });
    v.learnMarkets([info()]);
    return v;
  };
  const req = (price: number, o: Partial<PlaceRequest> = {}): PlaceRequest => ({
    market: CIDX,
    tokenId: Y,
    side: 'BUY',
    price: price as Pips,
    size: 5_000_000 as Micro,
    type: 'GTC',
    ...o,
  });
  /** Lets the idle signer run until it has nothing left. */
  const idle = async (v: ReturnType<typeof venue>) => {
    for (let i = 0; i < 200; i++) {
      const before = v.stats().presigned;
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      if (v.stats().presigned === before) return;
    }
  };
  /** The order a prepared one is, as signed (recovering the signer proves the signature). */
  const check = (p: { id: string; wire: unknown }, r: PlaceRequest, m = info()) => {
    const w = p.wire as WireOrder;
    const { order, signature } = orderFromWire(w);
    expect(recoverSigner(p.id, signature)).toBe(wallet.address.toLowerCase());
    const again = new OrderBuilder({ wallet, chainId: 137, protocol: 1, salt: () => w.salt }).buildLimit({
      tokenId: r.tokenId,
      side: r.side,
      price: r.price,
      size: r.size,
      tick: m.tick,
      negRisk: m.negRisk,
      feeRateBps: m.feeRateBps,
    });
    expect(again.id).toBe(p.id);
    expect(order.tokenId).toBe(BigInt(r.tokenId));
  };

  it('signs the order and its neighbours in idle time, keeps two of each, and serves an identical order from them', async () => {
    const v = venue({ ticks: 1 });
    const first = v.prepare([req(4500)]);
    expect(v.stats()).toMatchObject({ presignHits: 0, presignMisses: 1 });
    check(first[0]!, req(4500));
    await idle(v);
    expect(v.stats().presignHeld).toBe(6); // 4400, 4500, 4600: two copies each
    // the same order twice in a row (a pair re-placed when only the other side moved): both from the cache
    const a = v.prepare([req(4500)]);
    const b = v.prepare([req(4500)]);
    expect(v.stats()).toMatchObject({ presignHits: 2, presignMisses: 1 });
    expect(new Set([first[0]!.id, a[0]!.id, b[0]!.id]).size).toBe(3); // each has its own salt
    check(a[0]!, req(4500));
    check(b[0]!, req(4500));
    // a neighbour
    check(v.prepare([req(4600)])[0]!, req(4600));
    expect(v.stats()).toMatchObject({ presignHits: 3, presignMisses: 1 });
    await idle(v);
    expect(v.stats().presignHeld).toBe(8); // 4400..4700, refilled
    await v.close();
  });

  it('never serves an order signed for another size, side, token, tick, neg-risk or fee', async () => {
    const v = venue({ ticks: 0 });
    v.prepare([req(4500)]);
    await idle(v);
    expect(v.stats().presignHeld).toBe(2);
    check(v.prepare([req(4500, { size: 6_000_000 as Micro })])[0]!, req(4500, { size: 6_000_000 as Micro }));
    check(v.prepare([req(4500, { side: 'SELL' })])[0]!, req(4500, { side: 'SELL' }));
    check(v.prepare([req(4500, { tokenId: N })])[0]!, req(4500, { tokenId: N }));
    expect(v.stats()).toMatchObject({ presignHits: 0, presignMisses: 4 });
    for (const change of [{ negRisk: true }, { feeRateBps: 25 }, { tick: '0.001' as const }]) {
      v.learnMarkets([info(change)]);
      check(v.prepare([req(4500)])[0]!, req(4500), info(change));
      v.learnMarkets([info()]);
    }
    expect(v.stats().presignHits).toBe(0);
    // back to the market as it was: the orders signed for it serve again
    check(v.prepare([req(4500)])[0]!, req(4500));
    expect(v.stats().presignHits).toBe(1);
    await v.close();
  });

  it('holds at most `capacity` orders; `copies: 1` keeps one; `false` signs nothing ahead', async () => {
    const v = venue({ ticks: 2, copies: 3, capacity: 4 });
    v.prepare([req(4500)]);
    await idle(v);
    expect(v.stats().presignHeld).toBe(4);
    await v.close();
    const one = venue({ ticks: 0, copies: 1 });
    one.prepare([req(4500)]);
    await idle(one);
    expect(one.stats().presignHeld).toBe(1);
    await one.close();
    const off = venue(false);
    off.prepare([req(4500)]);
    await idle(off);
    expect(off.stats()).toMatchObject({ presignHeld: 0, presigned: 0, presignMisses: 0, presignHits: 0 });
    await off.close();
  });
});
