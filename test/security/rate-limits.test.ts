/**
 * Issue 16, defect 2: the paper exchange's rate limits must not key on a claimed API key before
 * authentication, and the limiter's tables must be swept and bounded. Unauthenticated (or not yet
 * verified) requests are counted by client address; a key's own windows are used only once its
 * L2 signature checks; over-long identity headers are refused before any table entry is made.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.ts';
import { startVenue, yes, type TestVenue } from '../integration/support/setup.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const venues: TestVenue[] = [];
afterAll(async () => Promise.all(venues.map((v) => v.close())));

/** The documented headers of a 429 (README, "Rate limits"), and the error envelope. */
async function expect429(r: Response): Promise<void> {
  expect(r.status).toBe(429);
  expect(Number(r.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
  expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
  expect(Number(r.headers.get('x-ratelimit-reset'))).toBeGreaterThan(0);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(await r.json()).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
}

const limited = (clock?: VirtualClock) =>
  startVenue({ ...(clock ? { clock } : {}), http: { rateLimits: { enabled: true, scale: 1, queueMs: 0 } } });

describe('rate limits key on verified identities only (issue 16, defect 2)', () => {
  it('(a) a random POLY_API_KEY per request does not escape the limit: 429s come, with their headers', async () => {
    const v = await limited();
    venues.push(v);
    const url = `${v.clob}/book?token_id=${yes(v.m1)}`;
    const statuses: number[] = [];
    let first429: Response | undefined;
    for (let i = 0; i < 130; i++) {
      const r = await fetch(url, { headers: { POLY_API_KEY: randomUUID() } });
      statuses.push(r.status);
      if (r.status === 429 && first429 === undefined) first429 = r;
      else await r.body?.cancel();
    }
    expect(statuses.filter((s) => s === 200).length).toBe(100); // GET /book: 100 per 10 s, per client address
    expect(statuses.filter((s) => s === 429).length).toBe(30);
    expect(first429!.headers.get('x-ratelimit-limit')).toBe('100');
    await expect429(first429!);
  });

  it("(b) unsigned requests carrying a victim's key id do not lock the victim out", async () => {
    const v = await limited();
    venues.push(v);
    const victim = await v.trader();
    const key = victim.creds!.apiKey;
    const statuses: number[] = [];
    for (let i = 0; i < 110; i++) {
      const r = await fetch(`${v.clob}/balances`, { headers: { POLY_API_KEY: key } });
      statuses.push(r.status);
      await r.body?.cancel();
    }
    expect(statuses.filter((s) => s === 401).length).toBe(100);
    expect(statuses.filter((s) => s === 429).length).toBe(10);
    // a wrong signature is not the victim either
    const forged = await fetch(`${v.clob}/balances`, {
      headers: {
        POLY_API_KEY: key,
        POLY_ADDRESS: victim.address,
        POLY_PASSPHRASE: 'wrong',
        POLY_SIGNATURE: 'AAAA',
        POLY_TIMESTAMP: String(Math.floor(Date.now() / 1000)),
      },
    });
    await expect429(forged);
    const own = await victim.l2('GET', '/balances');
    expect(own.status).toBe(200);
    expect(own.headers.get('x-ratelimit-limit')).toBe('100');
    expect(own.headers.get('x-ratelimit-remaining')).toBe('99');
  });

  it('refuses an over-long POLY_API_KEY or POLY_ADDRESS with 401 in the envelope, before any table entry', async () => {
    const v = await limited();
    venues.push(v);
    const size = () => v.running.rateLimits?.size() ?? Number.NaN;
    const base = size();
    for (const headers of <Array<Record<string, string>>>[
      { POLY_API_KEY: 'k'.repeat(4096) },
      { POLY_ADDRESS: `0x${'a'.repeat(4096)}` },
      { authorization: `Bearer ${'k'.repeat(4096)}` },
    ]) {
      const r = await fetch(`${v.clob}/book?token_id=${yes(v.m1)}`, { headers });
      expect(r.status).toBe(401);
      expect(await r.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    }
    expect(size()).toBe(base);
  });

  it('(c) a 5,000-request burst with random key ids gets 429s; the tables return to baseline after a sweep; the heap stays bounded', async () => {
    const clock = new VirtualClock(Date.now());
    const v = await limited(clock);
    venues.push(v);
    const size = () => v.running.rateLimits?.size() ?? Number.NaN;
    const url = `${v.clob}/book?token_id=${yes(v.m1)}`;
    // warm up (one request), then let it leave the windows: the baseline is the swept state
    await (await fetch(url)).body?.cancel();
    clock.advance(11 * 60_000);
    const baseline = size();
    gc();
    const heap0 = process.memoryUsage().heapUsed;

    const N = 5000;
    const CONCURRENCY = 50;
    const counts: Record<number, number> = {};
    let sample429: Response | undefined;
    for (let i = 0; i < N; i += CONCURRENCY) {
      const batch = Array.from({ length: Math.min(CONCURRENCY, N - i) }, () =>
        // 128 characters: the longest key id accepted
        fetch(url, { headers: { POLY_API_KEY: randomBytes(64).toString('hex') } }),
      );
      for (const r of await Promise.all(batch)) {
        counts[r.status] = (counts[r.status] ?? 0) + 1;
        if (r.status === 429 && sample429 === undefined) sample429 = r;
        else await r.body?.cancel();
      }
    }
    expect(counts[200]).toBe(100); // one client address, the clock standing still: 100 per 10 s
    expect(counts[429]).toBe(N - 100);
    await expect429(sample429!);
    // a random key id per request made no table entry of its own
    expect(size()).toBeLessThanOrEqual(baseline + 3);

    // the sweep runs on the exchange's clock: past the longest window every entry is idle
    clock.advance(11 * 60_000);
    expect(size()).toBe(baseline);
    gc();
    const grownMb = (process.memoryUsage().heapUsed - heap0) / 2 ** 20;
    // stated bound: the burst leaves less than 16 MB on the heap after a forced GC
    expect(grownMb).toBeLessThan(16);
  });

  it('bounds the tables: a full table refuses new identities (429 with the headers) and keeps known ones', async () => {
    const v = await startVenue({
      http: { rateLimits: { enabled: true, scale: 1, queueMs: 0, maxIdentities: 1 } },
    });
    venues.push(v);
    const a = await v.trader(); // key creation counts under the client address: the one identity
    expect((await a.raw('GET', '/book', { query: `token_id=${yes(v.m1)}` })).status).toBe(200);
    // a's signed request is a second identity: the table is full
    const r = await a.l2('GET', '/balances');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('1');
    expect(r.body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED' } });
    expect(v.running.rateLimits?.size()).toBeGreaterThan(0);
  });
});
