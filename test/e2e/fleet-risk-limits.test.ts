/**
 * Issue 21, the account's risk limits in a fleet, end to end: two `mmkit run` daemons on ONE paper
 * wallet (a real Redis, the real paper exchange) with risk.maxOpenOrdersGlobal and
 * risk.maxNotionalGlobal small. Each member alone would fill them; together, by the exchange's own
 * record of the account's resting orders (its event stream), they never hold more than the caps,
 * and both members quote. The grants in Redis never sum above the caps either.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { ExchangeEvent } from '../../src/exchange/exchange.ts';
import { fleetKeys } from '../../src/fleet/fleet-keys.ts';
import { parseGrant } from '../../src/fleet/risk-reserve.ts';
import { fleetHarness } from './support/fleet-harness.ts';
import { type BotProcess, liquidMarkets, sleep, waitUntil } from './support/bot-harness.ts';

const MAX_ORDERS = 5;
const MAX_NOTIONAL_USDC = 40;
const MAX_NOTIONAL = MAX_NOTIONAL_USDC * 1_000_000;

const { h, r } = fleetHarness();

describe('account risk limits in a fleet of two daemons', () => {
  it('together they never rest more orders or notional than the caps, by the exchange', async () => {
    const { ex, base } = await h.exchange(21);
    let markets: string[] = [];
    await waitUntil(() => (markets = liquidMarkets(ex, 4)).length === 4, 60_000);
    expect(markets).toHaveLength(4);
    const first = h.dataDir();
    const address = first.address;
    const second = h.dataDir().dir;
    copyFileSync(join(first.dir, 'paper-wallet.key'), join(second, 'paper-wallet.key'));

    // the account's resting orders as the exchange saw them, after every batch of its events
    const resting = new Map<string, { remaining: number; price: number }>();
    let maxOrders = 0;
    let maxNotional = 0;
    const notionalNow = () =>
      [...resting.values()].reduce((s, o) => s + Math.ceil((o.remaining * o.price) / 10_000), 0);
    ex.exchange.subscribe((events: readonly ExchangeEvent[]) => {
      for (const e of events) {
        if (e.type !== 'order_placed' && e.type !== 'order_updated' && e.type !== 'order_canceled') continue;
        const o = e.order;
        if (o.account !== address) continue;
        if (o.status === 'LIVE') resting.set(o.id, { remaining: o.originalSize - o.sizeMatched, price: o.price });
        else resting.delete(o.id);
      }
      maxOrders = Math.max(maxOrders, resting.size);
      maxNotional = Math.max(maxNotional, notionalNow());
    });

    const env = (member: string) => ({
      MMKIT_REDIS_URL: r.url,
      MMKIT_FLEET_MEMBER: member,
      MMKIT_RISK_MAX_OPEN_ORDERS_GLOBAL: String(MAX_ORDERS),
      MMKIT_RISK_MAX_NOTIONAL_GLOBAL: String(MAX_NOTIONAL_USDC),
    });
    const bots: BotProcess[] = [
      h.startBot(base, first.dir, ['--duration', '600s', '--markets', markets.join(',')], env('ra')),
      h.startBot(base, second, ['--duration', '600s', '--markets', markets.join(',')], env('rb')),
    ];
    const logs = () => bots.map((b, i) => `--- ${i}\n${b.err().slice(-2000)}`).join('\n');
    const redis = new Redis(r.url);
    const keys = fleetKeys(address);
    let grantSumMax = { notional: 0, orders: 0 };
    const membersWithOrders = new Set<string>();
    try {
      // both joined and quoting
      expect(await waitUntil(() => bots.every((b) => b.err().includes('joined the fleet')), 120_000), logs()).toBe(
        true,
      );
      const end = Date.now() + 25_000;
      while (Date.now() < end) {
        const grants = Object.entries(await redis.hgetall(keys.riskGrants))
          .map(([m, v]) => parseGrant(m, v))
          .filter((g) => g !== null);
        const sum = grants.reduce((s, g) => ({ notional: s.notional + g.notional, orders: s.orders + g.orders }), {
          notional: 0,
          orders: 0,
        });
        grantSumMax = {
          notional: Math.max(grantSumMax.notional, sum.notional),
          orders: Math.max(grantSumMax.orders, sum.orders),
        };
        for (const g of grants) if (g.orders > 0) membersWithOrders.add(g.member);
        await sleep(200);
      }
      for (const b of bots) expect(b.p.exitCode, logs()).toBeNull();
      // a third member configured with other account limits is refused (exit 2, the key named)
      const third = h.dataDir().dir;
      copyFileSync(join(first.dir, 'paper-wallet.key'), join(third, 'paper-wallet.key'));
      const odd = h.startBot(base, third, ['--duration', '600s', '--markets', markets.join(',')], {
        ...env('rc'),
        MMKIT_RISK_MAX_OPEN_ORDERS_GLOBAL: String(MAX_ORDERS + 1),
      });
      expect(await waitUntil(() => odd.p.exitCode !== null, 120_000), odd.err().slice(-3000)).toBe(true);
      expect(odd.p.exitCode, odd.err().slice(-3000)).toBe(2);
      expect(odd.err()).toContain('risk.maxOpenOrdersGlobal');
      expect(odd.err()).toContain('must be the same on every member');
      expect(await redis.hget(keys.riskLimits, 'maxOpenOrdersGlobal')).toBe(String(MAX_ORDERS));
      for (const b of bots) expect(b.p.exitCode, logs()).toBeNull();
      const info = async () => `${JSON.stringify(await redis.hgetall(keys.riskGrants))}\n${logs()}`;
      expect(maxOrders, await info()).toBeGreaterThan(0);
      expect(maxOrders, logs()).toBeLessThanOrEqual(MAX_ORDERS);
      expect(maxNotional, logs()).toBeLessThanOrEqual(MAX_NOTIONAL);
      expect(grantSumMax.orders).toBeLessThanOrEqual(MAX_ORDERS);
      expect(grantSumMax.notional).toBeLessThanOrEqual(MAX_NOTIONAL);
      expect([...membersWithOrders].sort(), logs()).toEqual(['ra', 'rb']);
      console.log(`fleet risk e2e: max resting ${maxOrders} orders, ${maxNotional / 1e6} USDC`);
    } finally {
      redis.disconnect();
    }
  }, 240_000);
});
