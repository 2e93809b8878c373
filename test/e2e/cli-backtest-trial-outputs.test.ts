/**
 * `mmkit backtest` and `mmkit sweep` on what a user trial found: a feed given twice (the same path,
 * another path to it, a byte-identical copy) is refused (exit 2, both paths named) and two
 * recordings of one market over the same time are warned about; a sweep refuses a parameter both
 * in --grid and in --param, and its --json and header say what every point ran under; a point the
 * kill switch stopped is marked in the table and named on stderr; a backtest's --json carries its
 * risk limits and its first line says post-only and the non-default limits.
 */
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFeed } from '../support/feed-gen.ts';
import { runMmkit } from './support/cli.ts';

let dir: string;
let feed: string;
let other: string;
const env = (): Record<string, string> => ({ MMKIT_CACHE_DIR: join(dir, 'cache') });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-cli-trial-'));
  feed = join(dir, 'feed.ndjson.gz');
  other = join(dir, 'other.ndjson.gz');
  await writeFeed(feed, { seed: 9, markets: 2, messages: 4_000, meanGapMs: 60, tradeShare: 0.04 });
  // the same markets over the same time, other traffic: a second recording of them
  await writeFeed(other, { seed: 9, markets: 2, messages: 2_000, meanGapMs: 100, tradeShare: 0.04 });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a feed given twice', () => {
  it('is refused by backtest and sweep (exit 2), naming both paths: same path, a link, a copy', async () => {
    const copy = join(dir, 'copy.ndjson.gz');
    copyFileSync(feed, copy);
    const link = join(dir, 'link.ndjson.gz');
    symlinkSync(feed, link);
    for (const [second, what] of [
      [feed, 'the same file'],
      [link, 'the same file'],
      [copy, 'the same feed (identical content)'],
    ] as const) {
      const r = await runMmkit(['backtest', '--feed', feed, second, '--strategy', 'bands', '--json'], { env: env() });
      expect(r.code, r.err).toBe(2);
      expect(r.err).toContain(`${feed} and ${second} are ${what}`);
      expect(r.out).toBe('');
    }
    const s = await runMmkit(
      ['sweep', '--feed', feed, copy, '--strategy', 'bands', '--grid', '{"margin":[0.01]}', '--workers', '0'],
      { env: env() },
    );
    expect(s.code, s.err).toBe(2);
    expect(s.err).toContain(`${feed} and ${copy} are the same feed (identical content)`);
  }, 120_000);

  it('warns on stderr about two recordings of one market over overlapping times', async () => {
    const r = await runMmkit(['backtest', '--feed', feed, other, '--strategy', 'bands', '--json'], { env: env() });
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(
      new RegExp(`warning: --feed ${feed} and ${other} both record 2 markets .* over overlapping times`),
    );
  }, 120_000);
});

describe('sweep: fixed params and run conditions', () => {
  it('refuses a parameter in both --grid and --param (exit 2), as backtest refuses a key given twice', async () => {
    const r = await runMmkit(
      ['sweep', '--feed', feed, '--strategy', 'bands', '--grid', '{"margin":[0.01,0.02]}', '--param', 'margin=0.03'],
      { env: env() },
    );
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain('--grid: "margin" is given in --param too');
    const p = await runMmkit(
      ['sweep', '--feed', feed, '--strategy', 'bands', '--grid', '{"margin":[0.01]}', '--params', '{"margin":0.03}'],
      { env: env() },
    );
    expect(p.code, p.err).toBe(2);
    expect(p.err).toContain('--grid: "margin" is given in --params too');
  }, 60_000);

  it('--json and the header record the fixed params and what every point ran under; a kill-switched point is marked', async () => {
    const args = [
      'sweep',
      '--feed',
      feed,
      '--strategy',
      'bands',
      '--grid',
      '{"amount":[5,100000]}',
      '--param',
      'maxPosition=500000',
      '--seed',
      '3',
      '--latency-ms',
      '5',
      '--post-only',
      // orders of 100000 shares: more than the collateral (rejected) or a loss beyond maxLoss, the kill switch trips
      '--risk',
      '{"maxRejections":1,"maxOrderSizeShares":500000,"maxPositionShares":500000,"maxNotionalPerMarket":1000000000}',
      '--workers',
      '0',
    ];
    const j = await runMmkit([...args, '--json'], { env: env() });
    const doc = JSON.parse(j.out);
    expect(doc.conditions).toMatchObject({
      source: { feeds: [feed] },
      params: { maxPosition: 500000 },
      seed: 3,
      queue: 'risk-averse',
      latencyMs: 5,
      feeProtocol: 2,
      postOnly: true,
      risk: { maxRejections: 1, maxPositionShares: 500000, maxNotionalGlobal: 2000 },
    });
    const stopped = doc.rows.filter((r: { stopReason: string }) => r.stopReason.startsWith('kill switch'));
    expect(stopped.map((r: { point: unknown }) => r.point)).toEqual([{ amount: 100000 }]);
    const t = await runMmkit(args, { env: env() });
    const lines = t.out.split('\n');
    expect(lines[1]).toBe(
      `feed ${feed}, queue risk-averse, seed 3, latency 5 ms, fee protocol 2, post-only on, ` +
        'risk limits maxPositionShares 500000, maxOrderSizeShares 500000, maxNotionalPerMarket 1000000000, maxRejections 1',
    );
    expect(lines[2]).toBe('fixed params: {"maxPosition":500000}'); // as the strategy reads it (trial 23 F9)
    expect(lines[3]).toMatch(/\sstopped$/);
    expect(lines.filter((l) => /^\d+\s+100000\s.*\sKILL$/.test(l))).toHaveLength(1);
    expect(lines.filter((l) => /^\d+\s+5\s.*\s-$/.test(l))).toHaveLength(1);
    expect(t.err).toMatch(/mmkit sweep: point amount=100000: STOPPED by the kill switch: \w+: /);
    expect(t.err).not.toMatch(/point amount=5:/);
  }, 120_000);
});

describe('backtest: the rules the run had', () => {
  it('--json carries the effective risk limits; the summary says post-only and the non-default limits', async () => {
    const base = ['backtest', '--feed', feed, '--strategy', 'bands'];
    const j = await runMmkit([...base, '--json', '--risk', '{"maxPositionShares":60}'], { env: env() });
    expect(j.code, j.err).toBe(0);
    expect(JSON.parse(j.out).risk).toMatchObject({ maxPositionShares: 60, maxOrderSizeShares: 100, maxLoss: 100 });
    const t = await runMmkit([...base, '--post-only', '--risk', '{"maxPositionShares":60}'], { env: env() });
    expect(t.out.split('\n')[0]).toMatch(/, post-only on, risk limits maxPositionShares 60$/);
    const d = await runMmkit(base, { env: env() });
    expect(d.out.split('\n')[0]).toMatch(/, post-only off, risk limits default$/);
  }, 120_000);
});

describe('output paths checked before a run (trial 23 F5)', () => {
  it('--report or --store into a missing directory, or onto a directory: refused at once (exit 2), naming the flag', async () => {
    const base = ['backtest', '--feed', feed, '--strategy', 'bands'];
    const cases: [string[], RegExp][] = [
      [['--report', join(dir, 'nodir', 'r.html')], /--report: the directory of .*nodir\/r\.html .* does not exist/],
      [['--report', dir], /--report: .* is a directory \(give a file name\)/],
      [['--store', join(dir, 'nodir', 's.db')], /--store: the directory of .*nodir\/s\.db .* does not exist/],
    ];
    for (const [flags, why] of cases) {
      const r = await runMmkit([...base, ...flags], { env: env() });
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(why);
      expect(r.out).toBe('');
    }
    const rec = await runMmkit(['record', '--out', join(dir, 'nodir', 'f.ndjson.gz'), '--duration', '1s'], {
      env: env(),
    });
    expect(rec.code, rec.err).toBe(2);
    expect(rec.err).toMatch(/--out.*the directory of .*nodir\/f\.ndjson\.gz .* does not exist/);
  }, 120_000);
});

describe('a world search that matches nothing (trial 23 F8)', () => {
  it('says the search matched no question, not that the run is too long', async () => {
    const r = await runMmkit(
      ['backtest', '--world', '5', '--duration', '2m', '--strategy', 'bands', '--world-search', 'zzzz'],
      {
        env: env(),
      },
    );
    expect(r.code, r.err).toBe(2);
    expect(r.err).toContain('--world-search: no market of world 5 has "zzzz" in its question');
    expect(r.err).not.toContain('stays open');
  }, 120_000);
});
