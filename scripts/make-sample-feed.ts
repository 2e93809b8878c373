/**
 * Makes the sample feed shipped as test/fixtures/sample-feed.ndjson.gz: a recording of the paper
 * exchange's default world (seeded, flow agents trading, lifecycle on) through the real recorder
 * over real WebSockets.
 *
 *   node --import tsx scripts/make-sample-feed.ts [--out FILE] [--minutes M] [--markets N] [--seed S] [--warmup-seconds W]
 *
 * Defaults: test/fixtures/sample-feed.ndjson.gz, 30 minutes, the 12 busiest markets, seed 1, 60 s of
 * warm-up. "Busiest": after the warm-up (the agents have traded for a minute), active order-book
 * markets open for at least the recording plus 30 minutes, ranked by traded volume, then
 * liquidity, plus the busiest two whose question contains `--include` (default "price of": the
 * crypto "above $K" markets crypto-fair-value prices). RTDS crypto prices are recorded too. The file is written beside the target and
 * renamed over it at the end; the script fails if it is 5 MB or more.
 */
import { renameSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { GammaClient } from '../src/api/gamma.ts';
import { createTransport } from '../src/api/http/transport.ts';
import { newReplayStats, replayFeeds } from '../src/backtest/replay.ts';
import { resolveMarkets, startRecorder, venueUrls } from '../src/backtest/recorder.ts';
import { parseAmount } from '../src/core/units.ts';
import { startExchange } from '../src/exchange/server.ts';

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'test/fixtures/sample-feed.ndjson.gz' },
    minutes: { type: 'string', default: '30' },
    markets: { type: 'string', default: '12' },
    seed: { type: 'string', default: '1' },
    'warmup-seconds': { type: 'string', default: '60' },
    // markets whose question contains this text are always recorded (the busiest 2 of them), so
    // crypto-fair-value has its "Will the price of Bitcoin be above $K" markets in the feed
    include: { type: 'string', default: 'price of' },
  },
});
const out = resolve(values.out!);
const minutes = Number(values.minutes);
const count = Number(values.markets);
const seed = Number(values.seed);
const warmupMs = Number(values['warmup-seconds']) * 1000;
const MAX_BYTES = 5 * 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const say = (s: string) => process.stderr.write(`make-sample-feed: ${s}\n`);

const ex = await startExchange({ port: 0, seed });
const base = ex.urls.clob_url.replace(/\/clob$/, '');
const urls = venueUrls(base);
try {
  say(`paper exchange (seed ${seed}) at ${base}; warming up ${warmupMs / 1000} s`);
  await sleep(warmupMs);
  const transport = createTransport({ urls: { gamma: urls.gamma } });
  const gamma = new GammaClient(transport);
  const until = Date.now() + minutes * 60_000 + 30 * 60_000;
  const ranked: Array<{ id: string; vol: number; liq: number; q: string }> = [];
  for await (const m of gamma.iterMarkets({ active: true, closed: false }, { pageSize: 500 })) {
    if (!m.acceptingOrders || !m.enableOrderBook || m.clobTokenIds.length !== 2) continue;
    if (m.endDate !== null && Date.parse(m.endDate) < until) continue;
    ranked.push({
      id: m.conditionId,
      vol: parseAmount(m.volume, 'down'),
      liq: parseAmount(m.liquidity, 'down'),
      q: m.question,
    });
  }
  await transport.close();
  ranked.sort((a, b) => b.vol - a.vol || b.liq - a.liq);
  const must = values.include
    ? ranked.filter((r) => r.q.toLowerCase().includes(values.include!.toLowerCase())).slice(0, 2)
    : [];
  const chosen = [...ranked.filter((r) => !must.includes(r)).slice(0, Math.max(0, count - must.length)), ...must];
  for (const c of chosen) say(`  ${c.id.slice(0, 12)}… volume ${c.vol / 1e6}  ${c.q}`);
  const markets = await resolveMarkets(urls, { markets: chosen.map((c) => c.id) });

  const tmp = `${out}.tmp-${process.pid}.ndjson.gz`;
  const rec = startRecorder({
    out: tmp,
    markets,
    marketUrl: urls.market,
    rtdsUrl: urls.rtds,
    source: 'paper-exchange seed ' + seed,
  });
  await rec.connected();
  say(`recording ${markets.length} markets for ${minutes} min to ${tmp}`);
  const end = Date.now() + minutes * 60_000;
  while (Date.now() < end) {
    await sleep(Math.min(30_000, end - Date.now()));
    const s = rec.stats();
    say(
      `  ${Math.round((end - Date.now()) / 1000)} s left: ${s.frames.m} market frames, ${s.frames.r} rtds frames, ${s.diskBytes} bytes`,
    );
  }
  const stats = await rec.stop();
  if (stats.files.length !== 1) throw new Error(`expected one file, got ${stats.files.join(', ')}`);

  // what it holds
  const rs = newReplayStats();
  const kinds = new Map<string, number>();
  for await (const it of replayFeeds([tmp], { stats: rs })) {
    if (it.kind !== 'frame' || it.ch !== 'm') continue;
    const v = JSON.parse(it.raw) as unknown;
    for (const e of Array.isArray(v) ? v : [v]) {
      const k = String((e as { event_type?: unknown }).event_type);
      kinds.set(k, (kinds.get(k) ?? 0) + 1);
    }
  }
  const size = statSync(tmp).size;
  say(`lines ${rs.lines}, market messages ${JSON.stringify(Object.fromEntries(kinds))}, ${size} bytes`);
  if (rs.malformed !== 0 || rs.truncatedFiles !== 0)
    throw new Error(`the recording does not replay cleanly: ${JSON.stringify(rs)}`);
  if (size >= MAX_BYTES) {
    rmSync(tmp);
    throw new Error(`sample feed is ${size} bytes: over the 5 MB budget (record fewer minutes or markets)`);
  }
  renameSync(tmp, out);
  say(`wrote ${out} (${(size / 1024 / 1024).toFixed(2)} MB)`);
} finally {
  await ex.close();
}
