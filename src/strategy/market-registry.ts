/**
 * The markets a strategy quotes (moved out of ./quoting.ts, which re-exports it): `MarketRef`, what
 * quoting needs to know of one market (tick, min size, tokens, whether it may be quoted), kept up to
 * date by `MarketRegistry.note(event)` as tick changes, resolutions and new markets come, which also
 * says which markets an event affects.
 */
import { assertNever, type MmkitEvent } from '../core/events.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import { tickPips } from '../core/units.ts';
import type { MarketInfo } from '../core/venue.ts';

/** What quoting needs to know about one market; `tick`, `minSize` and `quotable` follow the events. */
export interface MarketRef {
  readonly market: ConditionId;
  /** The first token ("YES"). */
  readonly yes: TokenId;
  /** The second token ("NO"). */
  readonly no: TokenId;
  /** Current tick, pips. */
  tick: number;
  /** Smallest order, micro-shares. */
  minSize: number;
  /** False once resolved or while the venue lists it inactive (closed, not accepting orders): quotes stay empty. */
  quotable: boolean;
  /** The market as the venue lists it (replaced on `market_updated`: its reward config, status, minimum size). */
  info: MarketInfo;
}

/** Which markets an event asks a strategy to re-quote: none, all of them, or one. */
export type Affected =
  | { readonly kind: 'none' }
  | { readonly kind: 'all' }
  | { readonly kind: 'market'; readonly ref: MarketRef };

const NONE: Affected = { kind: 'none' };
const ALL: Affected = { kind: 'all' };
/** The answer "that market", made once per market (`note` runs on every event). */
type One = Extract<Affected, { kind: 'market' }>;

/**
 * The markets of a strategy instance, kept current from the events (tick changes, minimum sizes of
 * snapshots, resolution), and the standard answer to "which markets does this event move?":
 * a snapshot, the LAST level change of a batch, a tick change, a fill, a resolution or a
 * `market_updated` (reward config, status, minimum size): that market;
 * a timer or a market/user stream disconnect or resync: all; anything else: none.
 */
export class MarketRegistry {
  readonly #byId = new Map<ConditionId, One>();
  readonly #byToken = new Map<TokenId, One>();
  readonly #resolved = new Set<ConditionId>();

  constructor(markets: Iterable<MarketInfo>) {
    for (const m of markets) {
      const ref: MarketRef = {
        market: m.market,
        yes: m.tokens[0].tokenId,
        no: m.tokens[1].tokenId,
        tick: tickPips(m.tick),
        minSize: m.minOrderSize,
        quotable: m.active,
        info: m,
      };
      const one: One = { kind: 'market', ref };
      this.#byId.set(m.market, one);
      this.#byToken.set(ref.yes, one);
      this.#byToken.set(ref.no, one);
    }
  }

  get size(): number {
    return this.#byId.size;
  }
  get(market: ConditionId): MarketRef | undefined {
    return this.#byId.get(market)?.ref;
  }
  byToken(token: TokenId): MarketRef | undefined {
    return this.#byToken.get(token)?.ref;
  }
  all(): MarketRef[] {
    const out: MarketRef[] = [];
    for (const one of this.#byId.values()) out.push(one.ref);
    return out;
  }

  /** Applies what `e` says about ticks, sizes, resolution and the market's info, and says which markets to re-quote. */
  note(e: MmkitEvent): Affected {
    switch (e.type) {
      case 'book_snapshot': {
        const one = this.#byToken.get(e.tokenId);
        if (one === undefined) return NONE;
        if (e.tickSize !== null && e.tickSize > 0) one.ref.tick = e.tickSize;
        if (e.minOrderSize !== null) one.ref.minSize = e.minOrderSize;
        return one;
      }
      case 'level_change':
        return (e.endOfBatch ? this.#byToken.get(e.tokenId) : undefined) ?? NONE;
      case 'tick_size_change': {
        const one = this.#byToken.get(e.tokenId);
        if (one === undefined) return NONE;
        one.ref.tick = e.new;
        return one;
      }
      case 'fill':
        return this.#byId.get(e.market) ?? NONE;
      case 'market_resolved': {
        const one = this.#byId.get(e.market);
        if (one === undefined) return NONE;
        one.ref.quotable = false;
        this.#resolved.add(e.market);
        return one;
      }
      case 'market_updated': {
        const one = this.#byId.get(e.market);
        if (one === undefined) return NONE;
        one.ref.info = e.info;
        one.ref.minSize = e.info.minOrderSize;
        one.ref.quotable = e.info.active && !this.#resolved.has(e.market);
        return one;
      }
      case 'timer':
        return ALL;
      case 'disconnected':
      case 'resynced':
        return e.stream === 'rtds' ? NONE : ALL;
      case 'last_trade':
      case 'best_bid_ask':
      case 'new_market':
      case 'order_update':
      case 'price_tick':
      case 'comment':
      case 'stream_error':
        return NONE;
      default:
        return assertNever(e, 'event');
    }
  }
}
