/**
 * Subscribers of the simulated venue's market and user streams, and the filter that hands each
 * event to a subscriber of its tokens or markets (a market subscriber's first `resynced` is its
 * `initial` one, as the live client's).
 */
import type { Subscriber } from 'rxjs';
import type { MarketEvent, UserDataEvent, UserEvent } from '../../core/events.ts';

/** A subscriber of `marketEvents(tokens)`. */
export interface MarketSub {
  readonly tokens: ReadonlySet<string>;
  readonly markets: ReadonlySet<string>;
  readonly sub: Subscriber<MarketEvent>;
  initialDone: boolean;
}

/** A subscriber of `userEvents(markets)` (empty set: all markets). */
export interface UserSub {
  readonly markets: ReadonlySet<string>;
  readonly sub: Subscriber<UserEvent>;
}

/** Hands a market event to one subscriber if it concerns its tokens (or markets). */
export function deliverMarket(s: MarketSub, e: MarketEvent): void {
  switch (e.type) {
    case 'book_snapshot':
    case 'level_change':
    case 'last_trade':
    case 'tick_size_change':
    case 'best_bid_ask':
      if (!s.tokens.has(e.tokenId)) return;
      break;
    case 'market_resolved':
      if (s.markets.size !== 0 && !s.markets.has(e.market)) return;
      break;
    case 'resynced':
      if (e.stream === 'market') {
        const initial = !s.initialDone;
        s.initialDone = true;
        s.sub.next(initial === e.initial ? e : { ...e, initial });
        return;
      }
      break;
    default:
      break;
  }
  s.sub.next(e);
}

/** Hands a user event to the subscribers of its market. */
export function deliverUser(subs: readonly UserSub[], e: UserDataEvent): void {
  for (let i = 0; i < subs.length; i++) {
    const s = subs[i]!;
    if (s.markets.size === 0 || s.markets.has(e.market)) s.sub.next(e);
  }
}
