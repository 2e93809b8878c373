/**
 * The byte-level JSON scanner of the frame scanner (./frame-scan.ts): a cursor over one frame's
 * text (`Scanner`) that reads strings, keys (as K_* ids), book levels and plain decimals in place
 * and skips any other JSON value, throwing BAIL on anything the fast path does not take (the frame
 * scanner then declines the frame). The text holds no backslash nor control character: FrameScanner
 * checks that once per frame before scanning. Moved out of frame-scan.ts as it was: a hot path.
 */
import { PRICE_SCALE } from '../../core/units.ts';
import { levelPips, sizeMicro } from './decode.ts';

const Q = 34; // "
const _BS = 92; // \
const COLON = 58;
export const COMMA = 44;
export const LB = 123; // {
export const RB = 125; // }
export const LS = 91; // [
export const RS = 93; // ]

const K_OTHER = 0;
export const K_TYPE = 1;
export const K_ASSET = 2;
export const K_MARKET = 3;
export const K_HASH = 4;
export const K_TS = 5;
export const K_PRICE = 6;
export const K_SIZE = 7;
export const K_SIDE = 8;
export const K_FEE = 9;
export const K_BEST_BID = 10;
export const K_BEST_ASK = 11;
export const K_SPREAD = 12;
export const K_TICK = 13;
export const K_MIN_SIZE = 14;
export const K_LTP = 15;
export const K_BIDS = 16;
export const K_ASKS = 17;
export const K_CHANGES = 18;

/** A failed scan: the caller falls back to the reference path. */
class Bail {}
export const BAIL = new Bail();

/** Scanner state over one frame's text (one instance reused; not re-entrant). */
export class Scanner {
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
export function once(prev: string | undefined, v: string): string {
  if (prev !== undefined) throw BAIL;
  return v;
}

/** A known key's converted number (-2: not seen yet): a second one, or a value the converter refused (-1), bails. */
export function onceNum(prev: number, v: number): number {
  if (prev !== -2 || v < 0) throw BAIL;
  return v;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
