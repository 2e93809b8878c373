/**
 * Wire-edge conversions shared by the stream decoders: decimal strings to integer pips and
 * micro-units (exact, no float ever holds money), venue timestamps to unix ms, and the zod leaf
 * schemas built on them. The fast converters give exactly what src/core/units.ts gives (tested),
 * without BigInt on the hot path.
 */
import { z } from 'zod';
import { parseFixed, PRICE_SCALE } from '../../core/units.ts';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function slowDecimal(s: string, decimals: number): number {
  try {
    const v = parseFixed(s, decimals, 'exact');
    return v > BigInt(MAX_SAFE) ? -1 : Number(v);
  } catch {
    return -1;
  }
}

/**
 * A non-negative decimal string to an integer of `decimals` decimal places, exactly as
 * `parseFixed(s, decimals, 'exact')` reads it (digits beyond `decimals` must be zeros); -1 when
 * malformed, inexact or above 2^53. Plain "123.45" strings take a fast path without BigInt.
 */
export function decimalToInt(s: string, decimals: number): number {
  const n = s.length;
  if (n === 0) return -1;
  if (n > 80) return slowDecimal(s, decimals);
  let v = 0;
  let i = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) break;
    if (c < 48 || c > 57) return slowDecimal(s, decimals);
    v = v * 10 + (c - 48);
  }
  if (i === 0) return slowDecimal(s, decimals);
  let d = 0;
  if (i < n) {
    for (i++; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c < 48 || c > 57) return slowDecimal(s, decimals);
      if (d < decimals) {
        v = v * 10 + (c - 48);
        d++;
      } else if (c !== 48) return -1;
    }
  }
  for (; d < decimals; d++) v *= 10;
  return v > MAX_SAFE ? -1 : v;
}

/** A level price: pips in [1, 9999]; -1 otherwise. */
export function levelPips(s: string): number {
  const p = decimalToInt(s, 4);
  return p >= 1 && p < PRICE_SCALE ? p : -1;
}

/** A best price where "0" means "that side is empty": pips in [0, 9999]; -1 otherwise. */
export function bestPips(s: string): number {
  const p = decimalToInt(s, 4);
  return p >= 0 && p < PRICE_SCALE ? p : -1;
}

/** A size: micro-units >= 0; -1 otherwise. */
export function sizeMicro(s: string): number {
  return decimalToInt(s, 6);
}

/** The venue's tick sizes in pips. */
const TICKS = new Set([1, 10, 100, 1000]);

/** A tick size ("0.01" or 0.01) to pips; -1 when not one of the venue's ticks. */
export function tickPipsOf(v: unknown): number {
  let p = -1;
  if (typeof v === 'string') p = decimalToInt(v, 4);
  else if (typeof v === 'number' && Number.isFinite(v) && v > 0) p = decimalToInt(String(v), 4);
  return TICKS.has(p) ? p : -1;
}

/**
 * A venue timestamp to unix ms: a digit string or a number; values below 1e11 are taken as unix
 * seconds (the user channel's `timestamp` and `match_time`), below 1e14 as ms, and from 1e14 as
 * microseconds (as ms they would be past the year 5000, and a fill stored with such a time would
 * push every later restart's backfill window into the future). -1 when malformed.
 */
export function timestampMs(v: unknown): number {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'string' && v.length > 0 && v.length <= 20) {
    n = 0;
    for (let i = 0; i < v.length; i++) {
      const c = v.charCodeAt(i);
      if (c < 48 || c > 57) return -1;
      n = n * 10 + (c - 48);
    }
  } else return -1;
  if (!Number.isFinite(n) || n < 0 || n > MAX_SAFE) return -1;
  n = Math.floor(n);
  return n < 1e11 ? n * 1000 : n < 1e14 ? n : Math.floor(n / 1000);
}

/** A fee rate in basis points ("0", 100) to an integer; -1 when malformed. */
export function feeBps(v: unknown): number {
  if (typeof v === 'number') return Number.isInteger(v) && v >= 0 && v <= 10_000 ? v : -1;
  if (typeof v !== 'string') return -1;
  const n = decimalToInt(v, 0);
  return n <= 10_000 ? n : -1;
}

// ---- zod leaves (the reference the hand-written decoders are tested against) --------------------

const refine =
  (fn: (s: string) => number, what: string) =>
  (s: string, ctx: z.RefinementCtx): number => {
    const v = fn(s);
    if (v < 0) {
      ctx.addIssue({ code: 'custom', message: `bad ${what}: ${JSON.stringify(s.slice(0, 24))}` });
      return z.NEVER;
    }
    return v;
  };

/** A non-empty id string (token, condition, order, trade ids). */
export const zId = z.string().min(1).max(200);
/** A level price string to pips in [1, 9999]. */
export const zLevelPrice = z.string().transform(refine(levelPips, 'price'));
/** A best price string to pips in [0, 9999] (0: none). */
export const zBestPrice = z.string().transform(refine(bestPips, 'best price'));
/** A size string to micro-units. */
export const zSize = z.string().transform(refine(sizeMicro, 'size'));
/** BUY | SELL. */
export const zSide = z.enum(['BUY', 'SELL']);
/** An optional venue timestamp (digit string or number) to unix ms; absent: -1 (use the receive time). */
export const zTimestamp = z
  .union([z.string(), z.number()])
  .optional()
  .transform((v, ctx) => {
    if (v === undefined) return -1;
    const t = timestampMs(v);
    if (t < 0) {
      ctx.addIssue({ code: 'custom', message: 'bad timestamp' });
      return z.NEVER;
    }
    return t;
  });
/** An optional fee rate, default 0. */
export const zFeeBps = z
  .union([z.string(), z.number()])
  .optional()
  .transform((v, ctx) => {
    if (v === undefined) return 0;
    const f = feeBps(v);
    if (f < 0) {
      ctx.addIssue({ code: 'custom', message: 'bad fee_rate_bps' });
      return z.NEVER;
    }
    return f;
  });
/** A required tick size to pips. */
export const zTick = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const p = tickPipsOf(v);
  if (p < 0) {
    ctx.addIssue({ code: 'custom', message: 'bad tick size' });
    return z.NEVER;
  }
  return p;
});

/** Short description of a zod failure for logs and stream_error reasons (no values echoed). */
export function zodReason(err: z.ZodError): string {
  const i = err.issues[0];
  if (i === undefined) return 'invalid';
  const path = i.path.length > 0 ? i.path.join('.') : '(root)';
  return `${path}: ${i.message}`.slice(0, 200);
}
