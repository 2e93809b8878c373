import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../../src/core/clock.ts';
import { ValidationError } from '../../../../src/core/errors.ts';
import { DAY_MS, epochPool, SHARE_SCALE, type RewardConfig } from '../../../../src/core/rewards.ts';
import type { Micro, Pips } from '../../../../src/core/units.ts';
import type { TimedCommand } from '../../../../src/exchange/commands.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../../../../src/exchange/exchange.ts';
import { conditionIdFor, initialMarkets } from '../../../../src/exchange/markets.ts';
import { epochDate, rewardOptions, type RewardOptions } from '../../../../src/exchange/rewards/ledger.ts';

const SH = 1_000_000;
/** 1440 USDC a day: a 2-minute epoch's pool is 2 USDC. */
const CFG: RewardConfig = { maxSpread: 300 as Pips, minSize: (20 * SH) as Micro, dailyRate: (1440 * SH) as Micro };
const EPOCH = 120_000;
/** 2026-01-01 00:00:30 UTC: inside the epoch [00:00, 00:02). */
const T0 = Date.UTC(2026, 0, 1, 0, 0, 30);
const A = '0x000000000000000000000000000000000000000a';
const B = '0x000000000000000000000000000000000000000b';

function setup(rewards: Partial<RewardOptions> = {}, t0 = T0) {
  const clock = new VirtualClock(t0);
  const journal: TimedCommand[] = [];
  const ex = new PaperExchange({
    ...DEFAULT_EXCHANGE_OPTIONS,
    clock,
    rewards: { epochMs: EPOCH, sampleMs: 10_000, ...rewards },
  });
  ex.setSink({ append: (c) => journal.push(structuredClone(c)) });
  const meta = initialMarkets(3, t0)[0]!;
  const entry = ex.addMarket({ ...meta, tick: '0.01' });
  const cid = entry.meta.conditionId;
  const [yes, no] = entry.meta.tokens;
  for (const a of [A, B]) ex.fund(a, 100_000 * SH);
  let n = 0;
  const rest = (account: string, token: string, side: 'BUY' | 'SELL', price: number, shares: number) => {
    const r = ex.placeInternal({ id: `o${++n}`, account, tokenId: token, side, price, size: shares * SH, type: 'GTC' });
    if (!r.ok || r.status !== 'live') throw new Error(`not resting ${JSON.stringify(r)}`);
    return r.order.id;
  };
  return { clock, ex, cid, yes, no, rest, journal };
}

describe('the exchange pays liquidity rewards (ledger, epochs)', () => {
  it('two makers split the pool by their normalised scores; the minimum payout holds the small one back', () => {
    const { clock, ex, cid, yes, no, rest } = setup();
    ex.setRewardConfig(cid, CFG);
    rest(A, yes, 'BUY', 4900, 100); // A quotes both sides at 1 cent: Q_min = 44.4
    rest(A, no, 'BUY', 4900, 100); // (a NO bid at 0.49: a YES ask at 0.51)
    rest(B, yes, 'BUY', 4900, 100); // B one side only: Q_min = 44.4 / 3 (the midpoint is in [0.10, 0.90])
    ex.start();
    expect(ex.rewards.epochStart).toBe(Date.UTC(2026, 0, 1));
    expect(ex.rewards.epochEnd).toBe(Date.UTC(2026, 0, 1) + EPOCH);
    const before = ex.engine.balance(A).collateral;
    clock.advance(EPOCH); // past the epoch's end
    const pool = epochPool(CFG.dailyRate, EPOCH);
    expect(pool).toBe(2 * SH);
    const rows = ex.rewards.history();
    expect(rows).toEqual([
      {
        epochStart: Date.UTC(2026, 0, 1),
        epochEnd: Date.UTC(2026, 0, 1, 0, 2),
        date: '2026-01-01',
        market: cid,
        maker: A,
        earned: 1_500_000,
        paid: 1_500_000,
      },
      {
        epochStart: Date.UTC(2026, 0, 1),
        epochEnd: Date.UTC(2026, 0, 1, 0, 2),
        date: '2026-01-01',
        market: cid,
        maker: B,
        earned: 500_000,
        paid: 0,
      },
    ]);
    // credited to the micro (A's collateral reserved for its bids is unchanged)
    expect(ex.engine.balance(A).collateral - before).toBe(1_500_000);
    ex.stop();
  });

  it('samples at multiples of sampleMs; a sample at the epoch boundary belongs to the next epoch', () => {
    const { clock, ex, cid, yes, no, rest } = setup();
    ex.setRewardConfig(cid, CFG);
    rest(A, yes, 'BUY', 4900, 100);
    rest(A, no, 'BUY', 4900, 100);
    ex.start();
    clock.advance(9_000); // 00:00:39
    expect(ex.rewards.epochScores(cid)?.samples ?? 0).toBe(0);
    clock.advance(1_000); // 00:00:40
    expect(ex.rewards.epochScores(cid)?.samples).toBe(1);
    clock.advance(80_000); // 00:02:00: the epoch (samples at :40 ... 1:50, 8 of them) closes, then :00 is sampled
    expect(ex.rewards.history()).toHaveLength(1);
    expect(ex.rewards.history()[0]!.paid).toBe(2 * SH);
    expect(ex.rewards.epochStart).toBe(Date.UTC(2026, 0, 1, 0, 2));
    expect(ex.rewards.epochScores(cid)?.samples).toBe(1);
    ex.stop();
  });

  it('standing: the running epoch so far, what it would pay now', () => {
    const { clock, ex, cid, yes, no, rest } = setup();
    ex.setRewardConfig(cid, CFG);
    rest(A, yes, 'BUY', 4900, 100);
    rest(A, no, 'BUY', 4900, 100);
    rest(B, yes, 'BUY', 4900, 100);
    ex.start();
    clock.advance(30_000); // 00:01:00, samples at :40, :50, 1:00
    const now = clock.now();
    const sA = ex.rewards.standing(A, now);
    const poolSoFar = epochPool(CFG.dailyRate, 60_000);
    expect(sA).toEqual([{ market: cid, share: (SHARE_SCALE * 3n) / 4n, poolSoFar, earnedSoFar: 750_000 }]);
    expect(ex.rewards.standing(B, now)[0]!.earnedSoFar).toBe(250_000);
    expect(ex.rewards.standing('0x00000000000000000000000000000000000000cc', now)).toEqual([]);
    ex.stop();
  });

  it('orders below the min size, outside the band, or on a market without rewards earn nothing', () => {
    const { clock, ex, cid, yes, no, rest } = setup();
    rest(A, yes, 'BUY', 4900, 100);
    rest(A, no, 'BUY', 4900, 100);
    ex.start();
    clock.advance(EPOCH);
    expect(ex.rewards.history()).toEqual([]); // no config: nothing sampled, nothing paid
    ex.setRewardConfig(cid, CFG);
    rest(B, yes, 'BUY', 4800, 10); // inside the band, below the min size
    rest(B, yes, 'BUY', 4600, 500); // 4 cents from the midpoint
    clock.advance(EPOCH);
    expect(ex.rewards.history().map((r) => r.maker)).toEqual([A]);
    ex.stop();
  });

  it('clearing a config drops the epoch; a closed market is not sampled', () => {
    const { clock, ex, cid, yes, no, rest } = setup();
    ex.setRewardConfig(cid, CFG);
    rest(A, yes, 'BUY', 4900, 100);
    rest(A, no, 'BUY', 4900, 100);
    ex.start();
    clock.advance(60_000);
    ex.setRewardConfig(cid, null);
    expect(ex.rewards.configOf(cid)).toBeNull();
    clock.advance(EPOCH);
    expect(ex.rewards.history()).toEqual([]);
    ex.setRewardConfig(cid, CFG);
    ex.closeMarket(cid);
    clock.advance(EPOCH);
    expect(ex.rewards.history()).toEqual([]);
    ex.stop();
  });

  it('a day epoch ends at midnight UTC and is dated by its day; a short epoch by the date it ends in', () => {
    expect(epochDate(Date.UTC(2026, 0, 2))).toBe('2026-01-01');
    expect(epochDate(Date.UTC(2026, 0, 1, 12, 2))).toBe('2026-01-01');
    const { clock, ex, cid, yes, no, rest } = setup({ epochMs: DAY_MS, sampleMs: 60_000 }, Date.UTC(2026, 0, 1, 23, 0));
    ex.setRewardConfig(cid, CFG);
    rest(A, yes, 'BUY', 4900, 100);
    rest(A, no, 'BUY', 4900, 100);
    ex.start();
    clock.advance(3_600_000);
    const [row] = ex.rewards.history();
    expect(row).toMatchObject({ epochEnd: Date.UTC(2026, 0, 2), date: '2026-01-01', paid: 1440 * SH });
    ex.stop();
  });

  it('payouts and configs are journaled: a replay restores the credits and the history', () => {
    const { clock, ex, cid, yes, no, rest, journal } = setup();
    ex.setRewardConfig(cid, CFG);
    rest(A, yes, 'BUY', 4900, 100);
    rest(A, no, 'BUY', 4900, 100);
    ex.start();
    clock.advance(2 * EPOCH);
    ex.stop();
    expect(ex.rewards.history()).toHaveLength(2);
    const copy = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock: new VirtualClock(clock.now()) });
    copy.replay(journal);
    expect(copy.rewards.history()).toEqual(ex.rewards.history());
    expect(copy.rewards.configOf(cid)).toEqual(CFG);
    expect(copy.engine.balance(A)).toEqual(ex.engine.balance(A));
  });

  it('never pays an epoch twice: a restored exchange whose clock is back inside a paid epoch skips it', () => {
    const { clock, ex, cid, yes, no, rest, journal } = setup();
    ex.setRewardConfig(cid, CFG);
    rest(A, yes, 'BUY', 4900, 100);
    rest(A, no, 'BUY', 4900, 100);
    ex.start();
    clock.advance(EPOCH); // the first epoch [00:00, 00:02) is paid at 00:02
    ex.stop();
    const paid = ex.rewards.history()[0]!;
    const back = new VirtualClock(paid.epochEnd - 30_000);
    const copy = new PaperExchange({
      ...DEFAULT_EXCHANGE_OPTIONS,
      clock: back,
      rewards: { epochMs: EPOCH, sampleMs: 10_000 },
    });
    copy.replay(journal);
    const before = copy.engine.balance(A).collateral;
    copy.start();
    back.advance(60_000);
    expect(copy.rewards.history()).toEqual([paid]);
    expect(copy.engine.balance(A).collateral).toBe(before);
    // the next epoch pays as usual
    back.advance(EPOCH);
    expect(copy.rewards.history()).toHaveLength(2);
    copy.stop();
  });

  it('standing defaults to the exchange clock', () => {
    const { clock, ex, cid, yes, no, rest } = setup();
    ex.setRewardConfig(cid, CFG);
    rest(A, yes, 'BUY', 4900, 100);
    rest(A, no, 'BUY', 4900, 100);
    ex.start();
    clock.advance(30_000);
    expect(ex.rewards.standing(A)).toEqual(ex.rewards.standing(A, clock.now()));
    expect(ex.rewards.standing(A)[0]!.earnedSoFar).toBe(epochPool(CFG.dailyRate, 60_000));
    ex.stop();
  });

  it('refuses bad configs and options, changing nothing', () => {
    const { ex, cid } = setup();
    expect(() => ex.setRewardConfig(cid, { ...CFG, maxSpread: 0 as Pips })).toThrow(ValidationError);
    expect(() => ex.setRewardConfig(cid, { ...CFG, dailyRate: 0 as Micro })).toThrow(ValidationError);
    expect(() => ex.setRewardConfig(cid, { ...CFG, minSize: 1.5 as Micro })).toThrow(ValidationError);
    expect(() => ex.setRewardConfig(conditionIdFor('nope'), CFG)).toThrow(/unknown market/);
    expect(ex.rewards.configOf(cid)).toBeNull();
    expect(() => rewardOptions({ epochMs: 999 })).toThrow(ValidationError);
    expect(() => rewardOptions({ sampleMs: 50 })).toThrow(ValidationError);
    expect(() => rewardOptions({ epochMs: 60_000, sampleMs: 120_000 })).toThrow(ValidationError);
    expect(() => rewardOptions({ minPayout: -1 })).toThrow(ValidationError);
    expect(rewardOptions()).toEqual({ epochMs: DAY_MS, sampleMs: 60_000, minPayout: 1_000_000 });
  });
});
