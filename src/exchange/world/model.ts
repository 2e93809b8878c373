/**
 * The synthetic market world's records (everything that is not the order book): events, tags,
 * series, sports, comments, articles and profiles. Markets themselves are `MarketMeta`
 * (src/exchange/markets.ts), linked to their event by `eventId`.
 *
 * Plain data, JSON-serialisable (they are journaled for --db persistence). Times are ISO 8601 UTC
 * strings on records (as on the wire) and unix ms where noted.
 */

export interface TagRec {
  id: string;
  label: string; // "Crypto"
  slug: string; // "crypto"
}

export interface SeriesRec {
  id: string;
  slug: string;
  title: string;
  recurrence: 'daily' | 'weekly' | 'monthly' | 'hourly';
  category: string;
}

export interface SportRec {
  id: string;
  sport: string; // "nba"
  label: string; // "Basketball (NBA)"
  image: string;
  tags: string[];
}

export interface EventRec {
  id: string;
  slug: string;
  title: string;
  description: string;
  /** Tag labels (spec 2.1: array of strings). */
  tags: string[];
  category: string;
  startDate: string;
  endDate: string;
  imageUrl: string;
  createdAt: string;
  negRisk: boolean;
  seriesSlug?: string;
  sport?: string;
  /** Condition ids of the event's markets, in display order. */
  marketIds: string[];
}

export interface CommentRec {
  id: string;
  body: string;
  parentEntityType: 'Event' | 'Market';
  parentEntityId: string; // event id or condition id
  userAddress: string; // lower case
  createdAt: string;
  /** Id of the comment this one replies to. */
  replyTo?: string;
}

export interface ArticleRec {
  id: string;
  slug: string;
  title: string;
  summary: string;
  body: string;
  author: string;
  publishedAt: string;
  tags: string[];
  eventIds: string[];
  imageUrl: string;
}

export interface ProfileRec {
  address: string; // lower case
  name: string;
  pseudonym: string;
  bio: string;
  profileImage: string;
  createdAt: string;
}

/** Crypto symbols of the simulated price feed (RTDS `crypto_prices`), lower-case like the venue's. */
export const CRYPTO_SYMBOLS = ['btcusdt', 'ethusdt', 'solusdt', 'xrpusdt', 'dogeusdt'] as const;
export type CryptoSymbol = (typeof CRYPTO_SYMBOLS)[number];

/**
 * Events of the world that are not matching-engine events; the exchange fans them out with the
 * engine's (WS market channel `new_market`, RTDS `comments` and `crypto_prices`).
 */
export type WorldEvent =
  | { type: 'new_market'; conditionId: string; at: number }
  | { type: 'comment_created'; comment: CommentRec; at: number }
  | { type: 'crypto_price'; symbol: CryptoSymbol; value: number; at: number };
