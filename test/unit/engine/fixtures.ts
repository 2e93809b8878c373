/**
 * Event builders and a Subject-driven fake venue for the engine's UNIT tests (the integration
 * tests run the real paper exchange).
 */
import { Subject } from 'rxjs';
import { VirtualClock } from '../../../src/core/clock.ts';
import type {
  BookSnapshotEvent,
  DisconnectedEvent,
  FillEvent,
  LevelChangeEvent,
  MarketEvent,
  MarketResolvedEvent,
  OrderUpdateEvent,
  PriceLevel,
  ResyncedEvent,
  StreamName,
  TickSizeChangeEvent,
  TradeStatus,
  UserEvent,
} from '../../../src/core/events.ts';
import type { ConditionId, OrderId, TokenId, TradeId } from '../../../src/core/ids.ts';
import type { Micro, Pips, Side } from '../../../src/core/units.ts';
import type {
  CancelOutcome,
  MarketInfo,
  PlaceOutcome,
  PlaceRequest,
  PreparedOrder,
  Venue,
  VenueFill,
  VenueOrder,
} from '../../../src/core/venue.ts';

export const CID = '0xmarket1' as ConditionId;
export const YES = '111' as TokenId;
export const NO = '222' as TokenId;
export const CID2 = '0xmarket2' as ConditionId;
export const YES2 = '333' as TokenId;
export const NO2 = '444' as TokenId;

export function market(
  cid: ConditionId = CID,
  yes: TokenId = YES,
  no: TokenId = NO,
  o: Partial<MarketInfo> = {},
): MarketInfo {
  return {
    market: cid,
    question: 'q?',
    tokens: [
      { tokenId: yes, outcome: 'Yes' },
      { tokenId: no, outcome: 'No' },
    ],
    tick: '0.01',
    minOrderSize: 5_000_000 as Micro,
    negRisk: false,
    feeRateBps: 0,
    active: true,
    endDate: '',
    ...o,
  };
}

const lv = (p: number, s: number): PriceLevel => [p as Pips, s as Micro];

export function snap(
  tokenId: TokenId,
  bids: Array<[number, number]>,
  asks: Array<[number, number]>,
  cid: ConditionId = CID,
  t = 0,
): BookSnapshotEvent {
  return {
    type: 'book_snapshot',
    market: cid,
    tokenId,
    bids: bids.map(([p, s]) => lv(p, s)),
    asks: asks.map(([p, s]) => lv(p, s)),
    hash: 'h',
    tickSize: 100 as Pips,
    minOrderSize: null,
    lastTradePrice: null,
    venueTime: t,
    recvTime: t,
  };
}

export function level(
  tokenId: TokenId,
  side: Side,
  price: number,
  size: number,
  best: { bid: number | null; ask: number | null },
  endOfBatch = true,
  cid: ConditionId = CID,
): LevelChangeEvent {
  return {
    type: 'level_change',
    market: cid,
    tokenId,
    side,
    price: price as Pips,
    size: size as Micro,
    bestBid: best.bid as Pips | null,
    bestAsk: best.ask as Pips | null,
    hash: 'h',
    endOfBatch,
    venueTime: 0,
    recvTime: 0,
  };
}

export const disconnected = (stream: StreamName = 'market'): DisconnectedEvent => ({
  type: 'disconnected',
  stream,
  reason: 'closed 1006',
  venueTime: 0,
  recvTime: 0,
});
export const resynced = (stream: StreamName = 'market', initial = false): ResyncedEvent => ({
  type: 'resynced',
  stream,
  initial,
  venueTime: 0,
  recvTime: 0,
});

export function tickChange(tokenId: TokenId, from: number, to: number, cid: ConditionId = CID): TickSizeChangeEvent {
  return {
    type: 'tick_size_change',
    market: cid,
    tokenId,
    old: from as Pips,
    new: to as Pips,
    venueTime: 0,
    recvTime: 0,
  };
}

export function resolved(cid: ConditionId = CID, winner: TokenId = YES): MarketResolvedEvent {
  return {
    type: 'market_resolved',
    market: cid,
    winningTokenId: winner,
    winningOutcome: 'Yes',
    venueTime: 0,
    recvTime: 0,
  };
}

export function order(
  id: string,
  status: OrderUpdateEvent['status'],
  o: Partial<OrderUpdateEvent> = {},
): OrderUpdateEvent {
  return {
    type: 'order_update',
    kind: status === 'CANCELED' ? 'CANCELLATION' : 'PLACEMENT',
    id: id as OrderId,
    market: CID,
    tokenId: YES,
    side: 'BUY',
    price: 4500 as Pips,
    originalSize: 10_000_000 as Micro,
    sizeMatched: 0 as Micro,
    status,
    source: 'stream',
    venueTime: 0,
    recvTime: 0,
    ...o,
  };
}

export function fill(tradeId: string, orderId: string, status: TradeStatus, o: Partial<FillEvent> = {}): FillEvent {
  return {
    type: 'fill',
    tradeId: tradeId as TradeId,
    orderId: orderId as OrderId,
    status,
    role: 'MAKER',
    market: CID,
    tokenId: YES,
    side: 'BUY',
    price: 4000 as Pips,
    size: 10_000_000 as Micro,
    feeRateBps: 0,
    takerOrderId: 'taker' as OrderId,
    source: 'stream',
    venueTime: 0,
    recvTime: 0,
    ...o,
  };
}

/** A venue whose streams are Subjects the test drives; REST calls are recorded and answered from fields. */
export class FakeVenue implements Venue {
  readonly clock: VirtualClock;
  readonly market$ = new Subject<MarketEvent>();
  readonly user$ = new Subject<UserEvent>();
  readonly resyncs: TokenId[][] = [];
  open: VenueOrder[] = [];
  venueFills: VenueFill[] = [];
  balanceAnswer = { available: 1_000_000_000 as Micro, reserved: 0 as Micro };
  calls: string[] = [];
  /** How many cancel / cancelAll calls leave orders in place. */
  stubbornCancels = 0;
  /** The ids of every cancel call, in order. */
  cancelCalls: string[][] = [];
  orderLookup = new Map<string, VenueOrder>();

  constructor(clock = new VirtualClock(1_700_000_000_000)) {
    this.clock = clock;
  }
  async markets(): Promise<readonly MarketInfo[]> {
    return [market()];
  }
  marketEvents(): Subject<MarketEvent> {
    this.calls.push('marketEvents');
    return this.market$;
  }
  userEvents(): Subject<UserEvent> {
    this.calls.push('userEvents');
    return this.user$;
  }
  resync(ids: readonly TokenId[]): void {
    this.resyncs.push([...ids]);
  }
  prepare(requests: readonly PlaceRequest[]): readonly PreparedOrder[] {
    return requests.map((r, i) => ({ id: `0xprep${i}` as OrderId, request: r, wire: {} }));
  }
  async place(orders: readonly PreparedOrder[]): Promise<readonly PlaceOutcome[]> {
    return orders.map((o) => ({ id: o.id, ok: true, status: 'live' }));
  }
  async cancel(ids: readonly OrderId[]): Promise<CancelOutcome> {
    this.calls.push('cancel');
    this.cancelCalls.push([...ids]);
    if (this.stubbornCancels > 0) {
      this.stubbornCancels--;
      return { canceled: [], notCanceled: new Map() };
    }
    const want = new Set<string>(ids);
    const canceled = this.open.filter((o) => want.has(o.id)).map((o) => o.id);
    this.open = this.open.filter((o) => !want.has(o.id));
    const notCanceled = new Map<OrderId, string>();
    for (const id of ids) if (!canceled.includes(id)) notCanceled.set(id, 'order not found');
    return { canceled, notCanceled };
  }
  async cancelAll(): Promise<CancelOutcome> {
    this.calls.push('cancelAll');
    if (this.stubbornCancels > 0) {
      this.stubbornCancels--;
      return { canceled: [], notCanceled: new Map() };
    }
    const ids = this.open.map((o) => o.id);
    this.open = [];
    return { canceled: ids, notCanceled: new Map() };
  }
  async openOrders(): Promise<readonly VenueOrder[]> {
    this.calls.push('openOrders');
    return [...this.open];
  }
  async order(id: OrderId): Promise<VenueOrder | undefined> {
    this.calls.push(`order:${id}`);
    return this.orderLookup.get(id);
  }
  async fills(sinceMs: number): Promise<readonly VenueFill[]> {
    this.calls.push(`fills:${sinceMs}`);
    return this.venueFills.filter((f) => f.matchTime >= sinceMs);
  }
  async heartbeat(): Promise<boolean> {
    return true;
  }
  async balance(): Promise<{ available: Micro; reserved: Micro }> {
    return this.balanceAnswer;
  }
  async close(): Promise<void> {}
}

/** Lets pending promise callbacks run. */
export const flush = async (n = 5): Promise<void> => {
  for (let i = 0; i < n; i++) await Promise.resolve();
};
