/**
 * The simulated venue's account (micro): available and reserved collateral, shares per token
 * (available and reserved by open SELL orders), taker fees paid and settlement payouts. Orders
 * reserve at placement and give back what they no longer need, as the paper exchange does.
 */
import type { TokenId } from '../../core/ids.ts';
import { PRICE_SCALE, type Micro } from '../../core/units.ts';
import type { SimOrder } from './sim-state.ts';
import type { SimAccount } from './sim-types.ts';

/** Shares of one token (micro): free to sell, and reserved by open SELL orders. */
export interface Shares {
  available: number;
  reserved: number;
}

/** The mutable account; the venue's modules update its fields directly (exact integers of micro). */
export class SimLedger {
  reservedCollateral = 0;
  readonly shares = new Map<string, Shares>();
  feesPaid = 0;
  settled = 0;
  constructor(public collateral: number) {}

  /** The shares of a token, created empty on first use. */
  sharesOf(tokenId: string): Shares {
    let s = this.shares.get(tokenId);
    if (s === undefined) this.shares.set(tokenId, (s = { available: 0, reserved: 0 }));
    return s;
  }

  /** Reserves `need` for an accepted order: collateral for a BUY, shares of its token for a SELL (checked before). */
  reserve(o: SimOrder, need: number): void {
    if (o.isBuy) {
      this.collateral -= need;
      this.reservedCollateral += need;
    } else {
      const s = this.shares.get(o.token.id)!;
      s.available -= need;
      s.reserved += need;
    }
    o.reserved = need;
  }

  /** Gives back `amount` of an order's reservation. */
  release(o: SimOrder, amount: number): void {
    if (amount === 0) return;
    o.reserved -= amount;
    if (o.isBuy) {
      this.reservedCollateral -= amount;
      this.collateral += amount;
    } else {
      const s = this.shares.get(o.token.id)!;
      s.reserved -= amount;
      s.available += amount;
    }
  }

  /** Settles a taking order's fills: `size` shares for `amount` collateral, plus `fee` paid (BUY) or withheld (SELL). */
  settleTaker(o: SimOrder, size: number, amount: number, fee: number): void {
    const shares = this.sharesOf(o.token.id);
    if (o.isBuy) {
      o.reserved -= amount + fee;
      this.reservedCollateral -= amount + fee;
      shares.available += size;
    } else {
      o.reserved -= size;
      shares.reserved -= size;
      this.collateral += amount - fee;
    }
    this.feesPaid += fee;
  }

  /** Settles one maker fill of `s` shares of a resting order at its price; returns the collateral it moved. */
  settleMaker(o: SimOrder, s: number): number {
    const amount = (s * o.price) / PRICE_SCALE;
    const shares = this.sharesOf(o.token.id);
    if (o.isBuy) {
      o.reserved -= amount;
      this.reservedCollateral -= amount;
      shares.available += s;
    } else {
      o.reserved -= s;
      shares.reserved -= s;
      this.collateral += amount;
    }
    return amount;
  }

  /** A snapshot of the account (positions: tokens with shares). */
  snapshot(): SimAccount {
    const positions = new Map<TokenId, Micro>();
    for (const [t, s] of this.shares)
      if (s.available + s.reserved > 0) positions.set(t as TokenId, (s.available + s.reserved) as Micro);
    return {
      collateral: this.collateral as Micro,
      reserved: this.reservedCollateral as Micro,
      feesPaid: this.feesPaid as Micro,
      settled: this.settled as Micro,
      positions,
    };
  }
}
