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
import { PRICE_SCALE, type Micro, type Pips } from '../../core/units.ts';
import { bestPips, feeBps, levelPips, sizeMicro, tickPipsOf, timestampMs } from './decode.ts';
import type { MarketDecoderStats } from './market-decode.ts';

const ESCAPE_OR_CONTROL = /[\\\u0000-\u001f]/;
const Q = 34; // "
const _BS = 92; // \
const COLON = 58;
const COMMA = 44;
const LB = 123; // {
const RB = 125; // }
const LS = 91; // [
const RS = 93; // ]

const K_OTHER = 0;
const K_TYPE = 1;
const K_ASSET = 2;
const K_MARKET = 3;
const K_HASH = 4;
const K_TS = 5;
const K_PRICE = 6;
const K_SIZE = 7;
const K_SIDE = 8;
const K_FEE = 9;
const K_BEST_BID = 10;
const K_BEST_ASK = 11;
const K_SPREAD = 12;
const K_TICK = 13;
const K_MIN_SIZE = 14;
const K_LTP = 15;
const K_BIDS = 16;
const K_ASKS = 17;
const K_CHANGES = 18;

/** A failed scan: the caller falls back to the reference path. */
class Bail {}
const BAIL = new Bail();

/** Scanner state over one frame's text (one instance reused; not re-entrant). */
class Scanner {
  s = '';
  i = 0;

  /** Reads a string token at `i` (the frame holds no backslash nor control character: checked once); returns its content. */
  str(): string {
    const s = this.s;
    const i = this.i;
    if (s.charCodeAt(i) !== Q) throw BAIL;
    const end = s.indexOf('"', i + 1);
    if (end < 0) throw BAIL;
    this.i = end + 1;
    return s.slice(i + 1, end);
  }

  /** Skips a string token without copying it. */
  skipStr(): void {
    const s = this.s;
    const i = this.i;
    if (s.charCodeAt(i) !== Q) throw BAIL;
    const end = s.indexOf('"', i + 1);
    if (end < 0) throw BAIL;
    this.i = end + 1;
  }

  /** Reads a key token and the colon after it; returns its K_* id (K_OTHER for a key this scanner does not use). */
  key(): number {
    const s = this.s;
    const a = this.i + 1;
    if (s.charCodeAt(this.i) !== Q) throw BAIL;
    const end = s.indexOf('"', a);
    if (end < 0 || s.charCodeAt(end + 1) !== COLON) throw BAIL;
    this.i = end + 2;
    // a string switch: V8 rejects most cases on the length alone
    switch (s.slice(a, end)) {
      case 'event_type':
        return K_TYPE;
      case 'asset_id':
        return K_ASSET;
      case 'market':
        return K_MARKET;
      case 'hash':
        return K_HASH;
      case 'timestamp':
        return K_TS;
      case 'price':
        return K_PRICE;
      case 'size':
        return K_SIZE;
      case 'side':
        return K_SIDE;
      case 'fee_rate_bps':
        return K_FEE;
      case 'best_bid':
        return K_BEST_BID;
      case 'best_ask':
        return K_BEST_ASK;
      case 'spread':
        return K_SPREAD;
      case 'tick_size':
        return K_TICK;
      case 'min_order_size':
        return K_MIN_SIZE;
      case 'last_trade_price':
        return K_LTP;
      case 'bids':
        return K_BIDS;
      case 'asks':
        return K_ASKS;
      case 'price_changes':
        return K_CHANGES;
      default:
        return K_OTHER;
    }
  }

  expect(c: number): void {
    if (this.s.charCodeAt(this.i) !== c) throw BAIL;
    this.i++;
  }

  peek(): number {
    return this.s.charCodeAt(this.i);
  }

  /** Skips any JSON value (validated as JSON.parse would). */
  skipValue(depth = 0): void {
    if (depth > 64) throw BAIL;
    const c = this.peek();
    if (c === Q) return this.skipStr();
    if (c === LB) {
      this.i++;
      if (this.peek() === RB) {
        this.i++;
        return;
      }
      for (;;) {
        this.key();
        this.skipValue(depth + 1);
        const d = this.peek();
        this.i++;
        if (d === RB) return;
        if (d !== COMMA) throw BAIL;
      }
    }
    if (c === LS) {
      this.i++;
      if (this.peek() === RS) {
        this.i++;
        return;
      }
      for (;;) {
        this.skipValue(depth + 1);
        const d = this.peek();
        this.i++;
        if (d === RS) return;
        if (d !== COMMA) throw BAIL;
      }
    }
    if (c === 116 /* t */) return this.lit('true');
    if (c === 102 /* f */) return this.lit('false');
    if (c === 110 /* n */) return this.lit('null');
    this.num();
  }

  lit(w: string): void {
    if (!this.s.startsWith(w, this.i)) throw BAIL;
    this.i += w.length;
  }

  /** Skips a JSON number (RFC 8259 grammar). */
  num(): void {
    const s = this.s;
    let i = this.i;
    if (s.charCodeAt(i) === 45) i++;
    let c = s.charCodeAt(i);
    if (c === 48) i++;
    else if (c >= 49 && c <= 57) {
      i++;
      while (isDigit(s.charCodeAt(i))) i++;
    } else throw BAIL;
    if (s.charCodeAt(i) === 46) {
      i++;
      if (!isDigit(s.charCodeAt(i))) throw BAIL;
      while (isDigit(s.charCodeAt(i))) i++;
    }
    c = s.charCodeAt(i);
    if (c === 101 || c === 69) {
      i++;
      c = s.charCodeAt(i);
      if (c === 43 || c === 45) i++;
      if (!isDigit(s.charCodeAt(i))) throw BAIL;
      while (isDigit(s.charCodeAt(i))) i++;
    }
    this.i = i;
  }

  /** A string value, or BAIL for any other JSON type (the reference path decides those). */
  strValue(): string {
    return this.str();
  }

  /** Price and size (pips, micro) of the last `level()` read. */
  lp = 0;
  ls = 0;

  /**
   * Reads `{"price":"<d>","size":"<d>"}` at the cursor, both plain decimals (digits, one dot), into
   * lp/ls as levelPips/sizeMicro's conversion gives them (-1: refused); false, with the cursor
   * unmoved, when the text is not exactly that form. The literal checks are unrolled on purpose:
   * a loop over a key string (or startsWith) measured several times slower here.
   */
  level(): boolean {
    const s = this.s;
    const i = this.i;
    if (
      s.charCodeAt(i) !== LB ||
      s.charCodeAt(i + 1) !== Q ||
      s.charCodeAt(i + 2) !== 112 || // p
      s.charCodeAt(i + 3) !== 114 || // r
      s.charCodeAt(i + 4) !== 105 || // i
      s.charCodeAt(i + 5) !== 99 || // c
      s.charCodeAt(i + 6) !== 101 || // e
      s.charCodeAt(i + 7) !== Q ||
      s.charCodeAt(i + 8) !== COLON ||
      s.charCodeAt(i + 9) !== Q
    )
      return false;
    const p = decimalAt(s, i + 10, 4);
    if (p === undefined) return false;
    const j = END;
    if (
      s.charCodeAt(j) !== Q ||
      s.charCodeAt(j + 1) !== COMMA ||
      s.charCodeAt(j + 2) !== Q ||
      s.charCodeAt(j + 3) !== 115 || // s
      s.charCodeAt(j + 4) !== 105 || // i
      s.charCodeAt(j + 5) !== 122 || // z
      s.charCodeAt(j + 6) !== 101 || // e
      s.charCodeAt(j + 7) !== Q ||
      s.charCodeAt(j + 8) !== COLON ||
      s.charCodeAt(j + 9) !== Q
    )
      return false;
    const z = decimalAt(s, j + 10, 6);
    if (z === undefined) return false;
    const k = END;
    if (s.charCodeAt(k) !== Q || s.charCodeAt(k + 1) !== RB) return false;
    this.lp = p;
    this.ls = z;
    this.i = k + 2;
    return true;
  }

  /** `{"price":"..","size":".."}` levels of a book side into `prices`/`sizes` (wire order). */
  levels(prices: number[], sizes: number[]): number {
    this.expect(LS);
    let n = 0;
    if (this.peek() === RS) {
      this.i++;
      return 0;
    }
    for (;;) {
      // the venue's own form, {"price":"0.48","size":"179"}, read in place; anything else below
      if (this.level()) {
        const p = this.lp;
        const z = this.ls;
        if (p < 1 || p >= PRICE_SCALE || z < 0) throw BAIL;
        prices[n] = p;
        sizes[n] = z;
        n++;
        const d = this.peek();
        this.i++;
        if (d === RS) return n;
        if (d !== COMMA) throw BAIL;
        continue;
      }
      this.expect(LB);
      let price = -2;
      let size = -2;
      if (this.peek() !== RB) {
        for (;;) {
          const k = this.key();
          if (k === K_PRICE) {
            price = onceNum(price, levelPips(this.str()));
          } else if (k === K_SIZE) {
            size = onceNum(size, sizeMicro(this.str()));
          } else this.skipValue(1);
          const d = this.peek();
          this.i++;
          if (d === RB) break;
          if (d !== COMMA) throw BAIL;
        }
      } else this.i++;
      if (price < 0 || size < 0) throw BAIL;
      prices[n] = price;
      sizes[n] = size;
      n++;
      const d = this.peek();
      this.i++;
      if (d === RS) return n;
      if (d !== COMMA) throw BAIL;
    }
  }
}

/** Where the last `decimalAt` stopped (the index of the first character after the number). */
let END = 0;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/**
 * A plain decimal (digits, then optionally a dot and digits) at `i` of `s`, ending before the next
 * non-digit: decimalToInt's fast path, in place (no slice). Returns the integer in units of
 * 10^-decimals, -1 when decimalToInt gives -1 (inexact, above 2^53), undefined when the text is not
 * that plain form (empty, no leading digit, too long): the caller takes the general path.
 */
function decimalAt(s: string, i: number, decimals: number): number | undefined {
  const start = i;
  let v = 0;
  let c = s.charCodeAt(i);
  if (c < 48 || c > 57) return undefined;
  for (; c >= 48 && c <= 57; c = s.charCodeAt(++i)) v = v * 10 + (c - 48);
  let d = 0;
  let inexact = false;
  if (c === 46) {
    for (c = s.charCodeAt(++i); c >= 48 && c <= 57; c = s.charCodeAt(++i)) {
      if (d < decimals) {
        v = v * 10 + (c - 48);
        d++;
      } else if (c !== 48) inexact = true;
    }
  }
  if (i - start > 80) return undefined;
  END = i;
  if (inexact) return -1;
  for (; d < decimals; d++) v *= 10;
  return v > MAX_SAFE ? -1 : v;
}

/** A known key's string value: a second one bails (JSON.parse would keep the last: the reference decides). */
function once(prev: string | undefined, v: string): string {
  if (prev !== undefined) throw BAIL;
  return v;
}

/** A known key's converted number (-2: not seen yet): a second one, or a value the converter refused (-1), bails. */
function onceNum(prev: number, v: number): number {
  if (prev !== -2 || v < 0) throw BAIL;
  return v;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

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
