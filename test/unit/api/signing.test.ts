import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SigningKey, TypedDataEncoder, Wallet } from 'ethers';
import { AuthError, ValidationError } from '../../../src/core/errors.ts';
import {
  CTF_EXCHANGE,
  NEG_RISK_CTF_EXCHANGE,
  ORDER_TYPES,
  OrderHasher,
  orderDomain,
  orderFromWire,
  orderToWire,
  recoverSigner,
  signOrder,
} from '../../../src/api/signing/order.ts';
import type { SignedOrderStruct } from '../../../src/api/signing/order.ts';
import { l1Headers, recoverClobAuth, signClobAuth } from '../../../src/api/signing/clob-auth.ts';
import { buildHmacSignature, JS_MAX_BYTES, l2Headers, verifyHmacSignature } from '../../../src/api/signing/hmac.ts';
import { SHA256_IV, sha256Digest, sha256Finish } from '../../../src/api/signing/sha256.ts';
import { createHash, createHmac } from 'node:crypto';

const PK = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const ADDR = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const ZERO = '0x0000000000000000000000000000000000000000';
const AMOY_EXCHANGE = '0xdFE02Eb6733538f8Ea35D585af8DE5958AD99E40';
const wallet = new Wallet(PK);

const ORDER_A: SignedOrderStruct = {
  salt: 479249096354n,
  maker: ADDR,
  signer: ADDR,
  taker: ZERO,
  tokenId: 1234n,
  makerAmount: 100000000n,
  takerAmount: 50000000n,
  expiration: 0n,
  nonce: 0n,
  feeRateBps: 100n,
  side: 0,
  signatureType: 0,
};
const ORDER_B: SignedOrderStruct = {
  salt: 1n,
  maker: '0x1111111111111111111111111111111111111111',
  signer: '0x1111111111111111111111111111111111111111',
  taker: ZERO,
  tokenId: 101n,
  makerAmount: 1000000n,
  takerAmount: 2000000n,
  expiration: 0n,
  nonce: 2n,
  feeRateBps: 0n,
  side: 0,
  signatureType: 0,
};

describe('order signing vectors (public-service-protocol §2)', () => {
  it('order A at 80002 (Amoy exchange): digest and signature', () => {
    expect(new OrderHasher(80002, AMOY_EXCHANGE).digest(ORDER_A)).toBe(
      '0x02ca1d1aa31103804173ad1acd70066cb6c1258a4be6dada055111f9a7ea4e55',
    );
    expect(signOrder(wallet, ORDER_A, 80002, false, AMOY_EXCHANGE)).toEqual({
      digest: '0x02ca1d1aa31103804173ad1acd70066cb6c1258a4be6dada055111f9a7ea4e55',
      signature:
        '0x302cd9abd0b5fcaa202a344437ec0b6660da984e24ae9ad915a592a90facf5a51bb8a873cd8d270f070217fea1986531d5eec66f1162a81f66e026db653bf7ce1c',
    });
  });
  it('order A at 80002 (neg-risk exchange): digest and signature', () => {
    expect(signOrder(wallet, ORDER_A, 80002, true)).toEqual({
      digest: '0xf15790d3edc4b5aed427b0b543a9206fcf4b1a13dfed016d33bfb313076263b8',
      signature:
        '0x1b3646ef347e5bd144c65bd3357ba19c12c12abaeedae733cf8579bc51a2752c0454c3bc6b236957e393637982c769b8dc0706c0f5c399983d933850afd1cbcd1c',
    });
    expect(new OrderHasher(80002, NEG_RISK_CTF_EXCHANGE).digest(ORDER_A)).toBe(
      '0xf15790d3edc4b5aed427b0b543a9206fcf4b1a13dfed016d33bfb313076263b8',
    );
  });
  it('order B at 137 with verifyingContract 0x…01', () => {
    expect(new OrderHasher(137, '0x0000000000000000000000000000000000000001').digest(ORDER_B)).toBe(
      '0xeb162c6cc7aa28ad096a7c40fb9556d41fa1730d71103ba7103589ae1f18d942',
    );
  });
  it('order A at 137: both exchanges, digests, signatures and the domain separator', () => {
    expect(signOrder(wallet, ORDER_A, 137, false)).toEqual({
      digest: '0x46c2dec73dae47e86b5d589c084e6c54858d8f988db390421c8ec3a361fb78a2',
      signature:
        '0x6435b08e46470f66939b330ab21e67f599857708cfbcc084d60738369f53b813595926e177af917b73378f6b3c6ee854ff18037a26f2869b98a483089f60bea71b',
    });
    expect(signOrder(wallet, ORDER_A, 137, true)).toEqual({
      digest: '0xd9a5ac502d5ebb63a3afdcaf8ecd0fd85d49c7b6d05589fa35f0bff0fc5c86a3',
      signature:
        '0x79e74485db6836e1c55d5fadf951021011cae6a49b4bf298781dd8942099774e26e91ac7f61d310f78ec0960e06a38ce898b078dd844cf3038da7a7061fafedb1c',
    });
    const h = new OrderHasher(137, CTF_EXCHANGE);
    expect(h.domainSeparator).toBe('0x1a573e3617c78403b5b4b892827992f027b03d4eaf570048b8ee8cdd84d151be');
    expect(TypedDataEncoder.hashDomain(orderDomain(137, false))).toBe(h.domainSeparator);
  });
  it('signOrder accepts a bare { signingKey }', () => {
    expect(signOrder({ signingKey: new SigningKey(PK) }, ORDER_A, 137, false).digest).toBe(
      '0x46c2dec73dae47e86b5d589c084e6c54858d8f988db390421c8ec3a361fb78a2',
    );
  });
  it('orderDomain picks the exchange by negRisk unless overridden', () => {
    expect(orderDomain(137, false).verifyingContract).toBe(CTF_EXCHANGE);
    expect(orderDomain(137, true).verifyingContract).toBe(NEG_RISK_CTF_EXCHANGE);
    expect(orderDomain(80002, true, AMOY_EXCHANGE)).toEqual({
      name: 'Polymarket CTF Exchange',
      version: '1',
      chainId: 80002,
      verifyingContract: AMOY_EXCHANGE,
    });
  });
  it('digest refuses out-of-range fields with ValidationError', () => {
    const h = new OrderHasher(137, CTF_EXCHANGE);
    expect(() => h.digest({ ...ORDER_A, tokenId: 1n << 256n })).toThrow(ValidationError);
    expect(() => h.digest({ ...ORDER_A, nonce: -1n })).toThrow(ValidationError);
    expect(() => h.digest({ ...ORDER_A, maker: '0x123' })).toThrow(ValidationError);
    expect(() => h.digest({ ...ORDER_A, side: 2 as 0 })).toThrow(ValidationError);
    expect(() => h.digest({ ...ORDER_A, signatureType: 3 as 0 })).toThrow(ValidationError);
  });
});

const hex = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => '0x' + Buffer.from(b).toString('hex'));
const uint256 = fc.oneof(
  fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }),
  fc.bigInt({ min: 0n, max: 1n << 40n }),
  fc.constantFrom(0n, (1n << 256n) - 1n, 0xffffffffn, 0x100000000n),
);
const arbOrder: fc.Arbitrary<SignedOrderStruct> = fc.record({
  salt: uint256,
  maker: hex(20),
  signer: hex(20),
  taker: fc.oneof(fc.constant(ZERO), hex(20)),
  tokenId: uint256,
  makerAmount: uint256,
  takerAmount: uint256,
  expiration: uint256,
  nonce: uint256,
  feeRateBps: uint256,
  side: fc.constantFrom(0 as const, 1 as const),
  signatureType: fc.constantFrom(0 as const, 1 as const, 2 as const),
});

describe('OrderHasher equals ethers TypedDataEncoder.hash', () => {
  it('for random orders and domains', () => {
    fc.assert(
      fc.property(
        arbOrder,
        fc.constantFrom(1, 137, 80002, 2 ** 40),
        fc.oneof(hex(20), fc.constantFrom(CTF_EXCHANGE, NEG_RISK_CTF_EXCHANGE)),
        (o, chainId, vc) => {
          const expected = TypedDataEncoder.hash(orderDomain(chainId, false, vc), ORDER_TYPES, o);
          expect(new OrderHasher(chainId, vc).digest(o)).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
  it('a reused hasher gives the same answer as a fresh one (buffer reuse is clean)', () => {
    const h = new OrderHasher(137, CTF_EXCHANGE);
    fc.assert(
      fc.property(arbOrder, (o) => {
        expect(h.digest(o)).toBe(new OrderHasher(137, CTF_EXCHANGE).digest(o));
      }),
      { numRuns: 200 },
    );
  });
});

describe('recoverSigner', () => {
  it('sign then recover gives the address (lower case)', () => {
    const { digest, signature } = signOrder(wallet, ORDER_A, 137, false);
    expect(recoverSigner(digest, signature)).toBe(ADDR.toLowerCase());
  });
  it('round trips random keys and orders', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), arbOrder, (k, o) => {
        k[0] = (k[0]! & 0x7f) | 1; // in range [1, n)
        const w = new Wallet('0x' + Buffer.from(k).toString('hex'));
        const { digest, signature } = signOrder(w, o, 137, false);
        expect(recoverSigner(digest, signature)).toBe(w.address.toLowerCase());
      }),
      { numRuns: 20 },
    );
  });
  it('a tampered digest recovers a different address', () => {
    const { digest, signature } = signOrder(wallet, ORDER_A, 137, false);
    const other = signOrder(wallet, { ...ORDER_A, makerAmount: ORDER_A.makerAmount + 1n }, 137, false).digest;
    expect(recoverSigner(other, signature)).not.toBe(ADDR.toLowerCase());
    const flipped = digest.slice(0, -1) + (digest.endsWith('0') ? '1' : '0');
    expect(recoverSigner(flipped, signature)).not.toBe(ADDR.toLowerCase());
  });
  it('accepts v as 0/1 parity too', () => {
    const { digest, signature } = signOrder(wallet, ORDER_A, 137, false);
    const v = parseInt(signature.slice(130), 16);
    expect(recoverSigner(digest, signature.slice(0, 130) + (v === 27 ? '00' : '01'))).toBe(ADDR.toLowerCase());
  });
  it('malformed signatures throw AuthError, never a raw exception', () => {
    const { digest, signature } = signOrder(wallet, ORDER_A, 137, false);
    const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const s = BigInt('0x' + signature.slice(66, 130));
    const highS = signature.slice(0, 66) + (N - s).toString(16).padStart(64, '0') + signature.slice(130);
    const bad = [
      '',
      '0x',
      signature.slice(0, -2), // 64 bytes
      signature + '00', // 66 bytes
      signature.slice(0, -2) + '1d', // v = 29
      signature.slice(0, -2) + 'ff',
      '0x' + 'zz' + signature.slice(4),
      '0x' + '00'.repeat(64) + '1b', // r = s = 0
      '0x' + 'ff'.repeat(32) + signature.slice(66), // r >= n
      highS, // malleable twin
      '0x' + '00'.repeat(32) + signature.slice(66), // r = 0
      12 as unknown as string,
    ];
    for (const sig of bad) {
      expect(() => recoverSigner(digest, sig), String(sig)).toThrow(AuthError);
    }
  });
  it('a malformed digest throws ValidationError', () => {
    const { signature } = signOrder(wallet, ORDER_A, 137, false);
    expect(() => recoverSigner('0x1234', signature)).toThrow(ValidationError);
  });
});

describe('orderToWire / orderFromWire', () => {
  const { signature } = signOrder(wallet, ORDER_A, 137, false);
  const wire = orderToWire(ORDER_A, signature);
  it('produces the POST /order order object', () => {
    expect(wire).toEqual({
      salt: 479249096354,
      maker: ADDR,
      signer: ADDR,
      taker: ZERO,
      tokenId: '1234',
      makerAmount: '100000000',
      takerAmount: '50000000',
      side: 'BUY',
      expiration: '0',
      nonce: '0',
      feeRateBps: '100',
      signatureType: 0,
      signature,
    });
    expect(orderToWire({ ...ORDER_A, side: 1 }, signature).side).toBe('SELL');
    expect(() => orderToWire({ ...ORDER_A, salt: 1n << 60n }, signature)).toThrow(ValidationError);
  });
  it('round trips through JSON (addresses lower-cased)', () => {
    const back = orderFromWire(JSON.parse(JSON.stringify(wire)));
    expect(back.signature).toBe(signature);
    expect(back.order).toEqual({ ...ORDER_A, maker: ADDR.toLowerCase(), signer: ADDR.toLowerCase() });
    expect(new OrderHasher(137, CTF_EXCHANGE).digest(back.order)).toBe(
      '0x46c2dec73dae47e86b5d589c084e6c54858d8f988db390421c8ec3a361fb78a2',
    );
  });
  it('accepts a salt given as a numeric string, even beyond 2^53', () => {
    expect(orderFromWire({ ...wire, salt: '479249096354' }).order.salt).toBe(479249096354n);
    expect(orderFromWire({ ...wire, salt: '123456789012345678901234567890' }).order.salt).toBe(
      123456789012345678901234567890n,
    );
  });
  const cases: Array<[string, unknown]> = [
    ['salt', -1],
    ['salt', 1.5],
    ['salt', 2 ** 60],
    ['salt', '12a'],
    ['salt', null],
    ['salt', '1' + '0'.repeat(78)],
    ['maker', '0x123'],
    ['maker', ADDR.slice(2)],
    ['signer', 'f39Fd6e51aad88F6F4ce6aB8827279cffFb922660x'],
    ['taker', undefined],
    ['tokenId', 1234],
    ['tokenId', '-1'],
    ['tokenId', '1e5'],
    ['tokenId', String(1n << 256n)],
    ['tokenId', ''],
    ['makerAmount', '1.5'],
    ['takerAmount', ' 1'],
    ['expiration', 0],
    ['nonce', '0x1'],
    ['feeRateBps', null],
    ['side', 'buy'],
    ['side', 0],
    ['signatureType', 3],
    ['signatureType', '0'],
    ['signatureType', 1.5],
    ['signature', signature.slice(0, -2)],
    ['signature', signature.slice(2)],
    ['signature', signature.slice(0, -2) + 'zz'],
    ['signature', 5],
  ];
  it.each(cases)('rejects a malformed %s (%j) with a ValidationError naming it', (field, value) => {
    const bad: Record<string, unknown> = { ...wire, [field]: value };
    if (value === undefined) delete bad[field];
    let err: unknown;
    try {
      orderFromWire(bad);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toContain(`order.${field}`);
  });
  it('rejects non-objects with ValidationError', () => {
    for (const v of [null, undefined, 1, 'x', [], true]) expect(() => orderFromWire(v)).toThrow(ValidationError);
  });
  it('never throws anything but ValidationError on arbitrary input', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.anything(), fc.record({ ...Object.fromEntries(Object.keys(wire).map((k) => [k, fc.anything()])) })),
        (v) => {
          try {
            orderFromWire(v);
          } catch (e) {
            expect(e).toBeInstanceOf(ValidationError);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('L1 ClobAuth (public-service-protocol §3)', () => {
  const SIG_80002 =
    '0xf62319a987514da40e57e2f4d7529f7bac38f0355bd88bb5adbb3768d80de6c1682518e0af677d5260366425f4361e7b70c25ae232aff0ab2331e2b164a1aedc1b';
  const SIG_137 =
    '0x1a7118db6100dfd8efd102be36f472b59475dcac56eb4c9a2a94748d3655ba7c3c89deb8c19ee79eceb0a531122fbfbe88ed118034f9d8212e2b725e7b296b9d1c';
  it('signs the public vectors exactly', () => {
    expect(signClobAuth(wallet, 80002, 10000000, 23)).toBe(SIG_80002);
    expect(signClobAuth(wallet, 137, '10000000', 23n)).toBe(SIG_137);
    expect(signClobAuth({ signingKey: new SigningKey(PK) }, 80002, 10000000, 23)).toBe(SIG_80002);
  });
  it('recovers the signer, and another one for other fields', () => {
    expect(recoverClobAuth(80002, ADDR, 10000000, 23, SIG_80002)).toBe(ADDR.toLowerCase());
    expect(recoverClobAuth(137, ADDR.toLowerCase(), '10000000', '23', SIG_137)).toBe(ADDR.toLowerCase());
    expect(recoverClobAuth(80002, ADDR, 10000001, 23, SIG_80002)).not.toBe(ADDR.toLowerCase());
    expect(recoverClobAuth(80002, ADDR, 10000000, 24, SIG_80002)).not.toBe(ADDR.toLowerCase());
    expect(recoverClobAuth(137, ADDR, 10000000, 23, SIG_80002)).not.toBe(ADDR.toLowerCase());
  });
  it('throws AuthError on malformed headers', () => {
    expect(() => recoverClobAuth(80002, '0x12', 10000000, 23, SIG_80002)).toThrow(AuthError);
    expect(() => recoverClobAuth(80002, ADDR, 'soon', 23, SIG_80002)).toThrow(AuthError);
    expect(() => recoverClobAuth(80002, ADDR, 10000000, '-1', SIG_80002)).toThrow(AuthError);
    expect(() => recoverClobAuth(80002, ADDR, 10000000, 23, '0xdead')).toThrow(AuthError);
  });
  it('builds the L1 headers', () => {
    expect(l1Headers(wallet, 80002, 10000000, 23)).toEqual({
      POLY_ADDRESS: ADDR,
      POLY_SIGNATURE: SIG_80002,
      POLY_TIMESTAMP: '10000000',
      POLY_NONCE: '23',
    });
    expect(l1Headers(wallet, 80002, 10000000).POLY_NONCE).toBe('0');
  });
});

describe('L2 HMAC (public-service-protocol §3)', () => {
  const SECRET = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
  const SIG = 'ZwAdJKvoYRlEKDkNMwd5BuwNNtg93kNaR_oU2HrfVvc=';
  it('matches the public vector', () => {
    expect(buildHmacSignature(SECRET, 1000000, 'test-sign', '/orders', '{"hash": "0x123"}')).toBe(SIG);
    expect(buildHmacSignature(SECRET, '1000000', 'test-sign', '/orders', '{"hash": "0x123"}')).toBe(SIG);
  });
  it('accepts a url-safe secret', () => {
    const std = Buffer.from(Array.from({ length: 32 }, (_, i) => 250 - i)).toString('base64');
    expect(std).toMatch(/[+/]/);
    const urlSafe = std.replace(/\+/g, '-').replace(/\//g, '_');
    expect(buildHmacSignature(urlSafe, 1, 'GET', '/x')).toBe(buildHmacSignature(std, 1, 'GET', '/x'));
  });
  it('an absent body signs the same message as an empty body', () => {
    expect(buildHmacSignature(SECRET, 1, 'GET', '/x')).toBe(buildHmacSignature(SECRET, 1, 'GET', '/x', ''));
  });
  it('verifies in constant time, and false on anything wrong or malformed', () => {
    expect(verifyHmacSignature(SECRET, 1000000, 'test-sign', '/orders', '{"hash": "0x123"}', SIG)).toBe(true);
    expect(
      verifyHmacSignature(SECRET, 1000000, 'test-sign', '/orders', '{"hash": "0x123"}', SIG.replace(/=$/, '')),
    ).toBe(true);
    expect(verifyHmacSignature(SECRET, 1000000, 'test-sign', '/orders', '{"hash": "0x124"}', SIG)).toBe(false);
    expect(verifyHmacSignature(SECRET, 1000001, 'test-sign', '/orders', '{"hash": "0x123"}', SIG)).toBe(false);
    expect(verifyHmacSignature(SECRET, 1000000, 'test-sign', '/orders', undefined, SIG)).toBe(false);
    expect(verifyHmacSignature('!!not base64', 1000000, 'test-sign', '/orders', '{"hash": "0x123"}', SIG)).toBe(false);
    expect(verifyHmacSignature('', 1000000, 'test-sign', '/orders', '{"hash": "0x123"}', SIG)).toBe(false);
    expect(verifyHmacSignature(SECRET, 1000000, 'test-sign', '/orders', '{"hash": "0x123"}', '')).toBe(false);
    expect(verifyHmacSignature(SECRET, 1000000, 'test-sign', '/orders', '{"hash": "0x123"}', 'abc')).toBe(false);
    expect(
      verifyHmacSignature(SECRET, 1000000, 'test-sign', '/orders', '{"hash": "0x123"}', null as unknown as string),
    ).toBe(false);
    expect(verifyHmacSignature(undefined as unknown as string, 1000000, 'test-sign', '/orders', undefined, SIG)).toBe(
      false,
    );
  });
  it('builds the L2 headers', () => {
    expect(
      l2Headers(
        { key: 'k-1', secret: SECRET, passphrase: 'pp' },
        ADDR,
        'test-sign',
        '/orders',
        '{"hash": "0x123"}',
        1000000,
      ),
    ).toEqual({
      POLY_ADDRESS: ADDR,
      POLY_SIGNATURE: SIG,
      POLY_TIMESTAMP: '1000000',
      POLY_API_KEY: 'k-1',
      POLY_PASSPHRASE: 'pp',
    });
  });
  it('buildHmacSignature throws ValidationError on a malformed secret', () => {
    expect(() => buildHmacSignature('not*base64', 1, 'GET', '/')).toThrow(ValidationError);
  });

  /** What node:crypto's Hmac gives, in the venue's form (url-safe, '=' kept). */
  const reference = (secret: string, ts: number | string, method: string, path: string, body?: string) =>
    createHmac('sha256', Buffer.from(secret, 'base64'))
      .update(`${ts}${method}${path}${body ?? ''}`, 'utf8')
      .digest('base64')
      .replace(/\+/g, '-')
      .replace(/\//g, '_');

  it('gives the bytes of node:crypto for any key and message: both paths (JS below JS_MAX_BYTES, native above), any key length, non-ASCII', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 130 }),
        fc.boolean(),
        fc.oneof(fc.integer({ min: 0, max: 2 ** 40 }), fc.stringMatching(/^[0-9]{1,12}$/)),
        fc.constantFrom('GET', 'POST', 'DELETE'),
        fc.oneof(
          fc.constant(undefined),
          fc.string({ maxLength: 300 }),
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.string({ minLength: JS_MAX_BYTES - 80, maxLength: JS_MAX_BYTES + 200 }),
        ),
        (key, urlSafe, ts, method, body) => {
          const secret = Buffer.from(key).toString(urlSafe ? 'base64url' : 'base64');
          const sig = buildHmacSignature(secret, ts, method, '/orders', body);
          expect(sig).toBe(reference(secret, ts, method, '/orders', body));
          expect(verifyHmacSignature(secret, ts, method, '/orders', body, sig)).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });
  it('gives the bytes of node:crypto at every length around the SHA-256 block boundaries', () => {
    const secret = Buffer.from(Array.from({ length: 32 }, (_, i) => i * 7)).toString('base64');
    for (let n = 0; n <= 300; n++) {
      const body = 'x'.repeat(n);
      expect(buildHmacSignature(secret, 1700000000, 'POST', '/orders', body)).toBe(
        reference(secret, 1700000000, 'POST', '/orders', body),
      );
    }
    for (const n of [JS_MAX_BYTES - 40, JS_MAX_BYTES - 20, JS_MAX_BYTES, JS_MAX_BYTES + 1, 3 * JS_MAX_BYTES]) {
      const body = 'é'.repeat(n >> 1) + 'y'.repeat(n & 1);
      expect(buildHmacSignature(secret, 1, 'POST', '/orders', body)).toBe(
        reference(secret, 1, 'POST', '/orders', body),
      );
    }
  });
  it('a cached key is not confused with another secret', () => {
    const a = Buffer.alloc(32, 1).toString('base64');
    const b = Buffer.alloc(32, 2).toString('base64');
    for (let i = 0; i < 3; i++) {
      expect(buildHmacSignature(a, 1, 'GET', '/x')).toBe(reference(a, 1, 'GET', '/x'));
      expect(buildHmacSignature(b, 1, 'GET', '/x')).toBe(reference(b, 1, 'GET', '/x'));
    }
    // more secrets than the cache holds
    for (let i = 0; i < 200; i++) {
      const s = Buffer.from([i, i + 1, i + 2]).toString('base64');
      expect(buildHmacSignature(s, i, 'GET', '/y')).toBe(reference(s, i, 'GET', '/y'));
    }
  });
});

describe('SHA-256 in JS (signing/sha256.ts)', () => {
  it('equals node:crypto for messages of any length', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 700 }), (msg) => {
        const buf = new Uint8Array(msg.length + 72);
        buf.set(msg);
        const h = new Int32Array(SHA256_IV);
        sha256Finish(h, buf, msg.length, 0);
        const out = new Uint8Array(32);
        sha256Digest(h, out, 0);
        expect(Buffer.from(out).toString('hex')).toBe(createHash('sha256').update(msg).digest('hex'));
      }),
      { numRuns: 300 },
    );
  });
});
