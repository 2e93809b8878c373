/**
 * The backtest runner end to end, with the real engine, risk gate, executor, store and the shipped
 * bands strategy (nothing of ours mocked):
 *  - synthetic mode (the paper exchange world in virtual time): fills happen, the store holds each
 *    exactly once, no order is left open, and two runs give byte-identical JSON;
 *  - feed mode (a generated recorded feed through the simulated venue): the same, plus the
 *    coalescing of identical intents changing nothing but its own counters, and markouts measured.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { computeMetrics } from '../../src/backtest/metrics.ts';
import { runBacktest, type BacktestResult } from '../../src/backtest/runner.ts';
import { openStore } from '../../src/store/store.ts';
import { backtestJson } from '../../src/cli/backtest.ts';
import { writeFeed } from '../support/feed-gen.ts';

let dir: string;
let feed: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-bt-test-'));
  feed = join(dir, 'feed.ndjson.gz');
  await writeFeed(feed, { seed: 5, markets: 2, messages: 12_000, meanGapMs: 60, tradeShare: 0.04 });
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const json = (r: BacktestResult): string => JSON.stringify(backtestJson(r, computeMetrics(r)));

function checkStore(file: string, r: BacktestResult): void {
  const store = openStore(file);
  try {
    const stored = store.fills();
    expect(stored.length).toBe(r.fills.length);
    const keys = new Set(stored.map((f) => `${f.tradeId}|${f.orderId}`));
    expect(keys.size).toBe(stored.length); // each (trade, order) once
    for (const f of r.fills) expect(keys.has(`${f.tradeId}|${f.orderId}`)).toBe(true);
    const s = store.summary();
    expect(s.fills).toBe(r.fills.length);
    expect(s.ordersOpen).toBe(0);
    // positions derived by the store agree with the run's PnL bookkeeping
    expect(s.fees).toBe(r.pnl.fees);
  } finally {
    store.close();
  }
}

describe('backtest: synthetic world', () => {
  const opts = {
    world: { seed: 3, durationMs: 4 * 60_000, warmupMs: 30_000, marketCount: 2 },
    strategy: 'bands',
    params: { margin: 0.01, marginStep: 0.01, amount: 10 },
    seed: 7,
  } as const;
  let a: BacktestResult;
  let file: string;

  it('trades: fills happen, each stored exactly once, nothing left open', async () => {
    file = join(dir, 'world.db');
    a = await runBacktest({ ...opts, storePath: file });
    expect(a.mode).toBe('world');
    // our orders pay the taker fee of the protocol the world's exchange speaks (V2), as a bot signing
    // for that paper exchange would
    expect(a.feeProtocol).toBe(2);
    expect(a.stopReason).toBe('end of duration');
    expect(a.endMs - a.startMs).toBe(4 * 60_000);
    expect(a.markets).toHaveLength(2);
    expect(a.orders.ordersAccepted).toBeGreaterThan(0);
    expect(a.fills.length).toBeGreaterThan(0);
    expect(a.openOrdersAtEnd).toBe(0);
    expect(a.engine.errors).toEqual({
      state: 0,
      strategy: 0,
      gate: 0,
      execute: 0,
      onFill: 0,
      source: 0,
      balance: 0,
      listing: 0,
    });
    checkStore(file, a);
    // samples every second of virtual time, first and last at the run's ends
    expect(a.samples.t[0]).toBe(a.startMs);
    expect(a.samples.t[a.samples.t.length - 1]).toBe(a.endMs);
    expect(a.samples.t.length).toBe(4 * 60 + 1);
    // the PnL series ends at the final PnL
    expect(a.samples.pnl.total[a.samples.pnl.total.length - 1]).toBe(a.pnl.total);
  }, 120_000);

  it('is deterministic: the same inputs and seed give byte-identical JSON', async () => {
    const b = await runBacktest(opts);
    expect(json(b)).toBe(json(a));
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    const c = await runBacktest({ ...opts, seed: 8 });
    expect(c.fills.map((f) => f.orderId)).not.toEqual(a.fills.map((f) => f.orderId)); // the seed matters (order ids at least)
  }, 120_000);
});

describe('backtest: recorded feed', () => {
  const opts = () => ({ feeds: [feed], strategy: 'bands', seed: 1, risk: { maxRejections: 1000 } }) as const;
  let a: BacktestResult;

  it('replays the feed through the simulated venue: fills, stored exactly once, markouts measured', async () => {
    const file = join(dir, 'feed.db');
    a = await runBacktest({ ...opts(), storePath: file });
    expect(a.mode).toBe('feed');
    expect(a.stopReason).toBe('end of feed');
    expect(a.counts.feedItems).toBe(12_001); // header + messages
    expect(a.counts.frames).toBe(12_000);
    expect(a.counts.malformed).toBe(0);
    expect(a.fills.length).toBeGreaterThan(0);
    expect(a.openOrdersAtEnd).toBe(0);
    checkStore(file, a);
    // markouts: a fill more than 60 s before the end has all three later mids
    const early = a.fills.filter((f) => f.t + 60_000 < a.endMs);
    expect(early.length).toBeGreaterThan(0);
    for (const f of early) expect(f.markouts.every((x) => x !== null)).toBe(true);
    for (const f of a.fills.filter((x) => x.t + 1000 > a.endMs)) expect(f.markouts[0]).toBeNull();
    const m = computeMetrics(a);
    expect(m.markouts[0]!.fills).toBeGreaterThan(0);
    expect(m.fills).toBe(a.fills.length);
  }, 120_000);

  it('is deterministic, and coalescing identical intents changes nothing but its counters', async () => {
    const b = await runBacktest(opts());
    expect(json(b)).toBe(json(a));
    const c = await runBacktest({ ...opts(), coalesceIntents: false });
    expect(c.counts.intentsCoalesced).toBe(0);
    expect(c.counts.intents).toBe(a.counts.intents);
    expect(c.fills).toEqual(a.fills);
    expect(c.pnl).toEqual(a.pnl);
    expect(c.orders).toEqual(a.orders);
    expect(c.samples).toEqual(a.samples);
  }, 120_000);

  it('a run stopped early (here: aborted at its first progress report) gives the same result from the text, while writing the cache, and from the cache', async () => {
    const stopped = async (feedCache?: string) => {
      const ac = new AbortController();
      return runBacktest({
        ...opts(),
        signal: ac.signal,
        progressEveryMs: 120_000,
        onProgress: () => ac.abort(),
        ...(feedCache ? { feedCache } : {}),
      });
    };
    const cache = join(dir, 'feed-cache-stopped');
    const text = await stopped();
    expect(text.stopReason).toBe('aborted');
    expect(text.counts.frames).toBeLessThan(a.counts.frames);
    const first = await stopped(cache);
    // stopped before the end of the feed: no cache is kept
    expect(existsSync(cache) ? readdirSync(cache).filter((n) => n.endsWith('.mmfc')) : []).toHaveLength(0);
    expect(json(first)).toBe(json(text));
    await runBacktest({ ...opts(), feedCache: cache }); // to the end: writes it
    expect(readdirSync(cache).filter((n) => n.endsWith('.mmfc'))).toHaveLength(1);
    expect(json(await stopped(cache))).toBe(json(text));
  }, 120_000);

  it('memoising the risk gate changes nothing', async () => {
    const b = await runBacktest({ ...opts(), memoiseGate: false });
    expect(json(b)).toBe(json(a));
  }, 120_000);

  it('a memoised answer that repeats the last set is coalesced without a new approval: the same as with a hook on every set (which stamps each anew)', async () => {
    let sets = 0;
    const b = await runBacktest({ ...opts(), hooks: { onQuoteSet: () => void sets++ } });
    expect(sets).toBe(a.counts.intents);
    expect(json(b)).toBe(json(a));
  }, 120_000);

  it('the store as a scratch file (the default) or a WAL file: the same result and the same rows', async () => {
    const file = join(dir, 'feed-wal.db');
    const b = await runBacktest({ ...opts(), scratchStore: false, storePath: file });
    expect(json(b)).toBe(json(a));
    const rows = (f: string) => {
      const db = new Database(f, { readonly: true });
      try {
        return ['orders', 'fills', 'audit'].map((t) => db.prepare(`SELECT rowid, * FROM ${t} ORDER BY rowid`).all());
      } finally {
        db.close();
      }
    };
    expect(rows(file)).toEqual(rows(join(dir, 'feed.db')));
  }, 120_000);

  it('the replay batch size (where the runner awaits the file system) does not change the result', async () => {
    const b = await runBacktest({ ...opts(), batchSize: 7 });
    expect(json(b)).toBe(json(a));
  }, 120_000);

  it('a decoded-event feed cache (built on the first run, read on the next) does not change the result', async () => {
    const cache = join(dir, 'feed-cache');
    const b = await runBacktest({ ...opts(), feedCache: cache });
    expect(readdirSync(cache).filter((n) => n.endsWith('.mmfc'))).toHaveLength(1);
    expect(json(b)).toBe(json(a));
    const c = await runBacktest({ ...opts(), feedCache: cache, batchSize: 5 });
    expect(json(c)).toBe(json(a));
  }, 120_000);

  it('a latency changes what happens, deterministically', async () => {
    const x = await runBacktest({ ...opts(), latencyMs: 25 });
    const y = await runBacktest({ ...opts(), latencyMs: 25 });
    expect(json(x)).toBe(json(y));
    expect(x.latencyMs).toBe(25);
    expect(JSON.stringify(x.fills)).not.toBe(JSON.stringify(a.fills));
  }, 120_000);

  it('refuses a file that is not a feed, and a market that is not in it', async () => {
    await expect(runBacktest({ feeds: [join(dir, 'nope.ndjson.gz')], strategy: 'bands' })).rejects.toThrow(
      /cannot read/,
    );
    await expect(runBacktest({ feeds: [feed], strategy: 'bands', markets: ['0xdead'] })).rejects.toThrow(
      /not in the feed: 0xdead/,
    );
  });

  it('trades --markets in the order given, as mmkit run does: a strategy iterating ctx.markets sees that order (trial 12 F4)', async () => {
    const sample = new URL('../fixtures/sample-feed.ndjson.gz', import.meta.url).pathname;
    // the header's first three markets, given last to first
    const header = JSON.parse(gunzipSync(readFileSync(sample)).toString('utf8').split('\n', 1)[0]!) as {
      t: number;
      markets: Array<{ market: string }>;
    };
    const want = header.markets
      .slice(0, 3)
      .map((m) => m.market)
      .reverse();
    const r = await runBacktest({ feeds: [sample], strategy: 'bands', markets: want, toMs: header.t + 1000 });
    expect(r.markets.map((m) => m.market)).toEqual(want);
  });

  it.skipIf(!existsSync(new URL('../fixtures/sample-feed.ndjson.gz', import.meta.url).pathname))(
    'backtests the shipped sample feed (README quickstart)',
    async () => {
      const r = await runBacktest({
        feeds: [new URL('../fixtures/sample-feed.ndjson.gz', import.meta.url).pathname],
        strategy: 'bands',
      });
      expect(r.counts.frames).toBeGreaterThan(0);
      expect(r.counts.marketEvents).toBeGreaterThan(0);
      expect(r.openOrdersAtEnd).toBe(0);
    },
    120_000,
  );
});
