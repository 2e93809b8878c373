/**
 * Distributed sweeps as a user runs them (issue 21): a private Redis, `mmkit sweep-worker`
 * processes and `mmkit sweep --redis URL`, all real processes of bin/mmkit.js. The ranked table
 * and the --json document equal the local sweep's byte for byte; a worker killed with SIGKILL in
 * the middle of a point has that point run by another worker, and the table is still identical.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { writeFeed } from '../support/feed-gen.ts';
import { startRedis, type TestRedis } from '../support/redis.ts';
import { ROOT, runMmkit } from './support/cli.ts';

let dir: string;
let feed: string;
let redis: TestRedis;
let env: Record<string, string>;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-sweep-redis-'));
  feed = join(dir, 'feed.ndjson.gz');
  env = { MMKIT_CACHE_DIR: join(dir, 'cache') };
  await writeFeed(feed, { seed: 9, markets: 2, messages: 6_000, meanGapMs: 60, tradeShare: 0.04 });
  redis = await startRedis();
}, 60_000);
afterEach(() => {
  for (const w of workers.splice(0)) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A `mmkit sweep-worker` process; `log()` is its stderr so far; resolves once it takes points. */
async function startWorker(...extra: string[]): Promise<{ p: ChildProcess; log: () => string }> {
  const e: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('MMKIT_') && !k.startsWith('VITEST') && v !== undefined) e[k] = v;
  const p = spawn(
    process.execPath,
    [join(ROOT, 'bin/mmkit.js'), 'sweep-worker', '--redis', redis.url, '--concurrency', '1', ...extra],
    { cwd: dir, env: { ...e, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  workers.push(p);
  let err = '';
  p.stderr!.on('data', (d) => (err += d));
  await until(
    () => err.includes('taking points from mmkit-sweep-'),
    60_000,
    () => err,
  );
  return { p, log: () => err };
}

async function until(ok: () => boolean, ms: number, why: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out; ${why()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const SWEEP = [
  'sweep',
  '--strategy',
  'bands',
  '--risk',
  '{"maxRejections":1000}',
  '--grid',
  '{"margin":[0.01,0.03],"amount":[5,10]}',
];

describe('mmkit sweep --redis', () => {
  it('two worker processes: the ranked table and the JSON equal the local sweep byte for byte', async () => {
    const local = await runMmkit([...SWEEP, '--feed', feed, '--workers', '1'], { cwd: dir, env, timeoutMs: 150_000 });
    expect(local.code, local.err).toBe(0);
    const localJson = await runMmkit([...SWEEP, '--feed', feed, '--workers', '2', '--json'], {
      cwd: dir,
      env,
      timeoutMs: 150_000,
    });
    expect(localJson.code, localJson.err).toBe(0);
    const a = await startWorker();
    const b = await startWorker();
    // a relative feed path: the coordinator sends it absolute
    const dist = await runMmkit([...SWEEP, '--feed', 'feed.ndjson.gz', '--redis', redis.url], {
      cwd: dir,
      env,
      timeoutMs: 150_000,
    });
    expect(dist.code, dist.err).toBe(0);
    expect(dist.out).toBe(local.out);
    expect(dist.out.split('\n')[0]).toBe('sweep of bands: 4 points, ranked by pnl (money in USDC)');
    const distJson = await runMmkit([...SWEEP, '--feed', feed, '--redis', redis.url, '--json'], {
      cwd: dir,
      env,
      timeoutMs: 150_000,
    });
    expect(distJson.code, distJson.err).toBe(0);
    expect(distJson.out).toBe(localJson.out);
    // both workers ran points
    expect(a.log()).toMatch(/point [0-9a-f]{16}-\d done in/);
    expect(b.log()).toMatch(/point [0-9a-f]{16}-\d done in/);
    // a stopped worker finishes and exits 0
    a.p.kill('SIGTERM');
    b.p.kill('SIGTERM');
    const codes = await Promise.all(
      [a.p, b.p].map((p) => new Promise<number | null>((r) => p.once('exit', (c) => r(c)))),
    );
    expect(codes).toEqual([0, 0]);
  }, 400_000);

  it('a worker killed mid-point: another worker runs the point again and the table is identical', async () => {
    const local = await runMmkit([...SWEEP, '--feed', feed, '--workers', '2'], { cwd: dir, env, timeoutMs: 150_000 });
    expect(local.code, local.err).toBe(0);
    const a = await startWorker('--lock-ms', '3000');
    const coordinator = runMmkit([...SWEEP, '--feed', feed, '--redis', redis.url], {
      cwd: dir,
      env,
      timeoutMs: 200_000,
    });
    await until(() => /point \S+ started/.test(a.log()), 60_000, a.log);
    const id = /point (\S+) started/.exec(a.log())![1]!;
    a.p.kill('SIGKILL'); // the point is still running: a thread takes > 1 s to boot and load the feed
    await new Promise((r) => a.p.once('exit', r));
    expect(a.log()).not.toContain(`point ${id} done`);
    const b = await startWorker('--lock-ms', '3000');
    const dist = await coordinator;
    expect(dist.code, dist.err).toBe(0);
    expect(dist.out).toBe(local.out);
    expect(b.log()).toContain(`point ${id} started (again: its worker stalled 1×)`);
    expect(b.log()).toContain(`point ${id} done in`);
  }, 400_000);

  it('refuses --workers with --redis; says when Redis does not answer and while no worker serves the queue', async () => {
    const both = await runMmkit([...SWEEP, '--feed', feed, '--redis', redis.url, '--workers', '2'], { cwd: dir, env });
    expect(both.code).toBe(2);
    expect(both.err).toMatch(/--workers applies to local sweeps/);
    const down = await runMmkit([...SWEEP, '--feed', feed, '--redis', 'redis://user:s3cret@127.0.0.1:1'], {
      cwd: dir,
      env,
    });
    expect(down.code).toBe(3);
    expect(down.err).toMatch(/cannot reach Redis at redis:\/\/\*\*\*@127\.0\.0\.1:1/);
    expect(down.err).not.toContain('s3cret');
    // no worker serves the queue: the sweep waits and says so on stderr
    await expect(
      runMmkit([...SWEEP, '--feed', feed, '--grid', '{"margin":[0.02]}', '--redis', redis.url], {
        cwd: dir,
        env,
        timeoutMs: 20_000,
      }),
    ).rejects.toThrow(
      /no worker on queue mmkit-sweep-[0-9a-f]{16} yet; start `mmkit sweep-worker --redis redis:\/\/127/,
    );
    const bad = await runMmkit(['sweep-worker', '--redis', 'http://127.0.0.1:1'], { cwd: dir, env });
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/fleet\.redisUrl|redis:\/\//);
  }, 90_000);
});
