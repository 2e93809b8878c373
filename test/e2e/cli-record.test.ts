/**
 * `mmkit record` as a user runs it: a real process against an in-process paper exchange (default
 * world) or a running one (--exchange-url), stopping after --duration or on SIGTERM with the file
 * closed (a complete gzip stream), and refusing bad flags and existing files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeedItem } from '../../src/venues/sim/feed.ts';
import { newReplayStats, replayFeeds } from '../../src/backtest/replay.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';

const BIN = new URL('../../bin/mmkit.js', import.meta.url).pathname;
const children: ChildProcess[] = [];
let dir: string;
let ex: RunningExchange | undefined;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-cli-record-'));
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await ex?.close();
  rmSync(dir, { recursive: true, force: true });
});

function run(args: string[]): { p: ChildProcess; out: () => string; err: () => string; exit: Promise<number | null> } {
  const p = spawn(process.execPath, [BIN, 'record', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(p);
  let out = '';
  let err = '';
  p.stdout!.on('data', (d) => (out += d));
  p.stderr!.on('data', (d) => (err += d));
  // 'close', not 'exit': the exit can come before the last output (the summary) has been read
  const exit = once(p, 'close').then(([code]) => code as number | null);
  return { p, out: () => out, err: () => err, exit };
}

async function replay(file: string) {
  const stats = newReplayStats();
  const items: FeedItem[] = [];
  for await (const it of replayFeeds([file], { stats })) items.push(it);
  return { items, stats };
}

describe('mmkit record', () => {
  it('records an in-process paper exchange for --duration, exits 0 with the file closed', async () => {
    const out = join(dir, 'feed.ndjson.gz');
    const t0 = Date.now();
    const r = run(['--out', out, '--duration', '4s', '--top', '2', '--log-level', 'warn']);
    expect(await r.exit).toBe(0);
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(4000);
    expect(took).toBeLessThan(90_000); // (the process's start and stop too: slow on a loaded machine)
    expect(r.out()).toContain('mmkit record stopped (duration)');
    expect(r.out()).toMatch(/markets\s+2/);
    const { items, stats } = await replay(out);
    expect(stats).toMatchObject({ malformed: 0, truncatedFiles: 0, headers: 1 }); // a complete gzip stream
    const h = items[0]!;
    expect(h.kind).toBe('header');
    if (h.kind !== 'header') return;
    expect(h.header.markets).toHaveLength(2);
    expect(h.header.source).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const frames = items.filter((i) => i.kind === 'frame');
    expect(frames.filter((f) => f.kind === 'frame' && f.ch === 'm').length).toBeGreaterThan(0); // at least the snapshot
    expect(frames.filter((f) => f.kind === 'frame' && f.ch === 'r').length).toBeGreaterThan(0); // price ticks every second
    // it ends with the clean stop of both channels, about 4 s after it started
    const last = items.slice(-2);
    expect(last.map((i) => i.kind === 'status' && `${i.ch}:${i.status}:${i.reason}`).sort()).toEqual([
      'm:disconnect:stop',
      'r:disconnect:stop',
    ]);
    expect(last[0]!.t - h.header.t).toBeGreaterThan(3500);
    expect(last[0]!.t - h.header.t).toBeLessThan(15_000); // (a loaded machine delays the stop's timer)
  }, 120_000);

  it('records a running exchange (--exchange-url, --markets) until SIGTERM, rotating by size', async () => {
    ex = await startExchange({ port: 0, seed: 5, world: { agents: 'default', lifecycle: false, priceFeed: true } });
    const base = ex.urls.clob_url.replace(/\/clob$/, '');
    const list = (await (await fetch(`${ex.urls.clob_url}/markets?limit=3`)).json()) as {
      data: Array<{ condition_id: string }>;
    };
    const ids = list.data.slice(0, 3).map((m) => m.condition_id);
    const out = join(dir, 'sig.ndjson.gz');
    const r = run([
      '--out',
      out,
      '--exchange-url',
      base,
      '--markets',
      ids.join(','),
      '--rotate-mb',
      '0.002',
      '--no-rtds',
      '--log-level',
      'warn',
    ]);
    const deadline = Date.now() + 60_000;
    while (!existsSync(join(dir, 'sig.1.ndjson.gz')) && Date.now() < deadline)
      await new Promise((res) => setTimeout(res, 100));
    r.p.kill('SIGTERM');
    expect(await r.exit).toBe(0);
    expect(r.out()).toContain('mmkit record stopped (SIGTERM)');
    expect(existsSync(join(dir, 'sig.1.ndjson.gz'))).toBe(true);
    const { items, stats } = await replay(out);
    expect(stats).toMatchObject({ malformed: 0, truncatedFiles: 0 });
    const h = items[0]!;
    expect(h.kind === 'header' && h.header.markets.map((m) => m.market)).toEqual(ids);
    expect(items.some((i) => i.kind === 'frame' && i.ch === 'r')).toBe(false); // --no-rtds
    expect(statSync(out).size).toBeGreaterThanOrEqual(2000); // (rotated at 0.002 MB)
  }, 120_000);

  it('refuses an existing --out, both --markets and --top, and a bad --duration (exit 2)', async () => {
    const existing = join(dir, 'exists.ndjson.gz');
    writeFileSync(existing, 'x');
    const a = run(['--out', existing, '--exchange-url', 'http://127.0.0.1:1', '--top', '1']);
    expect(await a.exit).toBe(2);
    expect(a.err()).toMatch(/exists/);
    const b = run([
      '--out',
      join(dir, 'b.ndjson.gz'),
      '--markets',
      '0xabc',
      '--top',
      '2',
      '--exchange-url',
      'http://127.0.0.1:1',
    ]);
    expect(await b.exit).toBe(2);
    expect(b.err()).toMatch(/either --markets or --top/);
    const c = run(['--out', join(dir, 'c.ndjson.gz'), '--duration', 'soon']);
    expect(await c.exit).toBe(2);
    expect(c.err()).toMatch(/--duration/);
    const d = run(['--duration', '5s']);
    expect(await d.exit).not.toBe(0);
    expect(d.err()).toMatch(/--out/);
    expect(existsSync(join(dir, 'b.ndjson.gz'))).toBe(false);
  }, 120_000);

  it('exits 3 with the reason when the venue is unreachable (never a silent exit 0), writing no file', async () => {
    const out = join(dir, 'unreachable.ndjson.gz');
    const d = run(['--out', out, '--exchange-url', 'http://127.0.0.1:1', '--top', '2', '--duration', '2s']);
    expect(await d.exit, d.err()).toBe(3);
    expect(d.err()).toContain('ECONNREFUSED');
    expect(existsSync(out)).toBe(false);
  }, 90_000);
});
