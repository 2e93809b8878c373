/**
 * The venue's answers to the executor's place requests (src/execution/executor.ts), order by order:
 * accepted, ambiguous (left `unknown`, resolved by id: src/execution/unknown-outcomes.ts), or
 * refused; and of the refusals, which are errors (counted, audited, handed to the rejection
 * listeners: the kill switch's "repeated rejections") and which are not.
 *
 * Post-only: a quote the venue refuses because it would cross (INVALID_POST_ONLY_ORDER: the book
 * moved between the strategy's look and the venue's) is not an error: the order is rejected, the
 * next intent re-prices it, and it is counted apart (`accountStats`), not handed to the rejection
 * listeners (the kill switch).
 *
 * Selling into a fill: an ask refused for lack of tokens (INVALID_ORDER_NOT_ENOUGH_BALANCE on a
 * SELL) usually means the ask it replaces was being lifted while the new one was sent, and the fill
 * has not reached us yet. Like a crossing, it is re-sized at the next intent and counted apart
 * (`sellBalanceRaces`), up to SELL_RACE_TOLERANCE times in a row for a token with no fill of that
 * token in between; after that the refusals count as rejections again (a real shortfall, which the
 * position audit corrects, must still be able to trip the kill switch).
 *
 * Apart from the executor's cycles so that what counts as a rejection is read in one place, for
 * quotes, immediate orders and resends alike. Also here: what a place request that threw means
 * (`provesNotAccepted`), and the split of a request into the venue's batches.
 */
import type { Clock } from '../core/clock.ts';
import {
  AuthError,
  ConfigError,
  MmkitError,
  OrderRejectedError,
  RateLimitError,
  ValidationError,
} from '../core/errors.ts';
import type { OrderId, TokenId } from '../core/ids.ts';
import type { OrderRejectCode } from '../core/order-rules.ts';
import type { PlaceOutcome, PreparedOrder } from '../core/venue.ts';
import type { RejectionInfo } from './executor-types.ts';
import type { OrderTracker } from './tracker.ts';
import type { UnknownOutcomes } from './unknown-outcomes.ts';

/** The venue's refusal of a post-only order that would cross: "re-price next time", not an error. */
export const POST_ONLY_CROSSING: OrderRejectCode = 'INVALID_POST_ONLY_ORDER';
/**
 * A FOK order the book could not fill whole: the order type working as specified (a market outcome,
 * no fault of the bot or the venue), so not a kill-switch rejection (trial 13 F7: a FOK strategy on a
 * thin book stopped the daemon, exit 4, within a minute). Counted apart, as post-only crossings are.
 */
export const FOK_NOT_FILLED: OrderRejectCode = 'FOK_ORDER_NOT_FILLED_ERROR';
export const NOT_ENOUGH_BALANCE: OrderRejectCode = 'INVALID_ORDER_NOT_ENOUGH_BALANCE';
/** SELL balance refusals of one token tolerated in a row (no fill of it between) before they count. */
export const SELL_RACE_TOLERANCE = 3;

/** `xs` in consecutive slices of at most `n` (the batches of one place or cancel request). */
export function chunks<T>(xs: readonly T[], n: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
  return out;
}

/**
 * True when a thrown error proves the venue did NOT accept the request (so its orders are not
 * there): a 429, an auth failure, a validation error, a rejection. Anything else (timeouts, network
 * errors, 5xx, unexpected errors) may have landed.
 */
export function provesNotAccepted(err: unknown): boolean {
  return (
    err instanceof RateLimitError ||
    err instanceof AuthError ||
    err instanceof ValidationError ||
    err instanceof ConfigError ||
    err instanceof OrderRejectedError
  );
}

/** The code of a thrown error, for the tracker and the audit log ('ERROR' when it has none). */
export function errorCode(err: unknown): string {
  return err instanceof MmkitError ? err.code : 'ERROR';
}

/** What the answers of one place request came to: refusals that count, post-only crossings, unknown ones. */
export interface AppliedOutcomes {
  readonly rejected: number;
  readonly postOnly: number;
  readonly unknown: number;
}

/** The executor's parts the reading of place answers uses. */
export interface PlaceOutcomesParts {
  /** The executor's tracker: told each answer. */
  readonly tracker: Pick<OrderTracker, 'onPlaceOutcome'>;
  /** Where an ambiguous answer goes: resolved later by id. */
  readonly unknownOutcomes: Pick<UnknownOutcomes, 'unknown'>;
  /** The executor's clock (the time of a rejection). */
  readonly clock: Pick<Clock, 'now'>;
  /** The executor's counters: each rejection is counted there. */
  readonly stats: { rejections: number };
  audit(kind: string, data: unknown): void;
  emitError(where: string, error: unknown): void;
}

type Listener<T> = (x: T) => void;

/** The executor's reading of the venue's answers to its places (see the module comment). */
export class PlaceOutcomes {
  readonly #p: PlaceOutcomesParts;
  readonly #onRejection = new Set<Listener<RejectionInfo>>();
  readonly #onSellShortfall = new Set<Listener<TokenId>>();
  /** Post-only and SELL balance refusals (foreign orders and external fills: `ForeignOrders.counts`). */
  readonly #account = { postOnlyRejections: 0, sellBalanceRaces: 0, fokNotFilled: 0 };
  /** SELL balance refusals in a row per token, since its last fill (see the module comment). */
  readonly #sellRaces = new Map<string, number>();

  constructor(parts: PlaceOutcomesParts) {
    this.#p = parts;
  }

  /** Each venue rejection of an order (code and message): the kill switch's "repeated rejections". */
  onRejection(fn: Listener<RejectionInfo>): () => void {
    this.#onRejection.add(fn);
    return () => this.#onRejection.delete(fn);
  }

  /**
   * Each SELL the venue refused for lack of tokens (a race or a rejection): the holdings the bot
   * counts may be above the venue's (the kernel audits the positions then: trial 15 F1).
   */
  onSellShortfall(fn: Listener<TokenId>): () => void {
    this.#onSellShortfall.add(fn);
    return () => this.#onSellShortfall.delete(fn);
  }

  /** Post-only refusals and tolerated SELL balance races since start. */
  get counts(): {
    readonly postOnlyRejections: number;
    readonly sellBalanceRaces: number;
    readonly fokNotFilled: number;
  } {
    return this.#account;
  }

  /** A fill of `tokenId` came in: its SELL balance refusals in a row start again from zero. */
  filled(tokenId: string): void {
    this.#sellRaces.delete(tokenId);
  }

  /** Applies the answers to a place request (the tracker told of each); call inside the executor's batched writes. */
  apply(prepared: readonly PreparedOrder[], outcomes: readonly PlaceOutcome[]): AppliedOutcomes {
    const byId = new Map<OrderId, PlaceOutcome>();
    for (const o of outcomes) byId.set(o.id, o);
    let rejected = 0;
    let postOnly = 0;
    let unknown = 0;
    for (const p of prepared) {
      const o = byId.get(p.id);
      if (o === undefined || (!o.ok && (o.code === 'UNKNOWN' || o.code === 'INVALID_ORDER_DUPLICATED'))) {
        // no answer for it, an ambiguous one, or "the venue already has this hash": find out by id
        this.#p.unknownOutcomes.unknown(p.id);
        unknown++;
      } else if (o.ok) {
        this.#p.tracker.onPlaceOutcome(o);
      } else if (o.code === POST_ONLY_CROSSING) {
        // the book moved: the quote would have taken; re-priced at the next intent (not an error)
        this.#p.tracker.onPlaceOutcome(o);
        postOnly++;
        this.#account.postOnlyRejections++;
      } else if (o.code === FOK_NOT_FILLED) {
        // too little at its price: killed whole, as a FOK is (not an error)
        this.#p.tracker.onPlaceOutcome(o);
        this.#account.fokNotFilled++;
      } else if (this.#sellRace(p, o.code)) {
        // selling into a fill that has not reached us: re-sized at the next intent (not an error)
        this.#p.tracker.onPlaceOutcome(o);
      } else {
        this.#p.tracker.onPlaceOutcome(o);
        rejected++;
        this.#rejection(p, o.code, o.message);
      }
    }
    return { rejected, postOnly, unknown };
  }

  /** A resend's definite refusal (the tracker told already): counted as a first send's refusal is. */
  resendRefused(prepared: PreparedOrder, code: string, message: string): void {
    if (code === POST_ONLY_CROSSING) this.#account.postOnlyRejections++;
    else if (code === FOK_NOT_FILLED) this.#account.fokNotFilled++;
    else if (!this.#sellRace(prepared, code)) this.#rejection(prepared, code, message);
  }

  /** True (and counted) when a refusal is a tolerated SELL balance race (see the module comment). */
  #sellRace(p: PreparedOrder, code: string): boolean {
    if (code !== NOT_ENOUGH_BALANCE || p.request.side !== 'SELL') return false;
    const token = p.request.tokenId;
    for (const fn of this.#onSellShortfall) {
      try {
        fn(token);
      } catch (error) {
        this.#p.emitError('onSellShortfall listener', error);
      }
    }
    const n = (this.#sellRaces.get(token) ?? 0) + 1;
    this.#sellRaces.set(token, n);
    if (n > SELL_RACE_TOLERANCE) return false;
    this.#account.sellBalanceRaces++;
    this.#p.audit('sell_balance_race', { id: p.id, tokenId: token, inARow: n });
    return true;
  }

  #rejection(p: PreparedOrder, code: string, message: string): void {
    this.#p.stats.rejections++;
    const info: RejectionInfo = {
      id: p.id,
      market: p.request.market,
      tokenId: p.request.tokenId,
      code,
      message,
      at: this.#p.clock.now(),
    };
    this.#p.audit('rejected', info);
    for (const fn of this.#onRejection) {
      try {
        fn(info);
      } catch (error) {
        this.#p.emitError('onRejection listener', error);
      }
    }
  }
}
