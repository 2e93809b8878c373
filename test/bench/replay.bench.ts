/**
 * Replay throughput: recorded lines read per second on one core, from a gzip feed on disk through
 * gunzip, line splitting and record parsing to FeedItems in the consumer's hands (replay.ts), plus
 * the resident memory over the run (flat: nothing is loaded whole).
 *
 * The feed is generated in a temp dir from the frames of the shipped sample recording
 * (test/fixtures/sample-feed.ndjson.gz: the paper exchange's market channel and RTDS as recorded,
 * mean ~400 bytes a line), cycled with fresh receive times until it has the asked number of lines.
 * Without the fixture (or with --synthetic) a synthetic market-channel mix is used instead
 * (price_change 70%, book snapshots with 5-25 levels a side 15%, last_trade_price 15%, one RTDS
 * price in 20; heavier lines, ~870 bytes).
 *
 * Run: node --import tsx test/bench/replay.bench.ts [lines] [--synthetic]   (default 2,000,000 lines)
 * Prints:
 *   figure: replay_lines_per_sec = <n> lines/s            (replayFeedBatches: one await per batch)
 *   figure: replay_lines_per_sec_items = <n> lines/s      (replayFeeds: one await per item)
 *   figure: replay_lines_per_sec_merge4 = <n> lines/s     (4 files interleaved in time, batches)
 *   figure: replay_mb_per_sec = <n> MB/s                  (uncompressed bytes, batches)
 *   figure: replay_lines_per_sec_plain = <n> lines/s      (the same feed as plain .ndjson: no inflate, so
 *                                                          this is replay's own main-thread cost; with gzip,
 *                                                          inflate runs on a libuv thread beside the consumer)
 *   figure: replay_rss_growth_mb = <n> MB                 (max RSS during the run minus after the first batch)
 */
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGunzip, createGzip } from 'node:zlib';
import { once } from 'node:events';
import { frameLine, headerLine, statusLine, stringFrameLine } from '../../src/venues/sim/feed.ts';
import { newReplayStats, replayFeedBatches, replayFeeds } from '../../src/backtest/replay.ts';
import { formatAmount, formatPrice } from '../../src/core/units.ts';

const args = process.argv.slice(2);
const LINES = Number(args.find((a) => /^\d+$/.test(a)) ?? 2_000_000);
const SYNTHETIC = args.includes('--synthetic');
const FIXTURE = new URL('../fixtures/sample-feed.ndjson.gz', import.meta.url).pathname;

let seed = 12345;
const rnd = (): number => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x80000000;
};
const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[int(0, 15)]).join('');
const digits = (n: number) => String(int(1, 9)) + Array.from({ length: n - 1 }, () => String(int(0, 9))).join('');
const markets = Array.from({ length: 20 }, () => ({ cid: `0x${hex(64)}`, yes: digits(77), no: digits(77) }));
const size = () => formatAmount(int(1, 5000) * 10_000);

function marketFrame(): string {
  const m = markets[int(0, markets.length - 1)]!;
  const ts = String(1_760_000_000_000 + int(0, 1e9));
  const x = rnd();
  if (x < 0.7) {
    const mid = int(1000, 9000);
    const price_changes = Array.from({ length: int(2, 4) }, (_, i) => ({
      asset_id: i % 2 === 0 ? m.yes : m.no,
      price: formatPrice(i % 2 === 0 ? mid : 10_000 - mid),
      size: rnd() < 0.2 ? '0' : size(),
      side: rnd() < 0.5 ? 'BUY' : 'SELL',
      hash: hex(40),
      best_bid: formatPrice(mid - 10),
      best_ask: formatPrice(mid + 10),
    }));
    return JSON.stringify({ event_type: 'price_change', market: m.cid, timestamp: ts, price_changes });
  }
  if (x < 0.85) {
    const mid = int(1000, 9000);
    const bids = Array.from({ length: int(5, 25) }, (_, i) => ({
      price: formatPrice(mid - 10 * (i + 1)),
      size: size(),
    })).reverse();
    const asks = Array.from({ length: int(5, 25) }, (_, i) => ({
      price: formatPrice(mid + 10 * (i + 1)),
      size: size(),
    })).reverse();
    return JSON.stringify({
      event_type: 'book',
      market: m.cid,
      asset_id: m.yes,
      timestamp: ts,
      hash: hex(40),
      bids,
      asks,
      min_order_size: '5',
      tick_size: '0.001',
      neg_risk: false,
      last_trade_price: formatPrice(mid),
    });
  }
  return JSON.stringify({
    event_type: 'last_trade_price',
    asset_id: m.yes,
    market: m.cid,
    price: formatPrice(int(100, 9900)),
    side: 'BUY',
    size: size(),
    fee_rate_bps: '0',
    timestamp: ts,
    transaction_hash: `0x${hex(64)}`,
  });
}
const POOL = Array.from({ length: 4096 }, marketFrame);
const PRICE = Array.from({ length: 64 }, (_, i) =>
  JSON.stringify({
    topic: 'crypto_prices',
    type: 'update',
    timestamp: 1_760_000_000_000 + i,
    payload: { symbol: 'btcusdt', timestamp: 1_760_000_000_000 + i, value: 95_000 + i / 7 },
    connection_id: 'abc',
  }),
);

/** Lines to cycle through: the sample recording's records (t replaced), or the synthetic mix. */
async function sourceLines(): Promise<{ kind: string; lines: Array<(t: number) => string> }> {
  if (!SYNTHETIC && existsSync(FIXTURE)) {
    const out: Array<(t: number) => string> = [];
    for await (const it of replayFeeds([FIXTURE])) {
      if (it.kind === 'frame') {
        const { ch, raw } = it;
        out.push(isOneLine(raw) ? (t) => frameLine(t, ch, raw) : (t) => stringFrameLine(t, ch, raw));
      } else if (it.kind === 'status') {
        const { ch, status, reason } = it;
        out.push((t) => statusLine(t, ch, status, reason));
      }
    }
    if (out.length > 100) return { kind: `the sample recording (${out.length} records, cycled)`, lines: out };
  }
  const out: Array<(t: number) => string> = [];
  for (let i = 0; i < 8192; i++) {
    if (i % 4096 === 4095) out.push((t) => statusLine(t, 'm', 'disconnect', 'bench'));
    else if (i % 20 === 7) out.push((t) => frameLine(t, 'r', PRICE[i & 63]!));
    else {
      const f = POOL[(i * 2654435761) & 4095]!;
      out.push((t) => frameLine(t, 'm', f));
    }
  }
  return { kind: 'the synthetic mix', lines: out };
}
const isOneLine = (raw: string) => {
  if (raw.includes('\n') || raw.includes('\r')) return false;
  try {
    JSON.parse(raw);
    return true;
  } catch {
    return false;
  }
};

/** Writes `n` lines from `src` starting at time t0 (one line every 37 us, offset by `phase`). */
async function writeFeed(
  file: string,
  src: Array<(t: number) => string>,
  n: number,
  t0: number,
  part: number,
  phase = 0,
): Promise<number> {
  const gz = createGzip({ level: 6 });
  const out = createWriteStream(file);
  gz.pipe(out);
  let bytes = 0;
  const push = async (s: string) => {
    bytes += Buffer.byteLength(s) + 1;
    if (!gz.write(s + '\n')) await once(gz, 'drain');
  };
  await push(headerLine({ h: 1, t: t0, part, source: 'bench', recorder: 'mmkit/0.1.0', markets: [] }));
  let chunk: string[] = [];
  for (let i = 0; i < n; i++) {
    chunk.push(src[(i + phase) % src.length]!(t0 + i * 0.037));
    if (chunk.length === 1024) {
      await push(chunk.join('\n'));
      chunk = [];
    }
  }
  if (chunk.length) await push(chunk.join('\n'));
  gz.end();
  await once(out, 'close');
  return bytes;
}

const mb = (b: number) => Math.round(b / 1e5) / 10;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'mmkit-replay-bench-'));
  try {
    const t0 = 1_760_000_000_000;
    const big = join(dir, 'feed.ndjson.gz');
    const src = await sourceLines();
    const w = performance.now();
    const bytes = await writeFeed(big, src.lines, LINES, t0, 0);
    const gzBytes = statSync(big).size;
    console.log(
      `# feed from ${src.kind}: ${LINES} lines, ${mb(bytes)} MB raw, ${mb(gzBytes)} MB gzip (mean ${Math.round(bytes / LINES)} bytes/line), written in ${Math.round(performance.now() - w)} ms`,
    );
    const parts: string[] = [];
    for (let k = 0; k < 4; k++) {
      const f = join(dir, `part${k}.ndjson.gz`);
      await writeFeed(f, src.lines, Math.floor(LINES / 4), t0 + k * 0.009, k, k * 997); // interleaved in time: a real 4-way merge
      parts.push(f);
    }

    const runBatches = async (files: string[]) => {
      const stats = newReplayStats();
      let n = 0;
      let sum = 0;
      let rss0 = 0;
      let rssMax = 0;
      let batches = 0;
      const start = performance.now();
      for await (const b of replayFeedBatches(files, { stats })) {
        for (let i = 0; i < b.length; i++) {
          const it = b[i]!;
          n++;
          if (it.kind === 'frame') sum += it.raw.length;
        }
        if (++batches === 1) rss0 = process.memoryUsage.rss();
        else if ((batches & 63) === 0) rssMax = Math.max(rssMax, process.memoryUsage.rss());
      }
      const ms = performance.now() - start;
      if (stats.malformed !== 0 || stats.truncatedFiles !== 0)
        throw new Error(`bench feed damaged: ${JSON.stringify(stats)}`);
      return {
        n,
        ms,
        sum,
        lines: stats.lines,
        growth: Math.max(0, Math.max(rssMax, process.memoryUsage.rss()) - rss0),
      };
    };
    const runItems = async (files: string[]) => {
      const stats = newReplayStats();
      let n = 0;
      const start = performance.now();
      for await (const it of replayFeeds(files, { stats })) if (it.kind !== 'header') n++;
      return { n, ms: performance.now() - start, lines: stats.lines };
    };

    const plain = join(dir, 'feed.ndjson');
    await pipeline(createReadStream(big), createGunzip(), createWriteStream(plain));
    await runBatches([big]); // warm up (JIT, page cache)
    const b = await runBatches([big]);
    const it = await runItems([big]);
    const m4 = await runBatches(parts);
    const pl = await runBatches([plain]);
    console.log(
      `# batches: ${b.lines} lines in ${Math.round(b.ms)} ms; items: ${it.lines} lines in ${Math.round(it.ms)} ms; merge of 4: ${m4.lines} lines in ${Math.round(m4.ms)} ms`,
    );
    console.log(`figure: replay_lines_per_sec = ${Math.round(b.lines / (b.ms / 1000))} lines/s`);
    console.log(`figure: replay_lines_per_sec_items = ${Math.round(it.lines / (it.ms / 1000))} lines/s`);
    console.log(`figure: replay_lines_per_sec_merge4 = ${Math.round(m4.lines / (m4.ms / 1000))} lines/s`);
    console.log(`figure: replay_mb_per_sec = ${mb(bytes / (b.ms / 1000))} MB/s`);
    console.log(`figure: replay_rss_growth_mb = ${mb(b.growth)} MB`);
    console.log(`figure: replay_lines_per_sec_plain = ${Math.round(pl.lines / (pl.ms / 1000))} lines/s`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
