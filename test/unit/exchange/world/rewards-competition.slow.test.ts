/**
 * The world's liquidity providers compete for rewards (realistic and toxic profiles): on a rewarded
 * market its provider keeps quotes of at least the min size inside the band on both sides, and a
 * second provider farms the pool too, so a pool is shared, not won alone. The calm world is
 * unchanged (its golden test), and its providers do not chase the band.
 */
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../../src/core/clock.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../../../../src/exchange/exchange.ts';
import { agentAccounts } from '../../../../src/exchange/world/agent-accounts.ts';
import { seedWorld, startWorld, type WorldProfileName } from '../../../../src/exchange/world/index.ts';

const EPOCH = 300_000;

function run(profile: WorldProfileName, seed: number) {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const ex = new PaperExchange({
    ...DEFAULT_EXCHANGE_OPTIONS,
    clock,
    rewards: { epochMs: EPOCH, sampleMs: 30_000, minPayout: 0 },
  });
  seedWorld(ex, seed);
  ex.start();
  const w = startWorld(ex, { seed, agents: 'default', lifecycle: false, priceFeed: false, profile });
  clock.advance(EPOCH);
  const lps = new Set(agentAccounts(seed).lp);
  // per rewarded market: which providers earned in the closed epoch, and who scores in the last sample
  const earned = new Map<string, Set<string>>();
  for (const r of ex.rewards.history())
    if (lps.has(r.maker) && r.earned > 0) {
      let s = earned.get(r.market);
      if (s === undefined) earned.set(r.market, (s = new Set()));
      s.add(r.maker);
    }
  const markets = ex.rewards.rewarded().map(([cid]) => cid);
  const twoSided = markets.filter((cid) => {
    const s = ex.rewards.lastSample(cid)?.sample;
    if (s === undefined) return false;
    let both = 0;
    for (const [maker, sides] of s.sides) if (lps.has(maker) && sides.qOne > 0n && sides.qTwo > 0n) both++;
    return both >= 2;
  });
  w.stop();
  ex.stop();
  return { markets, earned, twoSided, history: ex.rewards.history() };
}

describe('the world competes for liquidity rewards', () => {
  it('realistic: on nearly every rewarded market two providers quote both sides in the band and share the pool', () => {
    const r = run('realistic', 1);
    expect(r.markets.length).toBeGreaterThan(10);
    const shared = r.markets.filter((cid) => (r.earned.get(cid)?.size ?? 0) >= 2);
    expect(shared.length / r.markets.length).toBeGreaterThan(0.8);
    expect(r.twoSided.length / r.markets.length).toBeGreaterThan(0.8);
    // nobody wins a pool alone: the biggest share of each shared market is below 95 %
    for (const cid of shared) {
      const rows = r.history.filter((x) => x.market === cid);
      const total = rows.reduce((s, x) => s + x.earned, 0);
      expect(Math.max(...rows.map((x) => x.earned)) / total).toBeLessThan(0.95);
    }
  });

  it('toxic: the same competition', () => {
    const r = run('toxic', 2);
    const shared = r.markets.filter((cid) => (r.earned.get(cid)?.size ?? 0) >= 2);
    expect(shared.length / r.markets.length).toBeGreaterThan(0.8);
  });

  it('calm: the providers do not chase the band (no second provider on the rewarded markets)', () => {
    const r = run('calm', 1);
    const shared = r.markets.filter((cid) => (r.earned.get(cid)?.size ?? 0) >= 2);
    expect(shared.length).toBe(0);
  });
});
