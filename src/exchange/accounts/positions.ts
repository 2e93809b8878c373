/**
 * Position accounting from trades: per account and token, the size held, its cost (average price)
 * and realized PnL. Everything in exact micro-units; average prices are derived on output.
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
    const r = this.rec(account, token);
    const value = Math.round((size * price) / PRICE_SCALE);
    if (side === 'BUY') {
      r.size += size;
      r.cost += value;
      r.bought += size;
    } else {
      // cost of the shares sold, at the average cost (proportional, exact to the micro)
      const held = r.size;
      const costOut = held > 0 ? Math.round((r.cost * Math.min(size, held)) / held) : 0;
      r.realized += value - costOut;
      r.cost -= costOut;
      r.size -= size;
    }
    if (fee > 0) {
      r.fees += fee;
      r.realized -= fee;
    }
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

  /** Settle a resolved market: each share of `winner` pays 1, the other token pays 0. */
  resolve(tokens: readonly string[], winner: string): void {
    for (const m of this.pos.values()) {
      for (const token of tokens) {
        const r = m.get(token);
        if (r === undefined || r.size === 0) continue;
        const payout = token === winner ? r.size : 0;
        r.realized += payout - r.cost;
        r.cost = 0;
        r.size = 0;
      }
    }
  }

  positions(account: string): Array<[string, PositionRec]> {
    return [...(this.pos.get(account)?.entries() ?? [])];
  }

  get(account: string, token: string): PositionRec | undefined {
    return this.pos.get(account)?.get(token);
  }
}
