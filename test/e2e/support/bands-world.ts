/**
 * The setup the fill-comparison e2e tests share (backtest-vs-live, cli-run-shadow): the paper
 * world they trade (seed, rate, price feed, no market lifecycle), three liquid markets of it, and
 * the bands strategy's params and risk limits they run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import { type Recorder, resolveMarkets, startRecorder, venueUrls } from '../../../src/backtest/recorder.ts';
import { startExchange, type RunningExchange } from '../../../src/exchange/server.ts';
import { BotHarness, liquidMarkets, sleep, waitUntil } from './bot-harness.ts';
import { OwnOrderTimeline } from './own-orders.ts';

export const SEED = 12;
export const WORLD_RATE = 20;
/**
 * bands: three bands at 1, 2, 3 cents from the mid, 10 / 15 / 20 shares a side, YES only (the
 * summaries compare average buy and sell prices per market, which with tokens 'both', the default,
 * would mix YES and NO prices).
 */
export const PARAMS = {
  tokens: 'yes',
  margin: 0.01,
  marginStep: 0.01,
  marginTolerance: 0.005,
  amount: 10,
  amountStep: 5,
  maxPosition: 100,
};
export const RISK = {
  maxPositionShares: 150,
  maxNotionalPerMarket: 250,
  maxOpenOrdersPerMarket: 20,
  maxLoss: 100,
  maxRejections: 20,
};

/** The world as the comparison's printout names it: seed, rate and the session's length. */
export function worldLine(durationS: number): string {
  return `seed ${SEED}, world rate ${WORLD_RATE}x, ${durationS} s`;
}

/** The paper exchange of the world (agents, a price feed, no market lifecycle), on a free port. */
export function startBandsWorld(): Promise<RunningExchange> {
  return startExchange({
    port: 0,
    seed: SEED,
    world: { agents: 'default', lifecycle: false, priceFeed: true, rate: WORLD_RATE },
  });
}

/**
 * Three liquid markets of the world, once the agents have built the books (slower under load: it
 * waits until three qualify). Not a market ending within 30 hours: the world's daily crypto windows
 * ("Bitcoin Up or Down on <today>") turn decisive as their end nears, so how much they move (and how
 * often quotes are picked off) would depend on the time of day the test runs (in the evening, UTC,
 * one of them gave 23 live fills against 6 backtested).
 */
export async function threeLiquidMarkets(x: RunningExchange) {
  const base = x.urls.clob_url.replace(/\/clob$/, '');
  await sleep(1500); // the agents build the books
  let ids: string[] = [];
  await waitUntil(() => (ids = liquidMarkets(x, 3, { tick: '0.01', minHoursToEnd: 30 })).length === 3, 60_000);
  expect(ids).toHaveLength(3);
  const urls = venueUrls(base);
  const markets = await resolveMarkets(urls, { markets: ids });
  return { base, ids, urls, markets };
}

/** The bot's configuration file in `dir`: bands with PARAMS and RISK. Returns its path. */
export function writeBandsConfig(dir: string): string {
  const config = join(dir, 'bot.json');
  writeFileSync(config, JSON.stringify({ bot: { strategy: 'bands', params: PARAMS, risk: RISK } }));
  return config;
}

/** What a comparison test runs, closed after its tests: own orders watch, recorder, bots, exchange. */
export interface ComparisonRun {
  readonly h: BotHarness;
  ex?: RunningExchange;
  rec?: Recorder;
  own?: OwnOrderTimeline;
}

/** A bot harness, and the exchange, recorder and own-orders watch the test sets, all closed after its tests. */
export function comparisonRun(): ComparisonRun {
  const w: ComparisonRun = { h: new BotHarness() };
  afterAll(async () => {
    w.own?.stop();
    await w.rec?.stop().catch(() => undefined);
    await w.h.close();
    await w.ex?.close();
  });
  return w;
}

/**
 * The start of a comparison: the world and three liquid markets of it (`w.ex`), a data dir, the
 * bot's own orders as the exchange sees them (`w.own`), the market channel recorded to
 * `<dir>/<feed>` (`w.rec`, connected) and the bot's configuration file (writeBandsConfig).
 */
export async function startComparison(w: ComparisonRun, feed: string) {
  const x = (w.ex = await startBandsWorld());
  const { base, ids, urls, markets } = await threeLiquidMarkets(x);
  const { dir, address } = w.h.dataDir();
  const raw = join(dir, feed);
  const own = (w.own = new OwnOrderTimeline(x.exchange, address, ids));
  const rec = (w.rec = startRecorder({ out: raw, markets, marketUrl: urls.market, source: base }));
  await rec.connected();
  return { x, base, ids, markets, dir, address, raw, own, rec, config: writeBandsConfig(dir) };
}
