/**
 * A market of the matching engine: its definition, live tick size and status, and its YES book's
 * two sides.
 *
 * For the matching engine only (src/exchange/matching/engine.ts).
 */
import { HalfBook } from './half-book.ts';
import type { MarketDef, MarketStatus } from './types.ts';

/** Tick sizes the venue uses, in pips. */
export const VALID_TICK_PIPS: readonly number[] = [1000, 100, 10, 1];

export class Market {
  tickPips: number;
  status: MarketStatus;
  winningToken: string | undefined = undefined;
  readonly bids = new HalfBook(true);
  readonly asks = new HalfBook(false);
  constructor(
    readonly def: MarketDef,
    readonly idx: number,
  ) {
    this.tickPips = def.tickPips;
    this.status = def.status ?? 'active';
  }
}
