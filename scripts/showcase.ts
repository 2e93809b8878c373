/**
 * `npm run showcase`: backtests every shipped strategy with its default parameters on the shipped
 * sample feed (test/fixtures/sample-feed.ndjson.gz) and in synthetic mode (the paper exchange's
 * world, fixed seed), and prints one table. Everything is deterministic: the same code gives the
 * same table (the README shows it as printed).
 *
 * Columns: fills; volume (shares); realized and unrealized PnL (USDC; unrealized marks open
 * positions to the mid, resolved markets at 1/0); max inventory (largest |position| of a token,
 * shares); quote uptime (of the samples where a traded market had a two-sided book, the share in
 * which we had at least one quote resting in it); markout at +10 s (size-weighted, price units:
 * mid 10 s after the fill minus the fill price, for buys; the reverse for sells; positive is good).
 *
 *   npm run showcase                        # the table
 *   npm run showcase -- --json              # the rows as JSON
 *   npm run showcase -- --world-hours 2     # a longer synthetic run (default 1 h)
 */
import { join } from 'node:path';
import { computeMetrics } from '../src/backtest/metrics.ts';
import { shares, usd } from '../src/backtest/report.ts';
import { replayFeeds } from '../src/backtest/replay.ts';
import { runBacktest, type BacktestResult } from '../src/backtest/runner.ts';

const ROOT = join(import.meta.dirname, '..');
const FEED = join(ROOT, 'test', 'fixtures', 'sample-feed.ndjson.gz');
const STRATEGIES = ['bands', 'avellaneda', 'amm', 'crypto-fair-value', 'template'] as const;
const SEED = 1;
const WORLD_SEED = 1;

const argv = process.argv.slice(2);
const json = argv.includes('--json');
const hoursAt = argv.indexOf('--world-hours');
const worldHours = hoursAt >= 0 ? Number(argv[hoursAt + 1]) : 1;
if (!(worldHours > 0 && worldHours <= 48)) {
  process.stderr.write('showcase: --world-hours takes a number in (0, 48]\n');
  process.exit(2);
}

export interface ShowcaseRow {
  strategy: string;
  source: string;
  fills: number;
  volume: string;
  realized: string;
  unrealized: string;
  maxInventory: string;
  quoteUptime: string;
  markout10s: string;
}

/** Of the samples where a traded market had a two-sided book, the share with a quote of ours in it. */
export function quoteUptime(r: BacktestResult): number | null {
  const byMarket = new Map<string, BacktestResult['samples']['tokens']>();
  for (const s of r.samples.tokens) byMarket.set(s.market, [...(byMarket.get(s.market) ?? []), s]);
  let withBook = 0;
  let quoted = 0;
  for (const series of byMarket.values()) {
    const n = r.samples.t.length;
    for (let i = 0; i < n; i++) {
      if (!series.some((s) => s.mid[i] !== null && s.mid[i] !== undefined)) continue;
      withBook++;
      if (series.some((s) => (s.bid[i] ?? null) !== null || (s.ask[i] ?? null) !== null)) quoted++;
    }
  }
  return withBook === 0 ? null : quoted / withBook;
}

function maxInventory(r: BacktestResult): number {
  let m = 0;
  for (const s of r.samples.tokens) for (const p of s.pos) m = Math.max(m, Math.abs(p));
  for (const p of r.positions) m = Math.max(m, Math.abs(p.size));
  return m;
}

function row(strategy: string, source: string, r: BacktestResult): ShowcaseRow {
  const m = computeMetrics(r);
  const up = quoteUptime(r);
  const mk = m.markouts.find((x) => x.horizonMs === 10_000);
  return {
    strategy,
    source,
    fills: m.fills,
    volume: shares(m.volume),
    realized: usd(m.realized, true),
    unrealized: usd(m.unrealized, true),
    maxInventory: shares(maxInventory(r)),
    quoteUptime: up === null ? 'n/a' : `${(up * 100).toFixed(1)} %`,
    markout10s: mk?.avg === null || mk === undefined ? 'n/a' : `${mk.avg >= 0 ? '+' : ''}${mk.avg.toFixed(4)}`,
  };
}

/**
 * What each strategy trades: every market of the feed / the world's most liquid ones, except
 * crypto-fair-value, which prices only crypto markets ("Will the price of Bitcoin be above $X on
 * ...?") from the real-time prices, and whose fair value can sit further from a thin book's mid
 * than the default risk price band (0.1) allows.
 */
const CRYPTO = /price of (Bitcoin|Ethereum|Solana|XRP|Dogecoin)\b/i;
const header = await readHeader(FEED);
function setup(strategy: string): { feedMarkets?: string[]; worldSearch?: string; risk?: Record<string, unknown> } {
  if (strategy !== 'crypto-fair-value') return {};
  return {
    feedMarkets: header.filter((m) => CRYPTO.test(m.question)).map((m) => m.market),
    worldSearch: 'price of',
    risk: { maxMidDistance: 0.5 },
  };
}

async function readHeader(file: string): Promise<Array<{ market: string; question: string }>> {
  for await (const item of replayFeeds([file])) {
    if (item.kind === 'header') return item.header.markets.map((m) => ({ market: m.market, question: m.question }));
  }
  throw new Error(`${file} has no header`);
}

const rows: ShowcaseRow[] = [];
for (const strategy of STRATEGIES) {
  const t0 = performance.now();
  const s = setup(strategy);
  const feed = await runBacktest({
    feeds: [FEED],
    strategy,
    seed: SEED,
    ...(s.feedMarkets ? { markets: s.feedMarkets } : {}),
    ...(s.risk ? { risk: s.risk } : {}),
  });
  rows.push(row(strategy, 'sample feed', feed));
  const world = await runBacktest({
    world: {
      seed: WORLD_SEED,
      durationMs: worldHours * 3_600_000,
      ...(s.worldSearch ? { search: s.worldSearch } : {}),
    },
    strategy,
    seed: SEED,
    ...(s.risk ? { risk: s.risk } : {}),
  });
  rows.push(row(strategy, `world ${WORLD_SEED}, ${worldHours} h`, world));
  process.stderr.write(`# ${strategy}: ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
}

if (json) {
  process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
} else {
  const head = [
    'strategy',
    'source',
    'fills',
    'volume',
    'realized PnL',
    'unrealized PnL',
    'max inventory',
    'quote uptime',
    'markout +10s',
  ];
  const body = rows.map((x) => [
    x.strategy,
    x.source,
    String(x.fills),
    x.volume,
    x.realized,
    x.unrealized,
    x.maxInventory,
    x.quoteUptime,
    x.markout10s,
  ]);
  const lines = [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...body.map((b) => `| ${b.join(' | ')} |`),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}
