/**
 * The exchange's position book for the relayer's operations: split and merge move no PnL, redeem
 * realises it, a conversion carries the cost basis over; exact micro-units.
 */
import { describe, expect, it } from 'vitest';
import { PositionBook } from '../../../../src/exchange/accounts/positions.ts';

const u = (x: number) => Math.round(x * 1_000_000);
const total = (b: PositionBook, a: string) =>
  b.positions(a).reduce((s, [, p]) => ({ cost: s.cost + p.cost, realized: s.realized + p.realized }), {
    cost: 0,
    realized: 0,
  });

describe('PositionBook', () => {
  it('a split books YES at the mark and NO at its complement, costs summing exactly to the amount', () => {
    const b = new PositionBook();
    b.split('a', 'Y', 'N', u(10.000001), 6000);
    expect(b.get('a', 'Y')).toMatchObject({ size: u(10.000001), cost: u(6.000001) });
    expect(b.get('a', 'N')).toMatchObject({ size: u(10.000001), cost: u(4) });
    expect(total(b, 'a')).toEqual({ cost: u(10.000001), realized: 0 });
  });

  it('a merge of what was split realises nothing; of what was bought cheaper, the difference', () => {
    const b = new PositionBook();
    b.split('a', 'Y', 'N', u(10), 5000);
    b.merge('a', 'Y', 'N', u(10), 7000);
    expect(total(b, 'a')).toEqual({ cost: 0, realized: 0 });
    b.fill('a', 'Y', 'BUY', 3000, u(5));
    b.fill('a', 'N', 'BUY', 6000, u(5));
    b.merge('a', 'Y', 'N', u(5), 4000);
    expect(total(b, 'a')).toEqual({ cost: 0, realized: u(0.5) }); // paid 4.5 for what merged into 5
  });

  it('redeem realises: winners at 1, losers at 0', () => {
    const b = new PositionBook();
    b.fill('a', 'Y', 'BUY', 4000, u(10));
    b.fill('a', 'N', 'BUY', 5000, u(2));
    b.redeem('a', 'Y', u(10), u(10));
    b.redeem('a', 'N', u(2), 0);
    expect(b.get('a', 'Y')).toMatchObject({ size: 0, cost: 0, realized: u(6) });
    expect(b.get('a', 'N')).toMatchObject({ size: 0, cost: 0, realized: -u(1) });
  });

  it('a conversion carries the basis of the NO given up to the YES received, less the collateral', () => {
    const b = new PositionBook();
    b.fill('a', 'N1', 'BUY', 9000, u(3));
    b.fill('a', 'N2', 'BUY', 8000, u(3));
    // NO of 2 markets of 4: 1 x 3 collateral back, 3 YES of markets 3 and 4
    b.convert('a', ['N1', 'N2'], ['Y3', 'Y4'], u(3), u(3));
    expect(b.get('a', 'Y3')).toMatchObject({ size: u(3), cost: u(1.05) });
    expect(b.get('a', 'Y4')).toMatchObject({ size: u(3), cost: u(1.05) });
    expect(total(b, 'a')).toEqual({ cost: u(2.1), realized: 0 });
    // a basis below the collateral received is a gain
    const c = new PositionBook();
    c.fill('a', 'N1', 'BUY', 1000, u(3));
    c.fill('a', 'N2', 'BUY', 1000, u(3));
    c.convert('a', ['N1', 'N2'], ['Y3'], u(3), u(3));
    expect(total(c, 'a')).toEqual({ cost: 0, realized: u(2.4) });
  });
});
