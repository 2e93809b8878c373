/**
 * A market-channel frame straight from its text to events, without JSON.parse: the hot path of
 * feed replay (src/venues/sim/sim-venue.ts), where parsing each frame into objects and then walking
 * them cost more than everything the simulated venue does with the result.
 *
 * `scanFrame` recognises the canonical compact JSON the venue sends (no whitespace between tokens,
 * no escape sequences in strings) for the four kinds that make up nearly all of a feed: `book`,
 * `price_change`, `last_trade_price` and `best_bid_ask`. It reads the whole frame first; only when
 * every message of it is one of these and valid does it emit their events, and then it emits
 * exactly what `MarketDecoder.decode` emits for the parsed frame (same events, same counters; a
 * property test holds it to that). On anything else — another kind, a message the decoder would
 * refuse, whitespace, an escape, a duplicate key, text that is not JSON — it emits nothing and
 * returns false: the caller then takes the reference path (JSON.parse and `decode`), which decides.
 * So this is an accelerator with no behaviour of its own.
 *
 * Unknown keys are skipped (their values validated as JSON), as the decoder tolerates them.
 */
import type {
  BestBidAskEvent,
  BookSnapshotEvent,
  LastTradeEvent,
  LevelChangeEvent,
  MarketDataEvent,
  PriceLevel,
} from '../../core/events.ts';
import { priceLevel } from '../../core/events.ts';
import type { ConditionId, TokenId } from '../../core/ids.ts';
import type { Micro, Pips } from '../../core/units.ts';
import { bestPips, feeBps, levelPips, sizeMicro, tickPipsOf, timestampMs } from './decode.ts';
import {
  BAIL,
  COMMA,
  K_ASKS,
  K_ASSET,
  K_BEST_ASK,
  K_BEST_BID,
  K_BIDS,
  K_CHANGES,
  K_FEE,
  K_HASH,
  K_LTP,
  K_MARKET,
  K_MIN_SIZE,
  K_PRICE,
  K_SIDE,
  K_SIZE,
  K_SPREAD,
  K_TICK,
  K_TS,
  K_TYPE,
  LB,
  LS,
  RB,
  RS,
  Scanner,
  once,
  onceNum,
} from './frame-scan-json.ts';
import type { MarketDecoderStats } from './market-decode.ts';

const ESCAPE_OR_CONTROL = /[\\\u0000-\u001f]/;

const isId = (v: string | undefined): v is string => v !== undefined && v.length >= 1 && v.length <= 200;

/** Levels best first from wire-order arrays (as market-decode's bestFirst: reverse a best-last list, else sort). */
function bestFirst(prices: number[], sizes: number[], n: number, descending: boolean): PriceLevel[] {
  const out = new Array<PriceLevel>(n);
  let reversed = true;
  for (let i = 1; i < n; i++) {
    const a = prices[i - 1]!;
    const b = prices[i]!;
    if (descending ? a > b : a < b) {
      reversed = false;
      break;
    }
  }
  for (let i = 0; i < n; i++) {
    const j = reversed ? n - 1 - i : i;
    out[i] = priceLevel(prices[j]!, sizes[j]!);
  }
  if (!reversed) out.sort(descending ? (x, y) => y[0] - x[0] : (x, y) => x[0] - y[0]);
  return out;
}

/** Optional book metadata as the decoder degrades it (a bad value is null; a non-string value bails). */
function optTickStr(v: string | undefined): number | null {
  if (v === undefined) return null;
  const p = tickPipsOf(v);
  return p < 0 ? null : p;
}
function optSizeStr(v: string | undefined): number | null {
  if (v === undefined) return null;
  const s = sizeMicro(v);
  return s < 0 ? null : s;
}
function optPriceStr(v: string | undefined): number | null {
  if (v === undefined) return null;
  const p = levelPips(v);
  return p < 0 ? null : p;
}

const orNull = (p: number): Pips | null => (p === 0 ? null : (p as Pips));

/**
 * Frame text to events (see the module comment). Returns true when the frame was recognised: its
 * events went to `out` and `stats` counted its messages and events as `MarketDecoder.decode` would.
 * Returns false, having emitted and counted nothing, when the reference path must decide.
 */
export class FrameScanner {
  readonly #sc = new Scanner();
  readonly #events: MarketDataEvent[] = [];
  readonly #bp: number[] = [];
  readonly #bs: number[] = [];
  readonly #ap: number[] = [];
  readonly #as: number[] = [];
  /** Frames recognised, and frames handed back to the reference path. */
  scanned = 0;
  declined = 0;

  scan(raw: string, recvTime: number, stats: MarketDecoderStats, out: (e: MarketDataEvent) => void): boolean {
    const sc = this.#sc;
    const evs = this.#events;
    evs.length = 0;
    // escapes and raw control characters (invalid JSON) are left to the reference path: strings
    // then end at the next quote
    if (ESCAPE_OR_CONTROL.test(raw)) {
      this.declined++;
      return false;
    }
    sc.s = raw;
    sc.i = 0;
    let messages = 0;
    try {
      const c = sc.peek();
      if (c === LS) {
        sc.i++;
        if (sc.peek() === RS) throw BAIL; // an empty array: rare, the reference path counts it
        for (;;) {
          this.#message(recvTime);
          messages++;
          const d = sc.peek();
          sc.i++;
          if (d === RS) break;
          if (d !== COMMA) throw BAIL;
        }
      } else {
        this.#message(recvTime);
        messages++;
      }
      if (sc.i !== raw.length) throw BAIL;
    } catch (err) {
      if (err !== BAIL) throw err;
      evs.length = 0;
      sc.s = '';
      this.declined++;
      return false;
    }
    sc.s = '';
    this.scanned++;
    stats.messages += messages;
    // as decode counts: an event is counted just before it is handed on
    for (let i = 0; i < evs.length; i++) {
      stats.events++;
      out(evs[i]!);
    }
    evs.length = 0;
    return true;
  }

  /** One message object at the cursor: its events are appended to #events. */
  #message(recvTime: number): void {
    const sc = this.#sc;
    sc.expect(LB);
    let type: string | undefined;
    let asset: string | undefined;
    let market: string | undefined;
    let hash: string | undefined;
    let ts: string | undefined;
    let price: string | undefined;
    let size: string | undefined;
    let side: string | undefined;
    let fee: string | undefined;
    let bestBid: string | undefined;
    let bestAsk: string | undefined;
    let spread: string | undefined;
    let tick: string | undefined;
    let minSize: string | undefined;
    let ltp: string | undefined;
    let nb = -1;
    let na = -1;
    let changesAt = -1;
    let changesEnd = -1;
    if (sc.peek() === RB) throw BAIL;
    for (;;) {
      switch (sc.key()) {
        case K_TYPE:
          type = once(type, sc.strValue());
          break;
        case K_ASSET:
          asset = once(asset, sc.str());
          break;
        case K_MARKET:
          market = once(market, sc.str());
          break;
        case K_HASH:
          hash = once(hash, sc.str());
          break;
        case K_TS:
          ts = once(ts, sc.strValue());
          break;
        case K_PRICE:
          price = once(price, sc.str());
          break;
        case K_SIZE:
          size = once(size, sc.str());
          break;
        case K_SIDE:
          side = once(side, sc.strValue());
          break;
        case K_FEE:
          fee = once(fee, sc.str());
          break;
        case K_BEST_BID:
          bestBid = once(bestBid, sc.str());
          break;
        case K_BEST_ASK:
          bestAsk = once(bestAsk, sc.str());
          break;
        case K_SPREAD:
          spread = once(spread, sc.str());
          break;
        case K_TICK:
          tick = once(tick, sc.str());
          break;
        case K_MIN_SIZE:
          minSize = once(minSize, sc.str());
          break;
        case K_LTP:
          ltp = once(ltp, sc.str());
          break;
        case K_BIDS:
          if (nb >= 0) throw BAIL;
          nb = sc.levels(this.#bp, this.#bs);
          break;
        case K_ASKS:
          if (na >= 0) throw BAIL;
          na = sc.levels(this.#ap, this.#as);
          break;
        case K_CHANGES:
          // the entries' events get the message's market and time once the message is read
          if (changesAt >= 0) throw BAIL;
          changesAt = this.#events.length;
          this.#changes(recvTime);
          changesEnd = this.#events.length;
          break;
        default:
          sc.skipValue(1);
      }
      const d = sc.peek();
      sc.i++;
      if (d === RB) break;
      if (d !== COMMA) throw BAIL;
    }
    let venueTime = recvTime;
    if (ts !== undefined) {
      const t = timestampMs(ts);
      if (t < 0) throw BAIL;
      venueTime = t;
    }
    const evs = this.#events;
    switch (type) {
      case 'book': {
        if (!isId(asset) || !isId(market) || hash === undefined || nb < 0 || na < 0 || changesAt >= 0) throw BAIL;
        const e: BookSnapshotEvent = {
          type: 'book_snapshot',
          venueTime,
          recvTime,
          market: market as ConditionId,
          tokenId: asset as TokenId,
          bids: bestFirst(this.#bp, this.#bs, nb, true),
          asks: bestFirst(this.#ap, this.#as, na, false),
          hash,
          tickSize: optTickStr(tick) as Pips | null,
          minOrderSize: optSizeStr(minSize) as Micro | null,
          lastTradePrice: optPriceStr(ltp) as Pips | null,
        };
        evs.push(e);
        return;
      }
      case 'price_change': {
        if (!isId(market) || changesAt < 0 || nb >= 0 || na >= 0) throw BAIL;
        for (let i = changesAt; i < changesEnd; i++) {
          const e = evs[i] as { market: string; venueTime: number };
          e.market = market;
          e.venueTime = venueTime;
        }
        return;
      }
      case 'last_trade_price': {
        if (
          !isId(asset) ||
          !isId(market) ||
          price === undefined ||
          size === undefined ||
          (side !== 'BUY' && side !== 'SELL') ||
          nb >= 0 ||
          na >= 0 ||
          changesAt >= 0
        )
          throw BAIL;
        const p = levelPips(price);
        const s = sizeMicro(size);
        if (p < 0 || s < 0) throw BAIL;
        let f = 0;
        if (fee !== undefined) {
          f = feeBps(fee);
          if (f < 0) throw BAIL;
        }
        const e: LastTradeEvent = {
          type: 'last_trade',
          venueTime,
          recvTime,
          market: market as ConditionId,
          tokenId: asset as TokenId,
          price: p as Pips,
          size: s as Micro,
          side,
          feeRateBps: f,
        };
        evs.push(e);
        return;
      }
      case 'best_bid_ask': {
        if (
          !isId(asset) ||
          !isId(market) ||
          bestBid === undefined ||
          bestAsk === undefined ||
          nb >= 0 ||
          na >= 0 ||
          changesAt >= 0
        )
          throw BAIL;
        const bb = bestPips(bestBid);
        const ba = bestPips(bestAsk);
        const sp = spread === undefined ? 0 : bestPips(spread);
        if (bb < 0 || ba < 0 || sp < 0) throw BAIL;
        const e: BestBidAskEvent = {
          type: 'best_bid_ask',
          venueTime,
          recvTime,
          market: market as ConditionId,
          tokenId: asset as TokenId,
          bestBid: orNull(bb),
          bestAsk: orNull(ba),
          spread: sp as Pips,
        };
        evs.push(e);
        return;
      }
      default:
        throw BAIL;
    }
  }

  /** The `price_changes` array at the cursor: one level_change per entry, the last with endOfBatch. */
  #changes(recvTime: number): void {
    const sc = this.#sc;
    const evs = this.#events;
    sc.expect(LS);
    if (sc.peek() === RS) {
      sc.i++;
      return;
    }
    const first = evs.length;
    for (;;) {
      sc.expect(LB);
      let asset: string | undefined;
      let price = -2;
      let size = -2;
      let side: string | undefined;
      let hash: string | undefined;
      let bb = -2;
      let ba = -2;
      if (sc.peek() === RB) throw BAIL;
      for (;;) {
        switch (sc.key()) {
          case K_ASSET:
            asset = once(asset, sc.str());
            break;
          case K_PRICE:
            price = onceNum(price, levelPips(sc.str()));
            break;
          case K_SIZE:
            size = onceNum(size, sizeMicro(sc.str()));
            break;
          case K_SIDE:
            side = once(side, sc.strValue());
            break;
          case K_HASH:
            hash = once(hash, sc.str());
            break;
          case K_BEST_BID:
            bb = onceNum(bb, bestPips(sc.str()));
            break;
          case K_BEST_ASK:
            ba = onceNum(ba, bestPips(sc.str()));
            break;
          default:
            sc.skipValue(2);
        }
        const d = sc.peek();
        sc.i++;
        if (d === RB) break;
        if (d !== COMMA) throw BAIL;
      }
      if (
        !isId(asset) ||
        price < 0 ||
        size < 0 ||
        (side !== 'BUY' && side !== 'SELL') ||
        hash === undefined ||
        bb < 0 ||
        ba < 0
      )
        throw BAIL;
      const e: LevelChangeEvent = {
        type: 'level_change',
        venueTime: recvTime, // set with the message's market once it is read
        recvTime,
        market: '' as ConditionId,
        tokenId: asset as TokenId,
        side,
        price: price as Pips,
        size: size as Micro,
        bestBid: orNull(bb),
        bestAsk: orNull(ba),
        hash,
        endOfBatch: false,
      };
      evs.push(e);
      const d = sc.peek();
      sc.i++;
      if (d === RS) break;
      if (d !== COMMA) throw BAIL;
    }
    (evs[evs.length - 1] as { endOfBatch: boolean }).endOfBatch = evs.length > first;
  }
}
