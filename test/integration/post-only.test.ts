/**
 * Post-only on the wire, against the real paper exchange on loopback: the bot (createTrader with
 * the live venue, as `mmkit run` wires it, post-only on) sends its quotes with the venue's
 * post-only flag. A quote that would cross when it reaches the exchange (the strategy's look at
 * the book lagged: here an approved set handed to the executor directly) is refused by the
 * exchange with INVALID_POST_ONLY_ORDER and never fills; the refusal is counted apart and does
 * not reach the kill switch (tripped by a single counted rejection here), and the next intent of
 * the strategy re-prices: its quote rests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../src/core/clock.ts';
import type { ConditionId, TokenId } from '../../src/core/ids.ts';
import type { Micro, Pips } from '../../src/core/units.ts';
import { createTrader } from '../../src/kernel/create-trader.ts';
import { resolveRiskLimits } from '../../src/risk/limits.ts';
import { openStore } from '../../src/store/store.ts';
import { loadStrategy } from '../../src/strategy/loader.ts';
import { resolveParams } from '../../src/strategy/params.ts';
import { approved } from '../support/approve.ts';
import { eventually, startVenue, yes, type TestVenue, liveVenueFor } from './support/setup.ts';

const STRATEGY = new URL('../support/fixed-quotes-strategy.ts', import.meta.url).pathname;

let v: TestVenue;
let dir: string;
beforeAll(async () => {
  v = await startVenue();
  dir = mkdtempSync(join(tmpdir(), 'mmkit-post-only-'));
  // a quiet book on m1: bid 0.45, ask 0.55
  const maker = await v.trader();
  for (const t of v.m1.tokens) expect((await maker.place(t.token_id, 'BUY', '0.45', '100')).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await v?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('post-only quotes on the paper exchange', () => {
  it('a crossing quote is refused by the exchange, never fills, does not trip the kill switch, and is re-priced', async () => {
    const wallet = new Wallet(Wallet.createRandom().privateKey);
    const address = wallet.address.toLowerCase();
    const clock = new LiveClock();
    const venue = await liveVenueFor(v, { wallet, clock, silenceMs: 0 }, 'content');
    const market = (await venue.markets()).find((m) => m.market === v.m1.condition_id)!;
    const store = openStore(join(dir, 'bot.db'), { clock });
    const def = await loadStrategy(STRATEGY);
    const infos: Array<{ msg: string; obj: Record<string, unknown> }> = [];
    const bot = createTrader({
      venue,
      clock,
      store,
      strategy: def,
      params: resolveParams(def.params, { p1: 0.4, size: 5 }),
      markets: [market],
      // one counted rejection trips the switch: a post-only refusal must not be one
      limits: resolveRiskLimits({ maxRejections: 1 }),
      log: {
        debug() {},
        info: (obj, msg) => void infos.push({ msg: msg ?? '', obj: obj as Record<string, unknown> }),
        warn() {},
      },
      tickMs: 100,
      postOnly: true,
    });
    const M = market.market as ConditionId;
    const Y = yes(v.m1) as TokenId;
    const bid40 = () =>
      v.running.exchange.openOrders(address).filter((o) => o.price === 4000 && o.side === 'BUY').length;
    try {
      await bot.start();
      bot.startHeartbeat();
      expect(await eventually(() => bid40() === 1, 20_000), 'the strategy quotes its 0.40 bid').toBe(true);

      // the book as the exchange has it: a quote at 0.55 takes the ask. Hand it over as if the
      // strategy's look at the book had lagged (the gate approved it on that stale look). The
      // strategy re-states its 0.40 bid every 100 ms and the latest intent wins (an older queued
      // one, or the running cycle's unsent places, are dropped): on a loaded machine the
      // strategy's next intent may overtake ours before it is sent, so hand it over again until
      // the exchange has answered one
      const crossing = () =>
        bot.executor.submit(
          approved({
            market: M,
            quotes: [{ tokenId: Y, side: 'BUY', price: 5500 as Pips, size: 5_000_000 as Micro }],
            at: clock.now(),
          }),
        );
      let refusedOnce = false;
      for (let attempt = 0; attempt < 10 && !refusedOnce; attempt++) {
        crossing();
        refusedOnce = await eventually(() => bot.executor.accountStats().postOnlyRejections >= 1, 2_000);
      }
      expect(refusedOnce, 'the exchange refused it as post-only').toBe(true);
      // an attempt that was slow rather than overtaken may be refused too: each is a post-only refusal
      const rejected = bot.tracker.all().filter((o) => o.status === 'rejected');
      expect(rejected.length).toBeGreaterThanOrEqual(1);
      expect(bot.executor.accountStats().postOnlyRejections).toBe(rejected.length);
      const refused = store
        .auditLog({ kind: 'cycle' })
        .find((a) => ((a.data as { postOnlyRejected?: number }).postOnlyRejected ?? 0) >= 1);
      expect(refused).toBeDefined();
      // it never traded: the bot has no fill at the exchange, and its order at 0.55 is rejected, with the code
      expect(v.running.exchange.tradesOf(address)).toEqual([]);
      for (const o of rejected) expect([o.price, o.rejectCode]).toEqual([5500, 'INVALID_POST_ONLY_ORDER']);
      expect(store.order(rejected[0]!.id)).toMatchObject({ status: 'rejected', rejectCode: 'INVALID_POST_ONLY_ORDER' });
      expect(bot.kill.tripped).toBe(false);
      expect(bot.executor.stats().rejections).toBe(0);
      expect(infos.some((l) => l.obj['code'] === 'INVALID_POST_ONLY_ORDER' && l.obj['rejected'] === 1)).toBe(true);

      // the strategy's next intent re-prices: its 0.40 bid rests again
      expect(await eventually(() => bid40() === 1, 20_000), 'the quote re-priced').toBe(true);
      expect(bot.kill.tripped).toBe(false);
    } finally {
      await bot.stop();
      await bot.cancelAll('test end');
      const flat = await bot.verifyFlat(5000);
      await bot.close();
      store.close();
      await venue.close();
      expect(flat.flat).toBe(true);
    }
  }, 60_000);
});
