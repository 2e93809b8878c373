/**
 * Findings 2 F13 and F15, end to end (a real Redis, the real paper exchange, `mmkit run` daemons on
 * ONE paper wallet):
 *  - F13: a fleet member without `bot.markets` would choose its own markets and take its mates'
 *    quotes for foreign orders: it refuses to start (exit 2, `bot.markets`), and so does one whose
 *    list is not the live members';
 *  - F15: after the fleet's Redis restarts EMPTY, the live member records the account limits (and
 *    markets) again, so a member started afterwards with other caps is still refused (exit 2,
 *    `bot.risk.maxOpenOrdersGlobal`) and the record keeps the fleet's values.
 */
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { fleetKeys } from '../../src/fleet/fleet-keys.ts';
import { fleetHarness } from './support/fleet-harness.ts';
import { type BotProcess, liquidMarkets, sleep, waitUntil } from './support/bot-harness.ts';

const { h, r } = fleetHarness();

describe('a fleet member must run with the fleet markets and limits', () => {
  it('refuses no bot.markets or another list, and re-records the limits after an empty Redis restart', async () => {
    const { ex, base } = await h.exchange(13);
    let markets: string[] = [];
    await waitUntil(() => (markets = liquidMarkets(ex, 3)).length === 3, 60_000);
    expect(markets).toHaveLength(3);
    const first = h.dataDir();
    const keys = fleetKeys(first.address);
    const sameWallet = (): string => {
      const dir = h.dataDir().dir;
      copyFileSync(join(first.dir, 'paper-wallet.key'), join(dir, 'paper-wallet.key'));
      return dir;
    };
    const env = (member: string, maxOrders = 20) => ({
      MMKIT_REDIS_URL: r.url,
      MMKIT_FLEET_MEMBER: member,
      MMKIT_RISK_MAX_OPEN_ORDERS_GLOBAL: String(maxOrders),
    });
    const exits = async (b: BotProcess): Promise<number | null> => {
      expect(await waitUntil(() => b.p.exitCode !== null, 120_000), b.err().slice(-3000)).toBe(true);
      return b.p.exitCode;
    };
    const a = h.startBot(base, first.dir, ['--duration', '600s', '--markets', markets.join(',')], env('a'));
    const redis = new Redis(r.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    redis.on('error', () => undefined);
    try {
      expect(await waitUntil(() => a.err().includes('joined the fleet'), 120_000), a.err().slice(-3000)).toBe(true);

      // F13: no bot.markets -> exit 2 before anything trades
      const none = h.startBot(base, sameWallet(), ['--duration', '600s'], env('n'));
      expect(await exits(none), none.err().slice(-3000)).toBe(2);
      expect(none.err()).toContain('config bot.markets: a fleet member needs');
      expect(none.err()).not.toContain('joined the fleet');

      // F13: another list than the live member's -> exit 2 naming bot.markets and the difference
      const otherDir = sameWallet();
      const other = h.startBot(
        base,
        otherDir,
        ['--duration', '600s', '--markets', markets.slice(0, 2).join(',')],
        env('o'),
      );
      expect(await exits(other), other.err().slice(-3000)).toBe(2);
      expect(other.err()).toContain('config bot.markets: 2 market(s) here, 3 on the fleet');
      expect(other.err()).toContain(`missing here: ${markets[2]!.toLowerCase()}`);
      // review-1 F1: refused at join, it left no ledger record and claimed no history (either would
      // make the data directory's next start, or another fresh member, lose the account's history)
      const otherLedger = readFileSync(join(otherDir, 'fleet-ledger.id'), 'utf8').trim();
      const look = new Redis(r.url, { maxRetriesPerRequest: 1 });
      try {
        expect(await look.hexists(keys.ledgers, otherLedger)).toBe(0);
        expect(await look.get(keys.history)).not.toBe(otherLedger);
      } finally {
        look.disconnect();
      }

      // F15: Redis restarted empty; the live member re-records the limits
      await r.restart();
      await redis.connect();
      expect(
        await waitUntil(() => a.err().includes('this member recorded them again'), 30_000),
        a.err().slice(-3000),
      ).toBe(true);
      expect(await redis.hget(keys.riskLimits, 'maxOpenOrdersGlobal')).toBe('20');
      const odd = h.startBot(base, sameWallet(), ['--duration', '600s', '--markets', markets.join(',')], env('c', 30));
      expect(await exits(odd), odd.err().slice(-3000)).toBe(2);
      expect(odd.err()).toContain('config bot.risk.maxOpenOrdersGlobal: is 30 here but 20');
      await sleep(1500);
      expect(await redis.hget(keys.riskLimits, 'maxOpenOrdersGlobal')).toBe('20');
      expect(a.p.exitCode, a.err().slice(-3000)).toBeNull();
    } finally {
      redis.disconnect();
    }
  }, 300_000);
});
