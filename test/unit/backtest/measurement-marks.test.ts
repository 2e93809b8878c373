/**
 * The marks of a backtest's measurements (src/backtest/measurement.ts): a two-sided book marks at
 * its mid; a one-sided book marks a held position at what it could be closed at, as the daemon's
 * loss limit does (src/risk/marks.ts `riskMark`), never at the mid from before the book lost a side:
 * a long whose bids vanished after news at the lower of the best ask and the last mid, a short whose
 * asks vanished at the higher of the best bid and the last mid. The PnL samples, the final PnL, the
 * positions' marks and `unmarked` all say the same.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RunMeasurement, type MeasuredBot } from '../../../src/backtest/measurement.ts';
import { QuietClock } from '../../../src/backtest/quiet-clock.ts';
import { VirtualClock } from '../../../src/core/clock.ts';
import type { FillEvent } from '../../../src/core/events.ts';
import type { ConditionId, OrderId, TokenId, TradeId } from '../../../src/core/ids.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';
import type { BookView } from '../../../src/core/views.ts';
import { openStore, type Store } from '../../../src/store/store.ts';

const MARKET = `0x${'ab'.repeat(32)}` as ConditionId;
const YES = '1111' as TokenId;
const NO = '2222' as TokenId;
const INFO: MarketInfo = {
  market: MARKET,
  question: 'Collapse?',
  tokens: [
    { tokenId: YES, outcome: 'Yes' },
    { tokenId: NO, outcome: 'No' },
  ],
  tick: '0.01',
  minOrderSize: 5_000_000 as Micro,
  negRisk: false,
  feeRateBps: 0,
  active: true,
  endDate: '2027-01-01T00:00:00Z',
};

/** A book with these best prices (pips; null: that side empty). */
function book(tokenId: TokenId, bid: number | null, ask: number | null, stale = false): BookView {
  return {
    tokenId,
    bestBid: bid as Pips | null,
    bestAsk: ask as Pips | null,
    mid: bid !== null && ask !== null ? (bid + ask) / 2 : null,
    stale,
    levels: () => [],
  };
}

const stores: Store[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

/** A measurement over one market, a fill maker and a book changer (as the engine shows a change). */
function setup() {
  const clock = new VirtualClock(Date.UTC(2026, 0, 1));
  const store = openStore(':memory:');
  stores.push(store);
  const books = new Map<TokenId, BookView>();
  const meter = new RunMeasurement({
    clock,
    measure: new QuietClock(clock),
    store,
    markets: [INFO],
    startMs: clock.now(),
    inventoryLimit: 100_000_000,
    maxFillRows: 100,
    maxSamples: 1000,
    sampleMs: 1000,
  });
  const bot: MeasuredBot = {
    book: (t) => books.get(t),
    position: () => 0,
    liveOrders: () => [],
    isOpenOrder: () => false,
  };
  meter.attach(bot);
  /** The book of `tokenId` changes to these best prices (the engine's event after it). */
  const show = (tokenId: TokenId, bid: number | null, ask: number | null, stale = false): void => {
    books.set(tokenId, book(tokenId, bid, ask, stale));
    meter.event({
      type: 'level_change',
      venueTime: clock.now(),
      recvTime: clock.now(),
      market: MARKET,
      tokenId,
      side: 'BUY',
      price: (bid ?? 100) as Pips,
      size: 0 as Micro,
      bestBid: bid as Pips | null,
      bestAsk: ask as Pips | null,
      hash: 'h',
      endOfBatch: true,
    });
  };
  let n = 0;
  const fill = (tokenId: TokenId, side: 'BUY' | 'SELL', price: number, shares: number): void => {
    n++;
    const f: FillEvent = {
      type: 'fill',
      venueTime: clock.now(),
      recvTime: clock.now(),
      tradeId: `t${n}` as TradeId,
      orderId: `o${n}` as OrderId,
      status: 'MATCHED',
      role: 'MAKER',
      market: MARKET,
      tokenId,
      side,
      price: price as Pips,
      size: (shares * 1_000_000) as Micro,
      feeRateBps: 0,
      takerOrderId: `x${n}` as OrderId,
      source: 'stream',
    };
    meter.fill(f, 'new');
  };
  return { clock, meter, fill, show };
}

describe('backtest measurement: the marks of a one-sided book', () => {
  it('a long whose bids vanished is marked at the ask, below the last mid (not the mid before the collapse)', () => {
    const { meter, fill, show } = setup();
    show(NO, 6400, 6700);
    fill(NO, 'BUY', 4730, 15);
    // two-sided: the mid, 0.655: 15 × (0.655 − 0.473) = +2.73
    expect(meter.pnlNow().unrealized).toBe(2_730_000);
    // the bids vanish after news: asks [0.30] only
    show(NO, null, 3000);
    const p = meter.interval();
    // 15 × (0.30 − 0.473) = −2.595
    expect(p.unrealized).toBe(-2_595_000);
    expect(p.unmarked).toEqual([]);
    meter.takeSample();
    expect(meter.samples.pnl.unrealized.at(-1)).toBe(-2_595_000);
    const frozen = meter.freeze();
    expect(frozen.pnl.unrealized).toBe(-2_595_000);
    expect(frozen.pnl.total).toBe(-2_595_000);
    expect(frozen.marks.get(NO)).toBe(3000);
    expect(meter.positions(frozen).find((x) => x.tokenId === NO)?.mark).toBe(3000);
  });

  it('a long with only an ask above the last mid keeps the last mid (of the last change, not of the last reading); with a bid left, the bid', () => {
    const { meter, fill, show } = setup();
    show(NO, 6400, 6700);
    fill(NO, 'BUY', 6700, 10);
    expect(meter.pnlNow().unrealized).toBe(-150_000);
    show(NO, 7000, 7200);
    show(NO, null, 9000);
    expect(meter.freeze().marks.get(NO)).toBe(7100);
    const b = setup();
    b.show(NO, 6400, 6700);
    b.fill(NO, 'BUY', 6700, 10);
    b.show(NO, 2000, null);
    expect(b.meter.freeze().marks.get(NO)).toBe(2000);
  });

  it('a short whose asks vanished is marked at the higher of the best bid and the last mid', () => {
    const { meter, fill, show } = setup();
    show(YES, 3300, 3600);
    fill(YES, 'SELL', 5270, 15);
    // two-sided: the mid, 0.345: 15 × (0.527 − 0.345) = +2.73
    expect(meter.pnlNow().unrealized).toBe(2_730_000);
    // the asks vanish: bids [0.70] only (the cost to buy back is at least that)
    show(YES, 7000, null);
    const p = meter.pnlNow();
    // 15 × (0.527 − 0.70) = −2.595
    expect(p.unrealized).toBe(-2_595_000);
    const frozen = meter.freeze();
    expect(frozen.marks.get(YES)).toBe(7000);
    expect(frozen.pnl.unrealized).toBe(-2_595_000);
    // a bid below the last mid: the last mid
    const b = setup();
    b.show(YES, 3300, 3600);
    b.fill(YES, 'SELL', 5270, 15);
    b.show(YES, 1000, null);
    expect(b.meter.freeze().marks.get(YES)).toBe(3450);
  });

  it('a stale one-sided book counts with its last levels; an empty book and a flat position keep the last mid', () => {
    const { meter, fill, show } = setup();
    show(NO, 6400, 6700);
    show(YES, 3300, 3600);
    fill(NO, 'BUY', 6700, 10);
    fill(YES, 'BUY', 3600, 10);
    fill(YES, 'SELL', 3300, 10);
    show(NO, null, 3000, true);
    show(YES, null, 1000);
    expect(meter.pnlNow().unrealized).toBe(10 * (3000 - 6700) * 100);
    show(NO, null, null);
    const frozen = meter.freeze();
    expect(frozen.marks.get(NO)).toBe(6550);
    expect(frozen.marks.get(YES)).toBe(3450);
  });

  it('a position bought on a one-sided book that never showed a mid: marked at its bid, unmarked once empty', () => {
    const { meter, fill, show } = setup();
    show(NO, 5000, null);
    fill(NO, 'BUY', 5000, 10);
    expect(meter.pnlNow()).toMatchObject({ unrealized: 0, unmarked: [] });
    show(NO, null, null);
    const frozen = meter.freeze();
    expect(frozen.pnl.unmarked).toEqual([NO]);
    expect(frozen.marks.get(NO)).toBe(null);
  });

  it('a resolution settles first: the settlement, not the book', () => {
    const { clock, meter, fill, show } = setup();
    show(NO, 6400, 6700);
    fill(NO, 'BUY', 4730, 15);
    show(NO, null, 3000);
    meter.event({
      type: 'market_resolved',
      market: MARKET,
      winningTokenId: NO,
      winningOutcome: 'No',
      venueTime: clock.now(),
      recvTime: clock.now(),
    });
    const frozen = meter.freeze();
    expect(frozen.marks.get(NO)).toBe(10_000);
    expect(frozen.pnl.realized).toBe(15 * (10_000 - 4730) * 100);
    expect(frozen.pnl.unrealized).toBe(0);
  });
});
