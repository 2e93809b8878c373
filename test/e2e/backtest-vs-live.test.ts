import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runBacktest, type BacktestResult } from '../../src/backtest/runner.ts';
import type { SimVenueStats } from '../../src/venues/sim/sim-venue.ts';
import { comparisonRun, PARAMS, RISK, startComparison, worldLine } from './support/bands-world.ts';
import { sleep, exited, waitUntil } from './support/bot-harness.ts';
import {
  fillsOf,
  head,
  MATCH_MS,
  MATCH_PIPS,
  row,
  storedFill,
  summarize,
  violations,
  type StoredFill,
} from './support/fill-compare.ts';
import { exchangeBook, feedBooksAt, removeOwnOrders, sameBook, type PlainBook } from './support/own-orders.ts';

const DURATION_S = 90;
/** The longest session: a loaded machine may need more than DURATION_S for MIN_LIVE_FILLS. */
const MAX_DURATION_S = 300;
/** The wrong configurations of the negative check. */
const WRONG_LATENCY_MS = 5000;
const WIDE_PARAMS = { ...PARAMS, margin: 0.05, marginStep: 0.05 };

const MIN_LIVE_FILLS = 30;

// ---- the test ------------------------------------------------------------------------------------------

const w = comparisonRun();
const { h } = w;
let sampler: ReturnType<typeof setInterval> | undefined;
afterAll(() => clearInterval(sampler));

describe('backtest vs live', () => {
  it('a paper session recorded and then backtested gives fills close to the live ones; a wrong configuration does not', async () => {
    // 1. the paper exchange and three liquid markets; 2. the recorder (market channel); the bot's own
    //    orders as the exchange sees them; and the exchange's books every 7 s (with and without the
    //    bot's orders) to check the rewrite against
    const { x, base, ids, markets, dir, address, raw, own, rec, config } = await startComparison(w, 'live.ndjson.gz');
    const yesTokens = markets.map((m) => m.tokens[0].tokenId as string);
    const samples: Array<{ at: number; all: Map<string, PlainBook>; others: Map<string, PlainBook> }> = [];
    sampler = setInterval(() => {
      const at = x.exchange.clock.now();
      samples.push({
        at,
        all: new Map(yesTokens.map((t) => [t, exchangeBook(x.exchange, t)])),
        others: new Map(yesTokens.map((t) => [t, exchangeBook(x.exchange, t, address)])),
      });
    }, 7000);

    // 3. the bot, as a user runs it: at least DURATION_S, and on until the session has enough fills
    //    to compare (a loaded machine trades less in the same time), at most MAX_DURATION_S; then
    //    stopped as an operator stops it (SIGTERM: an orderly shutdown, exit 0)
    const bot = h.startBot(base, dir, [
      '--config',
      config,
      '--markets',
      ids.join(','),
      '--duration',
      `${MAX_DURATION_S}s`,
    ]);
    const startedAt = Date.now();
    const ours = () =>
      x.exchange.tradesOf(address).filter(({ trade }) => trade.makers.some((mk) => mk.account === address)).length;
    const enough = await waitUntil(
      () => Date.now() - startedAt >= DURATION_S * 1000 && ours() >= MIN_LIVE_FILLS + 10,
      MAX_DURATION_S * 1000 - 15_000,
      1000,
    );
    if (enough) bot.p.kill('SIGTERM');
    const code = await exited(bot.p);
    const sessionS = Math.round((Date.now() - startedAt) / 1000);
    expect(code, bot.err().slice(-3000)).toBe(0);
    clearInterval(sampler);
    await sleep(300);
    const recStats = await rec.stop();
    own.stop();
    expect(recStats.connects.m).toBe(1); // one connection: the recording has no gap

    // live fills, from the bot's store (the same as the exchange's, whose match times are in ms)
    const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
    const rows = db
      .prepare(
        "SELECT trade_id, order_id, market, token, side, price, size, fee, role FROM fills WHERE status != 'FAILED'",
      )
      .all() as Array<StoredFill & { trade_id: string; order_id: string }>;
    const created = db.prepare('SELECT id, created_at FROM orders').all() as Array<{ id: string; created_at: number }>;
    db.close();
    const matchTime = new Map<string, number>();
    const atExchange: string[] = [];
    for (const { trade } of x.exchange.tradesOf(address)) {
      matchTime.set(trade.id, trade.matchTime);
      if (trade.takerAccount === address) atExchange.push(`${trade.id}|${trade.takerOrderId}`);
      for (const mk of trade.makers) if (mk.account === address) atExchange.push(`${trade.id}|${mk.orderId}`);
    }
    expect(rows.map((r) => `${r.trade_id}|${r.order_id}`).sort()).toEqual([...new Set(atExchange)].sort());
    const liveFills = rows.map((r) => storedFill(r, matchTime.get(r.trade_id)!));
    const live = summarize(liveFills, markets);
    expect(live.total.fills, 'the live session is too quiet to compare').toBeGreaterThanOrEqual(MIN_LIVE_FILLS);

    // 4. the live loop's order-entry latency, measured; the feed without the bot's own orders
    const lat = created
      .flatMap((o) => (own!.placedAt.has(o.id) ? [own!.placedAt.get(o.id)! - o.created_at] : []))
      .sort((a, b) => a - b);
    expect(lat.length).toBeGreaterThan(0);
    const latencyMs = Math.max(1, Math.round(lat[lat.length >> 1]!));
    const window = { fromMs: own.firstAt - latencyMs, toMs: own.lastAt - latencyMs };
    const clean = join(dir, 'clean.ndjson.gz');
    const rw = await removeOwnOrders([raw], clean, own, window);
    expect(rw.adjusted).toBeGreaterThan(0);
    expect(rw.startSnapshots).toBe(6);
    // the rewrite against ground truth: the exchange's books sampled inside the window
    const inWindow = samples.filter((s) => s.at > window.fromMs + 100 && s.at < window.toMs);
    expect(inWindow.length).toBeGreaterThanOrEqual(5);
    const times = inWindow.map((s) => s.at);
    const [rawBooks, cleanBooks] = await Promise.all([
      feedBooksAt([raw], yesTokens, times),
      feedBooksAt([clean], yesTokens, times),
    ]);
    let rawEqual = 0;
    let cleanEqual = 0;
    let withOwn = 0;
    inWindow.forEach((s, i) => {
      for (const t of yesTokens) {
        const r = rawBooks[i]!;
        const c = cleanBooks[i]!;
        if (sameBook(r.before.get(t), s.all.get(t)) || sameBook(r.after.get(t), s.all.get(t))) rawEqual++;
        if (sameBook(c.before.get(t), s.others.get(t)) || sameBook(c.after.get(t), s.others.get(t))) cleanEqual++;
        if (!sameBook(s.all.get(t), s.others.get(t))) withOwn++;
      }
    });
    const checked = inWindow.length * yesTokens.length;
    // a sample can fall inside a millisecond the feed splits differently: allow one in ten
    expect(rawEqual, 'raw feed books vs the exchange').toBeGreaterThanOrEqual(Math.ceil(checked * 0.9));
    expect(cleanEqual, 'rewritten feed books vs the exchange without the bot').toBeGreaterThanOrEqual(
      Math.ceil(checked * 0.9),
    );
    expect(withOwn, 'the samples show the bot in the book').toBeGreaterThan(0);

    // 5. backtests: the same strategy, params, markets and risk limits; both queue models
    const bt = async (
      feed: string,
      queue: 'risk-averse' | 'probabilistic',
      o: { latencyMs?: number; params?: Record<string, unknown> } = {},
    ): Promise<BacktestResult> => {
      const r = await runBacktest({
        feeds: [feed],
        strategy: 'bands',
        params: o.params ?? PARAMS,
        risk: RISK,
        markets: ids,
        queue,
        latencyMs: o.latencyMs ?? latencyMs,
        seed: 1,
      });
      expect(r.stopReason).toBe('end of feed');
      expect(r.openOrdersAtEnd).toBe(0);
      return r;
    };
    const results: Array<{ name: string; r: BacktestResult; expectClose: boolean | null }> = [];
    for (const q of ['risk-averse', 'probabilistic'] as const)
      results.push({ name: `backtest ${q}`, r: await bt(clean, q), expectClose: true });
    for (const q of ['risk-averse', 'probabilistic'] as const)
      results.push({ name: `raw feed (own orders in) ${q}`, r: await bt(raw, q), expectClose: null });
    results.push({
      name: `WRONG: latency ${WRONG_LATENCY_MS} ms`,
      r: await bt(clean, 'risk-averse', { latencyMs: WRONG_LATENCY_MS }),
      expectClose: false,
    });
    results.push({
      name: `WRONG: margins 5x (${WIDE_PARAMS.margin})`,
      r: await bt(clean, 'risk-averse', { params: WIDE_PARAMS }),
      expectClose: false,
    });

    // 6. the comparison, printed, then asserted
    const feedLat = (results[0]!.r.venue as SimVenueStats).feedLatencyMs;
    const lines: string[] = [];
    lines.push(
      `backtest vs live: ${worldLine(sessionS)}, bands ${JSON.stringify(PARAMS)}, risk ${JSON.stringify(RISK)}`,
    );
    lines.push(
      `entry latency measured: median ${latencyMs} ms over ${lat.length} orders (p10 ${lat[Math.floor(lat.length * 0.1)]}, p90 ${lat[Math.floor(lat.length * 0.9)]} ms); recorded feed latency mean ${feedLat.mean.toFixed(1)} ms`,
    );
    lines.push(
      `window ${((window.toMs - window.fromMs) / 1000).toFixed(1)} s; rewrite: ${rw.messagesOut} messages, ${rw.adjusted} levels net of the bot's orders, ${rw.clamped} clamped; books vs exchange: raw ${rawEqual}/${checked}, rewritten ${cleanEqual}/${checked} (${withOwn} with the bot in them)`,
    );
    lines.push(
      `live taker fills: ${live.total.takers}; matched = share of live fills with a backtest fill of the same token and side within ${MATCH_PIPS / 100} cent and ${MATCH_MS / 1000} s`,
    );
    lines.push(head());
    lines.push(row('LIVE (mmkit run)', live.total));
    const sums = results.map((r) => ({ ...r, s: summarize(fillsOf(r.r), markets, liveFills) }));
    for (const r of sums) lines.push(row(r.name, r.s.total));
    for (const m of ids) {
      lines.push(`market ${m.slice(0, 10)}: ${markets.find((i) => i.market === m)!.question.slice(0, 70)}`);
      lines.push(row('  LIVE', live.markets.get(m)!));
      for (const r of sums) lines.push(row(`  ${r.name}`, r.s.markets.get(m)!));
    }
    const verdicts = sums.map((r) => ({ name: r.name, expectClose: r.expectClose, v: violations(live, r.s) }));
    for (const v of verdicts) lines.push(`${v.name}: ${v.v.length === 0 ? 'close' : `NOT close: ${v.v.join('; ')}`}`);
    console.log(lines.join('\n'));

    for (const v of verdicts) {
      if (v.expectClose === true) expect(v.v, v.name).toEqual([]);
      if (v.expectClose === false) expect(v.v.length, `${v.name} should not be close to live`).toBeGreaterThan(0);
    }
  }, 900_000); // (a 90-300 s session, then six backtests: several minutes on a loaded machine)
});
