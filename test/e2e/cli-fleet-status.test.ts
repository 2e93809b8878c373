/**
 * `mmkit fleet status` with one daemon running in a fleet (a real Redis, the paper exchange): the
 * member alive with the markets it holds, its open orders, PnL as decimal strings and the total,
 * the heartbeat holder and the kill flag; the daemon's /metrics carry `member="solo"` and its
 * /api/status a fleet section. Without fleet.redisUrl: exit 2; Redis unreachable: exit 3, the
 * password never printed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { liquidMarkets, sleep, waitForQuotes, waitUntil } from './support/bot-harness.ts';
import { fleetHarness } from './support/fleet-harness.ts';
import { runMmkit } from './support/cli.ts';

const { h, r } = fleetHarness();

const DECIMAL = /^-?\d+(\.\d{1,6})?$/;

describe('mmkit fleet status', () => {
  it('shows the running member, its markets, PnL, the heartbeat holder and the kill flag', async () => {
    const { ex, base } = await h.exchange(11);
    const { dir, address } = h.dataDir();
    // a fleet member needs bot.markets (findings 2 F13)
    let markets: string[] = [];
    await waitUntil(() => (markets = liquidMarkets(ex, 3)).length === 3, 60_000);
    const bot = h.startBot(base, dir, ['--duration', '600s', '--markets', markets.join(',')], {
      MMKIT_REDIS_URL: r.url,
      MMKIT_FLEET_MEMBER: 'solo',
    });
    expect(await waitForQuotes(ex, address), bot.err().slice(-3000)).toBeGreaterThan(0);

    type Report = {
      account: string;
      members: string[];
      records: Array<{ member: string; markets: string[]; openOrders: number; pnl: Record<string, string> }>;
      total: Record<string, string>;
      heartbeat: { holder: string } | null;
      kill: unknown;
    };
    let rep: Report | undefined;
    for (let i = 0; i < 40; i++) {
      const s = await runMmkit(['fleet', 'status', '--json', '--account', address], {
        env: { MMKIT_REDIS_URL: r.url },
      });
      expect(s.code, s.err + s.out).toBe(0);
      rep = JSON.parse(s.out) as Report;
      if (rep.records.length === 1 && rep.records[0]!.markets.length > 0 && rep.heartbeat !== null) break;
      await sleep(500);
    }
    expect(rep!.account).toBe(address.toLowerCase());
    expect(rep!.members).toEqual(['solo']);
    const rec = rep!.records[0]!;
    expect(rec.member).toBe('solo');
    expect(rec.markets.length).toBeGreaterThan(0);
    expect(rec.openOrders).toBeGreaterThanOrEqual(0);
    for (const k of ['realized', 'unrealized', 'fees', 'rewards', 'total']) {
      expect(rec.pnl[k]).toMatch(DECIMAL);
      expect(rep!.total[k]).toBe(rec.pnl[k]);
    }
    expect(rep!.heartbeat?.holder).toBe('solo');
    expect(rep!.kill).toBeNull();
    expect(JSON.stringify(rep)).not.toContain(r.url);

    // the text form
    const t = await runMmkit(['fleet', 'status', '--account', address], { env: { MMKIT_REDIS_URL: r.url } });
    expect(t.code, t.err).toBe(0);
    expect(t.out).toContain('1 member(s) alive');
    expect(t.out).toContain('heartbeat: held by solo');
    expect(t.out).toContain('kill switch: armed');
    // the member line says which figure is whose scope (trial 22 F10): fills this session, PnL of the ledger
    expect(t.out).toMatch(
      / {2}solo: \d+ market\(s\), \d+ open order\(s\), \d+ fill\(s\) this session, ledger pnl -?\d/,
    );

    // the daemon's metrics carry the member label; its status has the fleet section
    const statusUrl = (JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8')) as { statusUrl: string }).statusUrl;
    const metrics = await (await fetch(`${statusUrl}/metrics`)).text();
    expect(metrics).toMatch(/mmkit_info\{[^}]*member="solo"/);
    expect(metrics).toMatch(/mmkit_open_orders\{member="solo"\}/);
    let fleet: { member: string; members: Array<{ member: string }>; heartbeat: string | null } | undefined;
    for (let i = 0; i < 20 && fleet === undefined; i++) {
      fleet = ((await (await fetch(`${statusUrl}/api/status`)).json()) as { fleet?: typeof fleet }).fleet;
      if (fleet === undefined) await sleep(500);
    }
    expect(fleet).toMatchObject({ member: 'solo', members: [{ member: 'solo' }], heartbeat: 'solo' });
  }, 240_000);

  it('exits 2 without fleet.redisUrl and 3 when Redis cannot be reached (password not printed)', async () => {
    const account = '0x00000000000000000000000000000000000000aa';
    const none = await runMmkit(['fleet', 'status', '--account', account]);
    expect(none.code, none.err).toBe(2);
    expect(none.err).toContain('fleet.redisUrl');
    const down = await runMmkit(['fleet', 'status', '--account', account], {
      env: { MMKIT_REDIS_URL: 'redis://:s3cretpw@127.0.0.1:1' },
    });
    expect(down.code, down.err).toBe(3);
    expect(down.err + down.out).not.toContain('s3cretpw');
  }, 60_000);
});
