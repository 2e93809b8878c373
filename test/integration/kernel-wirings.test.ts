/**
 * One kernel, two wirings, the same decisions. A scripted sequence runs through the LIVE wiring
 * (createTrader with the live venue, against the real paper exchange on loopback, as `mmkit run`
 * builds it) while the recorder records the market channel; the recording then runs through the
 * BACKTEST wiring (runBacktest: the simulated venue in virtual time). The sequence: a quiet book
 * (no flow agents), a tick-size change to 0.001, then the market's resolution. The strategy states
 * the same three bids on every event: one on the 0.01 tick below the best bid, one between two 0.01
 * ticks (off-tick until the change, valid after it), one at the best ask (crosses the book). The
 * risk gate must make the same decisions, in the same order, in both wirings, and both must stop
 * quoting the resolved market.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRecorder, venueUrls } from '../../src/backtest/recorder.ts';
import { runBacktest } from '../../src/backtest/runner.ts';
import { LiveClock } from '../../src/core/clock.ts';
import type { ConditionId } from '../../src/core/ids.ts';
import type { DesiredQuotes } from '../../src/core/intents.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { createTrader } from '../../src/kernel/create-trader.ts';
import type { GateResult } from '../../src/risk/gate.ts';
import { resolveRiskLimits } from '../../src/risk/limits.ts';
import { openStore } from '../../src/store/store.ts';
import { loadStrategy } from '../../src/strategy/loader.ts';
import { resolveParams } from '../../src/strategy/params.ts';
import { createLiveVenue } from '../../src/venues/live/create-live-venue.ts';
import { Trader } from './support/trader.ts';

const TOKEN = 'kernel-wirings-admin';
const STRATEGY = new URL('../support/fixed-quotes-strategy.ts', import.meta.url).pathname;

let ex: RunningExchange;
let base: string;
let dir: string;
beforeAll(async () => {
  ex = await startExchange({
    port: 0,
    seed: 5,
    world: { agents: 'none', lifecycle: false, priceFeed: false },
    http: { adminToken: TOKEN },
  });
  base = ex.urls.clob_url.replace(/\/clob$/, '');
  dir = mkdtempSync(join(tmpdir(), 'mmkit-kernel-wirings-'));
}, 60_000);
afterAll(async () => {
  await ex?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function admin(path: string, body: unknown): Promise<void> {
  const r = await fetch(`${base}/admin${path}`, {
    method: 'POST',
    headers: { 'x-admin-token': TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`admin ${path}: HTTP ${r.status} ${await r.text()}`);
}

async function until(cond: () => boolean, ms: number, what: string | (() => string)): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** One gate decision: each bid's price and what the gate did with it. */
type Decision = string;
function decisionOf(d: DesiredQuotes, r: GateResult): Decision {
  return d.quotes
    .map((q) => {
      const refusal = r.refusals.find((x) => x.quote === q);
      const trim = r.trims.find((x) => x.quote === q);
      return `${q.price}:${refusal ? refusal.code : trim ? `trim-${trim.code}` : 'ok'}`;
    })
    .join(' ');
}
/** The decisions with consecutive repeats collapsed (the two wirings see different event counts). */
const distinct = (xs: readonly Decision[]): Decision[] => xs.filter((x, i) => i === 0 || xs[i - 1] !== x);

describe('the kernel: the live and the backtest wiring decide alike', () => {
  it('the same scripted sequence (a tick change to 0.001, a resolution) gets the same gate decisions', async () => {
    const urls = venueUrls(base);
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const clock = new LiveClock();
    const venue = await createLiveVenue({ urls: { ...urls, data: '', content: '' }, wallet, clock });
    const all = await venue.markets();
    // no flow agents: the book is a maker's bid at 0.45 and ask at 0.55 (a bid for NO at 0.45)
    const market = all.find((x) => x.active && !x.negRisk && x.tick === '0.01');
    expect(market, 'a binary market on the 0.01 tick').toBeDefined();
    const maker = new Trader(ex.urls.clob_url);
    expect((await maker.createKey()).status).toBe(200);
    for (const t of market!.tokens) expect((await maker.place(t.tokenId, 'BUY', '0.45', '100')).status).toBe(200);
    const bid = 4500;
    const ask = 5500;
    const m = market!;
    // below the best bid on the 0.01 tick; between two 0.01 ticks; at the best ask
    const params = { p1: (bid - 100) / 10_000, p2: (bid + 110) / 10_000, p3: ask / 10_000, size: 5 };
    const want = {
      before: `${bid - 100}:ok ${bid + 110}:OFF_TICK ${ask}:WOULD_CROSS`,
      after: `${bid - 100}:ok ${bid + 110}:ok ${ask}:WOULD_CROSS`,
    };

    // ---- the live wiring, the recorder beside it ---------------------------------------------------
    const feed = join(dir, 'live.ndjson.gz');
    const rec = startRecorder({ out: feed, markets: [m], marketUrl: urls.market, source: base });
    await rec.connected();
    const def = await loadStrategy(STRATEGY);
    const live: Decision[] = [];
    const store = openStore(join(dir, 'live.db'), { clock });
    const trader = createTrader({
      venue,
      clock,
      store,
      strategy: def,
      params: resolveParams(def.params, params),
      markets: [m],
      limits: resolveRiskLimits({}),
      log: { debug() {}, info() {}, warn() {} },
      tickMs: 200,
      hooks: { onGate: (d, r) => void live.push(decisionOf(d, r)) },
    });
    const rejections: string[] = [];
    trader.executor.onRejection((r) => rejections.push(`${r.code}: ${r.message}`));
    try {
      await trader.start();
      trader.startHeartbeat();
      await until(
        () => live.includes(want.before),
        20_000,
        () => `a decision on the 0.01 tick (saw ${distinct(live).join(' | ')})`,
      );
      await admin(`/markets/${m.market}/tick-size`, { tick_size: '0.001' });
      await until(() => live.includes(want.after), 20_000, 'a decision on the 0.001 tick');
      // the off-tick bid now rests at the venue
      await until(
        () => ex.exchange.openOrders(wallet.address.toLowerCase()).some((o) => Number(o.price) === bid + 110),
        20_000,
        () =>
          `the bid between the old ticks at the venue (open: ${JSON.stringify(ex.exchange.openOrders(wallet.address.toLowerCase()).map((o) => o.price))}, rejections: ${JSON.stringify(rejections)})`,
      );
      await admin(`/markets/${m.market}/resolve`, { winning_token: m.tokens[0].tokenId });
      await until(() => trader.engine.pulled().has(m.market as ConditionId), 20_000, 'the resolved market pulled');
      await new Promise((r) => setTimeout(r, 500)); // the recorder takes the last frames
    } finally {
      await trader.stop();
      await trader.cancelAll('test end');
      await trader.verifyFlat(5000);
      await trader.close();
      store.close();
      await venue.close();
      await rec.stop();
    }

    // ---- the backtest wiring, on the recording ---------------------------------------------------------
    const bt: Decision[] = [];
    const result = await runBacktest({
      feeds: [feed],
      strategy: STRATEGY,
      params,
      markets: [m.market],
      tickMs: 200,
      hooks: { onGate: (d, r) => void bt.push(decisionOf(d, r)) },
    });

    const liveSeq = distinct(live);
    const btSeq = distinct(bt);
    // the resolution empties the book before its event arrives: the last quotes may be refused
    // for want of a mid (NO_MID) before the market is pulled; in both wirings alike
    expect(liveSeq.slice(0, 2)).toEqual([want.before, want.after]);
    expect(
      liveSeq.slice(2).every((x) => /^(\d+:NO_MID ?)+$/.test(x)),
      liveSeq.join(' | '),
    ).toBe(true);
    expect(btSeq).toEqual(liveSeq);
    // both stopped quoting at the resolution: the backtest saw it, and settled the market
    expect(result.markets[0]!.resolvedTo).toBe(m.tokens[0].tokenId);
    expect(result.engine.pulls).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
