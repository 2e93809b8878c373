/**
 * A minimal in-memory Venue for unit tests of the executor's ordering rules: orders rest until
 * cancelled; every call is logged; place/cancel can be intercepted (to block, fail or answer
 * ambiguously).
 */
import { EMPTY, type Observable } from 'rxjs';
import type { Clock } from '../../../src/core/clock.ts';
import type { MarketEvent, UserEvent } from '../../../src/core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { Micro } from '../../../src/core/units.ts';
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

export interface Call {
  kind: 'place' | 'cancel' | 'cancelAll' | 'openOrders' | 'order' | 'heartbeat';
  ids: string[];
}

export class FakeVenue implements Venue {
  readonly book = new Map<OrderId, VenueOrder>();
  readonly calls: Call[] = [];
  /** How many times each id was signed. */
  readonly signed = new Map<string, number>();
  /** Every prepared object handed to place, by id (to check a resend is the SAME object). */
  readonly sentObjects = new Map<string, PreparedOrder[]>();
  placeHook:
    | ((
        orders: readonly PreparedOrder[],
        accept: (o: PreparedOrder) => PlaceOutcome,
      ) => Promise<readonly PlaceOutcome[]>)
    | undefined;
  cancelHook:
    | ((ids: readonly OrderId[], cancel: (ids: readonly OrderId[]) => CancelOutcome) => Promise<CancelOutcome>)
    | undefined;
  cancelAllHook: ((all: () => CancelOutcome) => Promise<CancelOutcome>) | undefined;
  heartbeatHook: (() => Promise<boolean>) | undefined;
  #n = 0;

  /**
   * Holds the next place request back (a quote cycle kept running) until the returned `release` is
   * called; every place after it is answered at once. Its orders are accepted.
   */
  holdFirstPlace(): { release: () => void } {
    const gate = deferred<void>();
    let first = true;
    this.placeHook = async (orders, accept) => {
      if (first) {
        first = false;
        await gate.promise;
      }
      return orders.map(accept);
    };
    return { release: () => gate.resolve() };
  }
  /** Orders the venue refuses as duplicates once seen (like the real one). */
  readonly seen = new Set<string>();

  constructor(readonly clock: Clock) {}

  markets(): Promise<readonly MarketInfo[]> {
    return Promise.resolve([]);
  }
  marketEvents(_t: readonly TokenId[]): Observable<MarketEvent> {
    return EMPTY;
  }
  userEvents(_m: readonly ConditionId[]): Observable<UserEvent> {
    return EMPTY;
  }
  prepare(requests: readonly PlaceRequest[]): readonly PreparedOrder[] {
    return requests.map((request) => {
      const id = `0x${(++this.#n).toString(16).padStart(4, '0')}` as OrderId;
      this.signed.set(id, (this.signed.get(id) ?? 0) + 1);
      return { id, request, wire: { salt: this.#n } };
    });
  }
  /** Rest an order (as the venue would on acceptance). */
  accept(o: PreparedOrder): PlaceOutcome {
    if (this.seen.has(o.id)) return { id: o.id, ok: false, code: 'INVALID_ORDER_DUPLICATED', message: 'duplicate' };
    this.seen.add(o.id);
    const r = o.request;
    this.book.set(o.id, {
      id: o.id,
      market: r.market,
      tokenId: r.tokenId,
      side: r.side,
      price: r.price,
      originalSize: r.size,
      sizeMatched: 0 as Micro,
      status: 'LIVE',
    });
    return { id: o.id, ok: true, status: 'live' };
  }
  place(orders: readonly PreparedOrder[]): Promise<readonly PlaceOutcome[]> {
    if (orders.length > 15) throw new Error(`batch of ${orders.length}`);
    this.calls.push({ kind: 'place', ids: orders.map((o) => o.id) });
    for (const o of orders) this.sentObjects.set(o.id, [...(this.sentObjects.get(o.id) ?? []), o]);
    if (this.placeHook) return this.placeHook(orders, (o) => this.accept(o));
    return Promise.resolve(orders.map((o) => this.accept(o)));
  }
  doCancel(ids: readonly OrderId[]): CancelOutcome {
    const canceled: OrderId[] = [];
    const notCanceled = new Map<OrderId, string>();
    for (const id of ids) {
      const o = this.book.get(id);
      if (o !== undefined && o.status === 'LIVE') {
        this.book.set(id, { ...o, status: 'CANCELED' });
        canceled.push(id);
      } else notCanceled.set(id, o === undefined ? 'order not found' : 'already canceled or matched');
    }
    return { canceled, notCanceled };
  }
  cancel(ids: readonly OrderId[]): Promise<CancelOutcome> {
    this.calls.push({ kind: 'cancel', ids: [...ids] });
    if (this.cancelHook) return this.cancelHook(ids, (x) => this.doCancel(x));
    return Promise.resolve(this.doCancel(ids));
  }
  cancelAll(): Promise<CancelOutcome> {
    this.calls.push({ kind: 'cancelAll', ids: [] });
    const all = (): CancelOutcome =>
      this.doCancel([...this.book.values()].filter((o) => o.status === 'LIVE').map((o) => o.id));
    if (this.cancelAllHook) return this.cancelAllHook(all);
    return Promise.resolve(all());
  }
  openOrders(): Promise<readonly VenueOrder[]> {
    this.calls.push({ kind: 'openOrders', ids: [] });
    return Promise.resolve([...this.book.values()].filter((o) => o.status === 'LIVE'));
  }
  order(id: OrderId): Promise<VenueOrder | undefined> {
    this.calls.push({ kind: 'order', ids: [id] });
    return Promise.resolve(this.book.get(id));
  }
  fills(_since: number): Promise<readonly VenueFill[]> {
    return Promise.resolve([]);
  }
  heartbeat(): Promise<boolean> {
    this.calls.push({ kind: 'heartbeat', ids: [] });
    return this.heartbeatHook ? this.heartbeatHook() : Promise.resolve(true);
  }
  balance(): Promise<{ available: Micro; reserved: Micro }> {
    return Promise.resolve({ available: 0 as Micro, reserved: 0 as Micro });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
  live(): VenueOrder[] {
    return [...this.book.values()].filter((o) => o.status === 'LIVE');
  }
  count(kind: Call['kind']): number {
    return this.calls.filter((c) => c.kind === kind).length;
  }
}

/** A promise with its resolve/reject exposed. */
export function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Let pending promise callbacks run. */
export async function flush(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}
