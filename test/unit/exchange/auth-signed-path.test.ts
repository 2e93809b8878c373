/**
 * L2 authentication signs the path relative to the API base: a request that names no API base (no
 * `apiPath`) is refused, never checked against a default "/" (security review 49 F2: under a path the
 * prefix check missed, one signature over "/" authenticated every route of its method). The exchange
 * is the part authentication reads of it: the key store and the server clock.
 */
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { l2Headers } from '../../../src/api/signing/hmac.ts';
import type { PaperExchange } from '../../../src/exchange/exchange.ts';
import { authenticate } from '../../../src/exchange/http/auth.ts';

const ADDRESS = '0x00000000000000000000000000000000000000aa';
const creds = {
  key: '11111111-2222-3333-4444-555555555555',
  secret: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXM=',
  passphrase: 'pp',
};
const rec = {
  apiKey: creds.key,
  secret: creds.secret,
  passphrase: creds.passphrase,
  address: ADDRESS,
  nonce: '0',
  createdAt: 0,
};
const ex = {
  keys: { get: (k: string) => (k === creds.key ? rec : undefined), readonly: () => undefined },
  serverNow: () => Date.now(),
} as unknown as PaperExchange;

function req(method: string, url: string, apiPath: string | undefined, signedPath: string) {
  const h = l2Headers(creds, ADDRESS, method, signedPath, undefined, Math.floor(Date.now() / 1000));
  const headers = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
  return { method, url, headers, apiPath, rawBody: undefined } as unknown as FastifyRequest;
}

describe('L2 authentication: the signed path', () => {
  it('a request under an API base checks the signature over its path relative to it', () => {
    expect(authenticate(ex, req('DELETE', '/clob/cancel-all', '/cancel-all', '/cancel-all'), { maxSkewSec: 300 })).toBe(
      rec,
    );
    expect(() => authenticate(ex, req('DELETE', '/clob/cancel-all', '/cancel-all', '/'), { maxSkewSec: 300 })).toThrow(
      /Invalid L2 signature/,
    );
  });
  it('a request that names no API base is refused, though signed over "/"', () => {
    expect(() =>
      authenticate(ex, req('DELETE', 'http://h/clob/cancel-all', undefined, '/'), { maxSkewSec: 300 }),
    ).toThrow(/needs a path under an API base/);
  });
});
