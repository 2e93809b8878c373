/**
 * `mmkit backtest` and `mmkit sweep` as a user runs them: real processes of bin/mmkit.js on a
 * generated recorded feed and on a synthetic world; --json is byte-identical across runs; --report
 * writes one self-contained HTML file with the charts; bad flags exit 2 naming the flag.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFeed } from '../support/feed-gen.ts';
import { FEED_CACHE_VERSION, decoderFingerprint } from '../../src/backtest/feed-cache.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/mmkit.js');
let dir: string;
let feed: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-cli-bt-'));
  feed = join(dir, 'feed.ndjson.gz');
  await writeFeed(feed, { seed: 9, markets: 2, messages: 6_000, meanGapMs: 60, tradeShare: 0.04 });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function mmkit(
  args: string[],
  cwd = dir,
  env: Record<string, string> = {},
): Promise<{ code: number | null; out: string; err: string }> {
  // the default feed-cache folder, inside this test's folder
  const p = spawn(process.execPath, [BIN, ...args], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MMKIT_CACHE_DIR: join(dir, 'cache'), ...env },
  });
  let out = '';
  let err = '';
  p.stdout!.on('data', (d) => (out += d));
  p.stderr!.on('data', (d) => (err += d));
  // 'close', not 'exit': the exit can come before the last output has been read
  const [code] = (await once(p, 'close')) as [number | null];
  return { code, out, err };
}

describe('mmkit backtest', () => {
  it('--json is one deterministic JSON document; --report writes a self-contained HTML file with the charts', async () => {
    const report = join(dir, 'report.html');
    const args = [
      'backtest',
      '--feed',
      feed,
      '--strategy',
      'bands',
      '--seed',
      '4',
      '--risk',
      '{"maxRejections":1000}',
      '--json',
    ];
    const a = await mmkit([...args, '--report', report]);
    expect(a.code).toBe(0);
    expect(a.err).toMatch(/ran in [\d.]+ s wall/);
    expect(a.err).not.toMatch(/Warning/);
    const doc = JSON.parse(a.out);
    expect(doc).toMatchObject({
      version: 1,
      mode: 'feed',
      seed: 4,
      stopReason: 'end of feed',
      strategy: { name: 'bands' },
      openOrdersAtEnd: 0,
    });
    expect(doc.metrics.fills).toBeGreaterThan(0);
    expect(doc.metrics.markouts.map((m: { horizonMs: number }) => m.horizonMs)).toEqual([1000, 10_000, 60_000]);
    expect(a.out).not.toMatch(/"wall|elapsed|durationSec/); // no wall-clock value in it
    // the first run built the feed's cache in the default folder; this one reads it
    expect(readdirSync(join(dir, 'cache')).filter((n) => n.endsWith('.mmfc'))).toHaveLength(1);
    const b = await mmkit(args);
    expect(b.code).toBe(0);
    expect(b.out).toBe(a.out);
    const c = await mmkit([...args, '--no-feed-cache']);
    expect(c.code).toBe(0);
    expect(c.out).toBe(a.out);
    // a cache folder that cannot be made: a warning, and the run goes on from the text
    const d = await mmkit([...args, '--feed-cache', join(report, 'not-a-folder')]);
    expect(d.code).toBe(0);
    expect(d.err).toMatch(/warning: no feed cache/);
    expect(d.out).toBe(a.out);

    expect(existsSync(report)).toBe(true);
    const html = readFileSync(report, 'utf8');
    expect(html).not.toMatch(/<script|<link|<img|<iframe|@import|url\(|src=|href=|https?:\/\//i);
    for (const id of ['chart-pnl', 'chart-drawdown', 'chart-inventory', 'chart-quotes-0', 'chart-fills'])
      expect(html).toContain(`id="${id}"`);
    expect(html.match(/<svg/g)!.length).toBeGreaterThanOrEqual(5);
  }, 120_000);

  it('prunes the cache folder after the run: leftovers, old caches of other versions, the least recently used beyond --feed-cache-max-mb; never its own', async () => {
    const cache = join(dir, 'cache-prune');
    mkdirSync(cache);
    const put = (name: string, bytes: number, ageMs: number): string => {
      const f = join(cache, name);
      writeFileSync(f, Buffer.alloc(bytes));
      const t = new Date(Date.now() - ageMs);
      utimesSync(f, t, t);
      return name;
    };
    const day = 86_400_000;
    const own = (c: string) =>
      `${c.repeat(64)}.v${FEED_CACHE_VERSION}${decoderFingerprint() ? `-${decoderFingerprint()}` : ''}.mmfc`;
    const orphan = put(`${own('a')}.99.x.tmp`, 10, 2 * 3_600_000);
    const foreign = put(`${'b'.repeat(64)}.v1.mmfc`, 10, 8 * day);
    const lru = put(own('c'), 2 * 1024 * 1024, day); // ours, unused for a day: over a 1 MB cap it goes
    const other = put('notes.txt', 10, 30 * day);
    const r = await mmkit([
      'backtest',
      '--feed',
      feed,
      '--strategy',
      'bands',
      '--seed',
      '4',
      '--feed-cache',
      cache,
      '--feed-cache-max-mb',
      '1',
      '--json',
    ]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/feed cache .*: removed 3 file\(s\)/);
    const left = readdirSync(cache);
    for (const gone of [orphan, foreign, lru]) expect(left).not.toContain(gone);
    expect(left).toContain(other);
    // the run's own cache (written by this run) stays, even over the cap
    const mine = left.filter((x) => x.endsWith('.mmfc'));
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatch(/^[0-9a-f]{64}\.v\d+/);
    // a bad cap is refused naming the flag or the variable
    const bad = await mmkit(['backtest', '--feed', feed, '--strategy', 'bands', '--feed-cache-max-mb', '-1']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--feed-cache-max-mb/);
  }, 120_000);

  it('--post-only sends quotes post-only as the daemon does (said in the JSON); bands never crosses, so the fills are the same', async () => {
    const args = ['backtest', '--feed', feed, '--strategy', 'bands', '--seed', '4', '--json', '--no-feed-cache'];
    const plain = await mmkit(args);
    const po = await mmkit([...args, '--post-only']);
    expect([plain.code, po.code]).toEqual([0, 0]);
    const a = JSON.parse(plain.out);
    const b = JSON.parse(po.out);
    expect(a.postOnly).toBeUndefined();
    expect(b.postOnly).toBe(true);
    expect(b.orders.rejectCodes.INVALID_POST_ONLY_ORDER).toBeUndefined();
    const { postOnly: _, ...rest } = b;
    expect(rest).toEqual(a);
  });

  it('prints the summary without --json', async () => {
    const r = await mmkit(['backtest', '--feed', feed, '--strategy', 'bands', '--risk', '{"maxRejections":1000}']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^mmkit backtest: bands on 2 markets/);
    for (const k of [
      'fills',
      'PnL',
      'Sharpe',
      'max drawdown',
      'orders',
      'fill ratio',
      'markouts',
      'at inv. limit',
      'budgets',
    ])
      expect(r.out).toContain(`  ${k}`);
  }, 60_000);

  it('names where a plugin outside the project threw by its file:line:column, never a data: URL', async () => {
    // a .ts file in no "type": "module" package: tsx compiled it as CommonJS run from a data: URL
    // holding the whole plugin, and that URL was the error's location (src/strategy/plugin-format.ts)
    const out = mkdtempSync(join(tmpdir(), 'mmkit-plugin-outside-'));
    try {
      const api = relative(out, join(ROOT, 'src/strategy/index.ts')).split(sep).join('/');
      const file = join(out, 'boom.ts');
      writeFileSync(
        file,
        `import { defineStrategy } from '${api}';\nexport default defineStrategy({ name: 'boom', params: {}, create: () => ({\n  onEvent() { throw new Error('boom'); },\n}) });\n`,
      );
      const r = await mmkit(['backtest', '--feed', feed, '--strategy', file, '--no-feed-cache', '--json']);
      expect(r.code, r.err.slice(-2000)).toBe(1);
      const at = JSON.parse(r.out).engine.firstStrategyError.at as string;
      expect(at).toBe(`${file}:3:21`);
      expect(r.err).toContain(`FAILED: the strategy erred`);
      expect(r.err).toContain(`(first: boom at ${file}:3:21)`);
      expect(r.out + r.err).not.toContain('data:');
      const text = await mmkit(['backtest', '--feed', feed, '--strategy', file, '--no-feed-cache']);
      expect(text.out).toMatch(new RegExp(`strategy errors +\\d+ .*first: boom at ${file}:3:21\\n`));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);

  it('names where a .js plugin outside the project overflowed its stack by its file:line:column, from the sources too', async () => {
    // a .js file with ES-module syntax in no "type": "module" package: with tsx registered (the
    // sources) it was compiled to CommonJS in memory, and its errors pointed into the compiled code
    // ("compiled code at 2:1275", trial 10 F20); src/strategy/plugin-format.ts loads it as an ES module
    const out = mkdtempSync(join(tmpdir(), 'mmkit-plugin-js-outside-'));
    try {
      const api = relative(out, join(ROOT, 'src/strategy/index.ts')).split(sep).join('/');
      const file = join(out, 'deep.js');
      writeFileSync(
        file,
        `import { defineStrategy } from '${api}';\nexport default defineStrategy({ name: 'deep', params: {}, create: () => ({\n  onEvent() { const f = (n) => f(n + 1); f(0); },\n}) });\n`,
      );
      for (const from of ['src', undefined]) {
        const r = await mmkit(
          ['backtest', '--feed', feed, '--strategy', file, '--no-feed-cache', '--json'],
          dir,
          from !== undefined ? { MMKIT_FROM: from } : {},
        );
        expect(r.code, r.err.slice(-2000)).toBe(1);
        const first = JSON.parse(r.out).engine.firstStrategyError as { message: string; at: string };
        expect(first.message).toMatch(/Maximum call stack size exceeded/);
        expect(first.at, `MMKIT_FROM=${from}`).toBe(`${file}:3:32`);
        expect(r.out + r.err).not.toContain('compiled code');
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 180_000);

  it('runs a synthetic world in virtual time', async () => {
    const r = await mmkit([
      'backtest',
      '--world',
      '2',
      '--duration',
      '2m',
      '--warmup',
      '20s',
      '--strategy',
      'bands',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out);
    expect(doc).toMatchObject({
      mode: 'world',
      stopReason: 'end of duration',
      source: { world: { seed: 2, durationMs: 120_000, warmupMs: 20_000 } },
    });
    expect(doc.endMs - doc.startMs).toBe(120_000);
    expect(r.err).toMatch(/simulated h\/s/);
  }, 60_000);

  it('refuses bad flags with a message naming the flag and exit code 2', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['backtest', '--strategy', 'bands'], /--feed FILE\.\.\. .*or --world SEED/],
      [['backtest', '--feed', feed, '--world', '1', '--strategy', 'bands'], /either --feed .* or --world/],
      [['backtest', '--world', '1', '--strategy', 'bands'], /--world needs --duration/],
      [['backtest', '--feed', feed, '--strategy', 'bands', '--latency-ms', 'abc'], /--latency-ms must be a number/],
      [['backtest', '--feed', feed, '--strategy', 'bands', '--queue', 'fifo'], /--queue.*choices/],
      [['backtest', '--feed', feed, '--strategy', 'bands', '--params', '[1]'], /--params must be a JSON object/],
      [['backtest', '--feed', feed, '--strategy', 'bands', '--params', '{"nope":1}'], /bot\.params\.nope/],
      [['backtest', '--feed', join(dir, 'missing.gz'), '--strategy', 'bands'], /--feed: no such file/],
      [['backtest', '--feed', feed], /--strategy/],
      [['backtest', '--world', '1', '--duration', 'soon', '--strategy', 'bands'], /--duration must be a duration/],
      [
        ['backtest', '--world', '1', '--duration', '1m', '--strategy', 'bands', '--feed-cache', dir],
        /--feed-cache applies to --feed/,
      ],
      [
        ['sweep', '--feed', feed, '--strategy', 'bands', '--grid', '{"margin":[]}'],
        /--grid: "margin" must be a non-empty array/,
      ],
      // a window outside the feed: named by its flag (not as a config key)
      [
        ['backtest', '--feed', feed, '--strategy', 'bands', '--from', '2099-01-01T00:00:00Z'],
        /^mmkit: --from: 2099-01-01T00:00:00\.000Z is after the feed's last record/,
      ],
      // ... and in a sweep refused once, whole, before any point runs (trial 12 F6)
      [
        [
          'sweep',
          '--feed',
          feed,
          '--strategy',
          'bands',
          '--grid',
          '{"margin":[0.01,0.02]}',
          '--from',
          '2099-01-01T00:00:00Z',
        ],
        /^mmkit: --from: 2099-01-01T00:00:00\.000Z is after the feed's last record \(\d{4}-[^)]+Z\)\n$/,
      ],
      [
        ['sweep', '--feed', feed, '--strategy', 'bands', '--grid', '{"margin":[0.01,0.02]}', '--to', '1000'],
        /^mmkit: --to: 1970-01-01T00:00:01\.000Z is before the feed's first record/,
      ],
    ];
    for (const [args, msg] of cases) {
      const r = await mmkit(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toMatch(msg);
    }
  }, 120_000);
});

describe('mmkit sweep', () => {
  it('runs the grid in worker threads and prints the ranked table (and deterministic --json)', async () => {
    const args = [
      'sweep',
      '--feed',
      feed,
      '--strategy',
      'bands',
      '--risk',
      '{"maxRejections":1000}',
      '--grid',
      '{"margin":[0.01,0.03],"amount":[5,10]}',
      '--workers',
      '2',
    ];
    const t = await mmkit(args);
    expect(t.code).toBe(0);
    const lines = t.out.trim().split('\n');
    expect(lines[0]).toBe('sweep of bands: 4 points, ranked by pnl (money in USDC)');
    // the conditions every point ran under, then the table
    expect(lines[1]).toMatch(/^feed .*, queue risk-averse, seed \d+, latency 0 ms, fee protocol 2, post-only off, /);
    expect(lines[2]).toMatch(/^fixed params: /);
    expect(lines[3]).toMatch(/^#\s+margin\s+amount\s+PnL/);
    expect(lines).toHaveLength(8);
    const j1 = await mmkit([...args, '--json']);
    const j2 = await mmkit([...args.slice(0, -1), '1', '--json']);
    expect(j1.code).toBe(0);
    expect(j2.out).toBe(j1.out); // the number of workers does not change the outcome
    const doc = JSON.parse(j1.out);
    expect(doc.rows).toHaveLength(4);
    const pnls = doc.rows.map((r: { pnl: number }) => r.pnl);
    expect([...pnls].sort((a: number, b: number) => b - a)).toEqual(pnls);
    expect(doc.rows.map((r: { point: object }) => r.point)).toEqual(
      expect.arrayContaining([
        { margin: 0.01, amount: 5 },
        { margin: 0.03, amount: 10 },
      ]),
    );
  }, 180_000);

  it('--rank sharpe on a run too short for a Sharpe says so on stderr, naming the order used (findings-3 F5)', async () => {
    const args = ['sweep', '--feed', feed, '--strategy', 'bands', '--grid', '{"margin":[0.01,0.03]}', '--workers', '1'];
    const t = await mmkit([...args, '--rank', 'sharpe']);
    expect(t.code).toBe(0);
    expect(t.out.split('\n')[0]).toBe('sweep of bands: 2 points, ranked by sharpe (money in USDC)');
    expect(t.err).toContain('mmkit sweep: Sharpe is n/a on every point');
    expect(t.err).toContain('the rows are in grid order, not ranked');
    expect((await mmkit([...args, '--rank', 'pnl'])).err).not.toContain('Sharpe is n/a');
  }, 180_000);
});

describe('a strategy whose every quote the risk gate refuses, or that throws (findings-4 F8, F18)', () => {
  const sample = join(ROOT, 'test/fixtures/sample-feed.ndjson.gz');
  let plugin: string;
  beforeAll(() => {
    // a plugin outside the project, importing the API by a relative path: 'ok' quotes a tick under
    // the best bid, 'offtick' 3 pips off the tick (the gate refuses OFF_TICK), 'throw' throws
    const out = mkdtempSync(join(tmpdir(), 'mmkit-plugin-refused-'));
    const api = relative(out, join(ROOT, 'src/strategy/index.ts')).split(sep).join('/');
    plugin = join(out, 'bad.ts');
    writeFileSync(
      plugin,
      `import { defineStrategy, tickPips } from '${api}';
export default defineStrategy({
  name: 'bad',
  params: { mode: { type: 'string', default: 'ok', doc: 'which mistake' } },
  create(ctx, params) {
    return {
      onEvent(event, state) {
        if (event.type !== 'timer') return undefined;
        if (params.mode === 'throw') throw new Error('boom in onEvent');
        const out = [];
        for (const m of ctx.markets.values()) {
          const yes = m.tokens[0].tokenId;
          const book = state.book(yes);
          if (!book || book.stale || book.bestBid === null) continue;
          const price = book.bestBid - tickPips(m.tick) + (params.mode === 'offtick' ? 3 : 0);
          out.push({ market: m.market, quotes: [{ tokenId: yes, side: 'BUY', price, size: 10_000_000 }], at: state.now });
        }
        return { quotes: out } as never;
      },
    };
  },
});
`,
    );
  });
  afterAll(() => rmSync(join(plugin, '..'), { recursive: true, force: true }));

  it('backtest: counts the refusals by code (summary and --json) and fails the run that placed no order', async () => {
    const args = ['backtest', '--feed', sample, '--strategy', plugin, '--no-feed-cache'];
    const t = await mmkit([...args, '--params', '{"mode":"offtick"}']);
    expect(t.code, t.err.slice(-2000)).toBe(1);
    expect(t.out).toMatch(/\n {2}quotes refused {2}OFF_TICK x\d+ \(by the risk gate, never sent\)\n/);
    expect(t.err).toMatch(
      /mmkit backtest: FAILED: the strategy placed no order: the risk gate refused everything it asked for \(quotes: OFF_TICK x\d+\)/,
    );
    const j = await mmkit([...args, '--params', '{"mode":"offtick"}', '--json']);
    expect(j.code).toBe(1);
    const doc = JSON.parse(j.out);
    expect(doc.orders.ordersSent).toBe(0);
    expect(Object.keys(doc.counts.quotesRefused)).toEqual(['OFF_TICK']);
    expect(doc.counts.quotesRefused.OFF_TICK).toBeGreaterThan(1000);
    // on the tick: orders placed, a clean run
    const ok = await mmkit([...args, '--json']);
    expect(ok.code, ok.err.slice(-2000)).toBe(0);
    expect(JSON.parse(ok.out).orders.ordersSent).toBeGreaterThan(0);
  }, 120_000);

  it('sweep: a point that threw or had everything refused shows its errors and refusals, ranks last, fails the sweep', async () => {
    const args = ['sweep', '--feed', sample, '--strategy', plugin, '--grid', '{"mode":["throw","offtick","ok"]}'];
    const t = await mmkit([...args, '--workers', '2']);
    expect(t.code, t.err.slice(-2000)).toBe(1);
    const lines = t.out.trim().split('\n');
    expect(lines[3]).toMatch(/\s+errors\s+refused$/);
    expect(lines[4]).toMatch(/^1\s+ok\s/);
    expect(t.err).toMatch(
      /mmkit sweep: point mode=throw: FAILED: the strategy erred \d+ time\(s\) \(threw or returned an invalid output\) and placed no order \(first: boom in onEvent at .*bad\.ts:\d+:\d+\); ranked after the clean points/,
    );
    expect(t.err).toMatch(
      /mmkit sweep: point mode=offtick: FAILED: the strategy placed no order: the risk gate refused everything it asked for \(quotes: OFF_TICK x\d+\); ranked after the clean points/,
    );
    const j = await mmkit([...args, '--workers', '1', '--json']);
    expect(j.code).toBe(1);
    const rows = JSON.parse(j.out).rows as Array<Record<string, unknown>>;
    expect(rows.map((r) => (r['point'] as { mode: string }).mode)).toEqual(['ok', 'throw', 'offtick']);
    expect(rows[0]!['strategyErrors']).toBe(0);
    expect(rows[0]!['failed']).toBeUndefined();
    expect(rows[1]!['strategyErrors']).toBeGreaterThan(100);
    expect((rows[1]!['firstStrategyError'] as { message: string }).message).toBe('boom in onEvent');
    expect(rows[1]!['failed']).toMatch(/^the strategy erred/);
    expect((rows[2]!['quotesRefused'] as Record<string, number>)['OFF_TICK']).toBeGreaterThan(1000);
    expect(rows[2]!['failed']).toMatch(/^the strategy placed no order: the risk gate refused/);
  }, 180_000);
});
