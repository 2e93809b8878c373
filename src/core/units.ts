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

/**
 * The public clients' amount arithmetic, replicated operation for operation. They compute the
 * signed amounts of an order in IEEE doubles (`@polymarket/clob-client` 5.x and
 * `@polymarket/clob-client-v2` 1.x, order-builder helpers `getOrderRawAmounts` /
 * `getMarketOrderRawAmounts`, utilities `roundNormal` / `roundDown` / `roundUp` / `decimalPlaces`,
 * then `parseUnits(x.toString(), 6)`), and the venue accepts what they sign. Exact decimal
 * arithmetic gives the same amounts for ordinary orders, but not always: the double product or
 * quotient can be off by more than the client's 10^-(amount+4) guard for large notionals (e.g.
 * BUY 499999.99 x 0.9501 on the 0.0001 tick: the client signs 475049.990498, not 475049.990499;
 * a market BUY of 1234.56 at 0.0001 buys 12345599.999999 shares, not 12345600). mmkit signs what
 * the public client signs, so these are the same double operations, in the same order (tested
 * against the V2 client over a table of prices on every tick: test/unit/order-v2-vectors.test.ts).
 * Inputs and outputs stay exact: decimal strings in, integer micro-units out.
 */
function clientNumber(v: string | number, what: string): number {
  if (typeof v === 'number') {
    if (!Number.isFinite(v) || v < 0) throw new ValidationError(`${what}: not a finite non-negative number: ${v}`);
    return v;
  }
  if (typeof v !== 'string' || !DECIMAL.test(v.trim()))
    throw new ValidationError(`${what}: not a non-negative decimal: ${String(v).slice(0, 24)}`);
  return Number(v.trim());
}
/** The client's `decimalPlaces`: digits after the point of `toString()` (0 for integers). */
function clientDecimals(num: number): number {
  if (Number.isInteger(num)) return 0;
  const s = num.toString();
  const dot = s.indexOf('.');
  return dot < 0 ? 0 : s.length - dot - 1;
}
function clientRoundNormal(num: number, decimals: number): number {
  if (clientDecimals(num) <= decimals) return num;
  return Math.round((num + Number.EPSILON) * 10 ** decimals) / 10 ** decimals;
}
function clientRoundDown(num: number, decimals: number): number {
  if (clientDecimals(num) <= decimals) return num;
  return Math.floor(num * 10 ** decimals) / 10 ** decimals;
}
function clientRoundUp(num: number, decimals: number): number {
  if (clientDecimals(num) <= decimals) return num;
  return Math.ceil(num * 10 ** decimals) / 10 ** decimals;
}
/** The notional rounding of the clients: up at amount + 4 decimals, then down at amount if still longer. */
function clientRoundAmount(x: number, amountDp: number): number {
  if (clientDecimals(x) > amountDp) {
    x = clientRoundUp(x, amountDp + 4);
    if (clientDecimals(x) > amountDp) x = clientRoundDown(x, amountDp);
  }
  return x;
}
const PLAIN_DECIMAL = /^(\d+)(?:\.(\d+))?$/;
/**
 * `parseUnits(x.toString(), 6)` of the V2 client (viem: half-up on the first dropped digit; the
 * amounts it is given never have more than 6 decimals after the rounding above).
 */
function clientMicro(x: number): bigint {
  const s = x.toString();
  const m = PLAIN_DECIMAL.exec(s);
  if (m === null) throw new ValidationError(`amount out of range: ${s}`);
  let int = BigInt(m[1]!);
  let frac = (m[2] ?? '').replace(/0+$/, '');
  if (frac.length > AMOUNT_DECIMALS) {
    const up = frac.charCodeAt(AMOUNT_DECIMALS) >= 53; // '5'
    let f = BigInt(frac.slice(0, AMOUNT_DECIMALS)) + (up ? 1n : 0n);
    if (f >= BigInt(AMOUNT_SCALE)) {
      f -= BigInt(AMOUNT_SCALE);
      int += 1n;
    }
    return int * BigInt(AMOUNT_SCALE) + f;
  }
  frac = frac.padEnd(AMOUNT_DECIMALS, '0');
  return int * BigInt(AMOUNT_SCALE) + BigInt(frac);
}

export type Side = 'BUY' | 'SELL';

export interface RawAmounts {
  /** What the maker gives: collateral for BUY, shares for SELL (micro-units). */
  makerAmount: bigint;
  /** What the maker receives: shares for BUY, collateral for SELL (micro-units). */
  takerAmount: bigint;
}

/**
 * Signed-order amounts of a limit order, exactly as the public client computes them (see
 * `clientNumber` above: the same double operations): price rounded half-up to the tick's decimals,
 * size rounded down to 2 decimals, notional rounded per ROUNDING.
 * Example: BUY, tick 0.01, 0.56 x 21.04 -> 11782400 / 21040000.
 * @throws ValidationError on a malformed or negative input.
 */
export function limitOrderAmounts(
  side: Side,
  tick: TickSize,
  price: string | number,
  size: string | number,
): RawAmounts {
  const rc = ROUNDING[tick];
  const p = clientRoundNormal(clientNumber(price, 'price'), rc.price);
  const shares = clientRoundDown(clientNumber(size, 'size'), rc.size);
  const value = clientRoundAmount(shares * p, rc.amount);
  return side === 'BUY'
    ? { makerAmount: clientMicro(value), takerAmount: clientMicro(shares) }
    : { makerAmount: clientMicro(shares), takerAmount: clientMicro(value) };
}

/**
 * Signed-order amounts of a market order (FOK/FAK), exactly as the public client computes them:
 * BUY `amount` is collateral to spend, SELL `amount` is shares.
 * Example: BUY, tick 0.01, price 0.56, $100 -> 100000000 / 178571400.
 * @throws ValidationError on a malformed or negative input, or a price that rounds to 0.
 */
export function marketOrderAmounts(
  side: Side,
  tick: TickSize,
  price: string | number,
  amount: string | number,
): RawAmounts {
  const rc = ROUNDING[tick];
  const p = clientRoundDown(clientNumber(price, 'price'), rc.price);
  if (p === 0) throw new ValidationError('market order price must be positive');
  const maker = clientRoundDown(clientNumber(amount, 'amount'), rc.size);
  const taker = clientRoundAmount(side === 'BUY' ? maker / p : maker * p, rc.amount);
  return { makerAmount: clientMicro(maker), takerAmount: clientMicro(taker) };
}

/**
 * The limit price, in pips, implied by a signed order's amounts (collateral / shares), rounded to the
 * nearest pip. Returns the pips and the share quantity (micro), floored to the 0.01 lot.
 */
export function impliedPrice(
  side: Side,
  makerAmount: bigint,
  takerAmount: bigint,
): { price: number; shares: number; collateral: bigint } {
  const shares = side === 'BUY' ? takerAmount : makerAmount;
  const collateral = side === 'BUY' ? makerAmount : takerAmount;
  if (shares <= 0n) return { price: 0, shares: 0, collateral };
  // nearest pip of collateral/shares
  const num = collateral * BigInt(PRICE_SCALE) * 2n + shares;
  const price = num / (shares * 2n);
  const lots = shares / BigInt(LOT_MICRO);
  const sharesLot = lots * BigInt(LOT_MICRO);
  return {
    price: price > BigInt(PRICE_SCALE) ? PRICE_SCALE + 1 : Number(price),
    shares: sharesLot > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(sharesLot),
    collateral,
  };
}
