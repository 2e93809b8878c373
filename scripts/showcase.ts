/**
 * `npm run showcase`: backtests every shipped strategy with its default parameters over many seeds
 * of the synthetic world in each world profile (calm, realistic, toxic: src/exchange/world/profiles.ts)
 * and on the shipped sample feed (test/fixtures/sample-feed.ndjson.gz, recorded from the realistic
 * profile), and prints one table. Deterministic: the same code gives the same table (the README
 * shows it as printed).
 *
 * `rewards` (which trades rewarded markets only) runs on the feed only when its header carries reward
 * configs.
 *
 * Columns, per strategy and source (a profile's runs are one per world seed 1..N; the feed is one
 * path, so it has no interval):
 *  - runs; fills per run;
 *  - PnL: mean over the runs (realized + unrealized − fees, USDC; open positions marked to the mid,
 *    resolved markets at 1/0) ± the half-width of its 95 % confidence interval (Student's t);
 *  - PnL/σ: the mean PnL over its standard deviation across runs (risk-adjusted: how reliably the
 *    strategy earns what it earns);
 *  - rewards: the liquidity rewards earned, mean over the runs (USDC; apart from the PnL, which does
 *    not include them): in a world, what the paper exchange paid (and would pay for the running
 *    epoch at the end); on a feed, the bot's quotes scored every minute against the recorded book
 *    (src/backtest/rewards.ts). n/a when none of the traded markets has a reward config;
 *  - max drawdown: mean over the runs (USDC);
 *  - markouts at +10 s and +60 s: size-weighted over every fill of every run, price units: the
 *    token's mid at the horizon minus the fill price for a buy, the reverse for a sell; positive is
 *    good;
 *  - picked off: the share of the filled size that came within 1 s after a news jump of its
 *    market (the world's announced jumps). A recorded feed carries no news: there, the share of
 *    fills after which the mid moved 2 cents or more against us within 1 s (marked *).
 *
 *   npm run showcase                                   # the table (10 seeds, 1 h each, 3 profiles)
 *   npm run showcase -- --json                         # the rows as JSON
 *   npm run showcase -- --seeds 20 --world-hours 2     # more and longer runs
 *   npm run showcase -- --profiles realistic --strategies bands,template
 *
 * Runs in child processes, as many at a time as the machine has cores (--jobs).
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { computeMetrics } from '../src/backtest/metrics.ts';
import { replayFeeds } from '../src/backtest/replay.ts';
import { runBacktest, type BacktestResult } from '../src/backtest/runner.ts';
import { AMOUNT_SCALE, PRICE_SCALE } from '../src/core/units.ts';
import { WORLD_PROFILES, type WorldProfileName } from '../src/exchange/world/profiles.ts';

const ROOT = join(import.meta.dirname, '..');
const FEED = join(ROOT, 'test', 'fixtures', 'sample-feed.ndjson.gz');
const STRATEGIES = ['bands', 'avellaneda', 'amm', 'crypto-fair-value', 'rewards', 'template'] as const;
/**
 * Strategies that trade rewarded markets only (their selectMarkets chooses none without a reward
 * config): not run on a feed whose header carries no reward config (the shipped sample feed was
 * recorded before rewards existed).
 */
const REWARDED_ONLY: ReadonlySet<string> = new Set(['rewards']);
const SEED = 1;
const PICKOFF_MS = 1_000;
const ADVERSE_PIPS = 200;

/** One backtest, summarised (what the parent aggregates). */
export interface RunSummary {
  strategy: string;
  source: string;
  seed: number;
  /** USDC. */
  pnl: number;
  /** Liquidity rewards, USDC (null: no traded market has a reward config). */
  rewards: number | null;
  maxDrawdown: number;
  fills: number;
  /** Size-weighted markout sums at +10 s and +60 s (price units × shares) and their weights (shares). */
  mk10: [number, number];
  mk60: [number, number];
  /** Shares filled within 1 s after a jump (or adverse, on a feed), and shares filled. */
  picked: [number, number];
}

export interface ShowcaseRow {
  strategy: string;
  source: string;
  runs: number;
  fillsPerRun: number;
  pnlMean: number;
  /** Half-width of the 95 % confidence interval of the mean (null for a single run). */
  pnlCi95: number | null;
  /** Mean PnL over its standard deviation across runs (null for a single run or no spread). */
  pnlOverSd: number | null;
  /** Mean rewards over the runs with a rewarded market (a run without one counts 0), USDC; null when no run had one. */
  rewardsMean: number | null;
  maxDrawdownMean: number;
  markout10s: number | null;
  markout60s: number | null;
  pickedOff: number | null;
  /** True when `pickedOff` is the feed's proxy (adverse 2-cent move within 1 s). */
  pickedOffProxy: boolean;
}

/** Student's t at 97.5 % for 1..30 degrees of freedom (then 1.96). */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11,
  2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** Mean, 95 % CI half-width and mean/sd of xs. */
export function meanCi(xs: readonly number[]): { mean: number; ci: number | null; overSd: number | null } {
  const n = xs.length;
  const mean = n > 0 ? xs.reduce((a, b) => a + b, 0) / n : 0;
  if (n < 2) return { mean, ci: null, overSd: null };
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const t = T975[n - 2] ?? 1.96;
  return { mean, ci: (t * sd) / Math.sqrt(n), overSd: sd > 0 ? mean / sd : null };
}

/** What each strategy trades (crypto-fair-value prices only crypto markets, from the real-time prices). */
const CRYPTO = /price of (Bitcoin|Ethereum|Solana|XRP|Dogecoin)\b/i;
function setup(strategy: string): { crypto: boolean; risk?: Record<string, unknown> } {
  if (strategy !== 'crypto-fair-value') return { crypto: false };
  return { crypto: true, risk: { maxMidDistance: 0.5 } };
}

async function feedMarkets(): Promise<Array<{ market: string; question: string; rewarded: boolean }>> {
  for await (const item of replayFeeds([FEED])) {
    if (item.kind === 'header')
      return item.header.markets.map((m) => ({ market: m.market, question: m.question, rewarded: m.rewards != null }));
  }
  throw new Error(`${FEED} has no header`);
}

/** The summary of one run. */
function summarise(strategy: string, source: string, seed: number, r: BacktestResult): RunSummary {
  const m = computeMetrics(r);
  const mk10: [number, number] = [0, 0];
  const mk60: [number, number] = [0, 0];
  const picked: [number, number] = [0, 0];
  const jumps = new Map<string, number[]>();
  for (const j of r.news ?? []) jumps.set(j.market, [...(jumps.get(j.market) ?? []), j.at]);
  for (const f of r.fills) {
    const size = f.size / AMOUNT_SCALE;
    const dir = f.side === 'BUY' ? 1 : -1;
    const at = (i: number, acc: [number, number]) => {
      const mid = f.markouts[i];
      if (mid === null || mid === undefined) return;
      acc[0] += (dir * (mid - f.price) * size) / PRICE_SCALE;
      acc[1] += size;
    };
    at(1, mk10);
    at(2, mk60);
    picked[1] += size;
    if (r.mode === 'world') {
      if ((jumps.get(f.market) ?? []).some((t) => f.t >= t && f.t - t <= PICKOFF_MS)) picked[0] += size;
    } else {
      const mid = f.markouts[0];
      if (mid !== null && mid !== undefined && dir * (mid - f.price) <= -ADVERSE_PIPS) picked[0] += size;
    }
  }
  return {
    strategy,
    source,
    seed,
    pnl: m.pnl / AMOUNT_SCALE,
    rewards: m.rewards === undefined ? null : m.rewards / AMOUNT_SCALE,
    maxDrawdown: m.maxDrawdown.value / AMOUNT_SCALE,
    fills: m.fills,
    mk10,
    mk60,
    picked,
  };
}

/** Runs one strategy on one source (the feed, or a profile over the seeds) in this process. */
async function runGroup(strategy: string, source: string, seeds: number[], hours: number): Promise<RunSummary[]> {
  const s = setup(strategy);
  const out: RunSummary[] = [];
  if (source === 'feed') {
    const markets = s.crypto ? (await feedMarkets()).filter((m) => CRYPTO.test(m.question)).map((m) => m.market) : [];
    const r = await runBacktest({
      feeds: [FEED],
      strategy,
      seed: SEED,
      ...(markets.length > 0 ? { markets } : {}),
      ...(s.risk ? { risk: s.risk } : {}),
    });
    out.push(summarise(strategy, 'sample feed', SEED, r));
    return out;
  }
  for (const seed of seeds) {
    const r = await runBacktest({
      world: {
        seed,
        durationMs: Math.round(hours * 3_600_000),
        profile: source as WorldProfileName,
        ...(s.crypto ? { search: 'price of' } : {}),
      },
      strategy,
      seed: SEED,
      ...(s.risk ? { risk: s.risk } : {}),
    });
    out.push(summarise(strategy, source, seed, r));
  }
  return out;
}

/** The table row of a group of runs. */
export function rowOf(strategy: string, source: string, runs: readonly RunSummary[]): ShowcaseRow {
  const p = meanCi(runs.map((r) => r.pnl));
  const sum = (f: (r: RunSummary) => [number, number]) =>
    runs.reduce<[number, number]>((a, r) => [a[0] + f(r)[0], a[1] + f(r)[1]], [0, 0]);
  const mk10 = sum((r) => r.mk10);
  const mk60 = sum((r) => r.mk60);
  const picked = sum((r) => r.picked);
  return {
    strategy,
    source,
    runs: runs.length,
    fillsPerRun: runs.reduce((a, r) => a + r.fills, 0) / Math.max(1, runs.length),
    pnlMean: p.mean,
    pnlCi95: p.ci,
    pnlOverSd: p.overSd,
    rewardsMean: runs.some((r) => r.rewards !== null)
      ? runs.reduce((a, r) => a + (r.rewards ?? 0), 0) / Math.max(1, runs.length)
      : null,
    maxDrawdownMean: runs.reduce((a, r) => a + r.maxDrawdown, 0) / Math.max(1, runs.length),
    markout10s: mk10[1] > 0 ? mk10[0] / mk10[1] : null,
    markout60s: mk60[1] > 0 ? mk60[0] / mk60[1] : null,
    pickedOff: picked[1] > 0 ? picked[0] / picked[1] : null,
    pickedOffProxy: source === 'sample feed',
  };
}

const sgn = (x: number | null, d: number) => (x === null ? 'n/a' : `${x >= 0 ? '+' : ''}${x.toFixed(d)}`);

/** The markdown table of the rows. */
export function formatTable(rows: readonly ShowcaseRow[]): string {
  const head = [
    'strategy',
    'source',
    'runs',
    'fills/run',
    'PnL mean ± 95% CI (USDC)',
    'PnL/σ',
    'rewards (USDC)',
    'max drawdown',
    'markout +10s',
    'markout +60s',
    'picked off',
  ];
  const body = rows.map((x) => [
    x.strategy,
    x.source,
    String(x.runs),
    x.fillsPerRun.toFixed(0),
    `${sgn(x.pnlMean, 2)}${x.pnlCi95 === null ? '' : ` ± ${x.pnlCi95.toFixed(2)}`}`,
    x.pnlOverSd === null ? 'n/a' : sgn(x.pnlOverSd, 2),
    x.rewardsMean === null ? 'n/a' : sgn(x.rewardsMean, 2),
    x.maxDrawdownMean.toFixed(2),
    sgn(x.markout10s, 4),
    sgn(x.markout60s, 4),
    x.pickedOff === null ? 'n/a' : `${(x.pickedOff * 100).toFixed(1)} %${x.pickedOffProxy ? '*' : ''}`,
  ]);
  return [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...body.map((b) => `| ${b.join(' | ')} |`),
  ].join('\n');
}

/** Runs `args` of this script in a child process and parses its JSON output. */
function child(args: string[]): Promise<RunSummary[]> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', import.meta.filename, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) return reject(new Error(`showcase ${args.join(' ')} exited ${code}`));
      try {
        resolve(JSON.parse(out) as RunSummary[]);
      } catch (e) {
        reject(e as Error);
      }
    });
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      'world-hours': { type: 'string', default: '1' },
      seeds: { type: 'string', default: '10' },
      profiles: { type: 'string', default: WORLD_PROFILES.join(',') },
      strategies: { type: 'string', default: STRATEGIES.join(',') },
      jobs: { type: 'string', default: String(Math.max(1, availableParallelism())) },
      // internal: one group in this process
      group: { type: 'string' },
    },
  });
  const hours = Number(values['world-hours']);
  const nSeeds = Number(values.seeds);
  const jobs = Number(values.jobs);
  const fail = (m: string): never => {
    process.stderr.write(`showcase: ${m}\n`);
    process.exit(2);
  };
  if (!(hours > 0 && hours <= 48)) fail('--world-hours takes a number in (0, 48]');
  if (!Number.isInteger(nSeeds) || nSeeds < 1 || nSeeds > 100) fail('--seeds takes an integer in [1, 100]');
  if (!Number.isInteger(jobs) || jobs < 1) fail('--jobs takes a positive integer');
  const seeds = Array.from({ length: nSeeds }, (_, i) => i + 1);
  if (values.group !== undefined) {
    const [strategy, source] = values.group.split(':') as [string, string];
    process.stdout.write(JSON.stringify(await runGroup(strategy, source, seeds, hours)) + '\n');
    return;
  }
  const profiles = values.profiles.split(',').filter(Boolean);
  for (const p of profiles) if (!(WORLD_PROFILES as readonly string[]).includes(p)) fail(`unknown profile "${p}"`);
  const strategies = values.strategies.split(',').filter(Boolean);
  for (const s of strategies) if (!(STRATEGIES as readonly string[]).includes(s)) fail(`unknown strategy "${s}"`);
  const feedRewarded = (await feedMarkets()).some((m) => m.rewarded);
  const groups = strategies.flatMap((s) =>
    [...profiles, ...(REWARDED_ONLY.has(s) && !feedRewarded ? [] : ['feed'])].map((src) => ({
      strategy: s,
      source: src,
    })),
  );
  const results = new Array<RunSummary[]>(groups.length);
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < groups.length) {
      const i = next++;
      const g = groups[i]!;
      results[i] = await child([
        '--group',
        `${g.strategy}:${g.source}`,
        '--seeds',
        String(nSeeds),
        '--world-hours',
        String(hours),
      ]);
      process.stderr.write(
        `# ${g.strategy} on ${g.source}: done (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, groups.length) }, worker));
  const rows = groups.map((g, i) =>
    rowOf(g.strategy, g.source === 'feed' ? 'sample feed' : `${g.source} world`, results[i]!),
  );
  if (values.json) process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
  else process.stdout.write(formatTable(rows) + '\n');
}

// run when executed, not when imported (the showcase test imports formatTable)
if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) await main();
