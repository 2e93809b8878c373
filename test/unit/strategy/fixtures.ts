/**
 * Test doubles for strategy and risk tests: a BookView over explicit levels, a StrategyState, a
 * MarketInfo, and event builders. Prices in pips, sizes in micro-shares.
 */
import type { MmkitEvent } from '../../../src/core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { LiveOrderView } from '../../../src/core/intents.ts';
import type { Micro, Pips, Side, TickSize } from '../../../src/core/units.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';
import type { BookView, PositionView, StrategyContext, StrategyState } from '../../../src/strategy/api.ts';
import { VirtualClock } from '../../../src/core/clock.ts';

export const SH = 1_000_000; // one share in micro
export const M1 = ('0x' + '11'.repeat(32)) as ConditionId;
export const M2 = ('0x' + '22'.repeat(32)) as ConditionId;
export const YES1 = '1001' as TokenId;
export const NO1 = '1002' as TokenId;
export const YES2 = '2001' as TokenId;
export const NO2 = '2002' as TokenId;

export function marketInfo(market: ConditionId, yes: TokenId, no: TokenId, over: Partial<MarketInfo> = {}): MarketInfo {
  return {
    market,
    question: 'Will it?',
    tokens: [
      { tokenId: yes, outcome: 'Yes' },
      { tokenId: no, outcome: 'No' },
    ],
    tick: '0.01' as TickSize,
    minOrderSize: (5 * SH) as Micro,
    negRisk: false,
    feeRateBps: 0,
    active: true,
    endDate: '2030-01-01T00:00:00Z',
    ...over,
  };
}

export type Lv = readonly [number, number];

/** A BookView over levels (bids descending, asks ascending; sorted here). */
export function bookView(tokenId: TokenId, bids: readonly Lv[], asks: readonly Lv[], stale = false): BookView {
  const b = [...bids].filter((l) => l[1] > 0).sort((x, y) => y[0] - x[0]) as unknown as [Pips, Micro][];
  const a = [...asks].filter((l) => l[1] > 0).sort((x, y) => x[0] - y[0]) as unknown as [Pips, Micro][];
  const bestBid = b.length ? b[0]![0] : null;
  const bestAsk = a.length ? a[0]![0] : null;
  return {
    tokenId,
    bestBid,
    bestAsk,
    mid: bestBid !== null && bestAsk !== null ? (bestBid + bestAsk) / 2 : null,
    stale,
    levels(side, depth = Infinity) {
      return (side === 'bids' ? b : a).slice(0, depth);
    },
  };
}

/** The complement view of a YES book (the NO token's book): NO bids = 1 - YES asks. */
export function complementView(tokenId: TokenId, yes: BookView, depth = 100): BookView {
  const bids = yes.levels('asks', depth).map(([p, s]) => [10_000 - p, s] as const);
  const asks = yes.levels('bids', depth).map(([p, s]) => [10_000 - p, s] as const);
  return bookView(tokenId, bids, asks, yes.stale);
}

let seq = 0;
export function order(
  market: ConditionId,
  tokenId: TokenId,
  side: Side,
  price: number,
  size: number,
  matched = 0,
): LiveOrderView {
  seq++;
  return {
    id: `0x${seq.toString(16).padStart(64, '0')}` as OrderId,
    market,
    tokenId,
    side,
    price: price as Pips,
    originalSize: size as Micro,
    sizeMatched: matched as Micro,
  };
}

export interface FakeState extends StrategyState {
  books: Map<TokenId, BookView>;
  positions: Map<TokenId, number>;
  orders: LiveOrderView[];
}

export function fakeState(
  init: {
    books?: BookView[];
    positions?: Record<string, number>;
    orders?: LiveOrderView[];
    now?: number;
    collateral?: number;
  } = {},
): FakeState {
  const books = new Map<TokenId, BookView>();
  for (const b of init.books ?? []) books.set(b.tokenId, b);
  const positions = new Map<TokenId, number>(Object.entries(init.positions ?? {}) as [TokenId, number][]);
  const s: FakeState = {
    books,
    positions,
    orders: [...(init.orders ?? [])],
    now: init.now ?? 1_000,
    book: (t) => books.get(t),
    position: (t): PositionView => ({ size: (positions.get(t) ?? 0) as Micro, avgPrice: null, realized: 0 }),
    openOrders(m) {
      return s.orders.filter((o) => o.market === m);
    },
    availableCollateral: (init.collateral ?? 10_000 * SH) as Micro,
  };
  return s;
}

export const silentLog = { debug() {}, info() {}, warn() {} };

export function ctxFor(markets: MarketInfo[]): StrategyContext {
  return {
    clock: new VirtualClock(1_000),
    log: silentLog,
    markets: new Map(markets.map((m) => [m.market, m])),
    random: () => 0.5,
  };
}

const base = { venueTime: 1_000, recvTime: 1_000 };
export function snapshotEvent(market: ConditionId, tokenId: TokenId, tickSize: number | null = null): MmkitEvent {
  return {
    ...base,
    type: 'book_snapshot',
    market,
    tokenId,
    bids: [],
    asks: [],
    hash: 'h',
    tickSize: tickSize as Pips | null,
    minOrderSize: null,
    lastTradePrice: null,
  };
}
export function levelEvent(
  market: ConditionId,
  tokenId: TokenId,
  endOfBatch: boolean,
  o: { side?: Side; price?: number; size?: number } = {},
): MmkitEvent {
  return {
    ...base,
    type: 'level_change',
    market,
    tokenId,
    side: o.side ?? 'BUY',
    price: (o.price ?? 5000) as Pips,
    size: (o.size ?? 0) as Micro,
    bestBid: null,
    bestAsk: null,
    hash: 'h',
    endOfBatch,
  };
}
export function timerEvent(): MmkitEvent {
  return { ...base, type: 'timer', name: 'quote' };
}
