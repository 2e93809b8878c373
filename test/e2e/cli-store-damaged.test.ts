/**
 * A damaged store (findings-6 F5): a truncated `mmkit.db`, or a file that is not a database at all,
 * refuses `mmkit run` with exit 2 and a message naming the file and the way forward (restore a backup or
 * move it aside), before the daemon binds its status port or creates a paper wallet; `mmkit positions
 * --source store` and `mmkit orders --data-dir` (which reads the venue the data dir last traded on from
 * the store) name it the same way. Real SQLite, the real command.
 */
import { existsSync, mkdtempSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.ts';
import { runMmkit } from './support/cli.ts';

/** A store as a daemon leaves it (an epoch, a session), then cut to its first two pages. */
function truncatedStore(dir: string): string {
  const file = join(dir, 'mmkit.db');
  const s = openStore(file, { checkpoint: 'auto' });
  s.openEpoch({ venue: 'http://127.0.0.1:9123/clob#137', world: 'w', address: '0xab' });
  s.close();
  const page = readFileSync(file).readUInt16BE(16);
  expect(statSync(file).size).toBeGreaterThan(4 * page);
  truncateSync(file, 2 * page);
  return file;
}

describe('a damaged store', () => {
  // a port taken: a daemon that bound its status server before checking the store would fail on it instead
  const blocker: Server = createServer();
  afterAll(() => new Promise<void>((r) => blocker.close(() => r())));

  it('mmkit run: exit 2 naming the file and the way forward, before the port or a paper wallet', async () => {
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as { port: number }).port;
    const truncated = mkdtempSync(join(tmpdir(), 'mmkit-damaged-'));
    const foreign = mkdtempSync(join(tmpdir(), 'mmkit-damaged-'));
    writeFileSync(join(foreign, 'mmkit.db'), Buffer.alloc(64 * 1024, 0x5a));
    const cases = [
      { dir: truncated, file: truncatedStore(truncated), sqlite: 'database disk image is malformed' },
      { dir: foreign, file: join(foreign, 'mmkit.db'), sqlite: 'file is not a database' },
    ];
    for (const c of cases) {
      const r = await runMmkit(['run', '--data-dir', c.dir, '--duration', '5s', '--http-port', String(port)], {
        timeoutMs: 90_000,
      });
      expect(r.code, r.err).toBe(2);
      expect(r.err).toContain(`config bot.storeFile: the store ${c.file} cannot be read: ${c.sqlite}`);
      expect(r.err).toContain(`Restore a backup of it, or move it aside with its -wal and -shm files`);
      expect(r.err).toContain('a new store starts a new ledger epoch');
      expect(r.err).not.toMatch(/EADDRINUSE|in use/);
      // nothing created in the data dir (the lock is released)
      expect(existsSync(join(c.dir, 'paper-wallet.key'))).toBe(false);
      expect(existsSync(join(c.dir, 'daemon.lock'))).toBe(false);
    }
  });

  it('mmkit orders --data-dir (no venue configured): exit 2 naming the file, not the default venue asked', async () => {
    // before, a store that could not be read counted as "no store": the command asked the default paper
    // exchange (127.0.0.1:8080), not the venue the data dir last traded on, and said nothing of the store
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-damaged-'));
    const file = join(dir, 'mmkit.db');
    writeFileSync(file, Buffer.alloc(64 * 1024, 0x5a));
    const r = await runMmkit(['orders', '--data-dir', dir, '--json'], { timeoutMs: 60_000 });
    expect(r.code, r.err).toBe(2);
    const e = JSON.parse(r.err.trim().split('\n').at(-1)!) as { error: { key: string; message: string } };
    expect(e.error.key).toBe('bot.storeFile');
    expect(e.error.message).toContain(`the store ${file} cannot be read: file is not a database`);
    expect(r.err).not.toContain('127.0.0.1:8080');
  });

  it('mmkit positions --source store: exit 2 naming the file (JSON: key bot.storeFile)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-damaged-'));
    const file = truncatedStore(dir);
    const r = await runMmkit(['positions', '--source', 'store', '--data-dir', dir, '--json'], { timeoutMs: 60_000 });
    expect(r.code, r.err).toBe(2);
    const e = JSON.parse(r.err.trim().split('\n').at(-1)!) as { error: { key: string; message: string } };
    expect(e.error.key).toBe('bot.storeFile');
    expect(e.error.message).toContain(`the store ${file} cannot be read: database disk image is malformed`);
  });
});
