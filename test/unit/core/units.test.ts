import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatAmount,
  formatPrice,
  impliedPrice,
  isValidPrice,
  limitOrderAmounts,
  marketBuyShares,
  marketBuyTerms,
  marketOrderAmounts,
  notional,
  parseAmount,
  parseFixed,
  parsePrice,
  tickFromPips,
  tickPips,
  LOT_MICRO,
  PRICE_SCALE,
  TICK_SIZES,
  type Side,
  type TickSize,
} from '../../../src/core/units.ts';
import { ValidationError } from '../../../src/core/errors.ts';

describe('decimal parsing and formatting', () => {
  it('parses exact decimals into integers', () => {
    expect(parsePrice('0.56')).toBe(5600);
    expect(parsePrice('0.0001')).toBe(1);
    expect(parsePrice(0.5)).toBe(5000);
    expect(parseAmount('21.04')).toBe(21_040_000);
    expect(parseAmount('10000')).toBe(10_000_000_000);
  });
  it('refuses digits that would be lost unless told how to round', () => {
    expect(() => parsePrice('0.12345')).toThrow(ValidationError);
    expect(parsePrice('0.12345', 'down')).toBe(1234);
    expect(parsePrice('0.12345', 'up')).toBe(1235);
    expect(parsePrice('0.12345', 'half-up')).toBe(1235);
    expect(parsePrice('0.12344', 'half-up')).toBe(1234);
  });
  it('rejects malformed input with a ValidationError', () => {
    for (const bad of ['', 'abc', '-1', '1e5', '0x10', '1.2.3', ' ', 'NaN']) {
      expect(() => parseFixed(bad, 6)).toThrow(ValidationError);
    }
    expect(() => parseFixed(Number.NaN, 6)).toThrow(ValidationError);
    expect(() => parseFixed(Infinity, 6)).toThrow(ValidationError);
    expect(() => parseFixed(-1, 6)).toThrow(ValidationError);
  });
  it('formats minimal decimals', () => {
    expect(formatPrice(5600)).toBe('0.56');
    expect(formatPrice(1)).toBe('0.0001');
    expect(formatPrice(10000)).toBe('1');
    expect(formatAmount(21_040_000)).toBe('21.04');
    expect(formatAmount(0)).toBe('0');
    expect(formatAmount(-1_500_000)).toBe('-1.5');
  });
  it('round-trips every pip exactly', () => {
    for (let p = 0; p <= 10000; p++) expect(parsePrice(formatPrice(p))).toBe(p);
  });
});

describe('ticks', () => {
  it('maps tick sizes to pips and back', () => {
    expect(tickPips('0.1')).toBe(1000);
    expect(tickPips('0.01')).toBe(100);
    expect(tickPips('0.001')).toBe(10);
    expect(tickPips('0.0001')).toBe(1);
    expect(tickFromPips(100)).toBe('0.01');
    expect(() => tickFromPips(50)).toThrow(ValidationError);
  });
  it('validates a price against tick and range [tick, 1 - tick]', () => {
    expect(isValidPrice(5600, 100)).toBe(true);
    expect(isValidPrice(5610, 100)).toBe(false);
    expect(isValidPrice(100, 100)).toBe(true);
    expect(isValidPrice(0, 100)).toBe(false);
    expect(isValidPrice(9900, 100)).toBe(true);
    expect(isValidPrice(10000, 100)).toBe(false);
    expect(isValidPrice(9999, 1)).toBe(true);
  });
  it('computes notional exactly on lots and rounds off-lot sizes as told', () => {
    expect(notional(21_040_000, 5600)).toBe(11_782_400);
    expect(notional(1, 5600, 'down')).toBe(0);
    expect(notional(1, 5600, 'up')).toBe(1);
  });
});

describe('signed-order amounts (venue-conventions vectors)', () => {
  const limit: Array<[Side, TickSize, string, string, string, string]> = [
    ['BUY', '0.01', '0.56', '21.04', '11782400', '21040000'],
    ['BUY', '0.1', '0.5', '21.04', '10520000', '21040000'],
    ['BUY', '0.001', '0.056', '21.04', '1178240', '21040000'],
    ['BUY', '0.0001', '0.0056', '21.04', '117824', '21040000'],
    ['BUY', '0.01', '0.78', '12.8205', '9999600', '12820000'],
    ['BUY', '0.01', '0.39', '2435.89', '949997100', '2435890000'],
    ['BUY', '0.01', '0.82', '101', '82820000', '101000000'],
    ['BUY', '0.1', '0.7', '170', '119000000', '170000000'],
    ['SELL', '0.01', '0.56', '21.04', '21040000', '11782400'],
    ['SELL', '0.01', '0.82', '101', '101000000', '82820000'],
  ];
  it.each(limit)('limit %s tick %s %s x %s -> %s / %s', (side, tick, price, size, maker, taker) => {
    const a = limitOrderAmounts(side, tick, price, size);
    expect(a.makerAmount.toString()).toBe(maker);
    expect(a.takerAmount.toString()).toBe(taker);
  });
  it('market orders', () => {
    const b = marketOrderAmounts('BUY', '0.01', '0.56', '100');
    expect([b.makerAmount, b.takerAmount].map(String)).toEqual(['100000000', '178571400']);
    const b2 = marketOrderAmounts('BUY', '0.01', '0.78', '9.9996');
    expect([b2.makerAmount, b2.takerAmount].map(String)).toEqual(['9990000', '12807600']);
    const s = marketOrderAmounts('SELL', '0.01', '0.56', '100');
    expect([s.makerAmount, s.takerAmount].map(String)).toEqual(['100000000', '56000000']);
  });
  it('recovers the limit price and lot-rounded shares from signed amounts', () => {
    expect(impliedPrice('BUY', 11_782_400n, 21_040_000n)).toMatchObject({ price: 5600, shares: 21_040_000 });
    expect(impliedPrice('SELL', 21_040_000n, 11_782_400n)).toMatchObject({ price: 5600, shares: 21_040_000 });
    // market BUY $100 at 0.56: 178.5714 shares, price rounds to 0.56, shares floor to the 0.01 lot
    expect(impliedPrice('BUY', 100_000_000n, 178_571_400n)).toMatchObject({ price: 5600, shares: 178_570_000 });
    expect(impliedPrice('BUY', 1n, 0n).shares).toBe(0);
  });
  it("rounds the implied price in the order's own favour, never to the nearest pip", () => {
    // BUY 100 for 74.995 (0.74995): down, so a fill never charges more than signed
    expect(impliedPrice('BUY', 74_995_000n, 100_000_000n).price).toBe(7499);
    expect(impliedPrice('BUY', 74_999_999n, 100_000_000n).price).toBe(7499);
    // SELL 100 for at least 75.004 (0.75004): up, so a fill never pays less than signed
    expect(impliedPrice('SELL', 100_000_000n, 75_004_000n).price).toBe(7501);
    expect(impliedPrice('SELL', 100_000_000n, 75_000_001n).price).toBe(7501);
    expect(impliedPrice('SELL', 100_000_000n, 75_000_000n).price).toBe(7500);
    expect(impliedPrice('BUY', 200_000_000n, 100_000_000n).price).toBe(10_001);
  });
});

describe('market record prices', async () => {
  const { clobMarketRecord, initialMarkets } = await import('../../../src/exchange/markets.ts');
  it('formats a half-pip mid exactly', () => {
    const [m] = initialMarkets(1, 0);
    const rec = clobMarketRecord(m!, {
      status: 'active',
      tick: '0.01',
      lastPrice: [undefined, undefined],
      mid: [5085.5, 4914.5],
    }) as any;
    expect(rec.tokens.map((t: any) => t.price)).toEqual([0.50855, 0.49145]);
  });
});

describe('market BUY terms: whole cents of collateral (trial 12 F1)', () => {
  it('signs the cents at or just above size x price: the size itself when they buy it, a little more otherwise', () => {
    // 5 x 0.5675 = 2.8375: 2.84 buys 5.0044 -> 5 shares (the cent below, 2.83, bought 4.98: under a 5-share minimum)
    expect(marketBuyTerms(5_000_000, 5675, '0.0001')).toEqual({ amount: 2_840_000, shares: 5_000_000 });
    expect(marketBuyShares(2_830_000, 5675, '0.0001')).toBe(4_980_000);
    // 10 x 0.5899 = 5.899 -> 5.90 buys 10.0017 -> 10 (the trial's 9.98 fill)
    expect(marketBuyTerms(10_000_000, 5899, '0.0001')).toEqual({ amount: 5_900_000, shares: 10_000_000 });
    // 5 x 0.5001 = 2.5005 -> 2.51 buys 5.0189 -> 5.01: a little more, never less
    expect(marketBuyTerms(5_000_000, 5001, '0.0001')).toEqual({ amount: 2_510_000, shares: 5_010_000 });
    // a cent price and whole shares: exact
    expect(marketBuyTerms(5_000_000, 5600, '0.01')).toEqual({ amount: 2_800_000, shares: 5_000_000 });
    expect(marketBuyShares(0, 5600, '0.01')).toBe(0);
  });
  it('property: the shares are the size or more by less than one cent of notional, at the price the exchange reads', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...TICK_SIZES),
        fc.integer({ min: 1, max: 9999 }),
        fc.integer({ min: 1, max: 1_000_000 }),
        (tick, k, lots) => {
          const t = tickPips(tick);
          const price = Math.max(t, Math.min(PRICE_SCALE - t, k - (k % t)));
          const size = lots * LOT_MICRO;
          const { amount, shares } = marketBuyTerms(size, price, tick);
          expect(amount % LOT_MICRO).toBe(0);
          expect(shares).toBeGreaterThanOrEqual(size);
          expect(((shares - size) * price) / PRICE_SCALE).toBeLessThan(LOT_MICRO);
          const a = marketOrderAmounts('BUY', tick, formatPrice(price), formatAmount(amount));
          expect(a.makerAmount).toBe(BigInt(amount));
          const ip = impliedPrice('BUY', a.makerAmount, a.takerAmount);
          expect(ip.price - (ip.price % t)).toBe(price);
          expect(ip.shares).toBe(shares);
          // the size the gate approves signs to itself (the venue signs the approved size again)
          expect(marketBuyTerms(shares, price, tick)).toEqual({ amount, shares });
        },
      ),
      { numRuns: 3000 },
    );
  });
});
