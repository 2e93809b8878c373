/**
 * Building blocks of the metadata (Gamma), Data and Content schemas.
 *
 * Rules (DESIGN "Validate at every boundary"):
 *  - objects tolerate unknown extra fields (zod's default strips them) and require the fields a bot
 *    needs; a missing or malformed one fails validation (the transport turns it into a ValidationError
 *    naming the path);
 *  - money and prices stay exact: decimal strings are kept as strings; where a typed result exposes a
 *    number it is an integer unit of core/units.ts (Pips for tick-aligned prices, Micro for sizes),
 *    converted once here, never a float;
 *  - the venue's JSON-encoded string fields (`"[\"Yes\",\"No\"]"`) become arrays.
 */
import { z } from 'zod';
import { parseAmount, parsePrice, tickFromPips, type Micro, type Pips, type TickSize } from '../../core/units.ts';

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** Text of a JSON number that carries a decimal (0.55 → "0.55"; never exponent notation for money-sized values). */
function numberText(n: number): string {
  const s = String(n);
  return /e/i.test(s) ? n.toFixed(12).replace(/\.?0+$/, '') : s;
}

/** A (possibly negative) decimal string, kept exact: "6.75", "-1.5", "0". A JSON number is accepted and kept as its text. */
export const decimalString = z.union([
  z.string().regex(DECIMAL, 'expected a decimal string'),
  z.number().finite().transform(numberText),
]);

/** A decimal string or null. */
export const decimalOrNull = decimalString.nullable();

/**
 * A price on the venue's grid (decimal string or JSON number) as integer pips, or null. Digits past
 * the 4th decimal are rounded half-up (only possible from a foreign venue's floats).
 */
export const pipsOrNull = z
  .union([z.string(), z.number().finite(), z.null()])
  .optional()
  .transform((v, ctx): Pips | null => {
    if (v === null || v === undefined) return null;
    try {
      return parsePrice(typeof v === 'number' ? numberText(v) : v, 'half-up');
    } catch {
      ctx.addIssue({ code: 'custom', message: `not a price: ${String(v).slice(0, 20)}` });
      return z.NEVER;
    }
  });

/** A price in pips, required. */
export const pips = pipsOrNull.transform((v, ctx): Pips => {
  if (v === null) {
    ctx.addIssue({ code: 'custom', message: 'price required' });
    return z.NEVER;
  }
  return v;
});

/** A non-negative amount (decimal string or JSON number) as integer micro-units (digits past the 6th dropped). */
export const micro = z.union([z.string(), z.number().finite()]).transform((v, ctx): Micro => {
  try {
    return parseAmount(typeof v === 'number' ? numberText(v) : v, 'down');
  } catch {
    ctx.addIssue({ code: 'custom', message: `not a non-negative amount: ${String(v).slice(0, 20)}` });
    return z.NEVER;
  }
});

/** A tick size from "0.01" or 0.01 (the venue's `orderPriceMinTickSize` is a JSON number). */
export const tickSize = z.union([z.string(), z.number().finite()]).transform((v, ctx): TickSize => {
  try {
    return tickFromPips(parsePrice(typeof v === 'number' ? numberText(v) : v, 'exact'));
  } catch {
    ctx.addIssue({ code: 'custom', message: `not a tick size (0.1, 0.01, 0.001, 0.0001): ${String(v).slice(0, 20)}` });
    return z.NEVER;
  }
});

/**
 * A list of strings sent as a JSON-encoded string (`"[\"Yes\",\"No\"]"`, as the venue's Gamma
 * does for `outcomes`, `outcomePrices`, `clobTokenIds`) or as a real array. Numbers inside are
 * kept as their text.
 */
export const jsonStringArray = z
  .union([z.string(), z.array(z.union([z.string(), z.number()]))])
  .transform((v, ctx): string[] => {
    let arr: unknown = v;
    if (typeof v === 'string') {
      try {
        arr = v.trim() === '' ? [] : JSON.parse(v);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'not a JSON-encoded array' });
        return z.NEVER;
      }
    }
    if (
      !Array.isArray(arr) ||
      !arr.every((x) => typeof x === 'string' || (typeof x === 'number' && Number.isFinite(x)))
    ) {
      ctx.addIssue({ code: 'custom', message: 'expected an array of strings' });
      return z.NEVER;
    }
    return arr.map((x) => (typeof x === 'number' ? numberText(x) : (x as string)));
  });

/** Tag labels: strings, or tag objects `{label}` as some Gamma deployments send (label kept). */
export const tagLabels = z
  .array(z.union([z.string(), z.object({ label: z.string() }).transform((t) => t.label)]))
  .optional()
  .transform((v) => v ?? []);

/** An integer that may come as a JSON number or a digit string. */
export const intLike = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d+$/)
    .transform(Number),
]);

/** `{"status": "ok"}` of the health endpoints. */
export const healthSchema = z.object({ status: z.string() });
export type Health = z.output<typeof healthSchema>;

/** Cursor of the first page (base64 "0"). */
export const FIRST_CURSOR = 'MA==';
/** Cursor past the last page (base64 "-1"). */
export const END_CURSOR = 'LTE=';

/** One page of a list, with whatever page facts the answer carried (null when absent). */
export interface Page<T> {
  items: T[];
  /** Cursor of the next page; `END_CURSOR` ("LTE=") on the last page; null when the answer had none. */
  nextCursor: string | null;
  /** Records matching the query, when the answer said so. */
  total: number | null;
  limit: number | null;
  offset: number | null;
}

/**
 * A page of the Data / Content APIs. The transport unwraps the success envelope and keeps the page
 * facts beside `data` (`{data: [...], count, limit, offset, total, next_cursor}`); a bare array (a
 * transport that drops them) is accepted too, and the full envelope `{success: true, data, ...}`.
 */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z
    .preprocess(
      (v) => (Array.isArray(v) ? { data: v } : v),
      z.object({
        data: z.array(item),
        next_cursor: z.string().nullish(),
        total: z.number().int().nonnegative().nullish(),
        limit: z.number().int().nullish(),
        offset: z.number().int().nullish(),
      }),
    )
    .transform(
      (p): Page<z.output<T>> => ({
        items: p.data,
        nextCursor: p.next_cursor ?? null,
        total: p.total ?? null,
        limit: p.limit ?? null,
        offset: p.offset ?? null,
      }),
    );
}

/**
 * A single record of an enveloped API. The transport unwraps `{success: true, data}`; this also
 * accepts the envelope itself, so the schema works under any transport.
 */
export function enveloped<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => {
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if (o['success'] === true && 'data' in o) return o['data'];
    }
    return v;
  }, schema);
}
