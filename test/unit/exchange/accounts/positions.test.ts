/**
 * The exchange's position book for the relayer's operations: split and merge move no PnL, redeem
 * realises it, a conversion carries the cost basis over; exact micro-units.
 */
import { describe, expect, it } from 'vitest';
import { avgPrice6, PositionBook } from '../../../../src/exchange/accounts/positions.ts';
import { PositionAccumulator } from '../../../../src/store/positions.ts';
import { formatAmount, type Micro, type Pips } from '../../../../src/core/units.ts';
import type { ConditionId, TokenId } from '../../../../src/core/ids.ts';

const cid = (s: string) => s as ConditionId;
const tok = (s: string) => s as TokenId;

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

describe('PositionBook vs the store (trial 8 F3)', () => {
  it('many fills at awkward prices: avg price, cost and realized equal the store figures to the micro', () => {
    // a deterministic sequence of buys and sells (never below flat), sizes with odd micros, prices on a 0.001 tick
    let seed = 8;
    const rnd = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const book = new PositionBook();
    const store = new PositionAccumulator(cid('0xc'), tok('Y'));
    const nstore = new PositionAccumulator(cid('0xc'), tok('N'));
    let held = 0;
    for (let i = 0; i < 60; i++) {
      const price = 10 * (1 + rnd(999)); // 0.001 .. 0.999
      const size = 1_000_000 + rnd(30_000_000) + 7;
      const side = held > size && rnd(3) === 0 ? 'SELL' : 'BUY';
      book.fill('a', 'Y', side, price, size);
      store.add({
        market: cid('0xc'),
        tokenId: tok('Y'),
        side,
        price: price as Pips,
        size: size as Micro,
        fee: 0 as Micro,
      });
      held += side === 'BUY' ? size : -size;
      if (i % 20 === 19) {
        // a merge of part of the position (legs at the mark and its complement, as the store books them)
        const amount = Math.floor(held / 3);
        book.fill('a', 'N', 'BUY', 10_000 - 370, amount);
        nstore.add({
          market: cid('0xc'),
          tokenId: tok('N'),
          side: 'BUY',
          price: 9630 as Pips,
          size: amount as Micro,
          fee: 0 as Micro,
        });
        book.merge('a', 'Y', 'N', amount, 3710);
        store.move('SELL', amount, 3710);
        nstore.move('SELL', amount, 10_000 - 3710);
        held -= amount;
      }
      const p = book.get('a', 'Y')!;
      const d = store.decimals();
      expect([avgPrice6(p), formatAmount(p.cost), formatAmount(p.realized)]).toEqual([d.avgPrice, d.cost, d.realized]);
      const n = book.get('a', 'N');
      if (n !== undefined) {
        const nd = nstore.decimals();
        expect([avgPrice6(n), formatAmount(n.cost), formatAmount(n.realized)]).toEqual([
          nd.avgPrice,
          nd.cost,
          nd.realized,
        ]);
      }
    }
  });
});
