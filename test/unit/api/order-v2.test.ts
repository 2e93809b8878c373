/**
 * The V2 signed order (src/api/signing/order-v2.ts) and the OrderBuilder's protocol 2: the fast
 * hasher against ethers' EIP-712 encoder, signing and recovery (POLY_1271's envelope included),
 * the wire both ways with its validation errors, and the builder's V2 options. The vectors against
 * the public client are in test/unit/order-v2-vectors.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Signature, TypedDataEncoder, Wallet, keccak256, toUtf8Bytes } from 'ethers';
import { getContractConfig } from '@polymarket/clob-client-v2';
import { AuthError, ValidationError } from '../../../src/core/errors.ts';
import { VirtualClock } from '../../../src/core/clock.ts';
import { nativeCrypto, setCryptoBackend } from '../../../src/api/signing/fast-crypto.ts';
import { wireJson } from '../../../src/api/signing/order-common.ts';
import { orderToWire, signOrder, type SignedOrderStruct } from '../../../src/api/signing/order.ts';
import {
  CONTRACTS_V2,
  CTF_EXCHANGE_V2,
  DEPOSIT_WALLET_DOMAIN,
  NEG_RISK_CTF_EXCHANGE_V2,
  ORDER_DOMAIN_NAME_V2,
  ORDER_DOMAIN_VERSION_V2,
  ORDER_TYPE_HASH_V2,
  ORDER_TYPE_STRING_V2,
  ORDER_TYPES_V2,
  OrderHasherV2,
  POLY_1271_SIGNATURE_BYTES,
  PUSD,
  PUSD_DECIMALS,
  TYPED_DATA_SIGN_TYPES_V2,
  ZERO_BYTES32,
  decodePoly1271Signature,
  encodePoly1271Signature,
  orderDomainV2,
  orderFromWireV2,
  orderHasherV2,
  orderToWireV2,
  recoverOrderV2,
  signOrderV2,
  signedWireV2,
  wireProtocolOf,
  type SignedOrderStructV2,
  type SignatureTypeV2,
} from '../../../src/api/signing/order-v2.ts';
import { OrderBuilder, toPostBody, DEFAULT_ORDER_PROTOCOL } from '../../../src/api/orders.ts';

const PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const ADDR = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const WALLET_ADDR = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const TOKEN = '71321045679252212594626385532706912750332728571942532289631379312455583992563';
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;
const N = HALF_N * 2n + 1n;
const wallet = new Wallet(PK);

const ORDER: SignedOrderStructV2 = {
  salt: 479249096354n,
  maker: ADDR,
  signer: ADDR,
  tokenId: BigInt(TOKEN),
  makerAmount: 11_782_400n,
  takerAmount: 21_040_000n,
  side: 0,
  signatureType: 0,
  timestamp: 1_777_777_777_777n,
  metadata: ZERO_BYTES32,
  builder: '0x' + 'ab'.repeat(32),
};
const DEPOSIT_ORDER: SignedOrderStructV2 = { ...ORDER, maker: WALLET_ADDR, signer: WALLET_ADDR, signatureType: 3 };

afterEach(() => setCryptoBackend(nativeCrypto ? 'native' : 'pure-js'));

// ---- arbitraries --------------------------------------------------------------------------------

const hex = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => '0x' + Buffer.from(b).toString('hex'));
const uint256 = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });
const smallUint = fc.oneof(fc.bigInt({ min: 0n, max: 1n << 53n }), uint256);
const arbOrder: fc.Arbitrary<SignedOrderStructV2> = fc.record({
  salt: fc.oneof(fc.bigInt({ min: 0n, max: BigInt(Number.MAX_SAFE_INTEGER) }), uint256),
  maker: hex(20),
  signer: hex(20),
  tokenId: uint256,
  makerAmount: smallUint,
  takerAmount: smallUint,
  side: fc.constantFrom(0 as const, 1 as const),
  signatureType: fc.constantFrom<SignatureTypeV2>(0, 1, 2, 3),
  timestamp: smallUint,
  metadata: fc.oneof(fc.constant(ZERO_BYTES32), hex(32)),
  builder: fc.oneof(fc.constant(ZERO_BYTES32), hex(32)),
});

// ---- what is signed -----------------------------------------------------------------------------

describe('V2 constants: the public client and docs', () => {
  it('the Order type, its hash and the domain name and version', () => {
    expect(ORDER_TYPE_STRING_V2).toBe(
      'Order(uint256 salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint8 side,uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)',
    );
    expect(ORDER_TYPE_STRING_V2.length).toBe(186);
    expect(ORDER_TYPE_HASH_V2).toBe(keccak256(toUtf8Bytes(ORDER_TYPE_STRING_V2)));
    expect([ORDER_DOMAIN_NAME_V2, ORDER_DOMAIN_VERSION_V2]).toEqual(['Polymarket CTF Exchange', '2']);
    expect(POLY_1271_SIGNATURE_BYTES).toBe(317);
  });

  it('the contracts of 137 and 80002 are the public client config.js ones', () => {
    for (const chain of [137, 80002] as const) {
      const c = getContractConfig(chain);
      expect(CONTRACTS_V2[chain]).toEqual({
        exchange: c.exchangeV2,
        negRiskExchange: c.negRiskExchangeV2,
        collateral: c.collateral,
      });
    }
    expect([CTF_EXCHANGE_V2, NEG_RISK_CTF_EXCHANGE_V2, PUSD, PUSD_DECIMALS]).toEqual([
      '0xE111180000d2663C0091e4f400237545B87B996B',
      '0xe2222d279d744050d28e00520010520000310F59',
      '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB',
      6,
    ]);
    expect(orderDomainV2(137, true).verifyingContract).toBe(NEG_RISK_CTF_EXCHANGE_V2);
    expect(orderDomainV2(137, false).verifyingContract).toBe(CTF_EXCHANGE_V2);
  });
});

describe('OrderHasherV2: equal to ethers TypedDataEncoder', () => {
  const backends = nativeCrypto ? (['native', 'pure-js'] as const) : (['pure-js'] as const);
  it.each(backends)('digest, struct hash and the TypedDataSign digest for random orders and domains (%s)', (b) => {
    setCryptoBackend(b);
    fc.assert(
      fc.property(arbOrder, fc.integer({ min: 0, max: 2 ** 40 }), hex(20), hex(20), (o, chainId, vc, dw) => {
        const h = new OrderHasherV2(chainId, vc);
        const domain = { name: ORDER_DOMAIN_NAME_V2, version: ORDER_DOMAIN_VERSION_V2, chainId, verifyingContract: vc };
        expect(h.domainSeparator).toBe(TypedDataEncoder.hashDomain(domain));
        expect(h.digest(o)).toBe(TypedDataEncoder.hash(domain, ORDER_TYPES_V2, o));
        const sh = h.structHash(o);
        expect('0x' + sh.toString('hex')).toBe(TypedDataEncoder.hashStruct('Order', ORDER_TYPES_V2, o));
        const tds = { contents: o, ...DEPOSIT_WALLET_DOMAIN, chainId, verifyingContract: dw, salt: ZERO_BYTES32 };
        expect('0x' + h.typedDataSignDigest(sh, dw).toString('hex')).toBe(
          TypedDataEncoder.hash(domain, TYPED_DATA_SIGN_TYPES_V2, tds),
        );
        // the buffers are reused: a second order does not disturb the first's digest
        expect(h.digest(o)).toBe(TypedDataEncoder.hash(domain, ORDER_TYPES_V2, o));
      }),
      { numRuns: 60 },
    );
  });

  it('refuses fields out of their type with a ValidationError naming the field', () => {
    const h = orderHasherV2(137, false);
    const bad: Array<[Partial<Record<keyof SignedOrderStructV2, unknown>>, RegExp]> = [
      [{ salt: -1n }, /^salt: not a uint256/],
      [{ tokenId: 1n << 256n }, /^tokenId: not a uint256/],
      [{ timestamp: 1 as unknown as bigint }, /^timestamp: not a uint256/],
      [{ maker: '0x12' }, /^maker: not an address/],
      [{ signer: 'nope' }, /^signer: not an address/],
      [{ side: 2 }, /^side: must be 0 \(BUY\) or 1 \(SELL\)/],
      [{ signatureType: 4 }, /^signatureType: must be 0, 1, 2 or 3/],
      [{ metadata: '0x00' }, /^metadata: not a bytes32/],
      [{ builder: 'ab'.repeat(32) }, /^builder: not a bytes32/],
    ];
    for (const [patch, msg] of bad) {
      const o = { ...ORDER, ...patch } as SignedOrderStructV2;
      expect(() => h.digest(o)).toThrow(ValidationError);
      expect(() => h.digest(o)).toThrow(msg);
    }
    expect(() => new OrderHasherV2(-1, CTF_EXCHANGE_V2)).toThrow(ValidationError);
    expect(() => new OrderHasherV2(137, '0x1')).toThrow(ValidationError);
  });

  it('orderHasherV2 caches one hasher per (chain, contract), any case', () => {
    expect(orderHasherV2(137, true)).toBe(orderHasherV2(137, false, NEG_RISK_CTF_EXCHANGE_V2.toLowerCase()));
    expect(orderHasherV2(137, false)).not.toBe(orderHasherV2(80002, false));
  });
});

// ---- sign and recover ---------------------------------------------------------------------------

describe('signOrderV2 and recoverOrderV2', () => {
  it('EOA/proxy/Safe: the 65-byte signature of ethers signTypedData, recovered in lower case', async () => {
    for (const st of [0, 1, 2] as const) {
      for (const negRisk of [false, true]) {
        const o = { ...ORDER, signatureType: st, maker: st === 0 ? ADDR : WALLET_ADDR };
        const { digest, signature } = signOrderV2(wallet, o, 137, negRisk);
        expect(signature).toBe(await wallet.signTypedData(orderDomainV2(137, negRisk), ORDER_TYPES_V2, o));
        expect(recoverOrderV2(orderHasherV2(137, negRisk), o, signature)).toEqual({
          digest,
          recovered: ADDR.toLowerCase(),
        });
      }
    }
  });

  it('POLY_1271: the ERC-7739 envelope around the owner signature of the TypedDataSign digest', async () => {
    const h = orderHasherV2(137, false);
    const { digest, signature } = signOrderV2(wallet, DEPOSIT_ORDER, 137, false);
    expect(digest).toBe(h.digest(DEPOSIT_ORDER));
    expect(signature.length).toBe(2 + 2 * POLY_1271_SIGNATURE_BYTES);
    const e = decodePoly1271Signature(signature);
    const inner = await wallet.signTypedData(orderDomainV2(137, false), TYPED_DATA_SIGN_TYPES_V2, {
      contents: DEPOSIT_ORDER,
      ...DEPOSIT_WALLET_DOMAIN,
      chainId: 137,
      verifyingContract: WALLET_ADDR,
      salt: ZERO_BYTES32,
    });
    expect(e).toEqual({
      innerSignature: inner,
      appDomainSeparator: h.domainSeparator,
      contentsHash: TypedDataEncoder.hashStruct('Order', ORDER_TYPES_V2, DEPOSIT_ORDER),
      contentsType: ORDER_TYPE_STRING_V2,
    });
    expect(encodePoly1271Signature(e)).toBe(signature);
    // the digest the wallet is asked about is 0x1901 ‖ appDomainSeparator ‖ contentsHash (ERC-7739)
    expect(keccak256('0x1901' + e.appDomainSeparator.slice(2) + e.contentsHash.slice(2))).toBe(digest);
    expect(recoverOrderV2(h, DEPOSIT_ORDER, signature)).toEqual({ digest, recovered: ADDR.toLowerCase() });
  });

  it('POLY_1271: an envelope of another order, exchange or type is refused with AuthError', () => {
    const { signature } = signOrderV2(wallet, DEPOSIT_ORDER, 137, false);
    const other = { ...DEPOSIT_ORDER, makerAmount: 1n };
    expect(() => recoverOrderV2(orderHasherV2(137, false), other, signature)).toThrow(
      /contents hash is not this order/,
    );
    expect(() => recoverOrderV2(orderHasherV2(137, true), DEPOSIT_ORDER, signature)).toThrow(/another exchange domain/);
    const e = decodePoly1271Signature(signature);
    const wrongType = encodePoly1271Signature({ ...e, contentsType: ORDER_TYPE_STRING_V2.replace('salt', 'sal_') });
    expect(() => recoverOrderV2(orderHasherV2(137, false), DEPOSIT_ORDER, wrongType)).toThrow(/contents type/);
    for (const bad of [
      signature.slice(0, -2),
      signature + '00',
      '0x' + 'zz'.repeat(317),
      signature.slice(0, -4) + '00bb',
    ]) {
      expect(() => recoverOrderV2(orderHasherV2(137, false), DEPOSIT_ORDER, bad)).toThrow(AuthError);
    }
    // the same envelope claimed for another wallet: the wallet is the order's signer, so its contents differ
    const elsewhere = { ...DEPOSIT_ORDER, signer: ADDR };
    expect(() => recoverOrderV2(orderHasherV2(137, false), elsewhere, signature)).toThrow(AuthError);
  });

  it('malformed or non-canonical ECDSA signatures are AuthError, never a raw exception', () => {
    const h = orderHasherV2(137, false);
    const { signature } = signOrderV2(wallet, ORDER, 137, false);
    const sig = Signature.from(signature);
    const highS =
      '0x' + sig.r.slice(2) + (N - BigInt(sig.s)).toString(16).padStart(64, '0') + (sig.v === 27 ? '1c' : '1b');
    for (const bad of [
      '',
      '0x',
      signature.slice(0, -2),
      signature.slice(0, -2) + '1d',
      highS,
      '0x' + '00'.repeat(32) + signature.slice(66),
      42 as unknown as string,
    ]) {
      expect(() => recoverOrderV2(h, ORDER, bad)).toThrow(AuthError);
    }
  });
});

// ---- the wire -----------------------------------------------------------------------------------

describe('V2 wire', () => {
  const sig = signOrderV2(wallet, ORDER, 137, false).signature;

  it('the public client field order, no taker, expiration unsigned', () => {
    const w = orderToWireV2(ORDER, sig, 1_900_000_000n);
    expect(Object.keys(w)).toEqual([
      'salt',
      'maker',
      'signer',
      'tokenId',
      'makerAmount',
      'takerAmount',
      'side',
      'signatureType',
      'timestamp',
      'expiration',
      'metadata',
      'builder',
      'signature',
    ]);
    expect(w).toMatchObject({ salt: 479249096354, side: 'BUY', timestamp: '1777777777777', expiration: '1900000000' });
    const frozen = signedWireV2(ORDER, sig, 0n);
    expect(Object.isFrozen(frozen)).toBe(true);
    expect(wireJson(frozen)).toBe(JSON.stringify(frozen));
    // a string that would need escaping takes the generic serialiser
    const odd = signedWireV2({ ...ORDER, maker: 'a"b\\' }, sig);
    expect(wireJson(odd)).toBe(JSON.stringify({ ...odd }));
    expect(JSON.parse(wireJson(odd)).maker).toBe('a"b\\');
    expect(() => orderToWireV2({ ...ORDER, salt: 1n << 60n }, sig)).toThrow(/does not fit a JSON number/);
    expect(() => orderToWireV2(ORDER, sig, -1n)).toThrow(ValidationError);
  });

  it('property: toWire → JSON → fromWire is the identity (addresses and bytes32 lower-cased); the remembered JSON is JSON.stringify', () => {
    fc.assert(
      fc.property(
        arbOrder.filter((o) => o.salt <= BigInt(Number.MAX_SAFE_INTEGER)),
        fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
        (o, expiration) => {
          const signature = o.signatureType === 3 ? '0x' + 'ab'.repeat(POLY_1271_SIGNATURE_BYTES) : sig;
          const back = orderFromWireV2(JSON.parse(JSON.stringify(orderToWireV2(o, signature, expiration))));
          // the JSON text remembered at signing (written out by hand) is JSON.stringify's
          const w = signedWireV2(o, signature, expiration);
          expect(wireJson(w)).toBe(JSON.stringify({ ...w }));
          expect(back).toEqual({
            order: {
              ...o,
              maker: o.maker.toLowerCase(),
              signer: o.signer.toLowerCase(),
              metadata: o.metadata.toLowerCase(),
              builder: o.builder.toLowerCase(),
            },
            expiration,
            signature,
          });
        },
      ),
      { numRuns: 200 },
    );
  });

  it('accepts a uint256 decimal salt and ignores unknown fields (a taker too)', () => {
    const w = { ...orderToWireV2(ORDER, sig), salt: '123456789012345678901234567890', taker: ADDR, extra: 1 };
    expect(orderFromWireV2(w).order.salt).toBe(123456789012345678901234567890n);
  });

  it('names the first bad field in a ValidationError', () => {
    const good = orderToWireV2(ORDER, sig, 0n) as unknown as Record<string, unknown>;
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ salt: -1 }, /^order\.salt: expected a non-negative integer/],
      [{ salt: 1.5 }, /^order\.salt/],
      [{ salt: null }, /^order\.salt: expected a number or a decimal string/],
      [{ maker: '0x12' }, /^order\.maker: expected an address/],
      [{ signer: undefined }, /^order\.signer: expected an address/],
      [{ tokenId: 5 }, /^order\.tokenId: expected a uint256 decimal string/],
      [{ makerAmount: '-1' }, /^order\.makerAmount/],
      [{ takerAmount: '1e6' }, /^order\.takerAmount/],
      [{ timestamp: 1777777777777 }, /^order\.timestamp: expected a uint256 decimal string/],
      [{ expiration: undefined }, /^order\.expiration/],
      [{ tokenId: (1n << 256n).toString() }, /^order\.tokenId: exceeds uint256/],
      [{ side: 0 }, /^order\.side: expected "BUY" or "SELL"/],
      [{ signatureType: '0' }, /^order\.signatureType: expected the number 0, 1, 2 or 3/],
      [{ signatureType: 4 }, /^order\.signatureType/],
      [{ metadata: '0x' }, /^order\.metadata: expected a bytes32/],
      [{ builder: undefined }, /^order\.builder: expected a bytes32/],
      [{ signature: sig.slice(0, -2) }, /^order\.signature: expected 0x \+ 130 hex/],
      [{ signatureType: 3 }, /^order\.signature: expected the POLY_1271 envelope, 0x \+ 634 hex/],
    ];
    for (const [patch, msg] of bad) {
      const w = { ...good, ...patch };
      expect(() => orderFromWireV2(w), JSON.stringify(patch)).toThrow(ValidationError);
      expect(() => orderFromWireV2(w), JSON.stringify(patch)).toThrow(msg);
    }
    for (const notObject of [null, [], 'x', 1])
      expect(() => orderFromWireV2(notObject)).toThrow(/expected a JSON object/);
  });

  it('a V1 order given to the V2 parser says so; wireProtocolOf tells them apart', () => {
    const v1: SignedOrderStruct = {
      salt: 1n,
      maker: ADDR,
      signer: ADDR,
      taker: '0x0000000000000000000000000000000000000000',
      tokenId: 1n,
      makerAmount: 1n,
      takerAmount: 1n,
      expiration: 0n,
      nonce: 0n,
      feeRateBps: 0n,
      side: 0,
      signatureType: 0,
    };
    const w1 = orderToWire(v1, signOrder(wallet, v1, 137, false).signature);
    expect(() => orderFromWireV2(w1)).toThrow(/looks like a V1 order/);
    expect(wireProtocolOf(w1)).toBe(1);
    expect(wireProtocolOf(orderToWireV2(ORDER, sig))).toBe(2);
    expect(wireProtocolOf({})).toBeUndefined();
    expect(wireProtocolOf(null)).toBeUndefined();
  });
});

// ---- the builder --------------------------------------------------------------------------------

describe('OrderBuilder, protocol 2', () => {
  const input = {
    tokenId: TOKEN,
    side: 'BUY' as const,
    price: '0.56',
    size: '21.04',
    tick: '0.01' as const,
    negRisk: false,
    timestampMs: 1_777_777_777_777,
  };

  it('is the default; protocol 1 builds V1 orders; anything else is refused', () => {
    expect(DEFAULT_ORDER_PROTOCOL).toBe(2);
    const o = new OrderBuilder({ wallet: PK, chainId: 137, salt: () => 7 }).buildLimit(input);
    expect(o.protocol).toBe(2);
    expect(o.struct).toMatchObject({ salt: 7n, maker: ADDR, signer: ADDR, timestamp: 1_777_777_777_777n });
    expect(o.id).toBe(orderHasherV2(137, false).digest(o.struct));
    const v1 = new OrderBuilder({ wallet: PK, chainId: 137, protocol: 1, salt: () => 7 }).buildLimit(input);
    expect([v1.protocol, 'nonce' in v1.wire, 'timestamp' in v1.wire]).toEqual([1, true, false]);
    expect(() => new OrderBuilder({ wallet: PK, chainId: 137, protocol: 3 as 2 })).toThrow(/protocol: must be 1 or 2/);
  });

  it('builder code and metadata: zero by default, the builder option, the order override', () => {
    const code = '0x' + 'CD'.repeat(32);
    const meta = '0x' + '01'.repeat(32);
    const plain = new OrderBuilder({ wallet: PK, chainId: 137 }).buildLimit(input);
    expect([plain.struct.builder, plain.struct.metadata]).toEqual([ZERO_BYTES32, ZERO_BYTES32]);
    const b = new OrderBuilder({ wallet: PK, chainId: 137, builderCode: code, metadata: meta });
    expect(b.buildLimit(input).wire).toMatchObject({ builder: code.toLowerCase(), metadata: meta });
    expect(b.buildLimit({ ...input, builderCode: ZERO_BYTES32, metadata: ZERO_BYTES32 }).struct).toMatchObject({
      builder: ZERO_BYTES32,
      metadata: ZERO_BYTES32,
    });
    expect(() => new OrderBuilder({ wallet: PK, chainId: 137, builderCode: '0x12' })).toThrow(
      /builderCode: expected a bytes32/,
    );
    expect(() => b.buildLimit({ ...input, metadata: 'x' })).toThrow(/metadata: expected a bytes32/);
    // V1 has no such fields: ignored
    expect(() =>
      new OrderBuilder({ wallet: PK, chainId: 137, protocol: 1, builderCode: code }).buildLimit(input),
    ).not.toThrow();
  });

  it('the timestamp is the clock now in ms (floored) unless given; the fee rate and nonce are not part of V2', () => {
    const clock = new VirtualClock(1_800_000_000_123.7);
    const b = new OrderBuilder({ wallet: PK, chainId: 137, clock, salt: () => 9 });
    const { timestampMs: _, ...noTs } = input;
    expect(b.buildLimit(noTs).struct.timestamp).toBe(1_800_000_000_123n);
    const a = b.buildLimit({ ...input, feeRateBps: 0 });
    const f = b.buildLimit({ ...input, feeRateBps: 1000, nonce: 5 });
    expect(f.id).toBe(a.id);
    expect(() => b.buildLimit({ ...input, timestampMs: -1 })).toThrow(/timestampMs/);
  });

  it('GTD: the expiration is sent, not signed; toPostBody checks it as for V1', () => {
    const clock = new VirtualClock(1_800_000_000_000);
    const b = new OrderBuilder({ wallet: PK, chainId: 137, clock, salt: () => 11 });
    const gtd = b.buildLimit({ ...input, ttlSec: 30 });
    const gtc = b.buildLimit(input);
    expect(gtd.expiration).toBe(1_800_000_090n);
    expect(gtd.wire.expiration).toBe('1800000090');
    expect(gtd.id).toBe(gtc.id); // same salt and fields: the expiration is not in the digest
    expect(toPostBody(gtd, { owner: 'k', orderType: 'GTD' }).order).toBe(gtd.wire);
    expect(() => toPostBody(gtd, { owner: 'k' })).toThrow(/GTC orders must have expiration 0/);
    expect(() => toPostBody(gtc, { owner: 'k', orderType: 'GTD' })).toThrow(/GTD orders need an expiration/);
  });

  it('market orders and neg-risk markets sign for the V2 contracts', () => {
    const b = new OrderBuilder({ wallet: PK, chainId: 137 });
    const m = b.buildMarket({ ...input, negRisk: true, amount: '100' });
    expect(m.struct).toMatchObject({ makerAmount: 100_000_000n, takerAmount: 178_571_400n });
    expect(recoverOrderV2(orderHasherV2(137, true), m.struct, m.signature)).toEqual({
      digest: m.id,
      recovered: ADDR.toLowerCase(),
    });
  });

  it('POLY_PROXY / SAFE: maker is the funder, signer the key; POLY_1271: both the deposit wallet', () => {
    for (const st of [1, 2] as const) {
      const o = new OrderBuilder({ wallet: PK, chainId: 137, signatureType: st, funder: WALLET_ADDR }).buildLimit(
        input,
      );
      expect(o.struct).toMatchObject({ maker: WALLET_ADDR, signer: ADDR, signatureType: st });
    }
    const b = new OrderBuilder({ wallet: PK, chainId: 137, signatureType: 3, funder: WALLET_ADDR.toLowerCase() });
    expect([b.maker, b.signer]).toEqual([WALLET_ADDR, ADDR]);
    const d = b.buildLimit(input);
    expect(d.struct).toMatchObject({ maker: WALLET_ADDR, signer: WALLET_ADDR, signatureType: 3 });
    expect(recoverOrderV2(orderHasherV2(137, false), d.struct, d.signature).recovered).toBe(ADDR.toLowerCase());
    expect(orderFromWireV2(JSON.parse(wireJson(d.wire))).signature).toBe(d.signature);
    expect(() => new OrderBuilder({ wallet: PK, chainId: 137, signatureType: 3 })).toThrow(/deposit wallet/);
    expect(
      () => new OrderBuilder({ wallet: PK, chainId: 137, protocol: 1, signatureType: 3, funder: WALLET_ADDR }),
    ).toThrow(/POLY_1271 \(3, deposit wallets\) exists in protocol 2 only/);
  });

  it('native and pure-JS backends sign the same bytes (every signature type)', () => {
    if (nativeCrypto === undefined) return;
    for (const st of [0, 1, 3] as const) {
      const opts = {
        wallet: PK,
        chainId: 137,
        salt: () => 5,
        signatureType: st,
        ...(st ? { funder: WALLET_ADDR } : {}),
      };
      setCryptoBackend('native');
      const nat = new OrderBuilder(opts).buildLimit(input);
      setCryptoBackend('pure-js');
      const js = new OrderBuilder(opts).buildLimit(input);
      expect([js.id, js.signature]).toEqual([nat.id, nat.signature]);
    }
  });
});
