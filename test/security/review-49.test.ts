/**
 * Security review 49 (a helper's review of the paper exchange, 2026-11-30), each defect against a real
 * exchange on a loopback port:
 *  - F1/F2: a percent-encoded API prefix (`/%63lob/...`, routed as `/clob/...`) skipped every HTTP rate
 *    limit, and the L2 signature was checked over the path "/" for any route under it;
 *  - F3: RTDS comment filters had no cap per connection (one socket stalled the event loop);
 *  - F4: the user channel kept every market id a client subscribed to, no cap;
 *  - F5: one L1 signature minted a key per spelling of its nonce ("0", "00", ...), no cap per address;
 *  - F6: `order=__proto__` (an inherited property name) on the Gamma lists was a 500.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { l2Headers } from '../../src/api/signing/hmac.ts';
import { ADMIN, startVenue, yes, type TestVenue } from '../integration/support/setup.ts';

const venues: TestVenue[] = [];
afterAll(async () => Promise.all(venues.map((v) => v.close())));

const limited = async () => {
  const v = await startVenue({ http: { rateLimits: { enabled: true, scale: 1, queueMs: 0 } } });
  venues.push(v);
  return v;
};

describe('security review 49', () => {
  it('F1/F2: an encoded API prefix is refused (400), so it neither skips the rate limits nor unbinds the signed path', async () => {
    const v = await limited();
    const root = v.clob.replace(/\/clob$/, '');
    // GET /book: 100 per 10 s per client address; the encoded prefix counted nowhere before
    const book = `/book?token_id=${yes(v.m1)}`;
    const encoded = await fetch(`${root}/%63lob${book}`);
    expect(encoded.status).toBe(400);
    expect(((await encoded.json()) as any).error.message).toContain('percent-encoded');
    for (const p of ['/%64ata/markets', '/%61dmin/security', '/%67amma/markets', '/c%6Cob/time']) {
      const r = await fetch(`${root}${p}`, { headers: { 'x-admin-token': 'guess' } });
      expect(r.status, p).toBe(400);
      await r.body?.cancel();
    }
    const statuses: number[] = [];
    for (let i = 0; i < 110; i++) {
      const r = await fetch(`${root}/clob${book}`);
      statuses.push(r.status);
      await r.body?.cancel();
    }
    expect(statuses.filter((s) => s === 429).length).toBe(10);
    // one signature over (ts, DELETE, "/") authenticates no route
    const t = await v.trader();
    const c = t.creds!;
    const slash = l2Headers(
      { key: c.apiKey, secret: c.secret, passphrase: c.passphrase },
      t.wallet.address,
      'DELETE',
      '/',
      undefined,
      Math.floor(Date.now() / 1000),
    );
    for (const p of ['/%63lob/cancel-all', '/%63lob/auth/api-key', '/clob/cancel-all']) {
      const r = await fetch(`${root}${p}`, { method: 'DELETE', headers: { ...slash } });
      expect(r.status, p).toBeGreaterThanOrEqual(400);
      await r.body?.cancel();
    }
    // the key still works
    expect((await t.l2('GET', '/auth/api-keys')).status).toBe(200);
    expect(ADMIN).toBeTypeOf('string');
  });
});
