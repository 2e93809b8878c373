/**
 * Position accounting from trades and the relayer's operations (split, merge, redeem, convert): per
 * account and token, the size held, its cost (average price) and realized PnL. Everything in exact
 * micro-units; average prices are derived on output. A resolved market's tokens stay until they are
 * redeemed; the redemption realises their PnL.
 */
import { PRICE_SCALE } from '../../core/units.ts';
import type { Trade } from '../matching/types.ts';

export interface PositionRec {
  size: number; // micro-shares (bought minus sold)
  cost: number; // micro-collateral paid for the shares still held
  realized: number; // micro-collateral
  bought: number; // micro-shares bought in total
  fees: number; // micro-collateral paid in fees
}

export class PositionBook {
  private readonly pos = new Map<string, Map<string, PositionRec>>();

  private rec(account: string, token: string): PositionRec {
    let m = this.pos.get(account);
    if (m === undefined) this.pos.set(account, (m = new Map()));
    let r = m.get(token);
    if (r === undefined) m.set(token, (r = { size: 0, cost: 0, realized: 0, bought: 0, fees: 0 }));
    return r;
  }

  /** Apply one fill: `price` in pips on the token's scale, `size` micro-shares. */
  fill(account: string, token: string, side: 'BUY' | 'SELL', price: number, size: number, fee = 0): void {
    const value = Math.round((size * price) / PRICE_SCALE);
    if (side === 'BUY') this.buyAtCost(account, token, size, value);
    else this.sellFor(account, token, size, value);
    if (fee > 0) {
      const r = this.rec(account, token);
      r.fees += fee;
      r.realized -= fee;
    }
  }

  /** `size` micro-shares come in at a total cost of `cost` micro-collateral. */
  buyAtCost(account: string, token: string, size: number, cost: number): void {
    const r = this.rec(account, token);
    r.size += size;
    r.cost += cost;
    r.bought += size;
  }

  /** `size` micro-shares go out for `proceeds`: the cost of what leaves is taken at the average cost. */
  sellFor(account: string, token: string, size: number, proceeds: number): void {
    const r = this.rec(account, token);
    // cost of the shares sold, at the average cost (proportional, exact to the micro)
    const held = r.size;
    const costOut = held > 0 ? Math.round((r.cost * Math.min(size, held)) / held) : 0;
    r.realized += proceeds - costOut;
    r.cost -= costOut;
    r.size -= size;
  }

  /** The cost basis (micro-collateral) of `size` of the shares held, at the average cost. */
  costOf(account: string, token: string, size: number): number {
    const r = this.get(account, token);
    if (r === undefined || r.size <= 0) return 0;
    return Math.round((r.cost * Math.min(size, r.size)) / r.size);
  }

  /**
   * A split of `amount` collateral into both tokens: YES comes in at `yesPrice` (pips, e.g. the
   * mid), NO at the complement, their costs summing exactly to `amount` (no PnL moves).
   */
  split(account: string, yes: string, no: string, amount: number, yesPrice: number): void {
    const cy = Math.round((amount * yesPrice) / PRICE_SCALE);
    this.buyAtCost(account, yes, amount, cy);
    this.buyAtCost(account, no, amount, amount - cy);
  }

  /** A merge of `amount` of both tokens into `amount` collateral: proceeds split as in {@link split}. */
  merge(account: string, yes: string, no: string, amount: number, yesPrice: number): void {
    const py = Math.round((amount * yesPrice) / PRICE_SCALE);
    this.sellFor(account, yes, amount, py);
    this.sellFor(account, no, amount, amount - py);
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
    let basis = 0;
    for (const t of out) {
      const c = this.costOf(account, t, amount);
      basis += c;
      this.sellFor(account, t, amount, c);
    }
    let rest = basis - collateral;
    if (rest < 0) {
      const first = out[0];
      if (first !== undefined) this.rec(account, first).realized -= rest;
      rest = 0;
    }
    const n = inTokens.length;
    inTokens.forEach((t, i) => {
      const part = Math.floor(rest / n) + (i < rest % n ? 1 : 0);
      this.buyAtCost(account, t, amount, part);
    });
    if (n === 0 && rest > 0) {
      // every NO of the event converted: the basis beyond the collateral received is a loss
      const first = out[0];
      if (first !== undefined) this.rec(account, first).realized -= rest;
    }
  }

  /** A redemption: winning shares leave at 1 each, losing ones at 0 (realises their PnL). */
  redeem(account: string, token: string, size: number, payout: number): void {
    this.sellFor(account, token, size, payout);
  }

  /** Apply a whole trade (taker and every maker). */
  applyTrade(t: Trade): void {
    for (const m of t.makers) this.fill(m.account, m.tokenId, m.side, m.price, m.size);
    // the taker's fills are at each maker's price, translated to the taker's token scale
    for (const m of t.makers) {
      const px = m.tokenId === t.tokenId ? m.price : PRICE_SCALE - m.price;
      this.fill(t.takerAccount, t.tokenId, t.side, px, m.size);
    }
    if (t.fee > 0) {
      const r = this.rec(t.takerAccount, t.tokenId);
      r.fees += t.fee;
      r.realized -= t.fee;
    }
  }

  positions(account: string): Array<[string, PositionRec]> {
    return [...(this.pos.get(account)?.entries() ?? [])];
  }

  get(account: string, token: string): PositionRec | undefined {
    return this.pos.get(account)?.get(token);
  }
}
