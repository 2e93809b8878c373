/**
 * Position accounting from trades and the relayer's operations (split, merge, redeem, convert): per
 * account and token, the size held, its cost (average price) and realized PnL. A resolved market's
 * tokens stay until they are redeemed; the redemption realises their PnL.
 *
 * Cost and realized PnL are kept exact, in bigint "pip-micro" (micro-shares × price pips, 10⁻¹⁰
 * collateral), with the same average-cost method as the bot's store (src/store/positions.ts): the
 * cost leaving on a sale is the proportional share truncated toward zero, in pip-micro. Nothing is
 * rounded to the micro until it is rendered, once, half away from zero (`cost` / `realized` are
 * those rendered views, kept in step). Rounding to the micro at every fill (as this book once did)
 * drifts by a micro or more after many fills at awkward prices, and the venue's figures then
 * disagree with the store's for the same fills.
 */
import { formatFixed, PRICE_SCALE } from '../../core/units.ts';
import type { Trade } from '../matching/types.ts';

/** One account's position in one token. */
export interface PositionRec {
  /** Micro-shares (bought minus sold). */
  size: number;
  /** Cost of the shares still held, exact pip-micro. */
  costPm: bigint;
  /** Realized PnL net of fees, exact pip-micro. */
  realizedPm: bigint;
  /** `costPm` in micro-collateral, rounded once half away from zero (as rendered). */
  cost: number;
  /** `realizedPm` in micro-collateral, rounded once half away from zero (as rendered). */
  realized: number;
  /** Micro-shares bought in total. */
  bought: number;
  /** Micro-collateral paid in fees. */
  fees: number;
}

const SCALE = BigInt(PRICE_SCALE);

/** a / b rounded half away from zero (b > 0). */
function divRound(a: bigint, b: bigint): bigint {
  const abs = a < 0n ? -a : a;
  const q = (abs * 2n + b) / (b * 2n);
  return a < 0n ? -q : q;
}

/** Pip-micro to micro-collateral, rounded once half away from zero (the venue's rendering). */
export function pipMicroToMicro(pm: bigint): number {
  return Number(divRound(pm, SCALE));
}

/** The average entry price of the shares held, 6 decimals exact from the pip-micro cost; "0" when flat. */
export function avgPrice6(r: PositionRec): string {
  if (r.size <= 0) return '0';
  const cost = r.costPm < 0n ? -r.costPm : r.costPm;
  // pip-micro / micro-shares = pips; × 100 = millionths
  return formatFixed(divRound(cost * 100n, BigInt(r.size)), 6);
}

/**
 * Unrealized PnL of `size` micro-shares at `mark` pips (a half pip allowed, as a mid) against the
 * exact cost `costPm`, exact in half-pip-micro (2 × pip-micro); see {@link halfPipMicroToMicro}.
 */
export function unrealizedHalfPm(size: number, mark: number, costPm: bigint): bigint {
  return BigInt(size) * BigInt(Math.round(mark * 2)) - 2n * costPm;
}

/** Half-pip-micro to micro-collateral, rounded once half away from zero. */
export function halfPipMicroToMicro(v: bigint): number {
  return Number(divRound(v, 2n * SCALE));
}

/** Unrealized PnL in micro-collateral, rounded once: {@link unrealizedHalfPm} rendered. */
export function unrealizedAt(size: number, mark: number, costPm: bigint): number {
  return halfPipMicroToMicro(unrealizedHalfPm(size, mark, costPm));
}

/** Refresh the rendered micro views of the exact amounts. */
function sync(r: PositionRec): void {
  r.cost = pipMicroToMicro(r.costPm);
  r.realized = pipMicroToMicro(r.realizedPm);
}

export class PositionBook {
  private readonly pos = new Map<string, Map<string, PositionRec>>();

  private rec(account: string, token: string): PositionRec {
    let m = this.pos.get(account);
    if (m === undefined) this.pos.set(account, (m = new Map()));
    let r = m.get(token);
    if (r === undefined)
      m.set(token, (r = { size: 0, costPm: 0n, realizedPm: 0n, cost: 0, realized: 0, bought: 0, fees: 0 }));
    return r;
  }

  /** Apply one fill: `price` in pips on the token's scale, `size` micro-shares. */
  fill(account: string, token: string, side: 'BUY' | 'SELL', price: number, size: number, fee = 0): void {
    const value = BigInt(size) * BigInt(price);
    if (side === 'BUY') this.buyAtCost(account, token, size, value);
    else this.sellFor(account, token, size, value);
    if (fee > 0) this.#fee(account, token, fee);
  }

  /** A fee of `fee` micro-collateral, paid on `token`'s position: realized PnL is net of fees. */
  #fee(account: string, token: string, fee: number): void {
    const r = this.rec(account, token);
    r.fees += fee;
    r.realizedPm -= BigInt(fee) * SCALE;
    sync(r);
  }

  /** `size` micro-shares come in at a total cost of `costPm` pip-micro. */
  buyAtCost(account: string, token: string, size: number, costPm: bigint): void {
    const r = this.rec(account, token);
    r.size += size;
    r.costPm += costPm;
    r.bought += size;
    sync(r);
  }

  /**
   * `size` micro-shares go out for `proceedsPm` pip-micro: the cost of what leaves is taken at the
   * average cost (the proportional share, truncated toward zero in pip-micro, as the store does).
   */
  sellFor(account: string, token: string, size: number, proceedsPm: bigint): void {
    const r = this.rec(account, token);
    const costOut = this.costOf(account, token, size);
    r.realizedPm += proceedsPm - costOut;
    r.costPm -= costOut;
    r.size -= size;
    if (r.size === 0) r.costPm = 0n;
    sync(r);
  }

  /** The cost basis (pip-micro) of `size` of the shares held, at the average cost (truncated toward zero). */
  costOf(account: string, token: string, size: number): bigint {
    const r = this.get(account, token);
    if (r === undefined || r.size <= 0) return 0n;
    return (r.costPm * BigInt(Math.min(size, r.size))) / BigInt(r.size);
  }

  /**
   * A split of `amount` collateral into both tokens: YES comes in at `yesPrice` (pips, e.g. the
   * mid), NO at the complement, their costs summing exactly to `amount` (no PnL moves).
   */
  split(account: string, yes: string, no: string, amount: number, yesPrice: number): void {
    this.buyAtCost(account, yes, amount, BigInt(amount) * BigInt(yesPrice));
    this.buyAtCost(account, no, amount, BigInt(amount) * BigInt(PRICE_SCALE - yesPrice));
  }

  /** A merge of `amount` of both tokens into `amount` collateral: proceeds split as in {@link split}. */
  merge(account: string, yes: string, no: string, amount: number, yesPrice: number): void {
    this.sellFor(account, yes, amount, BigInt(amount) * BigInt(yesPrice));
    this.sellFor(account, no, amount, BigInt(amount) * BigInt(PRICE_SCALE - yesPrice));
  }

  /**
   * A neg-risk conversion: the NO tokens given up (`out`) leave at their cost; `collateral` comes
   * in; the YES tokens received (`in`) take the rest of that cost basis, in equal parts (exact to
   * the micro). A basis smaller than the collateral received realises the difference as a gain.
   */
  convert(
    account: string,
    out: readonly string[],
    inTokens: readonly string[],
    amount: number,
    collateral: number,
  ): void {
    let basis = 0n;
    for (const t of out) {
      const c = this.costOf(account, t, amount);
      basis += c;
      this.sellFor(account, t, amount, c);
    }
    let rest = basis - BigInt(collateral) * SCALE;
    if (rest < 0n) {
      this.#realize(account, out[0], -rest);
      rest = 0n;
    }
    const n = BigInt(inTokens.length);
    inTokens.forEach((t, i) => {
      const part = rest / n + (BigInt(i) < rest % n ? 1n : 0n);
      this.buyAtCost(account, t, amount, part);
    });
    // every NO of the event converted: the basis beyond the collateral received is a loss
    if (n === 0n && rest > 0n) this.#realize(account, out[0], -rest);
  }

  /** Book `pm` pip-micro of realized PnL on `token` (nothing when there is no token). */
  #realize(account: string, token: string | undefined, pm: bigint): void {
    if (token === undefined) return;
    const r = this.rec(account, token);
    r.realizedPm += pm;
    sync(r);
  }

  /** A redemption of `size` micro-shares for `payout` micro-collateral (winners at 1, losers at 0). */
  redeem(account: string, token: string, size: number, payout: number): void {
    this.sellFor(account, token, size, BigInt(payout) * SCALE);
  }

  /** Apply a whole trade (taker and every maker). */
  applyTrade(t: Trade): void {
    for (const m of t.makers) this.fill(m.account, m.tokenId, m.side, m.price, m.size);
    // the taker's fills are at each maker's price, translated to the taker's token scale
    for (const m of t.makers) {
      const px = m.tokenId === t.tokenId ? m.price : PRICE_SCALE - m.price;
      this.fill(t.takerAccount, t.tokenId, t.side, px, m.size);
    }
    if (t.fee > 0) this.#fee(t.takerAccount, t.tokenId, t.fee);
  }

  /** Every token `account` has a position in (held or closed), with its position. */
  positions(account: string): Array<[string, PositionRec]> {
    return [...(this.pos.get(account)?.entries() ?? [])];
  }

  /** `account`'s position in `token`, if it ever had one. */
  get(account: string, token: string): PositionRec | undefined {
    return this.pos.get(account)?.get(token);
  }
}
