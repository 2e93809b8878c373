/**
 * `mmkit run` as a fleet member (MMKIT_REDIS_URL set), one daemon against the paper exchange and a
 * real Redis: it claims its markets and quotes; Redis killed: zero open orders of its own within
 * 2 s (by the exchange's clock), Redis back (empty): it quotes again; `mmkit kill --fleet`: zero
 * open orders within 2 s and the daemon exits 4 (a risk stop), the command exits 0 once it left.
 */
import { describe, expect, it } from 'vitest';
import { connectFleetRedis } from '../../src/fleet/redis.ts';
import { exited, liquidMarkets, sleep, waitForQuotes, waitUntil, watchFlat } from './support/bot-harness.ts';
import { fleetHarness } from './support/fleet-harness.ts';
import { runMmkit } from './support/cli.ts';

const { h, r } = fleetHarness();

describe('mmkit run in a fleet', () => {
  it('quotes its markets, fails closed without Redis and resumes, and stops on the fleet kill switch', async () => {
    const { ex, base } = await h.exchange(7);
    const { dir, address } = h.dataDir();
    // at most 2 members: each keeps a quarter of the per-signer cancel bucket for pulling its quotes
    // while Redis is down (src/fleet/signer-gate.ts; with 8, a sixteenth: 7 tokens + 5 / s)
    const env = { MMKIT_REDIS_URL: r.url, MMKIT_FLEET_MEMBER: 'solo', MMKIT_FLEET_MAX_MEMBERS: '2' };
    // a fleet member needs bot.markets (findings 2 F13)
    let markets: string[] = [];
    await waitUntil(() => (markets = liquidMarkets(ex, 3)).length === 3, 60_000);
    const bot = h.startBot(base, dir, ['--duration', '600s', '--markets', markets.join(',')], env);
    expect(await waitForQuotes(ex, address), bot.err().slice(-3000)).toBeGreaterThan(0);
    expect(bot.err()).toContain('joined the fleet');
    // the heartbeat lease holder records its heartbeat chain in Redis, fenced by its lease
    const c = await connectFleetRedis(r.url);
    const state = `mmkit:{${address}}:hb:state`;
    let id: string | null = null;
    for (const end = Date.now() + 15_000; id === null && Date.now() < end; await sleep(100))
      id = await c.hget(state, 'id');
    expect(id, bot.err().slice(-3000)).not.toBeNull();
    const lease = (await c.get(`mmkit:{${address}}:lease:hb`)) ?? '';
    expect(lease.startsWith('solo:')).toBe(true);
    expect(await c.hget(state, 'fence')).toBe(lease.slice('solo:'.length));
    c.disconnect();

    // Redis dies: the member fails closed
    const flat = watchFlat(ex, address);
    const downAt = Date.now();
    await r.kill();
    expect(await waitUntil(() => flat.flatSince(downAt) > 0, 10_000), bot.err().slice(-3000)).toBe(true);
    expect(flat.flatSince(downAt) - downAt, bot.err().slice(-6000)).toBeLessThanOrEqual(2000);
    // (long enough for a balance refresh, every 5 s, to be refused by the shared budgets)
    await sleep(6000);
    expect(ex.exchange.openOrders(address)).toEqual([]);
    // the shared budgets refuse while Redis is away: said once by the fleet, not as venue retries
    // (FLEET_BUDGET_UNAVAILABLE, not retried) and without the Redis client's internals
    const downLog = bot.err().slice(bot.err().indexOf('fleet Redis unreachable'));
    expect(downLog).not.toMatch(/retrying request/);
    expect(downLog).not.toMatch(/enableOfflineQueue|Stream isn't writeable/);
    // back (empty): it re-claims its markets and quotes again
    await r.restart();
    expect(await waitForQuotes(ex, address, 30_000), bot.err().slice(-3000)).toBeGreaterThan(0);

    // the fleet kill switch
    const killAt = Date.now();
    const k = await runMmkit(['kill', '--fleet', '--account', address, '--reason', 'e2e', '--timeout', '60s'], {
      env: { MMKIT_REDIS_URL: r.url },
    });
    expect(k.code, k.err + k.out).toBe(0);
    expect(flat.flatSince(killAt) - killAt).toBeLessThanOrEqual(2000);
    const code = await Promise.race([exited(bot.p), sleep(60_000).then(() => 'timeout' as const)]);
    expect(code, bot.err().slice(-3000)).toBe(4);
    expect(ex.exchange.openOrders(address)).toEqual([]);
    flat.stop();
  }, 240_000);

  it("refuses a member on the in-process paper exchange or a data dir's paper wallet (exit 2, naming the keys)", async () => {
    const { dir } = h.dataDir();
    const t0 = Date.now();
    const res = await runMmkit(['run', '--data-dir', dir, '--duration', '30s', '--http-port', '0'], {
      env: { MMKIT_REDIS_URL: r.url, MMKIT_FLEET_MEMBER: 'lone' },
    });
    expect(res.code, res.err).toBe(2);
    expect(res.err).toContain('bot.exchangeUrl');
    expect(res.err).toContain('bot.keystoreFile');
    expect(res.err).not.toContain('paper exchange started in-process');
    expect(Date.now() - t0).toBeLessThan(20_000);
    // the venue given, the paper wallet still refused
    const { base } = await h.exchange(9);
    const res2 = await runMmkit(
      ['run', '--data-dir', dir, '--exchange-url', base, '--duration', '30s', '--http-port', '0'],
      {
        env: { MMKIT_REDIS_URL: r.url, MMKIT_FLEET_MEMBER: 'lone' },
      },
    );
    expect(res2.code, res2.err).toBe(2);
    expect(res2.err).toContain('bot.keystoreFile');
    expect(res2.err).not.toContain('bot.exchangeUrl');
  }, 120_000);

  it('refuses to start (exit 3, the password not printed) when the fleet Redis cannot be reached', async () => {
    const { ex, base } = await h.exchange(8);
    const { dir, address } = h.dataDir();
    const markets = liquidMarkets(ex, 1);
    expect(markets).toHaveLength(1);
    const bot = h.startBot(base, dir, ['--duration', '600s', '--markets', markets.join(',')], {
      MMKIT_REDIS_URL: 'redis://:s3cretpw@127.0.0.1:1',
    });
    const code = await Promise.race([exited(bot.p), sleep(120_000).then(() => 'timeout' as const)]);
    expect(code, bot.err().slice(-3000)).toBe(3);
    expect(bot.err() + bot.out()).toContain('cannot reach Redis');
    expect(bot.err() + bot.out()).not.toContain('s3cretpw');
    expect(ex.exchange.openOrders(address)).toEqual([]);
  }, 180_000);

  it("mmkit doctor checks a member's fleet: Redis unreachable (exit 3, password not printed), no bot.markets, and passes when both are right (trial 14 F5)", async () => {
    const { ex, base } = await h.exchange(9);
    const { dir } = h.dataDir();
    const markets = liquidMarkets(ex, 2);
    type Report = { exitCode: number; checks: { id: string; status: string; detail: string; unreachable?: boolean }[] };
    const doctor = async (env: Record<string, string>, extra: string[] = []) => {
      const res = await runMmkit(['doctor', '--json', '--exchange-url', base, '--data-dir', dir, ...extra], { env });
      const report = JSON.parse(res.out) as Report;
      return { code: res.code, all: res.out + res.err, fleet: report.checks.find((c) => c.id === 'fleet') };
    };
    const down = await doctor({ MMKIT_REDIS_URL: 'redis://:s3cretpw@127.0.0.1:1' }, ['--markets', markets.join(',')]);
    expect(down.fleet).toMatchObject({ status: 'fail', unreachable: true });
    expect(down.code).toBe(3);
    expect(down.all).not.toContain('s3cretpw');
    const none = await doctor({ MMKIT_REDIS_URL: r.url });
    expect(none.fleet?.status).toBe('fail');
    expect(none.fleet?.detail).toMatch(/bot\.markets is empty/);
    const ok = await doctor({ MMKIT_REDIS_URL: r.url }, ['--markets', markets.join(',')]);
    expect(ok.fleet?.status, ok.fleet?.detail).toBe('pass');
    // without fleet.redisUrl: no fleet check
    expect((await doctor({})).fleet).toBeUndefined();
  }, 120_000);
});
