import { describe, expect, it } from 'vitest';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { CtfOperationResult, Holdings, MarketInfo } from '../../../src/core/venue.ts';
import {
  CollateralKeeper,
  pairLegs,
  pairPrice,
  redeemLegs,
  type OperationLeg,
} from '../../../src/execution/collateral-keeper.ts';

const M = '0xm' as ConditionId;
const Y = 'y' as TokenId;
const N = 'n' as TokenId;
const market = {
  market: M,
  question: 'q',
  tokens: [
    { tokenId: Y, outcome: 'Yes' },
    { tokenId: N, outcome: 'No' },
  ],
  tick: '0.01',
  minOrderSize: 5_000_000,
  negRisk: false,
  feeRateBps: 0,
  active: true,
  endDate: '2030-01-01T00:00:00Z',
} as unknown as MarketInfo;

describe('legs', () => {
  it('a pair at p and 1 - p; a redeem at 1 for the winner and 0 for the loser', () => {
    expect(pairLegs(market, -3_000_000, 6200)).toEqual([
      { tokenId: Y, size: -3_000_000, price: 6200 },
      { tokenId: N, size: -3_000_000, price: 3800 },
    ]);
    const op: CtfOperationResult = {
      kind: 'redeem',
      market: M,
      tx: 't',
      amount: 4_000_000 as Micro,
      collateral: 4_000_000,
      tokens: [
        { tokenId: Y, delta: -4_000_000 },
        { tokenId: N, delta: -1_000_000 },
      ],
    };
    expect(redeemLegs(op, Y)).toEqual([
      { tokenId: Y, size: -4_000_000, price: 10_000 },
      { tokenId: N, size: -1_000_000, price: 0 },
    ]);
  });
  it('prices a pair at the YES mid, else 1 - the NO mid, else 0.5', () => {
    expect(pairPrice(market, (t) => (t === Y ? 6150.5 : undefined))).toBe(6151);
    expect(pairPrice(market, (t) => (t === N ? 3000 : undefined))).toBe(7000);
    expect(pairPrice(market, () => undefined)).toBe(5000);
  });
});

describe('CollateralKeeper', () => {
  const setup = (
    tokens: Holdings['tokens'],
    o: { winner?: TokenId | null; release?: boolean; own?: (t: TokenId) => number } = {},
  ) => {
    const calls: string[] = [];
    const logged: { obj: object; msg: string }[] = [];
    const recorded: { op: CtfOperationResult; legs: readonly OperationLeg[] }[] = [];
    let holdings: Holdings = { collateral: { available: 0 as Micro, reserved: 0 as Micro }, tokens };
    const keeper = new CollateralKeeper({
      venue: {
        holdings: async () => holdings,
        merge: async (m, amount) => {
          calls.push(`merge ${amount}`);
          return {
            kind: 'merge',
            market: m,
            tx: 'x',
            amount,
            collateral: amount,
            tokens: [
              { tokenId: Y, delta: -amount },
              { tokenId: N, delta: -amount },
            ],
          };
        },
        redeem: async (m) => {
          calls.push('redeem');
          return {
            kind: 'redeem',
            market: m,
            tx: 'r',
            amount: 0 as Micro,
            collateral: 2,
            tokens: [{ tokenId: Y, delta: -2 }],
          };
        },
      },
      markets: () => [market],
      winner: () => o.winner,
      mid: () => 5000 as Pips,
      mergeMinSize: 5_000_000,
      redeem: true,
      record: (op, legs) => recorded.push({ op, legs }),
      log: { info: (obj, msg) => logged.push({ obj, msg }), warn: (obj, msg) => logged.push({ obj, msg }) },
      ...(o.own ? { own: o.own } : {}),
      ...(o.release
        ? {
            release: async (_m: ConditionId, cancelAsks: boolean) => {
              calls.push(cancelAsks ? 'release' : 'pause');
              // the asks are down: everything is free now
              holdings = { ...holdings, tokens: holdings.tokens.map((t) => ({ ...t, available: t.size })) };
              return () => calls.push('resume');
            },
          }
        : {}),
    });
    return { keeper, calls, recorded, logged };
  };
  const t = (tokenId: TokenId, size: number, available = size) => ({
    tokenId,
    market: M,
    size: size as Micro,
    available: available as Micro,
  });

  it('merges the smaller free holding of the two when both reach the minimum, and records it at p / 1 - p', async () => {
    const s = setup([t(Y, 9_000_000), t(N, 6_000_000)]);
    const r = await s.keeper.run();
    expect(r.merged).toHaveLength(1);
    expect(s.calls).toEqual(['merge 6000000']);
    // with a way to hold placing, placing pauses around the merge (no ask of tokens being merged)
    const held = setup([t(Y, 9_000_000), t(N, 6_000_000)], { release: true });
    await held.keeper.run();
    expect(held.calls).toEqual(['pause', 'merge 6000000', 'resume']);
    expect(s.recorded[0]!.legs).toEqual([
      { tokenId: Y, size: -6_000_000, price: 5000 },
      { tokenId: N, size: -6_000_000, price: 5000 },
    ]);
  });
  it('below the minimum: nothing; reserved by asks: released first (and resumed), then merged', async () => {
    expect((await setup([t(Y, 4_000_000), t(N, 9_000_000)]).keeper.run()).merged).toEqual([]);
    const reserved = setup([t(Y, 8_000_000, 0), t(N, 8_000_000, 1_000_000)], { release: true });
    await reserved.keeper.run();
    expect(reserved.calls).toEqual(['release', 'merge 8000000', 'resume']);
    const noRelease = setup([t(Y, 8_000_000, 0), t(N, 8_000_000, 1_000_000)]);
    expect((await noRelease.keeper.run()).merged).toEqual([]);
  });
  it('logs the amounts merged and redeemed in decimal units (the pretty log reads them as they are)', async () => {
    const merge = setup([t(Y, 10_000_000), t(N, 10_000_000)]);
    await merge.keeper.run();
    expect(merge.logged).toEqual([
      {
        obj: { market: M, amount: '10', tx: 'x', collateral: '10' },
        msg: 'merged complementary holdings into collateral',
      },
    ]);
    const redeem = setup([t(Y, 2), t(N, 2)], { winner: Y });
    await redeem.keeper.run();
    expect(redeem.logged).toEqual([
      { obj: { market: M, tx: 'r', collateral: '0.000002' }, msg: 'redeemed the tokens of a resolved market' },
    ]);
  });
  it('a resolved market is redeemed, not merged; the winner leg at 1', async () => {
    const s = setup([t(Y, 2), t(N, 2)], { winner: Y });
    await s.keeper.run();
    expect(s.calls).toEqual(['redeem']);
    expect(s.recorded[0]!.legs).toEqual([{ tokenId: Y, size: -2, price: 10_000 }]);
  });
  it("a fleet member merges no more than its own ledger holds of both tokens (the wallet holds the others' too)", async () => {
    // the wallet holds 9 YES and 8 NO; this member's ledger 6 YES and 7 NO: it merges its own 6
    const own = setup([t(Y, 9_000_000), t(N, 8_000_000)], {
      own: (x) => (x === Y ? 6_000_000 : 7_000_000),
    });
    await own.keeper.run();
    expect(own.calls).toEqual(['merge 6000000']);
    // what it holds of one token is below the minimum: nothing, whatever the wallet holds
    const small = setup([t(Y, 9_000_000), t(N, 8_000_000)], { own: (x) => (x === Y ? 4_000_000 : 7_000_000) });
    expect((await small.keeper.run()).merged).toEqual([]);
    expect(small.calls).toEqual([]);
    // a short own position counts as none
    const short = setup([t(Y, 9_000_000), t(N, 8_000_000)], { own: (x) => (x === Y ? -1_000_000 : 7_000_000) });
    expect((await short.keeper.run()).merged).toEqual([]);
  });
});
