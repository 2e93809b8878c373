/**
 * Issue 17: the paper exchange verifies CTF Exchange V2 orders as strictly as V1 ones. A V2 order
 * naming another's wallet as maker is refused (INVALID_ORDER_OWNER) and changes nothing, for every
 * signature type, POLY_1271 deposit wallets included; a tampered signed field is a bad signature;
 * an order signed in the protocol the exchange does not speak is refused with the public service's
 * `order_version_mismatch`; a fill never takes more than the signed makerAmount, and the V2 fee
 * (the market's rate at match time, not signed) is charged besides, at most rate × the fill's
 * collateral; a signed timestamp far ahead of the clock is refused. Real paper exchange on
 * loopback, real HTTP, real signatures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderToWire, signOrder, type SignedOrderStruct } from '../../src/api/signing/order.ts';
import {
  orderToWireV2,
  signOrderV2,
  ZERO_BYTES32,
  type SignatureTypeV2,
  type SignedOrderStructV2,
} from '../../src/api/signing/order-v2.ts';
import { curveFee } from '../../src/core/order-rules.ts';
import { limitOrderAmounts, marketOrderAmounts, type Side } from '../../src/core/units.ts';
import { proxyWalletOf, safeOf } from '../../src/exchange/accounts/funders.ts';
import { initialMarkets, type MarketMeta } from '../../src/exchange/markets.ts';
import { startExchange } from '../../src/exchange/server.ts';
import { startVenue, yes, type TestVenue } from '../integration/support/setup.ts';
import { Trader } from '../integration/support/trader.ts';

let v: TestVenue; // speaks V2
let v1: TestVenue; // speaks V1 (--protocol 1)
let a: Trader; // the attacker's key
let b: Trader; // the victim
let feeMarket: MarketMeta;
const FEE_BPS = 700;
let salt = 1;

interface V2Opts {
  maker?: string;
  signer?: string;
  signatureType?: SignatureTypeV2;
  /** The key that signs (default the trader's wallet); for POLY_1271 the wallet's owner. */
  key?: Wallet;
  tokenId?: string;
  orderType?: 'GTC' | 'FOK' | 'FAK';
  market?: boolean;
  timestampMs?: number;
  negRiskDomain?: boolean;
}

/** A V2 order of `t`, signed as `o` says, as a POST /order body (the wire is mutable: tamper freely). */
function v2Order(
  t: Trader,
  side: Side,
  price: string,
  size: string,
  o: V2Opts = {},
): { id: string; struct: SignedOrderStructV2; body: { order: Record<string, unknown>; [k: string]: unknown } } {
  const amounts = o.market
    ? marketOrderAmounts(side, '0.01', price, size)
    : limitOrderAmounts(side, '0.01', price, size);
  const maker = o.maker ?? t.wallet.address;
  const struct: SignedOrderStructV2 = {
    salt: BigInt(Date.now() * 1000 + salt++),
    maker,
    signer: o.signer ?? (o.signatureType === 3 ? maker : t.wallet.address),
    tokenId: BigInt(o.tokenId ?? yes(v.m1)),
    makerAmount: amounts.makerAmount,
    takerAmount: amounts.takerAmount,
    side: side === 'BUY' ? 0 : 1,
    signatureType: o.signatureType ?? 0,
    timestamp: BigInt(o.timestampMs ?? Date.now()),
    metadata: ZERO_BYTES32,
    builder: ZERO_BYTES32,
  };
  const { digest, signature } = signOrderV2(o.key ?? t.wallet, struct, 137, o.negRiskDomain ?? false);
  return {
    id: digest,
    struct,
    body: {
      order: { ...orderToWireV2(struct, signature) },
      owner: t.creds!.apiKey,
      orderType: o.orderType ?? 'GTC',
      deferExec: false,
      postOnly: false,
    },
  };
}

/** A V1 order of `t` (EOA), as a POST /order body. */
function v1Order(t: Trader, side: Side, price: string, size: string): { id: string; body: Record<string, unknown> } {
  const amounts = limitOrderAmounts(side, '0.01', price, size);
  const struct: SignedOrderStruct = {
    salt: BigInt(Date.now() * 1000 + salt++),
    maker: t.wallet.address,
    signer: t.wallet.address,
    taker: '0x0000000000000000000000000000000000000000',
    tokenId: BigInt(yes(v.m1)),
    makerAmount: amounts.makerAmount,
    takerAmount: amounts.takerAmount,
    expiration: 0n,
    nonce: 0n,
    feeRateBps: 0n,
    side: side === 'BUY' ? 0 : 1,
    signatureType: 0,
  };
  const { digest, signature } = signOrder(t.wallet, struct, 137, false);
  return { id: digest, body: { order: orderToWire(struct, signature), owner: t.creds!.apiKey, orderType: 'GTC' } };
}

const ex = () => v.running.exchange;
/** Collateral the account holds (available + reserved), micro. */
const collateral = (addr: string) => {
  const bal = ex().engine.balance(addr.toLowerCase());
  return bal.collateral + bal.collateralReserved;
};
/** Everything an account's key can observe of it. */
async function stateOf(t: Trader) {
  return {
    balances: (await t.l2('GET', '/balances')).body,
    orders: (await t.l2('GET', '/data/orders')).body,
    trades: (await t.l2('GET', '/data/trades')).body,
  };
}

beforeAll(async () => {
  [v, v1] = await Promise.all([startVenue({ exchange: { protocol: 2 } }), startVenue({ exchange: { protocol: 1 } })]);
  feeMarket = { ...initialMarkets(7171, Date.now())[0]!, feeRateBps: FEE_BPS };
  ex().addMarket(feeMarket);
  a = await v.trader();
  b = await v.trader();
});
afterAll(async () => {
  await Promise.all([v?.close(), v1?.close()]);
});

describe('V2 orders: who may fund them', () => {
  it("naming another's wallet as maker is refused INVALID_ORDER_OWNER, for every signature type, and changes nothing", async () => {
    const before = await stateOf(b);
    const victim = b.wallet.address;
    const attempts: Array<[string, V2Opts]> = [
      ['EOA, maker = the victim', { maker: victim, signatureType: 0 }],
      ["POLY_PROXY, maker = the victim's proxy wallet", { maker: proxyWalletOf(victim), signatureType: 1 }],
      ["POLY_GNOSIS_SAFE, maker = the victim's Safe", { maker: safeOf(victim), signatureType: 2 }],
      ['POLY_PROXY, maker = the victim', { maker: victim, signatureType: 1 }],
      // the attacker signs an envelope for the victim's address as if it were its deposit wallet
      ['POLY_1271, wallet = the victim', { maker: victim, signatureType: 3 }],
      // signer and maker must both be the deposit wallet
      ['POLY_1271, signer = the attacker', { maker: victim, signer: a.wallet.address, signatureType: 3 }],
    ];
    for (const [what, o] of attempts) {
      const { body } = v2Order(a, 'BUY', '0.30', '5', o);
      const r = await a.l2('POST', '/order', body);
      expect(r.status, what).toBe(400);
      expect(r.body.error.code, what).toBe('INVALID_ORDER_OWNER');
    }
    expect(await stateOf(b)).toEqual(before);
  });

  it('a POLY_1271 wallet trades only for the owner it is registered to, and only with its signature', async () => {
    const wallet = Wallet.createRandom().address;
    ex().fund(wallet, 50_000_000);
    // registered to the victim (b): the attacker's key cannot use it, even with a valid envelope of its own
    expect((await v.admin('/funders', { signer: b.address, funder: wallet })).status).toBe(200);
    const stolen = await a.l2(
      'POST',
      '/order',
      v2Order(a, 'BUY', '0.30', '5', { maker: wallet, signatureType: 3 }).body,
    );
    expect(stolen.status).toBe(400);
    expect(stolen.body.error).toMatchObject({ code: 'INVALID_ORDER_OWNER' });
    expect(stolen.body.error.message).toMatch(/not registered to its owner.*POST \/admin\/funders/);
    // nor can it post the owner's envelope under its own key
    const ownerSigned = v2Order(a, 'BUY', '0.30', '5', { maker: wallet, signatureType: 3, key: b.wallet });
    const replayed = await a.l2('POST', '/order', ownerSigned.body);
    expect(replayed.body.error).toMatchObject({ code: 'INVALID_ORDER_OWNER' });
    expect(replayed.body.error.message).toMatch(/owner who signed/);
    expect(collateral(wallet)).toBe(50_000_000);
    // the owner's own key: accepted
    const own = v2Order(b, 'BUY', '0.30', '5', { maker: wallet, signatureType: 3 });
    const ok = await b.l2('POST', '/order', own.body);
    expect(ok.body).toMatchObject({ success: true, status: 'live', orderID: own.id });
    await b.l2('DELETE', '/order', { orderID: own.id });
  });
});

describe('V2 orders: signatures', () => {
  it('a tampered signed field is a bad signature; the unsigned expiration is not part of the id', async () => {
    for (const [field, value] of [
      ['makerAmount', '99000000'],
      ['takerAmount', '1'],
      ['timestamp', String(Date.now() - 1)],
      ['builder', `0x${'ab'.repeat(32)}`],
      ['metadata', `0x${'01'.repeat(32)}`],
      ['salt', 12345],
    ] as const) {
      const o = v2Order(a, 'BUY', '0.30', '5');
      o.body.order[field] = value;
      const r = await a.l2('POST', '/order', o.body);
      expect(r.status, field).toBe(400);
      expect(r.body.error.code, field).toBe('INVALID_SIGNATURE');
    }
    // POLY_1271: the envelope names the order it signs: another order's is refused with that reason
    const wallet = Wallet.createRandom().address;
    await v.admin('/funders', { signer: a.address, funder: wallet });
    const one = v2Order(a, 'BUY', '0.30', '5', { maker: wallet, signatureType: 3 });
    const two = v2Order(a, 'BUY', '0.31', '5', { maker: wallet, signatureType: 3 });
    one.body.order['signature'] = two.body.order['signature'];
    const r = await a.l2('POST', '/order', one.body);
    expect(r.body.error).toMatchObject({ code: 'INVALID_SIGNATURE' });
    expect(r.body.error.message).toMatch(/contents hash is not this order/);
    // signed for the other exchange contract (neg-risk domain, ordinary market)
    const wrongDomain = await a.l2('POST', '/order', v2Order(a, 'BUY', '0.30', '5', { negRiskDomain: true }).body);
    expect(wrongDomain.body.error.code).toBe('INVALID_SIGNATURE');
    // expiration travels unsigned: a GTD order keeps its id
    const gtd = v2Order(a, 'BUY', '0.30', '5');
    gtd.body.order['expiration'] = String(Math.floor(Date.now() / 1000) + 3600);
    gtd.body['orderType'] = 'GTD';
    const placed = await a.l2('POST', '/order', gtd.body);
    expect(placed.body).toMatchObject({ success: true, orderID: gtd.id });
    await a.l2('DELETE', '/order', { orderID: gtd.id });
  });

  it('a signed timestamp (ms) far ahead of the clock is refused; an old one is fine (orders are presigned)', async () => {
    const ahead = await a.l2(
      'POST',
      '/order',
      v2Order(a, 'BUY', '0.30', '5', { timestampMs: Date.now() + 3_600_000 }).body,
    );
    expect(ahead.status).toBe(400);
    expect(ahead.body.error).toMatchObject({ code: 'INVALID_ORDER_ERROR' });
    expect(ahead.body.error.message).toMatch(/timestamp/);
    const old = v2Order(a, 'BUY', '0.30', '5', { timestampMs: Date.now() - 30 * 86_400_000 });
    const r = await a.l2('POST', '/order', old.body);
    expect(r.body).toMatchObject({ success: true, status: 'live' });
    await a.l2('DELETE', '/order', { orderID: old.id });
  });
});

describe('the protocol the exchange speaks', () => {
  it('speaking V2, a V1 order is refused 400 order_version_mismatch and changes nothing', async () => {
    const before = await stateOf(a);
    const o = v1Order(a, 'BUY', '0.30', '5');
    const r = await a.l2('POST', '/order', o.body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ success: false, orderID: o.id, error: { code: 'INVALID_ORDER_ERROR' } });
    // the public V2 client looks for this text to re-read GET /version and sign again
    expect(JSON.stringify(r.body.error)).toContain('order_version_mismatch');
    expect(r.body.error.message).toContain('order version 1 is not accepted: sign V2 (GET /version)');
    // in a batch: that entry only
    const batch = await a.l2('POST', '/orders', [o.body, v2Order(a, 'BUY', '0.29', '5').body]);
    expect(batch.body.map((x: any) => x.success)).toEqual([false, true]);
    expect(batch.body[0].error.message).toContain('order_version_mismatch');
    await a.l2('DELETE', '/cancel-all');
    const after = await stateOf(a);
    expect(after.orders).toEqual(before.orders);
  });

  it('speaking V1 (--protocol 1), a V2 order is refused the same way; V1 orders still trade', async () => {
    const t = await v1.trader();
    const o = v2Order(t, 'BUY', '0.30', '5');
    const r = await t.l2('POST', '/order', o.body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_ORDER_ERROR');
    expect(r.body.error.message).toContain('order_version_mismatch: order version 2 is not accepted: sign V1');
    expect(v1.running.exchange.engine.getOrder(o.id)).toBeUndefined();
    const ok = await t.place(yes(v1.m1), 'BUY', '0.30', '5');
    expect(ok.body).toMatchObject({ success: true, status: 'live' });
  });
});

describe('V2 fees: the market schedule at match time, never more than signed', () => {
  it('a taker BUY: the fill takes at most the signed makerAmount; the fee, charged besides, is the curve at each fill price', async () => {
    const [y, n] = feeMarket.tokens;
    const maker = await v.trader();
    maker.protocol = 2;
    // YES asks at 0.48 (5 shares) and 0.50 (20): resting BUY NO at 0.52 and 0.50
    expect((await maker.place(n, 'BUY', '0.52', '5')).body.status).toBe('live');
    expect((await maker.place(n, 'BUY', '0.50', '20')).body.status).toBe('live');
    const taker = await v.trader();
    const before = collateral(taker.address);
    // a market BUY: spend at most 5.00 at 0.50 or better (signs makerAmount 5.00, takerAmount 10 shares)
    const o = v2Order(taker, 'BUY', '0.50', '5', { tokenId: y, market: true, orderType: 'FOK' });
    expect(o.struct.makerAmount).toBe(5_000_000n);
    const r = await taker.l2('POST', '/order', o.body);
    expect(r.body).toMatchObject({ success: true, status: 'matched' });
    const making = Math.round(Number(r.body.makingAmount) * 1e6);
    const taking = Math.round(Number(r.body.takingAmount) * 1e6);
    // 5 at 0.48 + 5 at 0.50 = 4.90 for 10 shares: never above makerAmount pro rata
    expect(taking).toBe(10_000_000);
    expect(making).toBe(4_900_000);
    expect(BigInt(making) * o.struct.takerAmount).toBeLessThanOrEqual(o.struct.makerAmount * BigInt(taking));
    const fee = curveFee(5_000_000, 4800, FEE_BPS) + curveFee(5_000_000, 5000, FEE_BPS);
    expect(fee).toBe(87_360 + 87_500);
    // the fee is at most the market rate × the fill's collateral (the V2 contract's own bound)
    expect(fee).toBeLessThanOrEqual(Math.floor((making * FEE_BPS) / 10_000));
    expect(collateral(taker.address)).toBe(before - making - fee);
    const trade = ex()
      .allTrades()
      .find((x) => x.trade.takerOrderId === o.id)!.trade;
    expect(trade).toMatchObject({ feeRateBps: FEE_BPS, fee });
    await maker.l2('DELETE', '/cancel-all');
  });

  it('a taker SELL: it gives at most the signed shares, gets at least the signed price, and the fee comes off its proceeds', async () => {
    const [y] = feeMarket.tokens;
    const buyer = await v.trader();
    buyer.protocol = 2;
    expect((await buyer.place(y, 'BUY', '0.60', '10')).body.status).toBe('live');
    const seller = await v.trader();
    ex().setTokens(seller.address, y, 10_000_000);
    const before = collateral(seller.address);
    const o = v2Order(seller, 'SELL', '0.55', '10', { tokenId: y, orderType: 'FOK' });
    const r = await seller.l2('POST', '/order', o.body);
    expect(r.body).toMatchObject({ success: true, status: 'matched', makingAmount: '10', takingAmount: '6' });
    const fee = curveFee(10_000_000, 6000, FEE_BPS); // 10 × 0.07 × 0.6 × 0.4 = 0.168
    expect(fee).toBe(168_000);
    expect(collateral(seller.address)).toBe(before + 6_000_000 - fee);
    expect(6_000_000).toBeGreaterThanOrEqual(Number(o.struct.takerAmount)); // at least 5.50
  });

  it('a BUY needs the fee it may pay available: reserved at placement, refused without it', async () => {
    const [y] = feeMarket.tokens;
    const t = await v.trader();
    ex().setCollateral(t.address, 5_000_000);
    // 10 shares at 0.50 = 5.00, plus up to 5.00 × 0.07 of fee: not enough
    const r = await t.l2('POST', '/order', v2Order(t, 'BUY', '0.50', '10', { tokenId: y }).body);
    expect(r.body.error).toMatchObject({ code: 'INVALID_ORDER_NOT_ENOUGH_BALANCE' });
    ex().setCollateral(t.address, 5_350_000);
    const ok = await t.l2('POST', '/order', v2Order(t, 'BUY', '0.50', '10', { tokenId: y }).body);
    expect(ok.body).toMatchObject({ success: true, status: 'live' });
    await t.l2('DELETE', '/cancel-all');
  });
});

describe('V2 orders in the journal', () => {
  it('a restart keeps which orders were signed V2 and their fee model', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-v2-'));
    const dbFile = join(dir, 'x.db');
    const start = () =>
      startExchange({
        port: 0,
        seed: 3,
        dbFile,
        exchange: { protocol: 2 },
        world: { agents: 'none', lifecycle: false, priceFeed: false },
      });
    try {
      const first = await start();
      const fm = { ...initialMarkets(55, Date.now())[0]!, feeRateBps: FEE_BPS };
      first.exchange.addMarket(fm);
      const t = new Trader(first.urls.clob_url);
      t.protocol = 2;
      expect((await t.createKey()).status).toBe(200);
      const rest = await t.place(fm.tokens[0], 'BUY', '0.40', '10');
      expect(rest.body.status).toBe('live');
      const u = new Trader(first.urls.clob_url);
      u.protocol = 2;
      await u.createKey();
      const hit = await u.place(fm.tokens[1], 'BUY', '0.60', '5');
      expect(hit.body.status).toBe('matched');
      const fee = first.exchange.allTrades().at(-1)!.trade.fee;
      expect(fee).toBe(curveFee(5_000_000, 6000, FEE_BPS));
      await first.close();
      const second = await start();
      expect(second.exchange.signedProtocol(rest.id)).toBe(2);
      expect(second.exchange.signedProtocol(hit.id)).toBe(2);
      expect(second.exchange.allTrades().at(-1)!.trade.fee).toBe(fee);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
