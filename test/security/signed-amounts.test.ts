/**
 * Issue 16, defect 3: a fill never takes more than an order's signed makerAmount, nor gives less
 * than its signed takerAmount, in proportion to the size filled. The limit a signed order gets on
 * the book is never better for it than its amounts: the implied price is rounded in the order's own
 * favour (a BUY's down, a SELL's up), never to the nearest pip; limit orders must sign a tick price
 * (refused otherwise), market orders (FOK/FAK) sign off the grid by design and take the tick at or
 * below (BUY) / at or above (SELL) their implied price. Orders the public client builds keep working.
 * Real paper exchange on loopback, real HTTP, real signatures.
 */
import { ClobClient, OrderType, Side as PcSide } from '@polymarket/clob-client';
import { createWalletClient, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { polygon } from 'viem/chains';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderToWire, signOrder, type SignedOrderStruct } from '../../src/api/signing/order.ts';
import { PRICE_SCALE, type Side } from '../../src/core/units.ts';
import type { MarketInfo, Trader } from '../integration/support/trader.ts';
import { startVenue, yes, type TestVenue } from '../integration/support/setup.ts';

const USDC = 1_000_000;
let v: TestVenue;
let markets: MarketInfo[];
let salt = 1;

/** A POST /order body for `t` with exactly these signed amounts (micro-units). */
function signed(
  t: Trader,
  tokenId: string,
  side: Side,
  makerAmount: number,
  takerAmount: number,
  orderType: 'GTC' | 'FOK' | 'FAK',
): { id: string; body: Record<string, unknown> } {
  const struct: SignedOrderStruct = {
    salt: BigInt(Date.now() * 1000 + salt++),
    maker: t.wallet.address,
    signer: t.wallet.address,
    taker: '0x0000000000000000000000000000000000000000',
    tokenId: BigInt(tokenId),
    makerAmount: BigInt(makerAmount),
    takerAmount: BigInt(takerAmount),
    expiration: 0n,
    nonce: 0n,
    feeRateBps: 0n,
    side: side === 'BUY' ? 0 : 1,
    signatureType: 0,
  };
  const { digest, signature } = signOrder(t.wallet, struct, 137, false);
  return { id: digest, body: { order: orderToWire(struct, signature), owner: t.creds!.apiKey, orderType } };
}

const engine = () => v.running.exchange.engine;
/** Collateral the account holds (available + reserved), micro. */
const collateral = (addr: string) => {
  const b = engine().balance(addr);
  return b.collateral + b.collateralReserved;
};
const reserved = (addr: string) => engine().balance(addr).collateralReserved;
/** Tokens the account holds (available + reserved), micro. */
const tokens = (addr: string, tok: string) => {
  const b = engine().balance(addr).tokens.get(tok);
  return (b?.available ?? 0) + (b?.reserved ?? 0);
};
/** The fills (maker price and size) of the trade an order took as taker. */
const takerFills = (orderId: string) =>
  v.running.exchange
    .allTrades()
    .filter((r) => r.trade.takerOrderId === orderId)
    .flatMap((r) => r.trade.makers.map((m) => ({ price: m.price, size: m.size })));

/** BUY: `paid` for `shares` is at most makerAmount × shares / takerAmount (exact, in integers). */
function expectBuyCapped(paid: number, shares: number, makerAmount: number, takerAmount: number): void {
  expect(BigInt(paid) * BigInt(takerAmount)).toBeLessThanOrEqual(BigInt(makerAmount) * BigInt(shares));
}
/** SELL: `got` for `shares` is at least takerAmount × shares / makerAmount. */
function expectSellCapped(got: number, shares: number, makerAmount: number, takerAmount: number): void {
  expect(BigInt(got) * BigInt(makerAmount)).toBeGreaterThanOrEqual(BigInt(takerAmount) * BigInt(shares));
}

/** A public client (@polymarket/clob-client, unchanged) with its own key, and its address. */
async function publicClient(): Promise<{ c: ClobClient; address: string }> {
  const account = privateKeyToAccount(generatePrivateKey());
  const w = createWalletClient({ account, chain: polygon, transport: http('http://127.0.0.1:9') });
  const creds = await new ClobClient(v.clob, 137, w as any).createOrDeriveApiKey();
  return { c: new ClobClient(v.clob, 137, w as any, creds), address: account.address.toLowerCase() };
}

async function sellerWith(tok: string, shares: string): Promise<Trader> {
  const s = await v.trader();
  expect((await v.admin('/balances', { address: s.address, tokens: { [tok]: shares } })).status).toBe(200);
  return s;
}

beforeAll(async () => {
  v = await startVenue({ exchange: { protocol: 1 } }); // the V1 public client's orders
  // a fresh book per test: the seeded normal (not neg-risk) markets with tick 0.01
  markets = v.markets.filter((m) => !m.neg_risk && m.minimum_tick_size === 0.01);
  expect(markets.length).toBeGreaterThanOrEqual(3);
});
afterAll(async () => v?.close());

describe('signed amounts bound every fill (issue 16, defect 3)', () => {
  it('a BUY of 100 signed for 74.995 is never charged more than 74.995 pro rata; one signed for 75 fills at 0.75', async () => {
    const tok = yes(markets[0]!);
    const buyer = await v.trader();
    const seller = await sellerWith(tok, '1000');
    const start = collateral(buyer.address);
    const charged = () => start - collateral(buyer.address);
    const bought = () => tokens(buyer.address, tok);

    // resting: nothing above the signed 74.995 is reserved; its implied price (0.74995) is not a tick
    const o = signed(buyer, tok, 'BUY', 74_995_000, 100 * USDC, 'GTC');
    const r = await buyer.l2('POST', '/order', o.body);
    expect(reserved(buyer.address)).toBeLessThanOrEqual(74_995_000);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, orderID: o.id, error: { code: 'INVALID_ORDER_MIN_TICK_SIZE' } });
    // sellers at 0.75, in three parts: no part is charged over the order's signed price
    for (const n of ['20', '30', '50']) {
      await seller.place(tok, 'SELL', '0.75', n);
      expectBuyCapped(charged(), bought(), 74_995_000, 100 * USDC);
    }
    // taking the asks at 0.75 is refused the same way
    const again = signed(buyer, tok, 'BUY', 74_995_000, 100 * USDC, 'GTC');
    expect((await buyer.l2('POST', '/order', again.body)).body).toMatchObject({
      error: { code: 'INVALID_ORDER_MIN_TICK_SIZE' },
    });
    expect(charged()).toBe(0);
    expect(bought()).toBe(0);

    // the public client's BUY 100 @ 0.75 (signed 75.000000) takes the same asks at 0.75
    const pc = await publicClient();
    const pcStart = collateral(pc.address);
    const res = await pc.c.createAndPostOrder(
      { tokenID: tok, price: 0.75, size: 100, side: PcSide.BUY },
      { tickSize: '0.01', negRisk: false },
    );
    expect(res).toMatchObject({ success: true, status: 'matched' });
    expect(pcStart - collateral(pc.address)).toBe(75 * USDC);
    expect(tokens(pc.address, tok)).toBe(100 * USDC);

    // a BUY signed a little over 0.75 (75.00009) rests at 0.75 and pays 0.75 exactly, part by part
    const over = signed(buyer, tok, 'BUY', 75_000_090, 100 * USDC, 'GTC');
    expect((await buyer.l2('POST', '/order', over.body)).body).toMatchObject({ success: true, status: 'live' });
    expect(reserved(buyer.address)).toBe(75 * USDC);
    for (const n of ['20', '30', '50']) {
      await seller.place(tok, 'SELL', '0.75', n);
      expectBuyCapped(charged(), bought(), 75_000_090, 100 * USDC);
      expect(charged() * PRICE_SCALE).toBe(bought() * 7500);
    }
    expect([charged(), bought(), reserved(buyer.address)]).toEqual([75 * USDC, 100 * USDC, 0]);
  });

  it('a SELL of 100 signed for at least 75.004 never receives less pro rata; one asking 74.99999 fills at 0.75', async () => {
    const tok = yes(markets[1]!);
    const seller = await sellerWith(tok, '1000');
    const buyer = await v.trader();
    const start = collateral(seller.address);
    const got = () => collateral(seller.address) - start;
    const sold = () => 1000 * USDC - tokens(seller.address, tok);

    // its implied price (0.75004) is above the 0.75 tick: never rounded down to it
    const o = signed(seller, tok, 'SELL', 100 * USDC, 75_004_000, 'GTC');
    const r = await seller.l2('POST', '/order', o.body);
    for (const n of ['20', '30', '50']) {
      await buyer.place(tok, 'BUY', '0.75', n);
      expectSellCapped(got(), sold(), 100 * USDC, 75_004_000);
    }
    expect(r.body).toMatchObject({ success: false, orderID: o.id, error: { code: 'INVALID_ORDER_MIN_TICK_SIZE' } });
    expect([got(), sold()]).toEqual([0, 0]);

    // a SELL asking a little under 0.75 (74.99999) takes the three bids at 0.75, each fill at 0.75
    const under = signed(seller, tok, 'SELL', 100 * USDC, 74_999_990, 'GTC');
    expect((await seller.l2('POST', '/order', under.body)).body).toMatchObject({ success: true, status: 'matched' });
    const fills = takerFills(under.id);
    expect(fills.map((f) => f.size)).toEqual([20, 30, 50].map((n) => n * USDC));
    for (const f of fills) {
      expect(f.price).toBe(7500);
      expectSellCapped((f.size * f.price) / PRICE_SCALE, f.size, 100 * USDC, 74_999_990);
    }
    expect([got(), sold()]).toEqual([75 * USDC, 100 * USDC]);
  });

  it('market orders: off-grid amounts are accepted and no fill passes the signed price; the public client fills at its price', async () => {
    const tok = yes(markets[2]!);
    const s1 = await sellerWith(tok, '1000');
    const s2 = await sellerWith(tok, '1000');
    const taker = await v.trader();
    expect((await s1.place(tok, 'SELL', '0.73', '40')).body.status).toBe('live');
    expect((await s2.place(tok, 'SELL', '0.75', '60')).body.status).toBe('live');

    // FAK BUY: spend at most 74.995 for at least 100 shares (0.74995 a share): takes 0.73, not 0.75
    let spent = collateral(taker.address);
    const fak = signed(taker, tok, 'BUY', 74_995_000, 100 * USDC, 'FAK');
    const r = await taker.l2('POST', '/order', fak.body);
    expect(r.status).toBe(200);
    for (const f of takerFills(fak.id))
      expectBuyCapped((f.size * f.price) / PRICE_SCALE, f.size, 74_995_000, 100 * USDC);
    spent -= collateral(taker.address);
    expectBuyCapped(spent, tokens(taker.address, tok), 74_995_000, 100 * USDC);
    expect(r.body).toMatchObject({ success: true, status: 'matched', makingAmount: '29.2', takingAmount: '40' });
    expect(reserved(taker.address)).toBe(0);

    // FOK BUY: at most 44.99 for at least 60 shares (0.74983): its implied price is off the grid by
    // far more than a pip, and it is accepted all the same, at the 0.74 tick
    await s1.place(tok, 'SELL', '0.74', '60');
    const fok = signed(taker, tok, 'BUY', 44_990_000, 60 * USDC, 'FOK');
    const f2 = await taker.l2('POST', '/order', fok.body);
    expect(f2.body).toMatchObject({ success: true, status: 'matched', makingAmount: '44.4', takingAmount: '60' });
    for (const f of takerFills(fok.id))
      expectBuyCapped((f.size * f.price) / PRICE_SCALE, f.size, 44_990_000, 60 * USDC);

    // the public client's market BUY of $45 priced at 0.75 takes the 60 left at 0.75
    const pc = await publicClient();
    const before = collateral(pc.address);
    const buy = await pc.c.createAndPostMarketOrder(
      { tokenID: tok, amount: 45, price: 0.75, side: PcSide.BUY, orderType: OrderType.FOK },
      { tickSize: '0.01', negRisk: false },
      OrderType.FOK,
    );
    expect(buy, JSON.stringify(buy)).toMatchObject({ success: true, status: 'matched' });
    expect([before - collateral(pc.address), tokens(pc.address, tok)]).toEqual([45 * USDC, 60 * USDC]);

    // SELL side: at least 74.004 for 100 shares (0.74004 a share) takes the 0.76 bid, not the 0.74 one
    const b1 = await v.trader();
    const b2 = await v.trader();
    await b1.place(tok, 'BUY', '0.76', '50');
    await b2.place(tok, 'BUY', '0.74', '50');
    const seller = await sellerWith(tok, '100');
    const sell = signed(seller, tok, 'SELL', 100 * USDC, 74_004_000, 'FAK');
    const got0 = collateral(seller.address);
    const s = await seller.l2('POST', '/order', sell.body);
    expect(s.body).toMatchObject({ success: true, status: 'matched' });
    for (const f of takerFills(sell.id))
      expectSellCapped((f.size * f.price) / PRICE_SCALE, f.size, 100 * USDC, 74_004_000);
    expectSellCapped(
      collateral(seller.address) - got0,
      100 * USDC - tokens(seller.address, tok),
      100 * USDC,
      74_004_000,
    );
    expect(tokens(seller.address, tok)).toBe(50 * USDC);

    // and its market SELL of 50 priced at 0.74 takes the bid left at 0.74
    const pcSell = await pc.c.createAndPostMarketOrder(
      { tokenID: tok, amount: 50, price: 0.74, side: PcSide.SELL, orderType: OrderType.FAK },
      { tickSize: '0.01', negRisk: false },
      OrderType.FAK,
    );
    expect(pcSell, JSON.stringify(pcSell)).toMatchObject({ success: true, status: 'matched' });
    expect([before - collateral(pc.address), tokens(pc.address, tok)]).toEqual([45 * USDC - 37 * USDC, 10 * USDC]);
  });
});
