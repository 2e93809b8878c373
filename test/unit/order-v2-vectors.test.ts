/**
 * V2 test vectors against the public client, `@polymarket/clob-client-v2` 1.1.0 (a dev dependency),
 * called directly: for the same key, fields, salt and timestamp, mmkit's V2 order has the same id
 * (EIP-712 digest), the same signature bytes and the same wire JSON as the public client's, for a
 * standard and a neg-risk market, BUY and SELL, every signature type (EOA, POLY_PROXY,
 * POLY_GNOSIS_SAFE and POLY_1271's ERC-7739 envelope); and mmkit's amounts for a price and a size
 * are the public client's, on every tick size.
 *
 * The client's `ExchangeOrderBuilderV2` (the signer of a V2 order) is not exported by the package
 * (its `exports` map has "." only), so it is imported from its file in the package's dist. The
 * signer given to the client is the ethers v5 shape it expects (`_signTypedData`, `getAddress`)
 * over an ethers v6 Wallet: ECDSA here is deterministic (RFC 6979), so equal digests give equal bytes.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Wallet } from 'ethers';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  OrderBuilder as PublicOrderBuilder,
  OrderType as PublicOrderType,
  Side as PublicSide,
  orderToJsonV2,
} from '@polymarket/clob-client-v2';
import { OrderBuilder, toPostBody, type BuiltOrderV2 } from '../../src/api/orders.ts';
import { wireJson } from '../../src/api/signing/order-common.ts';
import {
  CTF_EXCHANGE_V2,
  NEG_RISK_CTF_EXCHANGE_V2,
  orderFromWireV2,
  orderHasherV2,
  recoverOrderV2,
  type SignatureTypeV2,
  ZERO_BYTES32,
} from '../../src/api/signing/order-v2.ts';
import { limitOrderAmounts, marketOrderAmounts, type Side, type TickSize } from '../../src/core/units.ts';

/** The public client's signed V2 order (its type is not exported by name). */
type PublicSignedOrderV2 = Parameters<typeof orderToJsonV2>[0];

const PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const PK2 = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const PROXY = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const DEPOSIT_WALLET = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const TOKEN = '71321045679252212594626385532706912750332728571942532289631379312455583992563';
const BUILDER_CODE = '0x' + '5b'.repeat(16) + '00'.repeat(16);
const METADATA = '0x' + '00'.repeat(31) + '2a';
const SALT = 479249096354;
const TIMESTAMP = '1777777777777';

/** The ethers v5 signer shape the public client calls (`_signTypedData`), over an ethers v6 Wallet. */
function publicSigner(w: Wallet) {
  return {
    getAddress: async () => w.address,
    _signTypedData: (
      domain: Record<string, unknown>,
      types: Record<string, Array<{ name: string; type: string }>>,
      value: Record<string, unknown>,
    ) => w.signTypedData(domain, types, value),
  };
}

interface PublicExchangeOrderBuilderV2 {
  buildSignedOrder(orderData: Record<string, unknown>): Promise<PublicSignedOrderV2>;
  buildOrderTypedData(order: PublicSignedOrderV2): unknown;
  buildOrderHash(typedData: unknown): string;
}
type PublicExchangeOrderBuilderV2Ctor = new (
  contract: string,
  chainId: number,
  signer: ReturnType<typeof publicSigner>,
  generateSalt?: () => string,
) => PublicExchangeOrderBuilderV2;

let ExchangeOrderBuilderV2: PublicExchangeOrderBuilderV2Ctor;
beforeAll(async () => {
  const dist = path.dirname(createRequire(import.meta.url).resolve('@polymarket/clob-client-v2'));
  const mod = (await import(pathToFileURL(path.join(dist, 'order-utils', 'exchangeOrderBuilderV2.js')).href)) as {
    ExchangeOrderBuilderV2: PublicExchangeOrderBuilderV2Ctor;
  };
  ExchangeOrderBuilderV2 = mod.ExchangeOrderBuilderV2;
});

const wallets = [new Wallet(PK), new Wallet(PK2)];

/** The accounts of each signature type: maker and signer of the order, and the funder option of mmkit. */
function accountOf(st: SignatureTypeV2, w: Wallet): { maker: string; signer: string; funder?: string } {
  if (st === 0) return { maker: w.address, signer: w.address };
  if (st === 3) return { maker: DEPOSIT_WALLET, signer: DEPOSIT_WALLET, funder: DEPOSIT_WALLET };
  return { maker: PROXY, signer: w.address, funder: PROXY };
}

describe('V2 signature vectors: mmkit = the public client, same fields and salt', () => {
  const cases: Array<[string, Side, SignatureTypeV2, number, boolean]> = [];
  for (const negRisk of [false, true])
    for (const side of ['BUY', 'SELL'] as const)
      for (const st of [0, 1, 2, 3] as const)
        for (const k of [0, 1]) cases.push([negRisk ? 'neg-risk' : 'standard', side, st, k, negRisk]);

  it.each(cases)('%s market, %s, signature type %i, key %i', async (_, side, st, k, negRisk) => {
    const w = wallets[k]!;
    const acct = accountOf(st, w);
    // mmkit: price × size → amounts, then the struct, its digest and the signature
    const b = new OrderBuilder({
      wallet: w,
      chainId: 137,
      signatureType: st,
      ...(acct.funder !== undefined ? { funder: acct.funder } : {}),
      builderCode: BUILDER_CODE,
      salt: () => SALT,
    });
    expect(b.protocol).toBe(2);
    const o = b.buildLimit({
      tokenId: TOKEN,
      side,
      price: '0.56',
      size: '21.04',
      tick: '0.01',
      negRisk,
      metadata: METADATA,
      timestampMs: BigInt(TIMESTAMP),
      expiration: 1_900_000_000,
    });
    // the public client, same fields
    const pub = new ExchangeOrderBuilderV2(
      negRisk ? NEG_RISK_CTF_EXCHANGE_V2 : CTF_EXCHANGE_V2,
      137,
      publicSigner(w),
      () => String(SALT),
    );
    const signed = await pub.buildSignedOrder({
      maker: acct.maker,
      signer: acct.signer,
      tokenId: TOKEN,
      makerAmount: o.struct.makerAmount.toString(),
      takerAmount: o.struct.takerAmount.toString(),
      side: side === 'BUY' ? PublicSide.BUY : PublicSide.SELL,
      signatureType: st,
      timestamp: TIMESTAMP,
      metadata: METADATA,
      builder: BUILDER_CODE,
      expiration: '1900000000',
    });
    expect(o.signature).toBe(signed.signature);
    expect(o.id).toBe(pub.buildOrderHash(pub.buildOrderTypedData(signed)));
    // the wire: the JSON text the public client posts, byte for byte
    expect(wireJson(o.wire)).toBe(JSON.stringify(orderToJsonV2(signed, 'owner', PublicOrderType.GTD).order));
    // and back: the strict parser reads it, and the signature recovers to the key's address
    const back = orderFromWireV2(JSON.parse(wireJson(o.wire)));
    expect(back.expiration).toBe(1_900_000_000n);
    const h = orderHasherV2(137, negRisk);
    expect(recoverOrderV2(h, back.order, back.signature)).toEqual({ digest: o.id, recovered: w.address.toLowerCase() });
  });

  it('pinned vectors (standard and neg-risk, EOA BUY): the signature bytes do not drift', async () => {
    const got: string[] = [];
    for (const negRisk of [false, true]) {
      const o = new OrderBuilder({ wallet: PK, chainId: 137, salt: () => SALT }).buildLimit({
        tokenId: TOKEN,
        side: 'BUY',
        price: '0.56',
        size: '21.04',
        tick: '0.01',
        negRisk,
        timestampMs: BigInt(TIMESTAMP),
      });
      expect(o.struct).toMatchObject({ makerAmount: 11_782_400n, takerAmount: 21_040_000n, builder: ZERO_BYTES32 });
      got.push(o.id, o.signature);
    }
    expect(got).toEqual(PINNED);
  });
});

/**
 * Computed with the public client 1.1.0's ExchangeOrderBuilderV2 (key PK, salt SALT, timestamp
 * TIMESTAMP, token TOKEN, 11782400 / 21040000, EOA, metadata and builder zero): order id and
 * signature, on CTF_EXCHANGE_V2 then NEG_RISK_CTF_EXCHANGE_V2.
 */
const PINNED = [
  '0xa74e43b39cd9d298d3e9379f5023dc7ccb12ca0105820382b7230d50afb16145',
  '0x388c67a6b2ee2723c6ca1d8b5d593f955b36ebb0cc8bd6b955f201e9bdb03e761b019d4c85633ef826e6705fe35c91f691671550adba9b27effec90109f965cb1c',
  '0xb243aa4d534f5c268f4f1c126c25b613789d71780f2d90b86adfa4ca5662f4bf',
  '0xfad099a5b4a282bebef844993917a825c98c47f8f7ccf98e51eee64faad0969f075841b8960f297463dcafb93713b6ed4f4d166b100176f626a2e15566f5be001c',
];

describe('V2 end to end: the public OrderBuilder from price and size, mmkit from the same inputs', () => {
  const orders: Array<[TickSize, Side, string, string, 'limit' | 'market', boolean]> = [
    ['0.01', 'BUY', '0.56', '21.04', 'limit', false],
    ['0.01', 'SELL', '0.56', '21.04', 'limit', true],
    ['0.1', 'BUY', '0.3', '1000', 'limit', false],
    ['0.001', 'SELL', '0.057', '333.33', 'limit', true],
    ['0.0001', 'BUY', '0.9501', '4999.99', 'limit', false],
    ['0.01', 'BUY', '0.56', '100', 'market', false],
    ['0.0001', 'BUY', '0.0042', '123.45', 'market', true],
    ['0.001', 'SELL', '0.999', '77.77', 'market', false],
  ];
  it.each(orders)('tick %s %s %s × %s (%s, neg-risk %s)', async (tick, side, price, size, kind, negRisk) => {
    const w = wallets[0]!;
    const pub = new PublicOrderBuilder(publicSigner(w), 137, 0);
    const common = { tokenID: TOKEN, price: Number(price), side: side === 'BUY' ? PublicSide.BUY : PublicSide.SELL };
    const signed = (
      kind === 'limit'
        ? await pub.buildOrder({ ...common, size: Number(size) }, { tickSize: tick, negRisk }, 2)
        : await pub.buildMarketOrder({ ...common, amount: Number(size) }, { tickSize: tick, negRisk }, 2)
    ) as PublicSignedOrderV2;
    // the client drew its salt and timestamp: sign the same with mmkit
    const b = new OrderBuilder({ wallet: w, chainId: 137, salt: () => Number(signed.salt) });
    const input = { tokenId: TOKEN, side, tick, negRisk, price, timestampMs: BigInt(signed.timestamp) };
    const o: BuiltOrderV2 =
      kind === 'limit' ? b.buildLimit({ ...input, size }) : b.buildMarket({ ...input, amount: size });
    expect([o.struct.makerAmount.toString(), o.struct.takerAmount.toString()]).toEqual([
      signed.makerAmount,
      signed.takerAmount,
    ]);
    expect(o.signature).toBe(signed.signature);
    const body = toPostBody(o, { owner: 'owner', orderType: kind === 'limit' ? 'GTC' : 'FOK' });
    expect(JSON.stringify(body.order)).toBe(JSON.stringify(orderToJsonV2(signed, 'owner', PublicOrderType.GTC).order));
  });
});

describe('amounts: mmkit = the public client, for a table of prices on every tick size', () => {
  /** A fast signer: the amounts do not depend on the signature. */
  const fast = { getAddress: async () => wallets[0]!.address, _signTypedData: async () => '0x' };
  const pub = new PublicOrderBuilder(fast, 137, 0);
  const SIZES = [
    '0.01',
    '1',
    '5',
    '21.04',
    '100',
    '123.45',
    '999.99',
    '1234.56',
    '10000',
    '54321.09',
    '123456.78',
    '250000.01',
    '499999.99',
    '500000',
  ];
  /** Every price of the coarse ticks; a stride and the edges of the fine ones (and prices where doubles bite). */
  const pricesOf = (tick: TickSize): string[] => {
    const dp = tick.length - 2;
    const steps = Math.round(1 / Number(tick));
    const stride = tick === '0.001' ? 7 : tick === '0.0001' ? 97 : 1;
    const out = new Set<string>();
    for (let k = 1; k < steps; k += stride) out.add((k / steps).toFixed(dp));
    for (const k of [1, 2, steps - 2, steps - 1]) out.add((k / steps).toFixed(dp));
    if (tick === '0.0001') for (const p of ['0.9501', '0.9601', '0.0001', '0.0003']) out.add(p);
    return [...out];
  };

  /**
   * mmkit computes amounts in exact decimals (money is never a double); the public client computes
   * them in doubles, which lose the last digit on large amounts (e.g. BUY 499999.99 x 0.9501:
   * exactly 475049.990499, the client signs 475049.990498). Such a case is allowed, and only such a
   * case: each amount within one unit of its last decimal, on an amount of at least 1,000 units. The venue accepts
   * both (the exchange checks fills against whatever amounts were signed).
   */
  const doubleRounding = (
    a: { makerAmount: bigint; takerAmount: bigint },
    c: { makerAmount: string; takerAmount: string },
  ) => {
    // equal, or one unit of the amount's last rounded decimal off (at most 100 micro-units and one part
    // in a billion) on an amount of at least 1,000 units
    const near = (x: bigint, y: string) => {
      const d = x > BigInt(y) ? x - BigInt(y) : BigInt(y) - x;
      return d === 0n || (d <= 100n && x >= 1_000_000_000n && d * 1_000_000_000n <= x);
    };
    return near(a.makerAmount, c.makerAmount) && near(a.takerAmount, c.takerAmount);
  };

  it.each(['0.1', '0.01', '0.001', '0.0001'] as const)('tick %s: limit and market, BUY and SELL', async (tick) => {
    const diffs: string[] = [];
    let doubles = 0;
    let n = 0;
    for (const price of pricesOf(tick))
      for (const size of SIZES)
        for (const side of ['BUY', 'SELL'] as const) {
          const ps = side === 'BUY' ? PublicSide.BUY : PublicSide.SELL;
          const lim = (await pub.buildOrder(
            { tokenID: TOKEN, price: Number(price), size: Number(size), side: ps },
            { tickSize: tick },
            2,
          )) as PublicSignedOrderV2;
          const a = limitOrderAmounts(side, tick, price, size);
          if (`${a.makerAmount}/${a.takerAmount}` !== `${lim.makerAmount}/${lim.takerAmount}`)
            if (doubleRounding(a, lim)) doubles++;
            else
              diffs.push(
                `limit ${side} ${price} x ${size}: ${a.makerAmount}/${a.takerAmount} vs ${lim.makerAmount}/${lim.takerAmount}`,
              );
          const mkt = (await pub.buildMarketOrder(
            { tokenID: TOKEN, price: Number(price), amount: Number(size), side: ps },
            { tickSize: tick },
            2,
          )) as PublicSignedOrderV2;
          const m = marketOrderAmounts(side, tick, price, size);
          if (`${m.makerAmount}/${m.takerAmount}` !== `${mkt.makerAmount}/${mkt.takerAmount}`)
            if (doubleRounding(m, mkt)) doubles++;
            else
              diffs.push(
                `market ${side} ${price} x ${size}: ${m.makerAmount}/${m.takerAmount} vs ${mkt.makerAmount}/${mkt.takerAmount}`,
              );
          n += 2;
        }
    expect(diffs).toEqual([]);
    expect(n).toBeGreaterThan(200);
    expect(doubles / n).toBeLessThan(0.02);
  });

  it("where the client's doubles lose the last micro-unit, mmkit signs the exact amount", () => {
    // 499999.99 × 0.9501 = 475049.990499 exactly (the client's doubles sign 475049.990498)
    expect(limitOrderAmounts('BUY', '0.0001', '0.9501', '499999.99')).toEqual({
      makerAmount: 475_049_990_499n,
      takerAmount: 499_999_990_000n,
    });
    // $1234.56 at 0.0001 buys 12345600 shares exactly (the client's quotient signs 12345599.999999)
    expect(marketOrderAmounts('BUY', '0.0001', '0.0001', '1234.56').takerAmount).toBe(12_345_600_000_000n);
  });
});
