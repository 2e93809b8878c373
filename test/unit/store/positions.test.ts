import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import {
  PositionAccumulator,
  accumulate,
  derivePositions,
  pnlOf,
  type PositionFill,
} from '../../../src/store/positions.ts';

const M = 'm' as ConditionId;
const T = 't' as TokenId;

const fillArb = fc.record({
  side: fc.constantFrom<'BUY' | 'SELL'>('BUY', 'SELL'),
  price: fc.integer({ min: 1, max: 9999 }),
  size: fc.integer({ min: 0, max: 5_000_000_000 }),
  fee: fc.integer({ min: 0, max: 1_000_000 }),
});
const toFill = (f: { side: 'BUY' | 'SELL'; price: number; size: number; fee: number }): PositionFill => ({
  market: M,
  tokenId: T,
  side: f.side,
  price: f.price as Pips,
  size: f.size as Micro,
  fee: f.fee as Micro,
});

describe('position math (property)', () => {
  it('realized + unrealized at any mark equals the cash flow plus the marked position, exactly', () => {
    fc.assert(
      fc.property(fc.array(fillArb, { maxLength: 60 }), fc.integer({ min: 0, max: 10_000 }), (fs, mark) => {
        const a = new PositionAccumulator(M, T);
        let cash = 0n;
        let size = 0n;
        for (const f of fs) {
          a.add(toFill(f));
          const d = f.side === 'BUY' ? 1n : -1n;
          cash -= d * BigInt(f.size) * BigInt(f.price);
          size += d * BigInt(f.size);
        }
        expect(a.size).toBe(size);
        expect(a.realized + a.unrealizedAt(mark)).toBe(cash + size * BigInt(mark));
      }),
      { numRuns: 500 },
    );
  });

  it('a round trip back to flat realizes exactly the cash flow', () => {
    fc.assert(
      fc.property(fc.array(fillArb, { minLength: 1, maxLength: 30 }), (fs) => {
        const fills = fs.map(toFill);
        let net = 0;
        for (const f of fills) net += f.side === 'BUY' ? f.size : -f.size;
        if (net !== 0)
          fills.push({
            market: M,
            tokenId: T,
            side: net > 0 ? 'SELL' : 'BUY',
            price: 5000 as Pips,
            size: Math.abs(net) as Micro,
            fee: 0 as Micro,
          });
        const [p] = derivePositions(fills);
        let cash = 0n;
        for (const f of fills) cash += (f.side === 'SELL' ? 1n : -1n) * BigInt(f.size) * BigInt(f.price);
        expect(p!.size).toBe(0);
        expect(p!.cost).toBe(0);
        expect(p!.avgPrice).toBe(0);
        // floor division of the exact pip-micro amount
        const floor = cash >= 0n ? cash / 10_000n : -((-cash + 9_999n) / 10_000n);
        expect(p!.realized).toBe(Number(floor));
      }),
      { numRuns: 300 },
    );
  });

  it('the total ties out with cash + marked positions, floored once (trial 8 F6): several tokens', () => {
    const T2 = 't2' as TokenId;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fillArb, fc.boolean()), { maxLength: 30 }),
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000 }),
        (fs, m1, m2) => {
          let cash = 0n; // pip-micro, fees apart
          let fees = 0;
          const size = new Map<TokenId, bigint>();
          const fills = fs.map(([f, second]) => {
            const tokenId = second ? T2 : T;
            const d = f.side === 'BUY' ? 1n : -1n;
            cash -= d * BigInt(f.size) * BigInt(f.price);
            fees += f.fee;
            size.set(tokenId, (size.get(tokenId) ?? 0n) + d * BigInt(f.size));
            return { ...toFill(f), tokenId };
          });
          const marked = (size.get(T) ?? 0n) * BigInt(m1) + (size.get(T2) ?? 0n) * BigInt(m2);
          const exact = cash + marked;
          const floor = exact >= 0n ? exact / 10_000n : -((-exact + 9_999n) / 10_000n);
          const r = pnlOf(
            accumulate(fills),
            new Map([
              [T, m1],
              [T2, m2],
            ]),
          );
          expect(r.total).toBe(Number(floor) - fees);
          expect(r.realized + r.unrealized).toBe(Number(floor));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('total = realized + unrealized − fees', () => {
    fc.assert(
      fc.property(fc.array(fillArb, { maxLength: 20 }), fc.integer({ min: 1, max: 9999 }), (fs, mark) => {
        const r = pnlOf(accumulate(fs.map(toFill)), new Map([[T, mark]]));
        expect(r.total).toBe(r.realized + r.unrealized - r.fees);
        expect(r.unmarked).toEqual([]);
      }),
    );
  });
});

describe('position decimals (what `positions --source store` prints)', () => {
  it("are exact from the pip-micro amounts at the venue's 6 decimals, rounded once (not pips, not floored)", () => {
    const a = new PositionAccumulator(M, T);
    a.add(toFill({ side: 'BUY', price: 3876, size: 4_000_000, fee: 0 }));
    a.add(toFill({ side: 'BUY', price: 3880, size: 1_000_000, fee: 0 }));
    a.add(toFill({ side: 'SELL', price: 4000, size: 1_333_333, fee: 0 }));
    // exact: avg 0.38768000001…, realized 0.0164266626, cost 1.4214934626
    expect(a.snapshot()).toMatchObject({ avgPrice: 3877, realized: 16426 });
    expect(a.decimals()).toEqual({ tokenId: T, avgPrice: '0.38768', cost: '1.421493', realized: '0.016427' });
    // a short position: cost and realized keep their signs, the average price is positive
    const s = new PositionAccumulator(M, T);
    s.add(toFill({ side: 'SELL', price: 6001, size: 3_000_000, fee: 0 }));
    s.add(toFill({ side: 'BUY', price: 5000, size: 1_000_001, fee: 0 }));
    expect(s.decimals()).toMatchObject({ avgPrice: '0.6001', cost: '-1.200199', realized: '0.1001' });
    expect(new PositionAccumulator(M, T).decimals()).toMatchObject({ avgPrice: '0', cost: '0', realized: '0' });
  });
});

describe('a move at an exact price in millionths (an adjustment at the venue average price: trial 13 F10)', () => {
  it("keeps the venue's 6 decimals: average price, cost and the realized PnL of a later sale", () => {
    // trial 13: 156.27 shares at the venue's 0.652231 (pips would say 0.6522: 0.0016 USDC off)
    const a = new PositionAccumulator(M, T);
    a.move('BUY', 156_270_000, 6522, 652_231);
    expect(a.decimals()).toEqual({ tokenId: T, avgPrice: '0.652231', cost: '101.924138', realized: '0' });
    expect(a.snapshot()).toMatchObject({ avgPrice: 6522, cost: 101_924_138 });
    a.add(toFill({ side: 'SELL', price: 7000, size: 56_270_000, fee: 0 }));
    // (0.70 - 0.652231) x 56.27 = 2.68796163
    expect(a.decimals()).toMatchObject({ avgPrice: '0.652231', realized: '2.687962' });
    // without the exact price: the pips' average, off by 0.000031 a share
    const b = new PositionAccumulator(M, T);
    b.move('BUY', 156_270_000, 6522);
    expect(b.decimals().avgPrice).toBe('0.6522');
    // a fill-only sequence is unchanged by the new path (the same as `add` without fees)
    const c = new PositionAccumulator(M, T);
    c.move('BUY', 4_000_000, 3876, 387_600);
    c.move('SELL', 1_333_333, 4000, 400_000);
    const d = new PositionAccumulator(M, T);
    d.move('BUY', 4_000_000, 3876);
    d.move('SELL', 1_333_333, 4000);
    expect(c.decimals()).toEqual(d.decimals());
    expect(c.snapshot()).toEqual(d.snapshot());
  });
});
