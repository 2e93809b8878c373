/**
 * The real-time price stream of a replayed feed: the recorded RTDS frames (channel "r") decoded with
 * the live client's own decoder (src/api/streams/rtds.ts) into `price_tick` events, at their
 * recorded receive time, for the symbols a subscriber asked for. A recorded disconnect becomes a
 * `disconnected` event (stream 'rtds') and the next connect a `resynced`, as the live stream emits
 * them. A subscriber that arrives after some prices were replayed first gets the last known price
 * of each of its symbols (flagged `snapshot`, as the live subscription's history is). No look-ahead:
 * only what was ingested exists.
 */
import { Observable, type Subscriber } from 'rxjs';
import { decodeRtdsMessage } from '../../api/streams/rtds.ts';
import type { CommentEvent, PriceTickEvent, RtdsEvent } from '../../core/events.ts';
import type { FeedItem } from './feed.ts';

interface PriceSub {
  readonly symbols: ReadonlySet<string>;
  readonly sub: Subscriber<RtdsEvent>;
}

/** Counters of the replayed price stream. */
export interface SimPriceStats {
  frames: number;
  ticks: number;
  /** Frames or messages the decoder refused. */
  decodeErrors: number;
}

export class SimPriceFeed {
  readonly stats: SimPriceStats = { frames: 0, ticks: 0, decodeErrors: 0 };
  readonly #subs: PriceSub[] = [];
  readonly #last = new Map<string, PriceTickEvent>();
  #down = false;
  #closed = false;

  /** Takes one RTDS item (frame or status); items of other channels are ignored. */
  ingest(item: FeedItem): void {
    if (this.#closed || item.kind === 'header' || item.ch !== 'r') return;
    if (item.kind === 'status') {
      if (item.status === 'disconnect' && !this.#down) {
        this.#down = true;
        this.#emitAll({
          type: 'disconnected',
          stream: 'rtds',
          reason: item.reason || 'recorded disconnect',
          venueTime: item.t,
          recvTime: item.t,
        });
      } else if (item.status === 'connect' && this.#down) {
        this.#down = false;
        this.#emitAll({ type: 'resynced', stream: 'rtds', initial: false, venueTime: item.t, recvTime: item.t });
      }
      return;
    }
    this.stats.frames++;
    let parsed: unknown;
    try {
      parsed = JSON.parse(item.raw);
    } catch {
      this.stats.decodeErrors++;
      return;
    }
    const msgs = Array.isArray(parsed) ? parsed : [parsed];
    for (const m of msgs) {
      const r = decodeRtdsMessage(m, item.t, this.#onEvent);
      if (r !== undefined && r !== 'ignored') this.stats.decodeErrors++;
    }
  }

  readonly #onEvent = (e: PriceTickEvent | CommentEvent): void => {
    if (e.type !== 'price_tick') return;
    const symbol = e.symbol.toLowerCase();
    this.stats.ticks++;
    const prev = this.#last.get(symbol);
    if (prev === undefined || e.venueTime >= prev.venueTime) this.#last.set(symbol, e);
    for (const s of this.#subs) if (s.symbols.has(symbol)) s.sub.next(e);
  };

  #emitAll(e: RtdsEvent): void {
    for (const s of this.#subs) s.sub.next(e);
  }

  /** Price events for these symbols (case-insensitive), from now on. */
  priceEvents(symbols: readonly string[]): Observable<RtdsEvent> {
    const set = new Set(symbols.map((x) => x.toLowerCase()));
    return new Observable<RtdsEvent>((sub) => {
      if (this.#closed) {
        sub.complete();
        return;
      }
      const s: PriceSub = { symbols: set, sub };
      this.#subs.push(s);
      for (const sym of set) {
        const last = this.#last.get(sym);
        if (last !== undefined) sub.next({ ...last, snapshot: true });
      }
      return () => {
        const i = this.#subs.indexOf(s);
        if (i >= 0) this.#subs.splice(i, 1);
      };
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const s of this.#subs.splice(0)) s.sub.complete();
  }
}
