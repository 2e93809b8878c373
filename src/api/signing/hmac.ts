/**
 * L2 auth: HMAC-SHA256 request signatures. Message = timestamp + METHOD + path (no query string) +
 * body (if any); key = base64-decoded secret (standard or url-safe alphabet); output = url-safe
 * base64 ('+' → '-', '/' → '_') keeping the '=' padding.
 *
 * Public vector: secret `AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`, timestamp 1000000, method
 * `test-sign`, path `/orders`, body `{"hash": "0x123"}` → `ZwAdJKvoYRlEKDkNMwd5BuwNNtg93kNaR_oU2HrfVvc=`.
 */
import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationError } from '../../core/errors.ts';

const B64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function decodeSecret(secret: string): Buffer | undefined {
  if (typeof secret !== 'string' || secret.length === 0 || !B64.test(secret)) return undefined;
  // Node's base64 decoder accepts both the standard and the url-safe alphabet.
  const key = Buffer.from(secret, 'base64');
  return key.length === 0 ? undefined : key;
}

function hmacRaw(key: Buffer, timestamp: number | string, method: string, path: string, body: string | undefined): Buffer {
  let message = `${timestamp}${method}${path}`;
  if (body !== undefined) message += body;
  return createHmac('sha256', key).update(message, 'utf8').digest();
}

function toUrlSafe(b64: string): string {
  return b64.replace(/\+/g, '-').replace(/\//g, '_');
}

/**
 * The POLY_SIGNATURE of an L2 request. `method` is used verbatim ("GET", "POST", "DELETE").
 * @throws ValidationError when the secret is not base64.
 */
export function buildHmacSignature(secret: string, timestamp: number | string, method: string, path: string, body?: string): string {
  const key = decodeSecret(secret);
  if (key === undefined) throw new ValidationError('secret: not base64');
  return toUrlSafe(hmacRaw(key, timestamp, method, path, body).toString('base64'));
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
    const key = decodeSecret(secret);
    if (key === undefined) return false;
    const expected = Buffer.from(toUrlSafe(hmacRaw(key, timestamp, method, path, body).toString('base64')).replace(/=+$/, ''), 'utf8');
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
