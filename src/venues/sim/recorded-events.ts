/**
 * The recorded market events of a feed backtest applied to the simulated venue's state (see
 * ./sim-venue.ts, whose module comment describes the model): each event moves the mirrored
 * recorded book, the liquidity we took, our places in the queues and our resting orders (fills
 * by trades and by the price moving through them, cancels off a new tick, the market's
 * resolution), is adjusted for our resting orders when they are shown, then handed on. The stream
 * status of the recording (disconnect, connect, the snapshots awaited before `resynced`) is kept
 * here too, as it decides which level changes apply. The venue (./sim-venue.ts) owns this object
 * and the Venue port; this is the hot path of a feed backtest: one map lookup and an O(1) book
 * update per event, nothing allocated beyond the decoded event.
 */
import { PRICE_SCALE, tickFromPips, type Micro, type Pips, type Side } from '../../core/units.ts';
import type {
  BestBidAskEvent,
  BookSnapshotEvent,
  LastTradeEvent,
  LevelChangeEvent,
  MarketDataEvent,
  MarketEvent,
  MarketResolvedEvent,
  TickSizeChangeEvent,
} from '../../core/events.ts';
import type { TokenId } from '../../core/ids.ts';
import type { QueueModel } from './queue.ts';
import { consumedSizes, effBest, updateConsumed } from './recorded-book.ts';
import { finalizeBatch, levelMoved, throughFills, tradeFills } from './own-queue.ts';
import type { OwnOrders } from './own-orders.ts';
import { comb, type ShownOwn, withOwn } from './show-own.ts';
import type { MarketState, Mutable, OwnLevel, TokenState } from './sim-state.ts';

/** The counters this part moves (of the venue's SimVenueStats). */
export interface RecordedEventCounters {
  decodeErrors: number;
  droppedWhilePending: number;
  disconnects: number;
}

/** What the venue gives the recorded events: its state, and where events and resolutions go. */
export interface RecordedEventsDeps {
  readonly tokens: ReadonlyMap<string, TokenState>;
  readonly markets: ReadonlyMap<string, MarketState>;
  readonly marketList: readonly MarketState[];
  readonly model: QueueModel;
  /** Our orders: entry, matching, cancels (./own-orders.ts). */
  readonly ours: OwnOrders;
  readonly show: boolean;
  readonly shown: ShownOwn;
  readonly counters: RecordedEventCounters;
  readonly now: () => number;
  /** Hands a market event on (to the subscribers, now or after the feed latency). */
  readonly emitMarket: (e: MarketEvent) => void;
  /** Resolves a market: cancels our orders there and settles its positions. */
  readonly resolve: (m: MarketState, winner: TokenId) => void;
}

export class RecordedEvents {
  readonly #h: RecordedEventsDeps;
  readonly #tokens: ReadonlyMap<string, TokenState>;
  readonly #markets: ReadonlyMap<string, MarketState>;
  readonly #marketList: readonly MarketState[];
  readonly #model: QueueModel;
  readonly #show: boolean;
  readonly #shown: ShownOwn;
  readonly #c: RecordedEventCounters;
  readonly #ours: OwnOrders;

  #up = true;
  #pendingSnapshots = 0;
  #inBatch = false;
  /**
   * The recorded message being applied (a `price_change`, or a `book`), numbered: a level moved by
   * an earlier message of the same venue millisecond was moved by an earlier venue batch (see
   * levelMoved). `#inMessage`: the last level change was not its message's last.
   */
  #message = 0;
  #inMessage = false;
  /** The token whose snapshot is being applied: no own-order level changes for it (the snapshot carries them). */
  #snapshotting: TokenState | null = null;

  constructor(deps: RecordedEventsDeps) {
    this.#h = deps;
    this.#tokens = deps.tokens;
    this.#markets = deps.markets;
    this.#marketList = deps.marketList;
    this.#model = deps.model;
    this.#show = deps.show;
    this.#shown = deps.shown;
    this.#c = deps.counters;
    this.#ours = deps.ours;
  }

  /** Whether the recorded market stream is up (false from a disconnect until every awaited snapshot came). */
  get up(): boolean {
    return this.#up;
  }

  /** A frame ended: a venue batch does not run over frames. */
  endFrame(): void {
    this.#inBatch = false;
    this.#inMessage = false;
  }

  /** A recorded market event: the book, our queues and our orders move, then the bot sees it. */
  event(e: MarketDataEvent): void {
    switch (e.type) {
      case 'level_change':
        return this.#onLevel(e);
      case 'last_trade':
        return this.#onTrade(e);
      case 'book_snapshot':
        return this.#onBook(e);
      case 'best_bid_ask':
        return this.#onBestBidAsk(e);
      case 'tick_size_change':
        return this.#onTickChange(e);
      case 'market_resolved':
        return this.#onResolved(e);
      case 'new_market':
        return this.#h.emitMarket(e);
    }
  }

  #onLevel(e: LevelChangeEvent): void {
    if (!this.#inMessage) this.#message++;
    this.#inMessage = !e.endOfBatch;
    const tok = this.#tokens.get(e.tokenId);
    if (tok === undefined) return this.#h.emitMarket(e);
    const m = tok.market;
    if (m.pending.length > 0 && e.venueTime !== m.groupT) this.finalize(m);
    m.groupT = e.venueTime;
    if (tok.awaiting) {
      this.#c.droppedWhilePending++;
      if (e.endOfBatch) this.#inBatch = false;
      return;
    }
    this.#inBatch = !e.endOfBatch;
    const book = tok.book;
    const price = e.price;
    const isBid = e.side === 'BUY';
    const prev = book.sizeAt(e.side, price);
    try {
      book.applyLevel(e.side, price, e.size);
    } catch {
      this.#c.decodeErrors++;
      return;
    }
    tok.hash = e.hash;
    if ((isBid ? tok.consumedBid : tok.consumedAsk).size !== 0) updateConsumed(tok, isBid, price, prev, e.size);
    const own = isBid ? tok.bids : tok.asks;
    if (own.size !== 0) {
      const l = own.get(price);
      if (l !== undefined) levelMoved(l, prev, this.#message, this.#model);
    }
    if (e.endOfBatch && m.resting > 0) {
      // the batch is whole: the recorded best may have moved through our prices
      this.#inBatch = true; // own-order level changes made now are part of this batch
      this.#priceThrough(m.tokens[0]);
      this.#priceThrough(m.tokens[1]);
      this.#inBatch = false;
    }
    if (this.#show && (tok.shownBid.size !== 0 || tok.shownAsk.size !== 0)) {
      const w = e as Mutable<LevelChangeEvent>;
      const s = (isBid ? tok.shownBid : tok.shownAsk).get(price);
      if (s !== undefined) w.size = (e.size + s) as Micro;
      w.bestBid = comb(e.bestBid, tok.shownBestBid, true);
      w.bestAsk = comb(e.bestAsk, tok.shownBestAsk, false);
    }
    this.#h.emitMarket(e);
  }

  finalize(m: MarketState): void {
    finalizeBatch(m, this.#model);
  }

  #finalizeAll(): void {
    for (const m of this.#marketList) if (m.pending.length > 0) this.finalize(m);
  }

  #onTrade(e: LastTradeEvent): void {
    const tok = this.#tokens.get(e.tokenId);
    if (tok === undefined) return this.#h.emitMarket(e);
    const m = tok.market;
    if (m.pending.length > 0 && e.venueTime !== m.groupT) this.finalize(m);
    m.groupT = e.venueTime;
    tok.lastTradePrice = e.price;
    if (!tok.awaiting) {
      // one match printed on both tokens is one trade: recognise the mirror print
      const yesPrice = tok.index === 0 ? e.price : PRICE_SCALE - e.price;
      const buyYes = (tok.index === 0) === (e.side === 'BUY');
      if (
        !m.ltPaired &&
        m.ltIdx !== tok.index &&
        m.ltYesPrice === yesPrice &&
        m.ltBuyYes === buyYes &&
        m.ltSize === e.size &&
        m.ltT === e.venueTime
      ) {
        m.ltPaired = true;
      } else {
        m.ltIdx = tok.index;
        m.ltYesPrice = yesPrice;
        m.ltBuyYes = buyYes;
        m.ltSize = e.size;
        m.ltT = e.venueTime;
        m.ltPaired = false;
        if (m.resting > 0 && e.size > 0) {
          this.#tradeOnToken(tok, e.side, e.price, e.size);
          this.#tradeOnToken(tok.complement, e.side === 'BUY' ? 'SELL' : 'BUY', PRICE_SCALE - e.price, e.size);
        }
      }
    }
    this.#h.emitMarket(e);
  }

  /** A recorded trade on token `t`: the fills it gives our resting orders there (see tradeFills). */
  #tradeOnToken(t: TokenState, takerSide: Side, price: number, volume: number): void {
    const fills = tradeFills(t, takerSide, price, volume);
    if (fills.length === 0) return;
    this.#ours.recordedTrade(fills);
  }

  /** Our resting orders on `t` that the recorded best opposite price reached fill in full at their price. */
  #priceThrough(t: TokenState): void {
    if (t.ownBestBid !== 0) {
      const ask = effBest(t, false);
      if (ask !== 0 && ask <= t.ownBestBid) this.#fillThrough(t, true, ask);
    }
    if (t.ownBestAsk !== 0) {
      const bid = effBest(t, true);
      if (bid !== 0 && bid >= t.ownBestAsk) this.#fillThrough(t, false, bid);
    }
  }

  #fillThrough(t: TokenState, bids: boolean, opp: number): void {
    const fills = throughFills(t, bids, opp);
    if (fills.length === 0) return;
    this.#ours.recordedTrade(fills);
  }

  #onBook(e: BookSnapshotEvent): void {
    const tok = this.#tokens.get(e.tokenId);
    if (tok === undefined) return this.#h.emitMarket(e);
    const m = tok.market;
    if (m.pending.length > 0 && e.venueTime !== m.groupT) this.finalize(m);
    m.groupT = e.venueTime;
    // the sizes at our levels before the book is replaced
    let prevs: Array<[OwnLevel, number]> | undefined;
    if (tok.bids.size + tok.asks.size > 0) {
      prevs = [];
      for (const l of tok.bids.values()) prevs.push([l, tok.book.sizeAt('BUY', l.price)]);
      for (const l of tok.asks.values()) prevs.push([l, tok.book.sizeAt('SELL', l.price)]);
    }
    const consumed =
      tok.consumedBid.size + tok.consumedAsk.size > 0
        ? [...consumedSizes(tok, true), ...consumedSizes(tok, false)]
        : undefined;
    try {
      tok.book.applySnapshot(e.bids, e.asks, { hash: e.hash, venueTime: e.venueTime, market: e.market });
    } catch {
      this.#c.decodeErrors++;
      return;
    }
    tok.hash = e.hash;
    if (e.lastTradePrice !== null) tok.lastTradePrice = e.lastTradePrice;
    // indexed, without destructuring (the iterator protocol per entry): this runs on every snapshot while we rest
    if (consumed !== undefined)
      for (let i = 0; i < consumed.length; i++) {
        const c = consumed[i]!;
        updateConsumed(tok, c[0], c[1], c[2], tok.book.sizeAt(c[0] ? 'BUY' : 'SELL', c[1]));
      }
    const message = ++this.#message;
    if (prevs !== undefined)
      for (let i = 0; i < prevs.length; i++) levelMoved(prevs[i]![0], prevs[i]![1], message, this.#model);
    const wasAwaiting = tok.awaiting;
    if (wasAwaiting) {
      tok.awaiting = false;
      this.#pendingSnapshots--;
    }
    // own-order changes now (tick, price through) are carried by this snapshot for this token
    this.#snapshotting = tok;
    if (e.tickSize !== null && e.tickSize !== m.tick) this.#setTick(m, e.tickSize);
    if (m.resting > 0) this.#priceThrough(tok);
    this.#snapshotting = null;
    if (this.#show && (tok.shownBid.size !== 0 || tok.shownAsk.size !== 0)) {
      const w = e as Mutable<BookSnapshotEvent>;
      w.bids = withOwn(e.bids, tok.shownBid, true);
      w.asks = withOwn(e.asks, tok.shownAsk, false);
    }
    this.#h.emitMarket(e);
    if (wasAwaiting && this.#pendingSnapshots === 0 && !this.#up) this.#resynced(e.recvTime);
  }

  #onBestBidAsk(e: BestBidAskEvent): void {
    const tok = this.#tokens.get(e.tokenId);
    if (tok !== undefined && this.#show && (tok.shownBestBid !== 0 || tok.shownBestAsk !== 0)) {
      const w = e as Mutable<BestBidAskEvent>;
      w.bestBid = comb(e.bestBid, tok.shownBestBid, true);
      w.bestAsk = comb(e.bestAsk, tok.shownBestAsk, false);
      w.spread = (w.bestBid !== null && w.bestAsk !== null ? Math.max(0, w.bestAsk - w.bestBid) : 0) as Pips;
    }
    this.#h.emitMarket(e);
  }

  #onTickChange(e: TickSizeChangeEvent): void {
    const tok = this.#tokens.get(e.tokenId);
    if (tok !== undefined && e.new !== tok.market.tick) this.#setTick(tok.market, e.new);
    this.#h.emitMarket(e);
  }

  /** The market's tick changed: our orders off the new tick are cancelled, as the venue cancels them. */
  #setTick(m: MarketState, pips: number): void {
    let tick;
    try {
      tick = tickFromPips(pips);
    } catch {
      return; // not a venue tick: ignored
    }
    m.tick = pips;
    m.info = { ...m.info, tick };
    this.#ours.cancelOffTick(m, pips);
  }

  #onResolved(e: MarketResolvedEvent): void {
    const m = this.#markets.get(e.market);
    if (m !== undefined && !m.resolved) this.#h.resolve(m, e.winningTokenId);
    this.#h.emitMarket(e);
  }

  // ---- stream status ------------------------------------------------------------------------------

  onDisconnect(reason: string, t: number): void {
    this.#finalizeAll();
    this.#inBatch = false;
    this.#inMessage = false;
    if (!this.#up) return;
    this.#up = false;
    this.#c.disconnects++;
    for (const tok of this.#tokens.values()) {
      if (tok.awaiting) this.#pendingSnapshots--;
      tok.awaiting = false;
    }
    this.#h.emitMarket({
      type: 'disconnected',
      stream: 'market',
      reason: reason || 'recorded disconnect',
      venueTime: t,
      recvTime: t,
    });
  }

  onConnect(t: number): void {
    if (this.#up) return; // the first connection of a recording, a new part: nothing was lost
    let n = 0;
    for (const tok of this.#tokens.values()) {
      if (tok.book.snapshotted) {
        tok.awaiting = true;
        n++;
      }
    }
    this.#pendingSnapshots = n;
    if (n === 0) this.#resynced(t);
  }

  #resynced(t: number): void {
    this.#up = true;
    // `initial` is per subscriber: set on delivery
    this.#h.emitMarket({ type: 'resynced', stream: 'market', initial: false, venueTime: t, recvTime: t });
  }

  // ---- our orders in the book the bot sees ----------------------------------------------------------

  /** Announces the levels our orders changed, as level changes of the tokens concerned. */
  flushShown(): void {
    if (this.#shown.dirty.length === 0) return;
    const out = this.#shown.drain(this.#h.now(), this.#inBatch, this.#snapshotting);
    for (const e of out) this.#h.emitMarket(e);
  }
}
