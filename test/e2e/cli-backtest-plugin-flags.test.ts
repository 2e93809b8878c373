/**
 * What a plugin author needs from `mmkit backtest` and `mmkit sweep` (findings-4 F13, F6, F4, F10),
 * as real processes of bin/mmkit.js on a generated feed with a plugin file outside the project:
 * `ctx.random()` is seeded from --seed (same seed, byte-identical --json; another seed, other draws);
 * `--log-level` shows the strategy's `ctx.log` lines on stderr with virtual time (silent without);
 * `--param k=v` works as in `mmkit run` (merged with --params, a key given twice is an error); a
 * daemon setting in the environment that a backtest ignores is named in a warning; `--config` takes
 * the run's markets and `--risk` merges over its limits (review-2 F8); `sweep --log-level` tags each
 * line with its point; `bands` leaves out the quotes the gate's price limits would refuse (F19: the
 * 0.001-tick markets of the sample feed).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFeed } from '../support/feed-gen.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/mmkit.js');
const FEED_START = Date.UTC(2026, 0, 1);
let dir: string;
let feed: string;
let plugin: string;

/** Quotes a bid per market each timer tick, `depth` + a random 0..4 ticks below the mid; logs its first two ticks. */
function pluginSource(api: string): string {
  return `import { defineStrategy, tickPips, type ConditionId, type Micro, type Pips } from '${api}';
export default defineStrategy({
  name: 'dice',
  description: 'a bid a random number of ticks below the mid',
  params: {
    depth: { type: 'integer', default: 2, doc: 'ticks below the mid', min: 1, max: 20 },
    size: { type: 'number', default: 10, doc: 'shares', min: 5 },
  },
  create(ctx, p) {
    let ticks = 0;
    return {
      onEvent(e, state) {
        if (e.type !== 'timer' || e.name !== 'tick') return undefined;
        if (ticks++ < 2) ctx.log.info({ tick: ticks, depth: p.depth, at: ctx.clock.now() }, 'dice probe');
        const out = [];
        for (const m of ctx.markets.values()) {
          const t = m.tokens[0].tokenId;
          const b = state.book(t);
          if (b === undefined || b.mid === null || b.stale) continue;
          const tick = tickPips(m.tick);
          const k = p.depth + Math.floor(ctx.random() * 5);
          const price = (Math.floor(b.mid / tick) - k) * tick;
          if (price < tick) continue;
          const q = { tokenId: t, side: 'BUY' as const, price: price as Pips, size: (p.size * 1_000_000) as Micro };
          out.push({ market: m.market as ConditionId, quotes: [q], at: state.now });
        }
        return { quotes: out };
      },
    };
  },
});
`;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-cli-bt-plugin-'));
  feed = join(dir, 'feed.ndjson.gz');
  await writeFeed(feed, {
    seed: 5,
    markets: 2,
    messages: 3_000,
    meanGapMs: 100,
    tradeShare: 0.05,
    startMs: FEED_START,
  });
  plugin = join(dir, 'dice.ts');
  writeFileSync(plugin, pluginSource(relative(dir, join(ROOT, 'src/strategy/index.ts')).split(sep).join('/')));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The environment of a run: this process's without any MMKIT_* setting, plus `extra`. */
function envWith(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('MMKIT_')) env[k] = v;
  return { ...env, ...extra };
}

async function mmkit(
  args: string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; out: string; err: string }> {
  const p = spawn(process.execPath, [BIN, ...args], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: envWith(extraEnv),
  });
  let out = '';
  let err = '';
  p.stdout!.on('data', (d) => (out += d));
  p.stderr!.on('data', (d) => (err += d));
  const [code] = (await once(p, 'close')) as [number | null];
  return { code, out, err };
}

const backtest = (...more: string[]): string[] => [
  'backtest',
  '--feed',
  feed,
  '--strategy',
  plugin,
  '--no-feed-cache',
  ...more,
];

/** `cmd` (backtest or sweep) of a run's configuration file `cfg` (the strategy its bot.strategy), then `more`. */
const withConfig = (cmd: 'backtest' | 'sweep', cfg: string, ...more: string[]): string[] => [
  cmd,
  '--feed',
  feed,
  '--no-feed-cache',
  '--config',
  cfg,
  ...more,
];

/** The JSON lines of a run's stderr (its log lines), parsed. */
const jsonLines = (err: string): Array<Record<string, unknown>> =>
  err
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('mmkit backtest for a plugin author', () => {
  it('ctx.random() is seeded from --seed: the same seed gives byte-identical --json, another seed other draws (F13)', async () => {
    const a = await mmkit(backtest('--seed', '3', '--json'));
    expect(a.code, a.err.slice(-2000)).toBe(0);
    const b = await mmkit(backtest('--seed', '3', '--json'));
    expect(b.out).toBe(a.out);
    const c = await mmkit(backtest('--seed', '4', '--json'));
    expect(c.code, c.err.slice(-2000)).toBe(0);
    const da = JSON.parse(a.out);
    const dc = JSON.parse(c.out);
    expect(da.orders.placeRequests).toBeGreaterThan(0);
    // the strategy's draws differ: so do the orders it placed (not only the seed echoed in the JSON)
    expect(JSON.stringify(dc.orders)).not.toBe(JSON.stringify(da.orders));
  }, 120_000);

  it("--log-level shows the strategy's ctx.log lines on stderr with virtual time; without it the run is silent (F6)", async () => {
    const quiet = await mmkit(backtest('--json'));
    expect(quiet.code).toBe(0);
    expect(quiet.err).not.toContain('dice probe');
    const r = await mmkit(backtest('--json', '--log-level', 'info'));
    expect(r.code, r.err.slice(-2000)).toBe(0);
    // the result does not depend on the logging (it turns the gate's memo off: exact)
    expect(r.out).toBe(quiet.out);
    const lines = jsonLines(r.err);
    const probes = lines.filter((l) => l['msg'] === 'dice probe');
    expect(probes.length).toBe(2);
    for (const p of probes) {
      expect(p).toMatchObject({ component: 'strategy', strategy: 'dice', level: 30 });
      // virtual time: the feed's, the same as the strategy's clock, not the wall clock
      expect(p['time']).toBe(p['at']);
      expect(p['time'] as number).toBeGreaterThanOrEqual(FEED_START);
      expect(p['time'] as number).toBeLessThan(FEED_START + 86_400_000);
    }
    expect(lines.some((l) => l['msg'] === 'engine ready: quoting allowed')).toBe(true);
    const warn = await mmkit(backtest('--json', '--log-level', 'warn'));
    expect(warn.err).not.toContain('dice probe');
    const bad = await mmkit(backtest('--log-level', 'loud'));
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--log-level/);
  }, 180_000);

  it('takes --param k=v as run does, merged with --params; a key given twice is an error (F4)', async () => {
    const json = await mmkit(backtest('--json', '--params', '{"depth":3,"size":6}'));
    expect(json.code, json.err.slice(-2000)).toBe(0);
    const pairs = await mmkit(backtest('--json', '--param', 'depth=3', '--param', 'size=6'));
    expect(pairs.out).toBe(json.out);
    const mixed = await mmkit(backtest('--json', '--params', '{"depth":3}', '--param', 'size=6'));
    expect(mixed.out).toBe(json.out);
    const cases: Array<[string[], RegExp]> = [
      [backtest('--param', 'depth=3', '--param', 'depth=4'), /--param: "depth" given twice/],
      [backtest('--params', '{"depth":3}', '--param', 'depth=4'), /--param depth: "depth" is given in --params too/],
      [backtest('--param', 'depth'), /--param takes key=value/],
      [backtest('--param', 'dpth=3'), /bot\.params\.dpth: unknown key/],
    ];
    for (const [args, msg] of cases) {
      const r = await mmkit(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toMatch(msg);
    }
    const sweep = await mmkit([
      'sweep',
      '--feed',
      feed,
      '--strategy',
      plugin,
      '--no-feed-cache',
      '--param',
      'size=6',
      '--grid',
      '{"depth":[3]}',
      '--workers',
      '0',
      '--json',
    ]);
    expect(sweep.code, sweep.err.slice(-2000)).toBe(0);
    // the point of depth 3 with --param size=6 is the backtest of both
    const row = JSON.parse(sweep.out).rows[0];
    const m = JSON.parse(json.out).metrics;
    expect(row.point).toEqual({ depth: 3 });
    expect(row.error).toBeUndefined();
    expect([row.fills, row.pnl]).toEqual([m.fills, m.pnl]);
  }, 180_000);

  it('warns when daemon settings in the environment are set that a backtest ignores, naming the flags (F10)', async () => {
    const r = await mmkit(backtest('--json'), { MMKIT_RISK_MAX_POSITION_SHARES: '20', MMKIT_POST_ONLY: 'true' });
    expect(r.code).toBe(0);
    expect(r.err).toContain(
      "mmkit backtest: warning: ignoring the environment's MMKIT_POST_ONLY (use --post-only); MMKIT_RISK_MAX_POSITION_SHARES (use --risk JSON)",
    );
    // and only then
    expect((await mmkit(backtest('--json'))).err).not.toContain('warning');
  }, 120_000);

  it("--config FILE takes the strategy, params, risk and post-only of a run's configuration, with its env (F10)", async () => {
    const cfg = join(dir, 'run.json');
    writeFileSync(
      cfg,
      JSON.stringify({ bot: { strategy: plugin, params: { depth: 3 }, risk: { maxPositionShares: 20 } } }),
    );
    const flags = await mmkit(
      backtest('--json', '--params', '{"depth":3,"size":6}', '--risk', '{"maxPositionShares":20}', '--post-only'),
    );
    expect(flags.code, flags.err.slice(-2000)).toBe(0);
    const doc = JSON.parse(flags.out);
    expect(doc.postOnly).toBe(true); // bot.postOnly defaults to true, as in mmkit run
    expect(doc.inventoryLimit).toMatchObject({ size: 20_000_000, source: 'risk.maxPositionShares' });
    // --strategy from bot.strategy, --param over bot.params; the same run as with the flags
    const byConfig = await mmkit(withConfig('backtest', cfg, '--param', 'size=6', '--json'));
    expect(byConfig.code, byConfig.err.slice(-2000)).toBe(0);
    expect(byConfig.out).toBe(flags.out);
    // with --config the environment is read (as mmkit run reads it): no warning, the env applies
    const env = await mmkit(withConfig('backtest', cfg, '--json'), {
      MMKIT_RISK_MAX_POSITION_SHARES: '7',
    });
    expect(env.err).not.toContain('warning');
    expect(JSON.parse(env.out).inventoryLimit.size).toBe(7_000_000);
    writeFileSync(cfg, JSON.stringify({ bot: { risk: { maxPositionShares: -1 } } }));
    const bad = await mmkit(['backtest', '--feed', feed, '--config', cfg]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('bot.risk.maxPositionShares');
    const none = await mmkit(['backtest', '--feed', feed]);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/--strategy/);
  }, 180_000);

  it('--config: MMKIT_MARKETS (bot.markets) picks the markets traded, no warning; --risk merges over bot.risk per key (review-2 F8)', async () => {
    const all = await mmkit(backtest('--json'));
    expect(all.code, all.err.slice(-2000)).toBe(0);
    const markets = (JSON.parse(all.out).markets as Array<{ market: string }>).map((m) => m.market);
    expect(markets.length).toBe(2);
    const cfg = join(dir, 'run-f8.json');
    writeFileSync(cfg, JSON.stringify({ bot: { strategy: plugin, risk: { maxPositionShares: 20 } } }));
    const one = await mmkit(withConfig('backtest', cfg, '--risk', '{"maxOrderSizeShares":50}', '--json'), {
      MMKIT_MARKETS: markets[1]!,
    });
    expect(one.code, one.err.slice(-2000)).toBe(0);
    expect(one.err).not.toContain('warning');
    const doc = JSON.parse(one.out);
    expect(doc.markets.map((m: { market: string }) => m.market)).toEqual([markets[1]]);
    // the configuration's maxPositionShares stands: --risk set another key only
    expect(doc.inventoryLimit).toMatchObject({ size: 20_000_000, source: 'risk.maxPositionShares' });
    // --markets wins over the configuration's
    const flag = await mmkit(withConfig('backtest', cfg, '--markets', markets[0]!, '--json'), {
      MMKIT_MARKETS: markets[1]!,
    });
    expect(JSON.parse(flag.out).markets.map((m: { market: string }) => m.market)).toEqual([markets[0]]);
    // a sweep takes them too
    const sweep = await mmkit(withConfig('sweep', cfg, '--grid', '{"depth":[3]}', '--workers', '0'), {
      MMKIT_MARKETS: markets[1]!,
      MMKIT_LOG_LEVEL: 'debug',
    });
    expect(sweep.code, sweep.err.slice(-2000)).toBe(0);
    // the log level is the one setting --config does not take
    expect(sweep.err).toContain(
      "mmkit sweep: warning: ignoring the environment's MMKIT_LOG_LEVEL (use --log-level): a sweep logs only with --log-level",
    );
    const byFlags = await mmkit(
      withConfig('sweep', cfg, '--markets', markets[1]!, '--grid', '{"depth":[3]}', '--workers', '0'),
    );
    expect(sweep.out).toBe(byFlags.out);
  }, 240_000);

  it("sweep --log-level: each point's log lines on stderr, tagged with the point; the same results without", async () => {
    const args = (...more: string[]): string[] => [
      'sweep',
      '--feed',
      feed,
      '--strategy',
      plugin,
      '--no-feed-cache',
      '--grid',
      '{"depth":[2,3,4]}',
      '--workers',
      '2',
      '--json',
      ...more,
    ];
    const quiet = await mmkit(args());
    expect(quiet.code, quiet.err.slice(-2000)).toBe(0);
    expect(quiet.err).not.toContain('dice probe');
    const r = await mmkit(args('--log-level', 'info'));
    expect(r.code, r.err.slice(-2000)).toBe(0);
    expect(r.out).toBe(quiet.out);
    const lines = jsonLines(r.err);
    const probes = lines.filter((l) => l['msg'] === 'dice probe');
    expect(probes.length).toBe(6);
    for (const p of probes) {
      expect(p).toMatchObject({ component: 'strategy', strategy: 'dice', level: 30 });
      const point = p['point'] as { index: number; params: { depth: number } };
      // the point's own params: the strategy logs its depth
      expect(point.params.depth).toBe(p['depth']);
      expect(point.index).toBe([2, 3, 4].indexOf(point.params.depth));
      expect(p['time']).toBe(p['at']);
      expect(p['time'] as number).toBeGreaterThanOrEqual(FEED_START);
    }
    expect(new Set(probes.map((p) => (p['point'] as { index: number }).index))).toEqual(new Set([0, 1, 2]));
    expect(lines.filter((l) => l['msg'] === 'engine ready: quoting allowed').length).toBeGreaterThanOrEqual(3);
    expect(lines.every((l) => typeof (l['point'] as { index?: unknown })?.index === 'number')).toBe(true);
    const redis = await mmkit([
      'sweep',
      '--feed',
      feed,
      '--strategy',
      plugin,
      '--grid',
      '{"depth":[2]}',
      '--log-level',
      'info',
      '--redis',
      'redis://127.0.0.1:1',
    ]);
    expect(redis.code).toBe(2);
    expect(redis.err).toContain('--log-level applies to local sweeps');
  }, 240_000);

  it("bands sends no quote the risk gate's price limits refuse, on the sample feed's 0.001-tick markets (F19)", async () => {
    const r = await mmkit([
      'backtest',
      '--feed',
      join(ROOT, 'test/fixtures/sample-feed.ndjson.gz'),
      '--strategy',
      'bands',
      '--no-feed-cache',
      '--json',
      '--log-level',
      'info',
    ]);
    expect(r.code, r.err.slice(-2000)).toBe(0);
    expect(r.err).toContain('"msg":"engine ready: quoting allowed"');
    expect(r.err).not.toContain('PRICE_LIMIT');
  }, 120_000);
});
