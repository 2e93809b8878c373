import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningExchange } from '../../src/exchange/server.ts';
import {
  Admin,
  BotHarness,
  liquidMarkets,
  logLines,
  sleep,
  waitForQuotes,
  waitUntil,
  type BotProcess,
  type LogLine,
  exited,
  watchFlat,
} from './support/bot-harness.ts';

const TOKEN = 'e2e-streams-admin';
const h = new BotHarness();
let ex: RunningExchange;
let admin: Admin;
let address: string;
let bot: BotProcess;
let markets: string[];

beforeAll(async () => {
  const x = await h.exchange(6, { adminToken: TOKEN });
  ex = x.ex;
  admin = new Admin(x.base, TOKEN);
  await sleep(1000); // let the flow agents build the books
  // (slower under load: wait until three markets qualify)
  await waitUntil(() => (markets = liquidMarkets(ex, 3)).length === 3, 60_000);
  expect(markets.length).toBe(3);
  const d = h.dataDir();
  address = d.address;
  // market-channel liveness at 5 s (venue.marketSilenceMs): a frozen stream is detected 5 s after
  // its last data instead of the default 30 s
  // (a long --duration: the last test stops it; on a loaded machine the steps take minutes)
  bot = h.startBot(x.base, d.dir, ['--duration', '900s', '--markets', markets.join(',')], {
    MMKIT_MARKET_SILENCE_MS: '5000',
  });
  expect(await waitForQuotes(ex, address), bot.err().slice(-3000)).toBeGreaterThan(0);
}, 120_000);
afterAll(() => h.close());

/** Log lines from index `from` on. */
const linesFrom = (from: number): LogLine[] => logLines(bot.err()).slice(from);
const marketDown = (l: LogLine) => l.msg === 'stream disconnected' && l['stream'] === 'market';

interface Outage {
  detectedAt: number;
  reason: string;
  flatAt: number;
  resumedAt: number;
}

/**
 * Injects `rule`, waits for the daemon to detect the loss (its log), watches the venue go flat,
 * lifts the fault, and waits for the daemon to quote every market again.
 */
async function outage(rule: Record<string, unknown>, detectWithinMs: number): Promise<Outage> {
  // the bot quotes every market before the fault (so "flat" means the pull, not an idle bot)
  expect(
    await waitUntil(
      () => new Set(ex.exchange.openOrders(address).map((o) => o.market)).size === markets.length,
      60_000,
    ),
    bot.err().slice(-3000),
  ).toBe(true);
  const from = logLines(bot.err()).length;
  const before = new Set(ex.exchange.openOrders(address).map((o) => o.id));
  // watch the venue from the fault's start: the first moment the bot has nothing resting (seen
  // by the exchange as it happens, not by a look of this test, which load can delay)
  const flat = watchFlat(ex, address);
  const faultAt = Date.now();
  const id = await admin.addFault(rule);
  const detected = await waitUntil(() => linesFrom(from).some(marketDown), detectWithinMs, 50);
  expect(detected, `no market-stream loss detected\n${bot.err().slice(-3000)}`).toBe(true);
  const down = linesFrom(from).find(marketDown)!;
  await waitUntil(() => flat.flatSince(faultAt) > 0, 30_000);
  const flatAt = flat.flatSince(faultAt);
  flat.stop();
  expect(flatAt, `the bot's orders never left the venue\n${bot.err().slice(-3000)}`).toBeGreaterThan(0);
  // the pull took effect at the venue: every order resting before the fault is gone (none filled
  // or kept by accident), and the engine said why
  for (const oid of before) expect(['CANCELED', 'MATCHED']).toContain(ex.exchange.engine.getOrder(oid)!.status);
  // (its log line, written before the cancels were sent, can still be in the pipe: waited for)
  const saidWhy = () => linesFrom(from).some((l) => l.msg === 'pulling quotes' && /stale/.test(String(l['why'])));
  expect(await waitUntil(saidWhy, 30_000), bot.err().slice(-3000)).toBe(true);

  // the fault is lifted: the stream reconnects, resyncs, and quoting resumes on every market
  await admin.removeFault(id);
  const resumes = () =>
    new Set(
      linesFrom(from)
        .filter((l) => l.msg === 'data whole again: quoting resumes')
        .map((l) => String(l['market'])),
    );
  expect(await waitUntil(() => resumes().size === markets.length, 60_000), bot.err().slice(-3000)).toBe(true);
  const resumedAt = Math.max(
    ...linesFrom(from)
      .filter((l) => l.msg === 'data whole again: quoting resumes')
      .map((l) => l.time),
  );
  expect(
    await waitUntil(
      () => new Set(ex.exchange.openOrders(address).map((o) => o.market)).size === markets.length,
      60_000,
    ),
    bot.err().slice(-3000),
  ).toBe(true);
  // nothing was placed while the data was stale: every order the bot placed since the fault
  // reached the venue before the pull or after the resume
  const stale = ex.exchange.engine
    .ordersOf(address)
    .filter((o) => !before.has(o.id) && o.createdAt > flatAt && o.createdAt < resumedAt - 50)
    .map((o) => `${o.id.slice(0, 12)} at ${o.createdAt}`);
  expect(stale).toEqual([]);
  // the quotes now resting are new ones, placed after the resync
  for (const o of ex.exchange.openOrders(address)) expect(before.has(o.id)).toBe(false);
  return { detectedAt: down.time, reason: String(down['reason']), flatAt, resumedAt };
}

describe('mmkit run: market stream faults', () => {
  it('a dropped market stream: quotes pulled within 2 s of detection, resumed after the resync', async () => {
    const o = await outage({ stream: 'market', drop: true }, 30_000);
    // detection: the daemon's "stream disconnected" line (the venue closed the socket)
    expect(o.flatAt - o.detectedAt).toBeLessThanOrEqual(2000);
  }, 240_000);

  it('a frozen market stream: detected by silence, quotes pulled within 2 s of detection, resumed after the resync', async () => {
    const o = await outage({ stream: 'market', freeze: true }, 45_000);
    // detection: the daemon's "stream disconnected" line, for silence (5 s without data here)
    expect(o.reason).toMatch(/silence/);
    expect(o.flatAt - o.detectedAt).toBeLessThanOrEqual(2000);
  }, 240_000);

  it('stops cleanly afterwards with zero open orders', async () => {
    bot.p.kill('SIGTERM');
    const code = await exited(bot.p);
    expect(code, bot.err().slice(-3000)).toBe(0);
    expect(bot.out()).toContain('open orders left  0');
    expect(ex.exchange.openOrders(address)).toEqual([]);
  }, 90_000);
});
