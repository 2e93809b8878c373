/**
 * Issue 16, defect 5 (part): the `--db` journal holds the server secret every account's credentials
 * derive from, so it (and its WAL) is owner-only; the admin token is compared in constant time.
 */
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sameSecret } from '../../src/exchange/http/server.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';

const started: RunningExchange[] = [];
afterAll(async () => {
  for (const e of started) await e.close();
});

describe('the journal file', () => {
  it('is created 0600, and an existing one is narrowed to 0600 (its WAL too)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-sec-'));
    const fresh = join(dir, 'fresh.db');
    const ex = await startExchange({ port: 0, seed: 1, dbFile: fresh, world: { agents: 'none', lifecycle: false } });
    started.push(ex);
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
    for (const f of [`${fresh}-wal`, `${fresh}-shm`]) {
      try {
        expect(statSync(f).mode & 0o777, f).toBe(0o600);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      }
    }
    const old = join(dir, 'old.db');
    writeFileSync(old, '', { mode: 0o644 });
    const ex2 = await startExchange({ port: 0, seed: 1, dbFile: old, world: { agents: 'none', lifecycle: false } });
    started.push(ex2);
    expect(statSync(old).mode & 0o777).toBe(0o600);
  });
});

describe('the admin token', () => {
  it('is accepted only whole and exact', async () => {
    expect(sameSecret('s3cret-token', 's3cret-token')).toBe(true);
    for (const bad of ['s3cret-toke', 's3cret-token ', '', 'S3CRET-TOKEN', undefined, ['s3cret-token']])
      expect(sameSecret(bad as string | string[] | undefined, 's3cret-token'), String(bad)).toBe(false);
    const ex = await startExchange({
      port: 0,
      seed: 1,
      world: { agents: 'none', lifecycle: false },
      http: { adminToken: 's3cret-token' },
    });
    started.push(ex);
    const base = ex.urls.clob_url.replace(/\/clob$/, '');
    const get = (token?: string) =>
      fetch(`${base}/admin/faults`, { headers: token === undefined ? {} : { 'x-admin-token': token } });
    expect((await get('s3cret-token')).status).toBe(200);
    for (const t of [undefined, 's3cret-toke', 's3cret-token2']) expect((await get(t)).status).toBe(403);
  });
});
