/**
 * The bot earns liquidity rewards and books them, end to end: `mmkit run` (a child process) with the
 * shipped `rewards` strategy quotes both sides inside a rewarded market's band on a paper exchange (the real one, on
 * loopback, its flow agents competing) that samples every 10 s and pays a 2-minute epoch. It proves:
 *  - the collateral the exchange credits the bot's address (its payout history, and the REWARD rows
 *    of its activity feed) equals the bot's ledger (`paid`, the store's credits of cause 'reward'),
 *    to the micro-unit;
 *  - the store kept an estimate per UTC date meanwhile, and no reward ever became a position
 *    adjustment;
 *  - the status page's data (/api/status) shows the rewards paid apart from trading and fees, and
 *    per market; /metrics has mmkit_rewards_usdc{market,state};
 *  - the summary at exit shows them (text and the JSON summary line), and so does `mmkit positions`
 *    (the venue's REWARD activity; the store's ledger).
 */
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DataClient } from '../../src/api/data.ts';
import { createTransport } from '../../src/api/http/transport.ts';
import type { ConditionId } from '../../src/core/ids.ts';
import { formatAmount, type Micro, type Pips } from '../../src/core/units.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { openStore } from '../../src/store/store.ts';
import { BotHarness, exited, sleep, waitForQuotes, waitUntil } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';

const EPOCH = 120_000;

const h = new BotHarness();
let ex: RunningExchange | undefined;
afterAll(async () => {
  await h.close();
  await ex?.close();
});

/** A market with a two-sided book whose mid is away from the edges. */
function pickMarket(x: RunningExchange): ConditionId {
  for (const m of x.exchange.listMarkets()) {
    const yes = m.meta.tokens[0]!;
    const b = x.exchange.engine.book(yes);
    const bid = b.bids[0]?.price;
    const ask = b.asks[0]?.price;
    if (bid === undefined || ask === undefined) continue;
    if (bid >= 2500 && ask <= 7500 && ask - bid <= 400 && !m.meta.negRisk) return m.meta.conditionId as ConditionId;
  }
  throw new Error('no two-sided market');
}

describe('mmkit run earns liquidity rewards and books them', () => {
  it('paid = what the exchange credited, to the micro; status and summary show it', async () => {
    ex = await startExchange({
      port: 0,
      seed: 19,
      exchange: { rewards: { epochMs: EPOCH, sampleMs: 10_000, minPayout: 10_000 } },
      world: { agents: 'default', lifecycle: false, priceFeed: true },
    });
    const base = ex.urls.clob_url.replace(/\/clob$/, '');
    // let the agents build books, then reward one market generously (7,200 USDC a day: 10 an epoch)
    await sleep(3000);
    const cid = pickMarket(ex);
    ex.exchange.setRewardConfig(cid, {
      maxSpread: 450 as Pips,
      minSize: 20_000_000 as Micro,
      dailyRate: 7_200_000_000 as Micro,
    });
    const { dir, address } = h.dataDir();
    const bot = h.startBot(base, dir, ['--markets', cid, '--strategy', 'rewards', '--duration', '600s'], {
      MMKIT_BOT_REWARDS_SAMPLE_MS: '10000',
      MMKIT_BOT_REWARDS_POLL_MS: '3000',
    });
    await waitForQuotes(ex, address, 90_000);
    // the first epoch boundary with at least 30 s of our quotes before it
    let boundary = Math.ceil(Date.now() / EPOCH) * EPOCH;
    if (boundary - Date.now() < 30_000) boundary += EPOCH;
    const paidToUs = () =>
      ex!.exchange.rewards
        .history()
        .filter((r) => r.maker === address)
        .reduce((s, r) => s + r.paid, 0);
    await waitUntil(() => Date.now() > boundary && paidToUs() > 0, boundary - Date.now() + 30_000, 200);

    // the daemon's status (its URL in daemon.json): rewards paid, apart from trading and fees
    const statusUrl = (JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8')) as { statusUrl: string }).statusUrl;
    type Status = {
      pnl: {
        trading: string;
        fees: string;
        total: string;
        rewards: { paid: string; estimated: string; total: string; byMarket: { market: string; paid: string }[] };
      };
      markets: {
        market: string;
        rewards: { paid: string; samples: number; dailyRate: string; venueShare: number | null } | null;
      }[];
    };
    let status: Status | undefined;
    for (let end = Date.now() + 20_000; Date.now() < end; await sleep(500)) {
      status = (await (await fetch(`${statusUrl}/api/status`)).json()) as Status;
      if (status.pnl.rewards.paid === formatAmount(paidToUs())) break;
    }
    expect(status!.pnl.rewards.paid).toBe(formatAmount(paidToUs()));
    expect(status!.pnl.rewards.byMarket).toEqual([
      expect.objectContaining({ market: cid, paid: formatAmount(paidToUs()) }),
    ]);
    const mk = status!.markets.find((m) => m.market === cid)!;
    expect(mk.rewards).toMatchObject({ dailyRate: '7200', paid: formatAmount(paidToUs()) });
    expect(mk.rewards!.samples).toBeGreaterThan(2);
    // the venue's own share of the running epoch, beside the estimate (GET /rewards/user/percentages)
    expect(mk.rewards!.venueShare).toBeGreaterThanOrEqual(0);
    expect(mk.rewards!.venueShare).toBeLessThanOrEqual(1);
    const metrics = await (await fetch(`${statusUrl}/metrics`)).text();
    expect(metrics).toContain(`mmkit_rewards_usdc{market="${cid}",state="paid"} ${paidToUs() / 1e6}`);

    // mmkit positions (while the daemon runs, far from the next epoch's end): the venue's REWARD
    // activity (apart from the positions' PnL) and the store's ledger
    const venuePos = await runMmkit(['positions', '--exchange-url', base, '--data-dir', dir, '--json']);
    expect(venuePos.code, venuePos.err).toBe(0);
    expect(JSON.parse(venuePos.out).rewards).toEqual({
      paid: formatAmount(paidToUs()),
      byMarket: [{ market: cid, paid: formatAmount(paidToUs()) }],
    });
    const storePos = await runMmkit(['positions', '--source', 'store', '--data-dir', dir, '--json']);
    expect(storePos.code, storePos.err).toBe(0);
    expect(JSON.parse(storePos.out).pnl.rewards.paid).toBe(formatAmount(paidToUs()));

    // an orderly stop (an epoch that closes after the daemon's final poll, its quotes gone, pays after it exited:
    // what it was credited up to its exit is compared)
    bot.p.kill('SIGTERM');
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
    const exitAt = Date.now();
    const history = ex.exchange.rewards.history().filter((r) => r.maker === address && r.epochEnd <= exitAt);
    const credited = history.reduce((s, r) => s + r.paid, 0);
    // the venue's account activity: one REWARD row per payout, collateral per market
    const t = createTransport({ urls: { data: ex.urls.data_url } });
    let activityPaid = 0;
    for await (const a of new DataClient(t).iterActivity(address, { type: 'REWARD' })) {
      expect(a.conditionId).toBe(cid);
      if (a.timestamp * 1000 <= exitAt) activityPaid += a.usdcSize;
    }
    await t.close();
    expect(activityPaid).toBe(credited);
    await ex.close();
    ex = undefined;
    expect(credited).toBeGreaterThan(0);

    // the ledger: paid per date = the exchange's payouts per date; credits of cause 'reward' only
    expect(existsSync(join(dir, 'mmkit.db'))).toBe(true);
    const store = openStore(join(dir, 'mmkit.db'), { checkpoint: 'auto' });
    try {
      const totals = store.rewardTotals();
      expect(totals.paid).toBe(credited);
      const byDate = new Map<string, number>();
      for (const r of history) byDate.set(r.date, (byDate.get(r.date) ?? 0) + r.paid);
      for (const [date, paid] of byDate) if (paid > 0) expect(store.reward(cid, date)?.paid).toBe(paid);
      const credits = store.rewardCredits();
      expect(credits.every((c) => c.cause === 'reward' && c.market === cid)).toBe(true);
      expect(credits.reduce((s, c) => s + c.amount, 0)).toBe(credited);
      // the estimate was kept meanwhile (samples every 10 s)
      const rows = store.rewards();
      expect(rows.some((r) => r.samples > 2 && r.scoredSamples > 0)).toBe(true);
      // the daemon's own cross-check with the venue's REWARD activity found nothing to report
      expect(store.auditLog({ kind: 'reward_mismatch' })).toEqual([]);
      // a reward never became a position adjustment
      expect(store.adjustments().filter((a) => a.cause === 'reward' || a.cause === 'unknown')).toEqual([]);
    } finally {
      store.close();
    }

    // the summary: text and the JSON summary line
    const out = bot.out();
    expect(out).toMatch(new RegExp(`rewards +[\\d.]+ USDC \\(paid ${formatAmount(credited).replace('.', '\\.')},`));
    expect(out).toMatch(/total PnL +-?[\d.]+ USDC \(trading -?[\d.]+ - fees [\d.]+ \+ rewards [\d.]+\)/);
    const line = bot
      .err()
      .split('\n')
      .find((l) => l.includes('"msg":"summary"'));
    expect(line, 'the summary log line').toBeDefined();
    const summary = JSON.parse(line!) as {
      epoch: { rewards: { paid: string } };
      session: { rewards: { paid: string } };
    };
    expect(summary.epoch.rewards.paid).toBe(formatAmount(credited));
    expect(summary.session.rewards.paid).toBe(formatAmount(credited));
    expect(bot.err()).toContain('liquidity reward paid');
    expect(bot.err()).not.toContain("differ from the venue's REWARD activity");
  }, 400_000);
});
