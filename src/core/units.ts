/**
 * Exact units. Inside mmkit, money is integers; decimal strings exist only on the wire.
 *
 *  - Price: integer pips, 1 pip = 0.0001 (PRICE_SCALE = 10_000). Every tick size of the venue
 *    (0.1, 0.01, 0.001, 0.0001) is a whole number of pips, so a price is always exact and a book
 *    side can be a dense array of at most 10_001 levels.
 *  - Amount: integer micro-units, 1 micro = 0.000001 of collateral or of a share (AMOUNT_SCALE =
 *    1_000_000), the venue's 6 decimals.
 *  - Notional of `size` micro-shares at `price` pips = size * price / 10_000 micro-collateral.
 *    Sizes are kept on the 0.01-share lot (LOT_MICRO = 10_000), which makes that division exact.
 *
 * Every product of two amounts is kept below 2^53: MAX_ORDER_MICRO * PRICE_SCALE < 2^53.
 */
import { ValidationError } from './errors.ts';
import type { Brand } from './ids.ts';

export type Pips = Brand<number, 'Pips'>;
export type Micro = Brand<number, 'Micro'>;

export const PRICE_SCALE = 10_000;
export const PRICE_DECIMALS = 4;
export const AMOUNT_SCALE = 1_000_000;
export const AMOUNT_DECIMALS = 6;
/** Orders are sized in whole 0.01-share lots (the public client rounds size down to 2 decimals). */
export const LOT_MICRO = 10_000;
/** Largest order, in micro-shares or micro-collateral: 500,000 shares. Keeps size*price < 2^53. */
export const MAX_ORDER_MICRO = 500_000 * AMOUNT_SCALE;

export type TickSize = '0.1' | '0.01' | '0.001' | '0.0001';
export const TICK_SIZES: readonly TickSize[] = ['0.1', '0.01', '0.001', '0.0001'];

/** Rounding decimals per tick size, as the public client uses them: price / size / amount. */
export const ROUNDING: Readonly<Record<TickSize, { price: number; size: number; amount: number }>> = {
  '0.1': { price: 1, size: 2, amount: 3 },
  '0.01': { price: 2, size: 2, amount: 4 },
  '0.001': { price: 3, size: 2, amount: 5 },
  '0.0001': { price: 4, size: 2, amount: 6 },
};

export function isTickSize(s: unknown): s is TickSize {
  return typeof s === 'string' && (TICK_SIZES as readonly string[]).includes(s);
}
/** Tick size as pips: '0.01' -> 100. */
export function tickPips(tick: TickSize): Pips {
  // looked up: the engine asks for the current tick on every gate call
  return TICK_PIPS.get(tick) ?? ((PRICE_SCALE / 10 ** ROUNDING[tick].price) as Pips);
}
const TICK_PIPS: ReadonlyMap<string, Pips> = new Map(
  TICK_SIZES.map((t) => [t, (PRICE_SCALE / 10 ** ROUNDING[t].price) as Pips]),
);
/** Pips back to a tick size. @throws ValidationError when not a venue tick. */
export function tickFromPips(p: number): TickSize {
  for (const t of TICK_SIZES) if (tickPips(t) === p) return t;
  throw new ValidationError(`not a tick size in pips: ${p}`);
}

export type Rounding = 'exact' | 'down' | 'up' | 'half-up';

const DECIMAL = /^(\d+)(?:\.(\d*))?$/;

/**
 * Parse a non-negative decimal string (or a finite JSON number) into an integer of `decimals`
 * decimal places, with an explicit rounding direction.
 * @throws ValidationError on malformed input, or when rounding is 'exact' and digits would be lost.
 */
export function parseFixed(input: string | number, decimals: number, rounding: Rounding = 'exact'): bigint {
  let s: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input) || input < 0) throw new ValidationError(`not a finite non-negative number: ${input}`);
    s = numberToPlainString(input);
  } else if (typeof input === 'string') {
    s = input.trim();
  } else {
    throw new ValidationError(`expected a decimal string, got ${typeof input}`);
  }
  const m = DECIMAL.exec(s);
  if (m === null || s.length > 80)
    throw new ValidationError(`not a decimal: ${JSON.stringify(String(input)).slice(0, 40)}`);
  const intPart = m[1] ?? '0';
  const frac = m[2] ?? '';
  const kept = frac.slice(0, decimals).padEnd(decimals, '0');
  const dropped = frac.slice(decimals);
  let v = BigInt(intPart + kept);
  if (/[1-9]/.test(dropped)) {
    switch (rounding) {
      case 'exact':
        throw new ValidationError(`${s} has more than ${decimals} decimals`);
      case 'down':
        break;
      case 'up':
        v += 1n;
        break;
      case 'half-up':
        if (dropped.charCodeAt(0) >= 53 /* '5' */) v += 1n;
        break;
    }
  }
  return v;
}

function numberToPlainString(n: number): string {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  return n.toFixed(20).replace(/\.?0+$/, '');
}

/** Format an integer of `decimals` decimal places as a minimal decimal string ("0.5", "12", "0.0001"). */
export function formatFixed(v: bigint | number, decimals: number): string {
  const neg = v < 0;
  let a = typeof v === 'bigint' ? (neg ? -v : v) : BigInt(Math.abs(v));
  const scale = 10n ** BigInt(decimals);
  const ip = a / scale;
  const fp = (a % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  a = 0n;
  return `${neg ? '-' : ''}${ip}${fp.length ? '.' + fp : ''}`;
}

function toSafeNumber(v: bigint, what: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ValidationError(`${what} too large`);
  return Number(v);
}

/** Wire price -> pips. Rounds by `rounding` (default: must be exact to 4 decimals). */
export function parsePrice(s: string | number, rounding: Rounding = 'exact'): Pips {
  return toSafeNumber(parseFixed(s, PRICE_DECIMALS, rounding), 'price') as Pips;
}
export function formatPrice(p: number): string {
  return formatFixed(p, PRICE_DECIMALS);
}
/** Wire amount/size (decimal, 6 places max) -> micro-units. */
export function parseAmount(s: string | number, rounding: Rounding = 'exact'): Micro {
  return toSafeNumber(parseFixed(s, AMOUNT_DECIMALS, rounding), 'amount') as Micro;
}
export function formatAmount(m: number | bigint): string {
  return formatFixed(m, AMOUNT_DECIMALS);
}
/** Raw integer string ("10520000", as in signed orders) -> micro-units. */
export function parseRawAmount(s: string): Micro {
  if (!/^\d{1,30}$/.test(s)) throw new ValidationError(`not an integer amount: ${JSON.stringify(s).slice(0, 40)}`);
  return toSafeNumber(BigInt(s), 'amount') as Micro;
}

/** True when `p` is a valid price on `tick`: a multiple of the tick inside [tick, 1 - tick]. */
export function isValidPrice(p: number, tick: number): boolean {
  return Number.isInteger(p) && p % tick === 0 && p >= tick && p <= PRICE_SCALE - tick;
}

/** Collateral (micro) of `size` micro-shares at `price` pips, rounded in the given direction. */
export function notional(size: number, price: number, rounding: 'down' | 'up' = 'down'): number {
  const prod = size * price;
  const q = Math.floor(prod / PRICE_SCALE);
  return rounding === 'up' && q * PRICE_SCALE !== prod ? q + 1 : q;
}

/** Decimal arithmetic on bigints at a fixed scale, for the client's amount rounding. */
const S = 18;
const SCALE = 10n ** BigInt(S);
function dec(s: string | number): bigint {
  return parseFixed(s, S, 'down');
}
function decimalsOf(v: bigint): number {
  if (v % SCALE === 0n) return 0;
  let r = v % SCALE;
  let d = S;
  while (r % 10n === 0n) {
    r /= 10n;
    d--;
  }
  return d;
}
function roundTo(v: bigint, dp: number, mode: 'down' | 'up' | 'half-up'): bigint {
  const unit = 10n ** BigInt(S - dp);
  const q = v / unit;
  const r = v % unit;
  if (r === 0n) return v;
  if (mode === 'down') return q * unit;
  if (mode === 'up') return (q + 1n) * unit;
  return (r * 2n >= unit ? q + 1n : q) * unit;
}
function toMicro(v: bigint): bigint {
  // v is at scale 1e18; 6-decimal units, rounded down (already rounded to <= 6 dp by callers)
  return v / 10n ** BigInt(S - AMOUNT_DECIMALS);
}
function roundNotional(x: bigint, amountDp: number): bigint {
  if (decimalsOf(x) > amountDp) {
    x = roundTo(x, amountDp + 4, 'up');
    if (decimalsOf(x) > amountDp) x = roundTo(x, amountDp, 'down');
  }
  return x;
}

export type Side = 'BUY' | 'SELL';

export interface RawAmounts {
  /** What the maker gives: collateral for BUY, shares for SELL (micro-units). */
  makerAmount: bigint;
  /** What the maker receives: shares for BUY, collateral for SELL (micro-units). */
  takerAmount: bigint;
}

/**
 * Signed-order amounts of a limit order, exactly as the public client computes them: price rounded
 * half-up to the tick's decimals, size rounded down to 2 decimals, notional rounded per ROUNDING.
 * Example: BUY, tick 0.01, 0.56 x 21.04 -> 11782400 / 21040000.
 */
export function limitOrderAmounts(
  side: Side,
  tick: TickSize,
  price: string | number,
  size: string | number,
): RawAmounts {
  const rc = ROUNDING[tick];
  const p = roundTo(dec(price), rc.price, 'half-up');
  const shares = roundTo(dec(size), rc.size, 'down');
  const value = roundNotional((shares * p) / SCALE, rc.amount);
  return side === 'BUY'
    ? { makerAmount: toMicro(value), takerAmount: toMicro(shares) }
    : { makerAmount: toMicro(shares), takerAmount: toMicro(value) };
}

/**
 * Signed-order amounts of a market order (FOK/FAK): BUY `amount` is collateral to spend, SELL
 * `amount` is shares. Example: BUY, tick 0.01, price 0.56, $100 -> 100000000 / 178571400.
 */
export function marketOrderAmounts(
  side: Side,
  tick: TickSize,
  price: string | number,
  amount: string | number,
): RawAmounts {
  const rc = ROUNDING[tick];
  const p = roundTo(dec(price), rc.price, 'down');
  if (p === 0n) throw new ValidationError('market order price must be positive');
  const maker = roundTo(dec(amount), rc.size, 'down');
  if (side === 'BUY') {
    const taker = roundNotional((maker * SCALE) / p, rc.amount);
    return { makerAmount: toMicro(maker), takerAmount: toMicro(taker) };
  }
  const taker = roundNotional((maker * p) / SCALE, rc.amount);
  return { makerAmount: toMicro(maker), takerAmount: toMicro(taker) };
}

/**
 * A market (FOK/FAK) BUY of `size` micro-shares at worst price `price` (pips) in a market of tick
 * `tick`: the collateral amount to sign (micro) and the shares the exchange reads from it (micro, on
 * the 0.01 lot). A market BUY is signed for an amount of collateral on the 0.01 lot (the venue takes a
 * market BUY's maker amount with 2 decimals: {@link marketOrderAmounts}), so at a price of 3 or 4
 * decimals, or a size of fractional shares, `size` x `price` is often not one it can carry. The
 * amount is the cents at or just above the notional, so `shares` is `size` or a little more (by
 * less than 0.01 / price, i.e. less than one cent of notional); never less, so an order at the
 * market's minimum stays at or above it. The gate approves, the live venue signs and the simulated
 * venue fills the same `shares` (trial 12 F1: the amount was cut to the cent below, and a 5-share
 * order at 0.5675 became 4.98 shares, under the minimum).
 * Example: tick 0.0001, 5 @ 0.5675 -> 2.84 USDC, 5 shares; 5 @ 0.5001 -> 2.51 USDC, 5.01 shares.
 */
export function marketBuyTerms(size: number, price: number, tick: TickSize): { amount: number; shares: number } {
  const amount = Math.ceil(notional(size, price, 'up') / LOT_MICRO) * LOT_MICRO;
  return { amount, shares: marketBuyShares(amount, price, tick) };
}

/** The shares (micro, on the lot) the exchange reads from a market BUY signed for `amount` micro at `price` pips. */
export function marketBuyShares(amount: number, price: number, tick: TickSize): number {
  if (amount <= 0) return 0;
  const a = marketOrderAmounts('BUY', tick, formatPrice(price), formatAmount(amount));
  return impliedPrice('BUY', a.makerAmount, a.takerAmount).shares;
}

/**
 * The limit price, in pips, implied by a signed order's amounts (collateral / shares), rounded to
 * the pip in the order's own favour, never to the nearest: a BUY's down (it pays at most what it
 * signed per share), a SELL's up (it receives at least what it signed per share). Returns the pips
 * and the share quantity (micro), floored to the 0.01 lot. A price above 1 is given as
 * PRICE_SCALE + 1. Example: BUY 100 shares for 74.995 -> 7499 (0.74995 floored), not 7500.
 */
export function impliedPrice(
  side: Side,
  makerAmount: bigint,
  takerAmount: bigint,
): { price: number; shares: number; collateral: bigint } {
  const shares = side === 'BUY' ? takerAmount : makerAmount;
  const collateral = side === 'BUY' ? makerAmount : takerAmount;
  if (shares <= 0n) return { price: 0, shares: 0, collateral };
  const num = collateral * BigInt(PRICE_SCALE);
  const price = side === 'BUY' ? num / shares : (num + shares - 1n) / shares;
  const lots = shares / BigInt(LOT_MICRO);
  const sharesLot = lots * BigInt(LOT_MICRO);
  return {
    price: price > BigInt(PRICE_SCALE) ? PRICE_SCALE + 1 : Number(price),
    shares: sharesLot > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(sharesLot),
    collateral,
  };
}
