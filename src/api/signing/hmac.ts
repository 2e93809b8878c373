/**
 * L2 auth: HMAC-SHA256 request signatures. Message = timestamp + METHOD + path (no query string) +
 * body (if any); key = base64-decoded secret (standard or url-safe alphabet); output = url-safe
 * base64 ('+' → '-', '/' → '_') keeping the '=' padding.
 *
 * Public vector: secret `AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`, timestamp 1000000, method
 * `test-sign`, path `/orders`, body `{"hash": "0x123"}` → `ZwAdJKvoYRlEKDkNMwd5BuwNNtg93kNaR_oU2HrfVvc=`.
 */
import { Buffer } from 'node:buffer';
import { createHmac, hash as oneShotHash, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../../core/errors.ts';
import { SHA256_IV, sha256Compress, sha256Digest, sha256Finish } from './sha256.ts';

const B64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * How a secret keys SHA-256 HMAC (RFC 2104), prepared once per secret (block = 64 bytes; a longer
 * key is hashed first): the SHA-256 states after the (K xor 0x36) and (K xor 0x5c) blocks, for
 * the pure-JS path, and the pad blocks themselves for the node:crypto path (`outer` has room for
 * the 32-byte inner digest after its pad).
 */
interface HmacKey {
  readonly innerState: Int32Array;
  readonly outerState: Int32Array;
  readonly ipad: Buffer;
  readonly outer: Buffer;
}

/**
 * Prepared keys by secret: a process signs with one secret (a bot) or verifies with a few (the
 * paper exchange), so a small map; it is emptied when full rather than grown. Holds nothing the
 * credentials do not already hold in memory, and is never logged.
 */
const keys = new Map<string, HmacKey | null>();
const MAX_KEYS = 64;

let lastSecret: string | undefined;
let lastKey: HmacKey | undefined;

/** The prepared key of a secret, or undefined when the secret is not base64. */
function keyOf(secret: string): HmacKey | undefined {
  if (secret === lastSecret && lastKey !== undefined) return lastKey; // one identity signs: no map lookup
  const k = keyOfMap(secret);
  if (k !== undefined) {
    lastSecret = secret;
    lastKey = k;
  }
  return k;
}

function keyOfMap(secret: string): HmacKey | undefined {
  const hit = keys.get(secret);
  if (hit !== undefined) return hit ?? undefined;
  const k = prepareKey(secret);
  if (keys.size >= MAX_KEYS) keys.clear();
  if (typeof secret === 'string') keys.set(secret, k ?? null);
  return k;
}

function prepareKey(secret: string): HmacKey | undefined {
  if (typeof secret !== 'string' || secret.length === 0 || !B64.test(secret)) return undefined;
  // Node's base64 decoder accepts both the standard and the url-safe alphabet.
  let key = Buffer.from(secret, 'base64');
  if (key.length === 0) return undefined;
  if (key.length > 64) key = oneShotHash('sha256', key, 'buffer');
  const ipad = Buffer.alloc(64, 0x36);
  const outer = Buffer.alloc(96, 0x5c);
  for (let i = 0; i < key.length; i++) {
    ipad[i]! ^= key[i]!;
    outer[i]! ^= key[i]!;
  }
  const innerState = new Int32Array(SHA256_IV);
  sha256Compress(innerState, ipad, 0);
  const outerState = new Int32Array(SHA256_IV);
  sha256Compress(outerState, outer, 0);
  return { innerState, outerState, ipad, outer };
}

/**
 * Messages up to this many bytes are hashed in JS (./sha256.ts: no cold native call on the
 * tick-to-order path), longer ones with node:crypto (higher throughput). Both give the same bytes.
 */
export const JS_MAX_BYTES = 4096;

/** Scratch for message bytes (JS path) or (K xor ipad) ‖ message (native path); grown on demand. */
let scratch = Buffer.allocUnsafe(16 * 1024);
const state = new Int32Array(8);
const block = new Uint8Array(64);
const sigChars = new Uint16Array(43);
const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64URL_CODES = Uint8Array.from(B64URL, (c) => c.charCodeAt(0));

/** Copies an all-ASCII string's bytes to `buf` at `pos`: the new position, or -1 at the first non-ASCII character. */
function putAscii(buf: Uint8Array, pos: number, s: string): number {
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c > 0x7f) return -1;
    buf[pos + i] = c;
  }
  return pos + n;
}

/** The UTF-8 bytes of the message in `scratch` (room left for the SHA-256 padding): their count. */
function encodeMessage(
  at: number,
  timestamp: number | string,
  method: string,
  path: string,
  body: string | undefined,
): number {
  const ts = String(timestamp);
  const chars = ts.length + method.length + path.length + (body === undefined ? 0 : body.length);
  const need = at + chars * 3 + 72; // UTF-8: at most 3 bytes per UTF-16 code unit; 72: padding
  if (scratch.length < need) scratch = Buffer.allocUnsafe(Math.max(need, scratch.length * 2));
  let p = putAscii(scratch, at, ts);
  if (p >= 0) p = putAscii(scratch, p, method);
  if (p >= 0) p = putAscii(scratch, p, path);
  if (p >= 0 && body !== undefined) p = putAscii(scratch, p, body);
  if (p >= 0) return p - at;
  // not all ASCII: let Node encode it (the same encoder createHmac's update uses)
  return scratch.write(body === undefined ? `${ts}${method}${path}` : `${ts}${method}${path}${body}`, at, 'utf8');
}

/**
 * HMAC-SHA256 of `timestamp + method + path + body` (UTF-8) as url-safe base64 WITH the '='
 * padding: the bytes of `createHmac('sha256', key).update(message).digest('base64')` with '+' → '-'
 * and '/' → '_'. Short messages are hashed in JS from the prepared key states; long ones with two
 * one-shot node:crypto hashes over the prepared pad blocks.
 */
function hmacUrlSafe(
  k: HmacKey,
  timestamp: number | string,
  method: string,
  path: string,
  body: string | undefined,
): string {
  const n = encodeMessage(0, timestamp, method, path, body);
  if (n > JS_MAX_BYTES) return hmacNative(k, n);
  state.set(k.innerState);
  sha256Finish(state, scratch, n, 64);
  sha256Digest(state, block, 0);
  // the outer hash: one block, (K xor opad) already folded in; 96 bytes = 768 bits in all
  block[32] = 0x80;
  block.fill(0, 33, 62);
  block[62] = 0x03;
  block[63] = 0x00;
  state.set(k.outerState);
  sha256Compress(state, block, 0);
  sha256Digest(state, block, 0);
  // url-safe base64 of the 32 bytes: 43 characters and one '='
  const c = sigChars;
  for (let i = 0, j = 0; i < 30; i += 3, j += 4) {
    const x = (block[i]! << 16) | (block[i + 1]! << 8) | block[i + 2]!;
    c[j] = B64URL_CODES[x >>> 18]!;
    c[j + 1] = B64URL_CODES[(x >>> 12) & 63]!;
    c[j + 2] = B64URL_CODES[(x >>> 6) & 63]!;
    c[j + 3] = B64URL_CODES[x & 63]!;
  }
  const x = (block[30]! << 16) | (block[31]! << 8);
  c[40] = B64URL_CODES[x >>> 18]!;
  c[41] = B64URL_CODES[(x >>> 12) & 63]!;
  c[42] = B64URL_CODES[(x >>> 6) & 63]!;
  // 43 characters and the '=' (explicit arguments: a direct builtin call, no array-like spread)
  return String.fromCharCode(
    c[0]!,
    c[1]!,
    c[2]!,
    c[3]!,
    c[4]!,
    c[5]!,
    c[6]!,
    c[7]!,
    c[8]!,
    c[9]!,
    c[10]!,
    c[11]!,
    c[12]!,
    c[13]!,
    c[14]!,
    c[15]!,
    c[16]!,
    c[17]!,
    c[18]!,
    c[19]!,
    c[20]!,
    c[21]!,
    c[22]!,
    c[23]!,
    c[24]!,
    c[25]!,
    c[26]!,
    c[27]!,
    c[28]!,
    c[29]!,
    c[30]!,
    c[31]!,
    c[32]!,
    c[33]!,
    c[34]!,
    c[35]!,
    c[36]!,
    c[37]!,
    c[38]!,
    c[39]!,
    c[40]!,
    c[41]!,
    c[42]!,
    0x3d,
  );
}

/** The node:crypto path of `hmacUrlSafe`, for the `n` message bytes at the start of `scratch`. */
function hmacNative(k: HmacKey, n: number): string {
  if (scratch.length < n + 64) {
    const grown = Buffer.allocUnsafe(n + 64);
    scratch.copy(grown, 0, 0, n);
    scratch = grown;
  }
  scratch.copyWithin(64, 0, n);
  scratch.set(k.ipad, 0);
  const inner = oneShotHash('sha256', scratch.subarray(0, 64 + n), 'buffer');
  const outer = k.outer;
  outer.set(inner, 64);
  return oneShotHash('sha256', outer, 'base64url') + '=';
}

/** The reference computation (for the self-test below). */
function hmacReference(secret: string, message: string): string {
  return createHmac('sha256', Buffer.from(secret, 'base64'))
    .update(message, 'utf8')
    .digest('base64')
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
}

// Self-test at load: both paths must give the Hmac object's bytes (the venue verifies them).
{
  const secret = 'Zm9vYmFyLWJlbmNoLXNlY3JldC0wMTIzNDU2Nzg5YWJjZGVm';
  const k = prepareKey(secret)!;
  for (const body of ['{"hash": "0x123"}', 'é€😀'.repeat(3), 'x'.repeat(JS_MAX_BYTES + 100)]) {
    if (
      hmacUrlSafe(k, 1000000, 'test-sign', '/orders', body) !== hmacReference(secret, `1000000test-sign/orders${body}`)
    )
      throw new Error('hmac: self-test failed');
  }
}

function toUrlSafe(b64: string): string {
  return b64.replace(/\+/g, '-').replace(/\//g, '_');
}

/**
 * The POLY_SIGNATURE of an L2 request. `method` is used verbatim ("GET", "POST", "DELETE").
 * @throws ValidationError when the secret is not base64.
 */
export function buildHmacSignature(
  secret: string,
  timestamp: number | string,
  method: string,
  path: string,
  body?: string,
): string {
  const key = keyOf(secret);
  if (key === undefined) throw new ValidationError('secret: not base64');
  return hmacUrlSafe(key, timestamp, method, path, body);
}

/**
 * Check an L2 signature in constant time. Accepts the signature in url-safe or standard base64,
 * with or without '=' padding. Returns false on any malformed input; never throws.
 */
export function verifyHmacSignature(
  secret: string,
  timestamp: number | string,
  method: string,
  path: string,
  body: string | undefined,
  signature: string,
): boolean {
  try {
    if (typeof signature !== 'string' || !B64.test(signature) || signature.length > 64) return false;
    if (typeof method !== 'string' || typeof path !== 'string') return false;
    if (typeof timestamp !== 'string' && typeof timestamp !== 'number') return false;
    if (body !== undefined && typeof body !== 'string') return false;
    const key = keyOf(secret);
    if (key === undefined) return false;
    const expected = Buffer.from(hmacUrlSafe(key, timestamp, method, path, body).replace(/=+$/, ''), 'utf8');
    const given = Buffer.from(toUrlSafe(signature).replace(/=+$/, ''), 'utf8');
    if (given.length !== expected.length) return false;
    return timingSafeEqual(given, expected);
  } catch {
    return false;
  }
}

/** API credentials as issued by L1 (`apiKey` is called `key` here). */
export interface ApiCreds {
  key: string;
  secret: string;
  passphrase: string;
}

/** The L2 headers of an authenticated request. */
export interface L2Headers {
  POLY_ADDRESS: string;
  POLY_SIGNATURE: string;
  POLY_TIMESTAMP: string;
  POLY_API_KEY: string;
  POLY_PASSPHRASE: string;
}

/**
 * Build the L2 headers. `path` excludes the query string; `body` is the exact bytes sent (or
 * undefined); `timestamp` is unix seconds (the caller reads its clock).
 * @throws ValidationError when the secret is not base64.
 */
export function l2Headers(
  creds: ApiCreds,
  address: string,
  method: string,
  path: string,
  body: string | undefined,
  timestamp: number | string,
): L2Headers {
  return {
    POLY_ADDRESS: address,
    POLY_SIGNATURE: buildHmacSignature(creds.secret, timestamp, method, path, body),
    POLY_TIMESTAMP: String(timestamp),
    POLY_API_KEY: creds.key,
    POLY_PASSPHRASE: creds.passphrase,
  };
}
