/**
 * The logger never writes a secret: by path (private key, API secret, passphrase, the L2 headers,
 * the user channel's auth frame, at any depth the paths cover) and by value (a registered secret in
 * a message string, an error's text, an unexpected field). Errors of the tree scrub their messages.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthError, NetworkError } from '../../../src/core/errors.ts';
import { clearSecrets, containsSecret, registerSecret, scrubSecrets } from '../../../src/core/secrets.ts';
import { REDACT_PATHS, componentLogger, createLogger } from '../../../src/ops/logger.ts';

const PK = '0x' + 'ab12'.repeat(16);
const SECRET = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtMTIzNDU2Nzg5MA==';
const PASS = 'f00dbabe1234567890deadbeefcafe0011223344556677';
const API_KEY = '7c1d5a0e-2b3f-4c6d-9e8f-0a1b2c3d4e5f';

function capture(level = 'trace') {
  const lines: string[] = [];
  const dest = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  const log = createLogger({ level, destination: dest as never, pretty: false });
  return {
    log,
    text: () => lines.join(''),
    json: () =>
      lines
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

afterEach(() => clearSecrets());

describe('logger: redaction by path', () => {
  it('redacts secret fields at the top level and nested, the L2 headers and the auth frame', () => {
    const { log, text, json } = capture();
    log.info(
      {
        privateKey: PK,
        creds: { apiKey: API_KEY, secret: SECRET, passphrase: PASS },
        wallet: { privateKey: PK },
        deep: { a: { b: { secret: SECRET } } },
        req: {
          headers: {
            poly_signature: 'sig-abcdefgh',
            poly_passphrase: PASS,
            poly_api_key: API_KEY,
            authorization: `Bearer ${SECRET}`,
            'x-admin-token': 'admin-token-123',
          },
        },
        request: {
          headers: {
            POLY_SIGNATURE: 'sig-abcdefgh',
            POLY_PASSPHRASE: PASS,
            POLY_API_KEY: API_KEY,
            Authorization: 'Bearer zzzzzzzz',
          },
        },
        frame: { type: 'user', markets: ['0xabc'], auth: { apiKey: API_KEY, secret: SECRET, passphrase: PASS } },
        list: [{ secret: SECRET }],
        keystore: { password: 'hunter2hunter2' },
        ok: 'visible',
      },
      'startup',
    );
    const out = text();
    for (const s of [PK, SECRET, PASS, API_KEY, 'sig-abcdefgh', 'admin-token-123', 'hunter2hunter2', 'zzzzzzzz'])
      expect(out).not.toContain(s);
    const line = json()[0]!;
    expect(line['ok']).toBe('visible');
    expect(line['privateKey']).toBe('[redacted]');
    expect((line['frame'] as Record<string, unknown>)['auth']).toBe('[redacted]');
    expect((line['frame'] as Record<string, unknown>)['type']).toBe('user');
    expect(REDACT_PATHS).toContain('*.auth');
    expect(REDACT_PATHS).toContain('*.headers.POLY_SIGNATURE');
  });

  it('child loggers carry component and market, and keep the redaction', () => {
    const { log, json } = capture();
    const child = componentLogger(log, 'executor', '0xmarket');
    child.warn({ secret: SECRET }, 'x');
    const line = json()[0]!;
    expect(line).toMatchObject({ component: 'executor', market: '0xmarket', secret: '[redacted]', level: 40 });
  });

  it('respects the level', () => {
    const { log, text } = capture('warn');
    log.info('hidden');
    log.warn('shown');
    expect(text()).not.toContain('hidden');
    expect(text()).toContain('shown');
  });
});

describe('logger: scrubbing by value', () => {
  it('replaces registered secrets in messages, unexpected fields and serialised errors', () => {
    registerSecret(PK, SECRET, PASS, API_KEY);
    const { log, text } = capture();
    log.info({ note: `signed with ${PK}`, weird: { k: SECRET } }, `key ${API_KEY} and ${PASS}`);
    log.error({ err: new Error(`boom ${SECRET}`) }, 'failed');
    // a hex key without its prefix, or upper case, is still found
    log.info(`raw ${PK.slice(2).toUpperCase()}`);
    const out = text();
    for (const s of [PK, PK.slice(2), PK.slice(2).toUpperCase(), SECRET, PASS, API_KEY]) expect(out).not.toContain(s);
    expect(out).toContain('[redacted]');
    expect(out).toContain('boom');
  });

  it('ignores short values (they would mangle ordinary text)', () => {
    registerSecret('abc', undefined, null, '');
    expect(scrubSecrets('abcdef abc')).toBe('abcdef abc');
  });

  it('errors of the tree never carry a registered secret in their message', () => {
    registerSecret(SECRET);
    const e = new AuthError(`refused: secret ${SECRET} invalid`);
    expect(e.message).not.toContain(SECRET);
    expect(e.message).toContain('[redacted]');
    const n = new NetworkError(`POST failed with header ${SECRET}`);
    expect(containsSecret(n.message)).toBe(false);
    expect(containsSecret(`x ${SECRET}`)).toBe(true);
  });
});
