/**
 * `mmkit markets --rewards` as a user runs it, against the paper exchange on loopback: a market
 * whose reward config the operator set (POST /admin/rewards) and whose book two real traders built
 * is listed first with the exact estimate (a two-sided 50-share quote at the touch takes a third of
 * the 100 USDC pool against the competition in the band), and every listed market's pool, min size
 * and max spread are the exchange's own config.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAmount, formatPrice } from '../../src/core/units.ts';
import { listMarkets, Trader } from '../integration/support/trader.ts';
import { ADMIN, no, startVenue, yes, type TestVenue } from '../integration/support/setup.ts';

const ROOT = join(import.meta.dirname, '..', '..');
let v: TestVenue;
let cid = '';

/** The CLI as a child process (async: the exchange answers from this process). */
async function markets(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const p = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'mmkit.js'), 'markets', '--exchange-url', v.clob.replace(/\/clob$/, ''), ...args],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  p.stdout!.on('data', (d) => (stdout += d));
  p.stderr!.on('data', (d) => (stderr += d));
  const [status] = (await once(p, 'close')) as [number | null];
  return { status, stdout, stderr };
}

beforeAll(async () => {
  v = await startVenue({ http: { adminToken: ADMIN } });
  const m = (await listMarkets(v.clob)).find((x) => !x.neg_risk)!;
  cid = m.condition_id;
  const set = await v.admin('/rewards', {
    condition_id: cid,
    rewards: { max_spread: 3, min_size: '50', daily_rate: '100' },
  });
  expect(set.status).toBe(200);
  // the competition: bids 100 @0.49 and 200 @0.48, an ask of 100 @0.51 (a NO bid at 0.49)
  const t = new Trader(v.clob);
  t.protocol = v.running.exchange.protocol;
  await t.createKey();
  for (const [token, price, size] of [
    [yes(m), '0.49', '100'],
    [yes(m), '0.48', '200'],
    [no(m), '0.49', '100'],
  ] as const)
    expect((await t.place(token, 'BUY', price, size)).body).toMatchObject({ success: true, status: 'live' });
}, 60_000);
afterAll(async () => {
  await v?.close();
});

describe('mmkit markets --rewards', () => {
  it('--json: the estimate of the market with a book, first; every pool as the exchange configured it', async () => {
    const r = await markets(['--rewards', '--json', '--limit', '100']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { count: number; markets: Array<Record<string, string | null>> };
    const ex = v.running.exchange;
    // (no lifecycle: every rewarded market is active)
    expect(out.count).toBe(ex.rewards.rewarded().length);
    const first = out.markets[0]!;
    expect(first).toMatchObject({
      conditionId: cid,
      rewardsDailyRate: '100',
      rewardsMinSize: '50',
      rewardsMaxSpread: '0.03',
      competitionScore: '44.44',
      estDailyReward: '33.333333',
      estBid: '0.49',
      estAsk: '0.51',
    });
    expect(first.endDate).toEqual(expect.any(String));
    for (const row of out.markets) {
      const cfg = ex.rewards.configOf(row.conditionId!)!;
      expect(cfg, row.conditionId!).not.toBeNull();
      expect([row.rewardsDailyRate, row.rewardsMinSize, row.rewardsMaxSpread]).toEqual([
        formatAmount(cfg.dailyRate),
        formatAmount(cfg.minSize),
        formatPrice(cfg.maxSpread),
      ]);
    }
    const est = out.markets.map((m) => Number(m.estDailyReward));
    expect(est).toEqual([...est].sort((a, b) => b - a));
  }, 90_000);

  it('the table names the columns and the market; --no-books is refused (exit 2)', async () => {
    const r = await markets(['--rewards', '--limit', '3']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/POOL\/DAY\s+MIN SIZE\s+MAX SPREAD\s+COMPETITION\s+EST\/DAY\s+ENDS/);
    expect(r.stdout.split('\n')[1]).toContain(cid);
    expect(r.stdout.split('\n')[1]).toMatch(/100\s+50\s+0\.03\s+44\.44\s+33\.333333/);
    const bad = await markets(['--rewards', '--no-books']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--rewards estimates from the books');
  }, 90_000);
});
