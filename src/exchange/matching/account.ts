/**
 * An account's balances in the matching engine (collateral and tokens, available and reserved)
 * and the heads of its order lists (handles into the order table).
 *
 * For the matching engine only (src/exchange/matching/engine.ts).
 */
import { NIL } from './order-layout.ts';

export class TokenBal {
  available = 0;
  reserved = 0;
}

export class Account {
  collateral = 0;
  collateralReserved = 0;
  readonly tokens = new Map<string, TokenBal>();
  /** The same TokenBal objects by token index (2 * market index + 0 for YES, 1 for NO). */
  readonly balByTok: (TokenBal | undefined)[] = [];
  /** Every accepted order (any status), a singly linked list in acceptance order. */
  firstOrder = NIL;
  lastOrder = NIL;
  /** LIVE orders, a doubly linked list in the order they came to rest. */
  liveHead = NIL;
  liveTail = NIL;
  liveCount = 0;
  /** Operation stamp: the account already has its 'balance' event queued for this operation. */
  stamp = 0;
  constructor(
    readonly id: string,
    readonly idx: number,
  ) {}

  tok(tokenId: string, tokIdx: number): TokenBal {
    let b = this.balByTok[tokIdx];
    if (b === undefined) {
      b = new TokenBal();
      this.tokens.set(tokenId, b);
      while (this.balByTok.length < tokIdx) this.balByTok.push(undefined);
      this.balByTok[tokIdx] = b;
    }
    return b;
  }
}
