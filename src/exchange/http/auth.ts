/**
 * Request authentication of the paper exchange.
 *  - L2 (the public service's form): POLY_ADDRESS, POLY_SIGNATURE, POLY_TIMESTAMP, POLY_API_KEY,
 *    POLY_PASSPHRASE; HMAC over timestamp + METHOD + path + body, where path is relative to the
 *    API's base URL (a client signs `/order` even when its base URL ends in `/clob`).
 *  - Bearer (the spec's form): `Authorization: Bearer <API_KEY>`.
 *  - L1 (key creation/derivation): POLY_ADDRESS, POLY_SIGNATURE, POLY_TIMESTAMP, POLY_NONCE, an
 *    EIP-712 ClobAuth signature by the wallet.
 *  - Read-only keys (`POST /auth/readonly-api-key`): as a Bearer token, on the account's read
 *    routes only (`authenticateRead`); anywhere else they are refused 403.
 * Failures are 401 (403 for a read-only key where it has no power) with a message that never
 * echoes a secret.
 */
import type { FastifyRequest } from 'fastify';
import { recoverClobAuth } from '../../api/signing/clob-auth.ts';
import { verifyHmacSignature } from '../../api/signing/hmac.ts';
import { timingSafeEqual } from 'node:crypto';
import type { ApiKeyRecord } from '../accounts/keys.ts';
import type { PaperExchange } from '../exchange.ts';
import { forbidden, unauthorized } from './errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: string;
    /** The path relative to the API's base URL, without query string (e.g. "/order"). */
    apiPath?: string;
  }
}

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Longest accepted POLY_API_KEY, POLY_ADDRESS, POLY_PASSPHRASE or bearer token (an API key is a 36-character UUID). */
export const MAX_IDENTITY_HEADER_LENGTH = 128;

/** The first identity header longer than MAX_IDENTITY_HEADER_LENGTH, or undefined. */
export function overlongIdentityHeader(req: FastifyRequest): string | undefined {
  for (const name of ['POLY_API_KEY', 'POLY_ADDRESS', 'POLY_PASSPHRASE']) {
    const v = header(req, name);
    if (v !== undefined && v.length > MAX_IDENTITY_HEADER_LENGTH) return name;
  }
  const auth = header(req, 'authorization');
  if (
    auth !== undefined &&
    /^Bearer\s+/i.test(auth) &&
    auth.replace(/^Bearer\s+/i, '').trim().length > MAX_IDENTITY_HEADER_LENGTH
  )
    return 'bearer token';
  return undefined;
}

/** The credential headers a request may give once only (lower case, as node names them). */
const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'poly_address',
  'poly_api_key',
  'poly_passphrase',
  'poly_signature',
  'poly_timestamp',
  'poly_nonce',
]);

/**
 * The first credential header given more than once, as the client spelled it, or undefined. Node keeps
 * the first of two `Authorization` headers and joins two POLY_* headers with ", ": either way the
 * request's identity would be one the client did not state (or a misleading "too long" refusal).
 */
export function duplicatedCredentialHeader(req: FastifyRequest): string | undefined {
  const raw = req.raw.rawHeaders;
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!CREDENTIAL_HEADERS.has(name)) continue;
    if (seen.has(name)) return name === 'authorization' ? 'Authorization' : name.toUpperCase();
    seen.add(name);
  }
  return undefined;
}

/** The token of an `Authorization: Bearer <token>` header, if any. */
function bearerToken(req: FastifyRequest): string | undefined {
  const auth = header(req, 'authorization');
  if (auth !== undefined && /^Bearer\s+/i.test(auth)) return auth.replace(/^Bearer\s+/i, '').trim();
  return undefined;
}

/** The API key a request names (for rate-limit identity); not a proof of anything. */
export function claimedApiKey(req: FastifyRequest): string | undefined {
  return header(req, 'poly_api_key') ?? bearerToken(req);
}

/** The wallet address a request names (POLY_ADDRESS); not a proof of anything. */
export function claimedAddress(req: FastifyRequest): string | undefined {
  return header(req, 'poly_address');
}

/**
 * The 401 text of an L2 signature that does not verify, with the usual mistake named: the HMAC is
 * over the path relative to the API base (`/balances`), and a client that signed the whole URL path
 * (`/clob/balances`) is told so; any other miss gets the rule as a hint. Never echoes the secret.
 */
function l2SignatureRefusal(
  req: FastifyRequest,
  secret: string,
  ts: string,
  body: string | undefined,
  sig: string,
  rel: string,
): string {
  const q = req.url.indexOf('?');
  const full = q < 0 ? req.url : req.url.slice(0, q);
  if (full !== rel && verifyHmacSignature(secret, ts, req.method, full, body, sig))
    return `Invalid L2 signature: it was made over ${full}; sign the path relative to the API base (${rel})`;
  return `Invalid L2 signature (HMAC of timestamp + method + path + body, the path relative to the API base, e.g. ${rel})`;
}

/** Refusal of a read-only key where only a full API key will do. */
const READONLY_REFUSED =
  'read-only API key: it reads the account (orders, trades, balances) and cannot trade, cancel or manage keys';

export interface AuthOptions {
  /** Largest accepted |server time - POLY_TIMESTAMP|, seconds. */
  maxSkewSec: number;
}

/**
 * Authenticate an L2 or Bearer request.
 * @throws HttpError 401 when no valid credential is present.
 */
export function authenticate(ex: PaperExchange, req: FastifyRequest, opts: AuthOptions): ApiKeyRecord {
  const apiKey = header(req, 'poly_api_key');
  if (apiKey !== undefined) {
    const rec = ex.keys.get(apiKey);
    if (rec === undefined && ex.keys.readonly(apiKey) !== undefined) throw forbidden(READONLY_REFUSED);
    const sig = header(req, 'poly_signature');
    const ts = header(req, 'poly_timestamp');
    const pass = header(req, 'poly_passphrase');
    const addr = header(req, 'poly_address');
    if (rec === undefined) throw unauthorized('Unauthorized/Invalid api key');
    if (sig === undefined || ts === undefined || pass === undefined || addr === undefined)
      throw unauthorized(
        'Invalid L2 request headers: POLY_ADDRESS, POLY_SIGNATURE, POLY_TIMESTAMP, POLY_API_KEY and POLY_PASSPHRASE are required',
      );
    if (!safeEqual(pass, rec.passphrase)) throw unauthorized('Unauthorized/Invalid api key');
    if (addr.toLowerCase() !== rec.address) throw unauthorized('POLY_ADDRESS does not own this api key');
    checkTimestamp(ex, ts, opts);
    // the signed path is the route's, relative to its API base: never a default (security review 49 F2)
    const path = req.apiPath;
    if (path === undefined) throw unauthorized('L2 authentication needs a path under an API base (/clob, /data, ...)');
    const body = req.rawBody === undefined || req.rawBody === '' ? undefined : req.rawBody;
    const query = req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '';
    const ok =
      verifyHmacSignature(rec.secret, ts, req.method, path, body, sig) ||
      (query !== '' && verifyHmacSignature(rec.secret, ts, req.method, path + query, body, sig));
    if (!ok) throw unauthorized(l2SignatureRefusal(req, rec.secret, ts, body, sig, path));
    return rec;
  }
  const token = bearerToken(req);
  if (token !== undefined) {
    const rec = ex.keys.get(token);
    if (rec === undefined && ex.keys.readonly(token) !== undefined) throw forbidden(READONLY_REFUSED);
    if (rec === undefined) throw unauthorized('Unauthorized/Invalid api key');
    return rec;
  }
  throw unauthorized('Unauthorized: send L2 headers (POLY_API_KEY, ...) or Authorization: Bearer <API_KEY>');
}

/** Who reads an account: a full API key (L2 or Bearer) or a read-only key (Bearer). */
export interface Reader {
  /** The account's address (lower case). */
  address: string;
  /** The key presented: only a full key sees itself as `owner` of its orders; a read-only key sees aliases. */
  apiKey: string;
  readonly: boolean;
}

/**
 * Authenticate a request to an account read route (open orders, trades, balances, positions,
 * notifications, ban status): a full API key as in `authenticate`, or a read-only key sent as
 * `Authorization: Bearer <key>` (a read-only key has no secret, so it cannot sign L2 headers).
 * @throws HttpError 401 when no valid credential is present.
 */
export function authenticateRead(ex: PaperExchange, req: FastifyRequest, opts: AuthOptions): Reader {
  const token = header(req, 'poly_api_key') === undefined ? bearerToken(req) : undefined;
  const ro = token === undefined ? undefined : ex.keys.readonly(token);
  if (ro !== undefined) return { address: ro.address, apiKey: ro.apiKey, readonly: true };
  const rec = authenticate(ex, req, opts);
  return { address: rec.address, apiKey: rec.apiKey, readonly: false };
}

/**
 * The rate-limit identity of a request that names a known key, once verified: `key:<api key>` for
 * a full key whose L2 signature checks or that is sent as Bearer (the spec's form: the key itself
 * is the credential), `key:<read-only key>` for a read-only key sent as Bearer, and for the relayer
 * `account:<address>` for a full key (every key of an address shares its budget). Undefined when
 * nothing verifies.
 */
export function verifiedIdentity(
  ex: PaperExchange,
  req: FastifyRequest,
  opts: AuthOptions & { perAccount: boolean },
): string | undefined {
  try {
    const r = authenticateRead(ex, req, opts);
    // a read-only key never spends its account's budget: it counts in its own windows
    return opts.perAccount && !r.readonly ? `account:${r.address}` : `key:${r.apiKey}`;
  } catch {
    return undefined;
  }
}

/** Whether a key id names a key of the exchange (full or read-only): such requests wait to be verified. */
export function knownKey(ex: PaperExchange, key: string): boolean {
  return ex.keys.get(key) !== undefined || ex.keys.readonly(key) !== undefined;
}

function checkTimestamp(ex: PaperExchange, ts: string, opts: AuthOptions): void {
  if (!/^\d{1,13}$/.test(ts)) throw unauthorized('POLY_TIMESTAMP must be unix seconds');
  const skew = Math.abs(ex.serverNow() / 1000 - Number(ts));
  if (skew > opts.maxSkewSec)
    throw unauthorized(`POLY_TIMESTAMP is ${Math.round(skew)} s away from server time (max ${opts.maxSkewSec} s)`);
}

/**
 * Verify L1 headers and return the wallet address (lower case) and nonce.
 * @throws HttpError 401 on missing headers or a signature that does not recover POLY_ADDRESS.
 */
export function authenticateL1(
  ex: PaperExchange,
  req: FastifyRequest,
  opts: AuthOptions,
): { address: string; nonce: string } {
  const addr = header(req, 'poly_address');
  const sig = header(req, 'poly_signature');
  const ts = header(req, 'poly_timestamp');
  const nonce = header(req, 'poly_nonce') ?? '0';
  if (addr === undefined || sig === undefined || ts === undefined) throw unauthorized('Invalid L1 Request headers');
  if (!/^0x[0-9a-fA-F]{40}$/.test(addr) || !/^\d{1,30}$/.test(nonce)) throw unauthorized('Invalid L1 Request headers');
  checkTimestamp(ex, ts, opts);
  let recovered: string;
  try {
    recovered = recoverClobAuth(ex.opts.chainId, addr, ts, BigInt(nonce), sig);
  } catch {
    throw unauthorized('Invalid L1 Request headers');
  }
  if (recovered.toLowerCase() !== addr.toLowerCase())
    throw unauthorized('Invalid L1 Request headers: signature does not match POLY_ADDRESS');
  // the nonce as the number signed: "0" and "00" are one nonce, one key (security review 49 F5)
  return { address: addr.toLowerCase(), nonce: BigInt(nonce).toString() };
}
