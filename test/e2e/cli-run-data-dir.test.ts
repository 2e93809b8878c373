/**
 * `mmkit run --data-dir` with a path that cannot be a data directory (trial 7 F10): under /proc (Node's
 * recursive mkdir looped there forever at 100 % CPU, deaf to SIGTERM) and an existing file (a raw
 * EEXIST, exit 1). Both are refused at once, before anything starts: exit 2, `mmkit: config
 * bot.dataDir: …` with the reason. A timeout makes a regression fail instead of hanging.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMmkit } from './support/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'mmkit-run-data-dir-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const run = (dir: string) =>
  runMmkit(['run', '--data-dir', dir, '--duration', '2s', '--http-port', '0'], {
    env: { MMKIT_LOG_FORMAT: 'json' },
    timeoutMs: 30_000,
  });

describe('mmkit run: a data dir that cannot be one', () => {
  it('under /proc: refused at once (exit 2, the key named), not a spin that ignores SIGTERM', async () => {
    const t0 = Date.now();
    const r = await run('/proc/nope');
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(/^mmkit: config bot\.dataDir: \/proc\/nope is under \/proc, a kernel file system/m);
    expect(Date.now() - t0).toBeLessThan(25_000);
  });

  it('an existing file: refused (exit 2, the key named), not a raw EEXIST (exit 1)', async () => {
    const file = join(scratch, 'ex.db');
    writeFileSync(file, 'not a directory');
    const r = await run(file);
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain(`mmkit: config bot.dataDir: ${file} is a file, not a directory`);
    expect(r.err).not.toMatch(/EEXIST/);
  });
});
