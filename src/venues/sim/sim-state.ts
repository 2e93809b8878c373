/**
 * The simulated venue's per-market state: each market's two tokens with their recorded book
 * mirrors, our resting orders indexed by token, side and price (OwnLevel), and our orders
 * themselves (SimOrder). Plain mutable records the venue's modules share; no behaviour beyond
 * derived getters.
 */
import type { TimerHandle } from '../../core/clock.ts';
import type { OrderId, TokenId } from '../../core/ids.ts';
import { tickPips, type Side } from '../../core/units.ts';
import type { MarketInfo, PlaceRequest } from '../../core/venue.ts';
import { BookMirror } from '../../book/mirror.ts';
import type { Settlement } from './sim-types.ts';

/** A writable view of a readonly event (the venue adjusts decoded events in place). */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** OwnLevel.message of a level whose open batch a trade opened: the level change that follows belongs to it. */
export const BY_TRADE = -1;

/** Our resting orders at one price of one side of one token, FIFO, with the recorded level's batch state. */
export class OwnLevel {
  readonly orders: SimOrder[] = [];
  /** In the open venue batch of its market: L0 = the recorded size before the batch, cum = trade volume counted here in it. */
  inGroup = false;
  l0 = 0;
  cum = 0;
  /** The recorded message that last moved it in the open batch ({@link BY_TRADE}: only a trade so far). */
  message = BY_TRADE;
  constructor(
    readonly token: TokenState,
    readonly isBid: boolean,
    readonly price: number,
  ) {}
}

/** One of our orders: its fill state, reservation, place in its level's queue and GTD expiry timer. */
export class SimOrder {
  matched = 0;
  status: 'LIVE' | 'MATCHED' | 'CANCELED' = 'LIVE';
  /** Collateral (BUY) or shares (SELL) reserved for the unfilled rest. */
  reserved = 0;
  /** Recorded size ahead of it at its level (micro). */
  ahead = 0;
  level: OwnLevel | null = null;
  expiry: TimerHandle | undefined = undefined;
  constructor(
    readonly id: OrderId,
    readonly market: MarketState,
    readonly token: TokenState,
    readonly side: Side,
    readonly price: number,
    readonly size: number,
    readonly type: PlaceRequest['type'],
    readonly feeRateBps: number,
    readonly createdAt: number,
  ) {}
  get isBuy(): boolean {
    return this.side === 'BUY';
  }
  get remaining(): number {
    return this.size - this.matched;
  }
}

/**
 * One token of a market: its recorded book mirror, our resting orders by price, our shown sizes,
 * the recorded liquidity we took, and its resync state.
 */
export class TokenState {
  readonly book: BookMirror;
  complement!: TokenState;
  /** Our resting orders on this token, by price: BUY (bids) and SELL (asks). */
  readonly bids = new Map<number, OwnLevel>();
  readonly asks = new Map<number, OwnLevel>();
  /** Best price of our resting orders on this token (0: none). */
  ownBestBid = 0;
  ownBestAsk = 0;
  /** Our resting size shown on this token's book (its own orders and the complement's, mirrored). */
  readonly shownBid = new Map<number, number>();
  readonly shownAsk = new Map<number, number>();
  shownBestBid = 0;
  shownBestAsk = 0;
  /** Recorded liquidity we took, per level, until the level's next recorded update. */
  readonly consumedBid = new Map<number, number>();
  readonly consumedAsk = new Map<number, number>();
  hash = '';
  lastTradePrice = 0;
  /** Awaiting its fresh snapshot after a recorded reconnect (its level changes are dropped). */
  awaiting = false;
  lastResyncAt = Number.NaN;
  constructor(
    readonly id: TokenId,
    readonly market: MarketState,
    readonly index: 0 | 1,
  ) {
    this.book = new BookMirror(id);
  }
}

/** One market: its two tokens (YES, NO), current tick, our resting count, open venue batch and last trade. */
export class MarketState {
  readonly tokens: [TokenState, TokenState];
  tick: number;
  resolved = false;
  /** Our resting orders in the market (both tokens). */
  resting = 0;
  /** Venue time of the open batch, and the own levels whose recorded size moved in it. */
  groupT = Number.NaN;
  readonly pending: OwnLevel[] = [];
  // the last trade seen, in YES terms, to recognise the complement print of the same match
  ltIdx = -1;
  ltYesPrice = 0;
  ltBuyYes = false;
  ltSize = 0;
  ltT = 0;
  ltPaired = true;
  settlement: Settlement | undefined = undefined;
  constructor(public info: MarketInfo) {
    this.tick = tickPips(info.tick);
    this.tokens = [new TokenState(info.tokens[0].tokenId, this, 0), new TokenState(info.tokens[1].tokenId, this, 1)];
    this.tokens[0].complement = this.tokens[1];
    this.tokens[1].complement = this.tokens[0];
  }
}

/** What `prepare` signs (opaque to callers). */
export interface SimWire {
  readonly sim: 1;
  readonly n: number;
  /** The signed size: the request's, rounded down to the 0.01-share lot. */
  readonly size: number;
  readonly feeRateBps: number;
}
