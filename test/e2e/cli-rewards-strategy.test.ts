/**
 * The `rewards` strategy through `mmkit run` as a user runs it, against the paper exchange on
 * loopback (the world's own reward pools, its liquidity providers competing, samples every 2 s):
 * without bot.markets it trades rewarded markets only (its selectMarkets), rests both sides inside
 * the band at the min size, earns a share of the running epoch's pool, and stops with nothing open.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PRICE_SCALE } from '../../src/core/units.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { BotHarness, exited, sleep, waitForQuotes } from './support/bot-harness.ts';

const h = new BotHarness();
let ex: RunningExchange | undefined;
afterAll(async () => {
  await h.close();
  await ex?.close();
});

describe('mmkit run --strategy rewards', () => {
  it('trades rewarded markets only, both sides at the min size, and its quotes score (a share of the running epoch)', async () => {
    ex = await startExchange({
      port: 0,
      seed: 3,
      exchange: { rewards: { sampleMs: 2_000 } },
      world: { agents: 'default', lifecycle: false, priceFeed: true },
    });
    const base = ex.urls.clob_url.replace(/\/clob$/, '');
    const { dir, address } = h.dataDir();
    const bot = h.startBot(base, dir, ['--strategy', 'rewards', '--duration', '45s'], { MMKIT_MARKET_COUNT: '2' });
    expect(await waitForQuotes(ex, address, 90_000), bot.err().slice(-3000)).toBeGreaterThan(0);
    const rewards = ex.exchange.rewards;

    // every resting order of the bot: on a rewarded market, at least its min size; bid below ask
    let twoSided = false;
    let earned = false;
    for (const end = Date.now() + 40_000; Date.now() < end && !(twoSided && earned); await sleep(500)) {
      const open = ex.exchange.openOrders(address);
      const byMarket = new Map<string, { bid: boolean; price: number }[]>();
      for (const o of open) {
        const cfg = rewards.configOf(o.market);
        expect(cfg, `an order on ${o.market}, which pays no rewards`).not.toBeNull();
        // placed at the min size or more (a partly filled quote rests with less until it is replaced)
        expect(o.originalSize).toBeGreaterThanOrEqual(cfg!.minSize);
        const entry = ex.exchange.listMarkets().find((e) => e.meta.conditionId === o.market)!;
        const isYes = o.tokenId === entry.meta.tokens[0];
        const yes = { bid: isYes === (o.side === 'BUY'), price: isYes ? o.price : PRICE_SCALE - o.price };
        byMarket.set(o.market, [...(byMarket.get(o.market) ?? []), yes]);
      }
      for (const qs of byMarket.values())
        if (qs.some((q) => q.bid) && qs.some((q) => !q.bid)) {
          twoSided = true;
          const bid = Math.max(...qs.filter((q) => q.bid).map((q) => q.price));
          const ask = Math.min(...qs.filter((q) => !q.bid).map((q) => q.price));
          expect(bid).toBeLessThan(ask);
        }
      earned = rewards.standing(address, Date.now()).some((s) => s.share > 0n);
    }
    expect(twoSided, bot.err().slice(-3000)).toBe(true);
    expect(earned, 'the bot scored in no sample').toBe(true);

    const code = await exited(bot.p);
    expect(code, bot.err().slice(-3000)).toBe(0);
    expect(bot.out()).toContain('open orders left  0');
    expect(ex.exchange.openOrders(address)).toEqual([]);
    const starting = bot
      .err()
      .split('\n')
      .filter((l) => l.includes('"msg":"starting"'))
      .map((l) => JSON.parse(l) as { markets: { market: string }[] })[0]!;
    expect(starting.markets.length).toBeGreaterThan(0);
    for (const m of starting.markets) expect(rewards.configOf(m.market), m.market).not.toBeNull();
  }, 180_000);

  it('bands with rewards=true on a rewarded market: a YES bid and a NO bid of at least the min size, and they score', async () => {
    const ex2 = await startExchange({
      port: 0,
      seed: 4,
      exchange: { rewards: { sampleMs: 2_000 } },
      world: { agents: 'default', lifecycle: false, priceFeed: true },
    });
    try {
      const rewards = ex2.exchange.rewards;
      // a rewarded market whose min size the gate allows (bot.risk.maxOrderSizeShares 100)
      const [cid, cfg] = rewards.rewarded().find(([, c]) => c.minSize <= 100_000_000)!;
      const base = ex2.urls.clob_url.replace(/\/clob$/, '');
      const { dir, address } = h.dataDir();
      const bot = h.startBot(base, dir, [
        '--strategy',
        'bands',
        '--param',
        'rewards=true',
        '--markets',
        cid,
        '--duration',
        '30s',
      ]);
      expect(await waitForQuotes(ex2, address, 90_000), bot.err().slice(-3000)).toBeGreaterThan(0);
      const entry = ex2.exchange.listMarkets().find((e) => e.meta.conditionId === cid)!;
      let both = false;
      let earned = false;
      for (const end = Date.now() + 25_000; Date.now() < end && !(both && earned); await sleep(500)) {
        const open = ex2.exchange.openOrders(address);
        const yesBid = open.some(
          (o) =>
            o.tokenId === entry.meta.tokens[0] && o.side === 'BUY' && o.originalSize - o.sizeMatched >= cfg.minSize,
        );
        const noBid = open.some(
          (o) =>
            o.tokenId === entry.meta.tokens[1] && o.side === 'BUY' && o.originalSize - o.sizeMatched >= cfg.minSize,
        );
        both ||= yesBid && noBid;
        earned = rewards.standing(address, Date.now()).some((s) => s.market === cid && s.share > 0n);
      }
      expect(both, bot.err().slice(-3000)).toBe(true);
      expect(earned, 'the bands quotes scored in no sample').toBe(true);
      expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
    } finally {
      await ex2.close();
    }
  }, 180_000);
});
