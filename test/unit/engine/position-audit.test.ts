import { describe, expect, it } from 'vitest';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { Holdings } from '../../../src/core/venue.ts';
import {
  causesOf,
  positionDiffs,
  PositionAuditor,
  type AuditMarkets,
  type PositionAdjustment,
} from '../../../src/engine/position-audit.ts';

const M = '0xm1' as ConditionId;
const Y = 'yes1' as TokenId;
const N = 'no1' as TokenId;
const markets = (winner?: TokenId | null): AuditMarkets => ({
  pair: (t) => (t === Y ? { market: M, other: N } : t === N ? { market: M, other: Y } : undefined),
  winner: () => winner,
});
const h = (tokenId: string, size: number, avgPrice?: number): Holdings['tokens'][number] => ({
  tokenId: tokenId as TokenId,
  market: M,
  size: size as Micro,
  ...(avgPrice !== undefined ? { avgPrice: avgPrice as Pips } : {}),
});

describe('positionDiffs', () => {
  it('finds nothing when the venue and the ledger agree', () => {
    expect(positionDiffs([h(Y, 5_000_000)], [{ tokenId: Y, market: M, size: 5_000_000 }], [])).toEqual([]);
  });
  it('a token held at the venue only, and one in the ledger only, are both differences', () => {
    const d = positionDiffs([h(Y, 2_000_000, 4000)], [{ tokenId: N, market: M, size: 3_000_000 }], []);
    expect(d).toEqual([
      { tokenId: Y, market: M, venue: 2_000_000, ledger: 0, avgPrice: 4000 },
      { tokenId: N, market: M, venue: 0, ledger: 3_000_000 },
    ]);
  });
  it('unsettled fills the venue has not applied yet make no difference; applied ones neither', () => {
    const ledger = [{ tokenId: Y, market: M, size: 7_000_000 }];
    const unsettled = [{ tokenId: Y, side: 'BUY' as const, size: 2_000_000 }];
    expect(positionDiffs([h(Y, 5_000_000)], ledger, unsettled)).toEqual([]);
    expect(positionDiffs([h(Y, 7_000_000)], ledger, unsettled)).toEqual([]);
    expect(positionDiffs([h(Y, 6_000_000)], ledger, unsettled)).toHaveLength(1);
  });
  it('a flat ledger row and no holding is no difference', () => {
    expect(positionDiffs([], [{ tokenId: Y, market: M, size: 0 }], [])).toEqual([]);
  });
});

describe('causesOf', () => {
  const d = (tokenId: string, venue: number, ledger: number) => ({ tokenId, market: M, venue, ledger });
  it('both tokens up by the same amount: a split; down: a merge', () => {
    expect([...causesOf([d(Y, 5, 0), d(N, 5, 0)], markets(), undefined, undefined).values()]).toEqual([
      'split',
      'split',
    ]);
    expect([...causesOf([d(Y, 0, 5), d(N, 1, 6)], markets(), undefined, undefined).values()]).toEqual([
      'merge',
      'merge',
    ]);
  });
  it("a resolved market's token gone: a redeem; one token alone: unknown", () => {
    expect(causesOf([d(Y, 0, 5)], markets(Y), undefined, undefined).get(Y)).toBe('redeem');
    expect(causesOf([d(Y, 0, 5)], markets(undefined), undefined, undefined).get(Y)).toBe('unknown');
    // both tokens of a resolved market gone together: redeemed, not merged
    expect([...causesOf([d(Y, 0, 5), d(N, 0, 5)], markets(N), undefined, undefined).values()]).toEqual([
      'redeem',
      'redeem',
    ]);
  });
  it("the venue's activity wins; a new epoch's opening cause applies to all", () => {
    expect(causesOf([d(Y, 5, 0)], markets(), new Map([[Y, 'TRADE' as const]]), undefined).get(Y)).toBe(
      'external_trade',
    );
    expect(causesOf([d(Y, 5, 0), d(N, 5, 0)], markets(), undefined, 'venue_reset').get(N)).toBe('venue_reset');
  });
});

describe('PositionAuditor', () => {
  const setup = (tokens: Holdings['tokens'], ledgerSize: number) => {
    let size = ledgerSize;
    let fills = 0;
    const recorded: PositionAdjustment[] = [];
    const applied: PositionAdjustment[] = [];
    const holdings: Holdings = { collateral: { available: 100 as Micro, reserved: 0 as Micro }, tokens };
    const auditor = new PositionAuditor({
      venue: { holdings: async () => holdings },
      ledger: {
        positions: () => [{ tokenId: Y, market: M, size }],
        unsettledFills: () => [],
        fillCount: () => fills,
        recordAdjustment: (a) => {
          recorded.push(a);
          size += a.size;
        },
      },
      markets: markets(),
      mid: () => 5000,
      apply: (a) => applied.push(a),
      now: () => 0,
    });
    return {
      auditor,
      recorded,
      applied,
      fill: () => fills++,
      setVenue: (s: number) => ((holdings.tokens as unknown as { size: number }[])[0]!.size = s),
    };
  };
  it('at start, adjusts at once, at the venue price when given, and applies it to the state', async () => {
    const s = setup([h(Y, 3_000_000, 4200)], 1_000_000);
    const r = await s.auditor.audit({ confirm: false });
    expect(r.adjusted).toEqual([
      expect.objectContaining({ tokenId: Y, size: 2_000_000, price: 4200, priceSource: 'venue', cause: 'unknown' }),
    ]);
    expect(s.applied).toEqual(s.recorded);
    // agreed now: nothing more
    expect((await s.auditor.audit({ confirm: true })).adjusted).toEqual([]);
  });
  it("books at the venue's average price to its 6 decimals when the venue gives them (trial 13 F10); not the mid's", async () => {
    const s = setup([{ ...h(Y, 3_000_000, 4200), avgPriceMicro: 421_987 }], 1_000_000);
    const r = await s.auditor.audit({ confirm: false });
    expect(r.adjusted).toEqual([
      expect.objectContaining({ tokenId: Y, size: 2_000_000, price: 4200, priceMicro: 421_987, priceSource: 'venue' }),
    ]);
    // no venue price: the mid, in whole pips (no priceMicro)
    const m = setup([h(Y, 3_000_000)], 1_000_000);
    const [a] = (await m.auditor.audit({ confirm: false })).adjusted;
    expect(a).toMatchObject({ price: 5000, priceSource: 'mid' });
    expect(a).not.toHaveProperty('priceMicro');
  });
  it('while trading, a difference must be seen twice with no fill of the token in between', async () => {
    const s = setup([h(Y, 3_000_000)], 1_000_000);
    expect((await s.auditor.audit({ confirm: true })).adjusted).toEqual([]);
    s.fill(); // a fill of the token arrived meanwhile: start over
    expect((await s.auditor.audit({ confirm: true })).pending).toBe(1);
    const r = await s.auditor.audit({ confirm: true });
    expect(r.adjusted).toEqual([
      expect.objectContaining({ size: 2_000_000, price: 5000, priceSource: 'mid', cause: 'unknown' }),
    ]);
  });
  it('a TRADE the ledger lacks is booked as its fill (bookTrades), not adjusted; what the trades leave is (trial 13 F16)', async () => {
    for (const [bookedSize, wantAdjusted] of [
      [2_000_000, []],
      [1_500_000, [500_000]],
    ] as const) {
      let size = 1_000_000;
      const recorded: PositionAdjustment[] = [];
      const since: number[] = [];
      const auditor = new PositionAuditor({
        venue: {
          holdings: async () => ({
            collateral: { available: 0 as Micro, reserved: 0 as Micro },
            tokens: [h(Y, 3_000_000)],
          }),
        },
        ledger: {
          positions: () => [{ tokenId: Y, market: M, size }],
          unsettledFills: () => [],
          fillCount: () => 0,
          recordAdjustment: (a) => {
            recorded.push(a);
            size += a.size;
          },
        },
        markets: markets(),
        mid: () => 5000,
        activity: async () => new Map([[Y, 'TRADE' as const]]),
        // the trade (another client's on the same wallet) booked as an external fill
        bookTrades: async (s) => {
          since.push(s);
          size += bookedSize;
          return 1;
        },
        now: () => 100_000_000,
      });
      await auditor.audit({ confirm: true });
      const r = await auditor.audit({ confirm: true });
      expect(since).toEqual([100_000_000 - 24 * 3_600_000]);
      expect(r.adjusted.map((a) => a.size)).toEqual(wantAdjusted);
      expect(size).toBe(3_000_000);
    }
  });
  it('a difference that changes between two audits is not adjusted', async () => {
    const s = setup([h(Y, 3_000_000)], 1_000_000);
    await s.auditor.audit({ confirm: true });
    s.setVenue(4_000_000);
    expect((await s.auditor.audit({ confirm: true })).adjusted).toEqual([]);
    expect((await s.auditor.audit({ confirm: true })).adjusted).toHaveLength(1);
  });
});

describe('PositionAuditor: a market it learns by loading its record', () => {
  const audit = (load: AuditMarkets['load']) => {
    let known = false;
    const recorded: PositionAdjustment[] = [];
    const auditor = new PositionAuditor({
      venue: { holdings: async () => ({ collateral: { available: 0 as Micro, reserved: 0 as Micro }, tokens: [] }) },
      ledger: {
        positions: () => [
          { tokenId: Y, market: M, size: 20_000_000 },
          { tokenId: N, market: M, size: 20_000_000 },
        ],
        unsettledFills: () => [],
        fillCount: () => 0,
        recordAdjustment: (a) => recorded.push(a),
      },
      // nothing known of the market until it is loaded (a market the daemon does not follow)
      markets: {
        pair: (t) => (known ? markets(Y).pair(t) : undefined),
        winner: () => (known ? Y : undefined),
        ...(load !== undefined
          ? {
              load: async (ms: readonly string[]) => {
                await load(ms);
                known = true;
              },
            }
          : {}),
      },
      mid: () => 1500, // a resolved market's stale mid
      now: () => 0,
    });
    return { auditor, recorded };
  };
  it('a redeem in a resolved market the daemon does not follow is priced at the payout, not the mid', async () => {
    const loaded: string[][] = [];
    const s = audit(async (ms) => {
      loaded.push([...ms]);
    });
    await s.auditor.audit({ confirm: false });
    expect(loaded).toEqual([[M]]);
    expect(s.recorded).toEqual([
      expect.objectContaining({ tokenId: Y, size: -20_000_000, price: 10_000, priceSource: 'venue', cause: 'redeem' }),
      expect.objectContaining({ tokenId: N, size: -20_000_000, price: 0, priceSource: 'venue', cause: 'redeem' }),
    ]);
  });
  it('a record that cannot be read leaves the mid (the audit still books the difference)', async () => {
    const s = audit(async () => {
      throw new Error('venue down');
    });
    await s.auditor.audit({ confirm: false });
    expect(s.recorded.map((a) => [a.price, a.priceSource, a.cause])).toEqual([
      [1500, 'mid', 'unknown'],
      [1500, 'mid', 'unknown'],
    ]);
  });
});

describe('PositionAuditor: a split or merge made beside the daemon (trial 8 F10, F12)', () => {
  const both = (ledger: { y: number; n: number }, venue: { y: number; n: number }, mid = 5150.5) => {
    let fills = 0;
    const recorded: PositionAdjustment[] = [];
    const holdings: Holdings = {
      collateral: { available: 0 as Micro, reserved: 0 as Micro },
      // the venue's average prices of the two tokens do not add up to 1
      tokens: [h(Y, venue.y, 3720), h(N, venue.n, 9400)],
    };
    const auditor = new PositionAuditor({
      venue: { holdings: async () => holdings },
      ledger: {
        positions: () => [
          { tokenId: Y, market: M, size: ledger.y },
          { tokenId: N, market: M, size: ledger.n },
        ],
        unsettledFills: () => [],
        fillCount: () => fills,
        recordAdjustment: (a) => recorded.push(a),
      },
      markets: markets(),
      mid: (t) => (t === Y ? mid : 10_000 - mid),
      now: () => 0,
    });
    return { auditor, recorded, fill: () => fills++ };
  };

  it('both tokens moved by one amount: the legs are priced p and 1 - p (whole pips), whatever the cause', async () => {
    const s = both({ y: 64_000_000, n: 35_000_000 }, { y: 29_000_000, n: 0 });
    // a new epoch's first audit: the opening cause, and still a pair's prices
    const r = await s.auditor.audit({ confirm: false, opening: 'unknown' });
    expect(r.adjusted.map((a) => [a.tokenId, a.size, a.cause])).toEqual([
      [Y, -35_000_000, 'unknown'],
      [N, -35_000_000, 'unknown'],
    ]);
    const [a, b] = r.adjusted;
    expect(a!.price + b!.price).toBe(10_000);
    expect(a!.price).toBe(5151);
    expect(a!.priceSource).toBe('mid');
  });

  it('while trading, a pair-shaped difference is confirmed by two audits even with fills of its tokens in between', async () => {
    const s = both({ y: 0, n: 20_000_000 }, { y: 20_000_000, n: 40_000_000 });
    expect((await s.auditor.audit({ confirm: true })).pending).toBe(2);
    s.fill(); // the bot keeps trading the market
    const r = await s.auditor.audit({ confirm: true });
    expect(r.adjusted.map((a) => [a.tokenId, a.size, a.cause])).toEqual([
      [Y, 20_000_000, 'split'],
      [N, 20_000_000, 'split'],
    ]);
    expect(r.adjusted[0]!.price + r.adjusted[1]!.price).toBe(10_000);
  });

  it('a difference of one token alone still waits for an audit with no fill in between', async () => {
    const s = both({ y: 0, n: 20_000_000 }, { y: 20_000_000, n: 20_000_000 });
    await s.auditor.audit({ confirm: true });
    s.fill();
    expect((await s.auditor.audit({ confirm: true })).adjusted).toEqual([]);
  });
});

describe('causesOf: the latest activity of a traded token', () => {
  it("is a TRADE of the bot's own: a difference of both tokens by one amount is still a split or merge", () => {
    const diffs = [
      { tokenId: Y, market: M, venue: 20_000_000, ledger: 0 },
      { tokenId: N, market: M, venue: 40_000_000, ledger: 20_000_000 },
    ];
    const act = new Map([
      [Y as string, 'TRADE' as const],
      [N as string, 'TRADE' as const],
    ]);
    expect([...causesOf(diffs, markets(), act, undefined)]).toEqual([
      [Y, 'split'],
      [N, 'split'],
    ]);
    // one token alone: the activity's word
    expect([...causesOf(diffs.slice(0, 1), markets(), act, undefined)]).toEqual([[Y, 'external_trade']]);
  });
});
