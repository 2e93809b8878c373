/**
 * Positions and PnL derived from fills, exactly (pure; the store feeds it its fills).
 *
 * Average-cost accounting per token, on signed positions (BUY adds, SELL subtracts). Cost basis is
 * kept in bigint "pip-micro" (size micro-shares × price pips), so nothing is rounded until the
 * final conversion to micro-collateral (÷ 10,000, rounded toward −∞: PnL is never overstated by a
 * rounding). Reducing a position realizes (exit price − average cost) × quantity; a fill larger
 * than the position flips it, and the rest opens at the fill price. FAILED fills are void: the
 * caller leaves them out, which reverses them wherever they fell in the sequence. Ledger changes
 * that are not trades (adjustments, operation legs) move a position the same way, without fee.
 */
import type { ConditionId, TokenId } from '../core/ids.ts';
import { formatFixed, PRICE_SCALE, type Micro, type Pips, type Side } from '../core/units.ts';

/** What position math needs of one fill (integer units). */
export interface PositionFill {
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly side: Side;
  readonly price: Pips;
  readonly size: Micro;
  readonly fee: Micro;
}

/** One token's position. All money in micro-collateral, sizes in micro-shares, prices in pips. */
export interface Position {
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  /** Signed: positive long, negative short (sold more than the fills bought). */
  readonly size: Micro;
  /** Average entry price of the open position, pips, rounded half-up; 0 when flat. */
  readonly avgPrice: Pips;
  /** Cost of the open position (signed like `size`), micro-collateral, rounded toward −∞. */
  readonly cost: number;
  /** Realized PnL before fees, micro-collateral, rounded toward −∞. */
  readonly realized: number;
  /** Fees paid, micro-collateral. */
  readonly fees: Micro;
  /** Shares bought and sold, micro-shares. */
  readonly bought: Micro;
  readonly sold: Micro;
  /** Number of (non-void) fills. */
  readonly fills: number;
}

/** Realized and unrealized PnL at the given marks. */
export interface PnlReport {
  /** Realized before fees, micro-collateral. */
  readonly realized: number;
  /**
   * Open positions at the marks (tokens without a mark count 0 and are listed in `unmarked`): the
   * exact realized + unrealized floored once, less the floored `realized` (so it is the exact
   * unrealized floored, or a micro above it); per-token figures in `byToken` are each floored.
   */
  readonly unrealized: number;
  readonly fees: number;
  /** realized + unrealized − fees: the exact PnL before fees floored once, less the fees. */
  readonly total: number;
  /** Tokens with an open position but no mark: their unrealized PnL is unknown, never guessed. */
  readonly unmarked: readonly TokenId[];
  readonly byToken: readonly {
    readonly tokenId: TokenId;
    readonly realized: number;
    readonly unrealized: number;
    readonly fees: number;
  }[];
}

/**
 * A position's money as decimal strings with the venue's 6 decimals, computed from the exact
 * pip-micro amounts (rounded half away from zero once, as the venue renders them; not the
 * half-up pips of `avgPrice` nor the floored micro-units of `cost` and `realized`).
 */
export interface PositionDecimals {
  readonly tokenId: TokenId;
  /** Average entry price of the open position, 6 decimals; "0" when flat. */
  readonly avgPrice: string;
  /** Cost of the open position (signed like the size). */
  readonly cost: string;
  /** Realized PnL before fees. */
  readonly realized: string;
}

const SCALE = BigInt(PRICE_SCALE);
/** Millionths of a price unit per pip. */
const MICRO_PER_PIP = 100n;

/** a / b rounded half away from zero (b > 0). */
function divRound(a: bigint, b: bigint): bigint {
  const abs = a < 0n ? -a : a;
  const q = (abs * 2n + b) / (b * 2n);
  return a < 0n ? -q : q;
}

/** Floor division of bigints (toward −∞). */
function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

function toNumber(v: bigint): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER))
    throw new RangeError(`amount out of safe range: ${v}`);
  return Number(v);
}

/** Running state of one token (exact). */
export class PositionAccumulator {
  size = 0n;
  /** Signed cost of the open position, pip-micro. */
  cost = 0n;
  /** Realized, pip-micro. */
  realized = 0n;
  fees = 0n;
  bought = 0n;
  sold = 0n;
  fills = 0;
  constructor(
    readonly market: ConditionId,
    readonly tokenId: TokenId,
  ) {}

  /** Apply one fill. */
  add(f: PositionFill): void {
    const q = BigInt(f.size);
    const d = f.side === 'BUY' ? 1n : -1n;
    this.fills++;
    this.fees += BigInt(f.fee);
    if (d > 0n) this.bought += q;
    else this.sold += q;
    this.#move(d, q, BigInt(f.price), 1n);
  }

  /**
   * Apply a change that is not a trade (an adjustment to the venue's truth, a leg of a split,
   * merge, redeem or convert): the same average-cost math as a fill at `price` pips, without fee,
   * not counted in `fills`, `bought` or `sold`. `priceMicro`, when given, is the exact price in
   * millionths (the venue's average price at its 6 decimals) and is used instead of `price`: a size
   * in whole hundredths of a micro-share (every lot is) moves the cost by exactly size × priceMicro.
   */
  move(side: Side, size: number, price: number, priceMicro?: number): void {
    const d = side === 'BUY' ? 1n : -1n;
    if (priceMicro === undefined) this.#move(d, BigInt(size), BigInt(price), 1n);
    else this.#move(d, BigInt(size), BigInt(priceMicro), MICRO_PER_PIP);
  }

  /**
   * Buy (d = 1) or sell (d = −1) q micro-shares at p / den pips (den 1: a pip price; 100: a price in
   * millionths, whose pip-micro value q × p / 100 is truncated toward zero: exact for whole lots).
   */
  #move(d: bigint, q: bigint, p: bigint, den: bigint): void {
    if (q === 0n) return;
    if (this.size === 0n || this.size > 0n === d > 0n) {
      this.size += d * q;
      this.cost += (d * q * p) / den;
      return;
    }
    const abs = this.size < 0n ? -this.size : this.size;
    const close = q < abs ? q : abs;
    // cost leaving the position: proportional share, truncated toward zero (same sign as cost)
    const removed = (this.cost * close) / abs;
    const sign = this.size > 0n ? 1n : -1n;
    this.realized += (sign * close * p) / den - removed;
    this.size += d * close;
    this.cost -= removed;
    if (this.size === 0n) this.cost = 0n;
    const rest = q - close;
    if (rest > 0n) {
      this.size = d * rest;
      this.cost = (d * rest * p) / den;
    }
  }

  /** Unrealized at `mark` pips, pip-micro. */
  unrealizedAt(mark: number): bigint {
    return this.size * BigInt(mark) - this.cost;
  }

  /** The money of the position at the venue's 6 decimals, exact from the pip-micro amounts. */
  decimals(): PositionDecimals {
    const abs = this.size < 0n ? -this.size : this.size;
    const absCost = this.cost < 0n ? -this.cost : this.cost;
    // pip-micro / micro-shares = pips; × 100 = millionths (6 decimals)
    const avg = abs === 0n ? 0n : divRound(absCost * 100n, abs);
    return {
      tokenId: this.tokenId,
      avgPrice: formatFixed(avg, 6),
      cost: formatFixed(divRound(this.cost, SCALE), 6),
      realized: formatFixed(divRound(this.realized, SCALE), 6),
    };
  }

  snapshot(): Position {
    const abs = this.size < 0n ? -this.size : this.size;
    const absCost = this.cost < 0n ? -this.cost : this.cost;
    const avg = abs === 0n ? 0n : (absCost * 2n + abs) / (abs * 2n);
    return {
      market: this.market,
      tokenId: this.tokenId,
      size: toNumber(this.size) as Micro,
      avgPrice: toNumber(avg) as Pips,
      cost: toNumber(floorDiv(this.cost, SCALE)),
      realized: toNumber(floorDiv(this.realized, SCALE)),
      fees: toNumber(this.fees) as Micro,
      bought: toNumber(this.bought) as Micro,
      sold: toNumber(this.sold) as Micro,
      fills: this.fills,
    };
  }
}

/** Fold fills (in time order, void ones already left out) into positions per token. */
export function accumulate(fills: Iterable<PositionFill>): Map<TokenId, PositionAccumulator> {
  const out = new Map<TokenId, PositionAccumulator>();
  for (const f of fills) {
    let a = out.get(f.tokenId);
    if (a === undefined) out.set(f.tokenId, (a = new PositionAccumulator(f.market, f.tokenId)));
    a.add(f);
  }
  return out;
}

/** Positions per token, in first-fill order. */
export function derivePositions(fills: Iterable<PositionFill>): Position[] {
  return [...accumulate(fills).values()].map((a) => a.snapshot());
}

/**
 * Realized + unrealized PnL at the marks (pips per token). A token with an open position and no
 * mark contributes no unrealized PnL and is reported in `unmarked`.
 */
export function pnlOf(acc: ReadonlyMap<TokenId, PositionAccumulator>, marks: ReadonlyMap<TokenId, number>): PnlReport {
  let realized = 0n;
  let unrealized = 0n;
  let fees = 0n;
  const unmarked: TokenId[] = [];
  const byToken: { tokenId: TokenId; realized: number; unrealized: number; fees: number }[] = [];
  for (const a of acc.values()) {
    realized += a.realized;
    fees += a.fees;
    let u = 0n;
    if (a.size !== 0n) {
      const m = marks.get(a.tokenId);
      if (m === undefined || !Number.isSafeInteger(m)) unmarked.push(a.tokenId);
      else u = a.unrealizedAt(m);
    }
    unrealized += u;
    byToken.push({
      tokenId: a.tokenId,
      realized: toNumber(floorDiv(a.realized, SCALE)),
      unrealized: toNumber(floorDiv(u, SCALE)),
      fees: toNumber(a.fees),
    });
  }
  // realized floored; unrealized takes the rest of the exact sum floored once, so realized +
  // unrealized (the trading PnL) and the total tie out with cash + marked positions to the micro
  // (flooring each part apart could put the total a micro below it)
  const r = toNumber(floorDiv(realized, SCALE));
  const u = toNumber(floorDiv(realized + unrealized, SCALE)) - r;
  const f = toNumber(fees);
  return { realized: r, unrealized: u, fees: f, total: r + u - f, unmarked, byToken };
}
