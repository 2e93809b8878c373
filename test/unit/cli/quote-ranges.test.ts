import { describe, expect, it } from 'vitest';
import { describeRanges, quoteRanges } from '../../../src/cli/quote-ranges.ts';

const YES = { tokenId: '111', outcome: 'Yes' };
const NO = { tokenId: '222', outcome: 'No' };
const o = (tokenId: string, side: 'BUY' | 'SELL', price: string) => ({ tokenId, side, price });

describe('strategy check: quote ranges', () => {
  it('never mixes the YES and NO books in one range: per token in its own prices, all together in YES prices', () => {
    // the trial's case: YES bids 0.16-0.18, NO bids 0.23-0.25 (YES asks 0.75-0.77), a YES ask 0.78
    const orders = [
      o('111', 'BUY', '0.16'),
      o('111', 'BUY', '0.18'),
      o('222', 'BUY', '0.25'),
      o('222', 'BUY', '0.23'),
      o('111', 'SELL', '0.78'),
    ];
    const r = quoteRanges(orders, [YES, NO]);
    expect(r.tokens).toEqual([
      { tokenId: '111', outcome: 'Yes', bids: 2, asks: 1, bidPrices: '0.16 to 0.18', askPrices: '0.78' },
      { tokenId: '222', outcome: 'No', bids: 2, asks: 0, bidPrices: '0.23 to 0.25', askPrices: null },
    ]);
    expect(r.inYes).toEqual({ bids: 2, asks: 3, bidPrices: '0.16 to 0.18', askPrices: '0.75 to 0.78' });
    expect(describeRanges(r)).toBe(
      'Yes 2 bid(s) 0.16 to 0.18, 1 ask(s) 0.78; No 2 bid(s) 0.23 to 0.25, 0 ask(s); in YES prices: bids 0.16 to 0.18, asks 0.75 to 0.78',
    );
  });

  it('a NO ask is a YES bid; only NO quoted still reads in YES prices; an unknown YES token gives no YES view', () => {
    const r = quoteRanges([o('222', 'SELL', '0.8'), o('222', 'BUY', '0.7')], [YES, NO]);
    expect(r.tokens.map((t) => t.outcome)).toEqual(['No']);
    expect(r.inYes).toEqual({ bids: 1, asks: 1, bidPrices: '0.2', askPrices: '0.3' });
    const u = quoteRanges([o('333', 'BUY', '0.5')], []);
    expect(u).toEqual({
      tokens: [{ tokenId: '333', outcome: null, bids: 1, asks: 0, bidPrices: '0.5', askPrices: null }],
      inYes: null,
    });
    expect(describeRanges(u)).toBe('token 333… 1 bid(s) 0.5, 0 ask(s)');
    expect(describeRanges(quoteRanges([], [YES, NO]))).toBe('no quotes');
  });
});
