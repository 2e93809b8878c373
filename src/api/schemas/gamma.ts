/**
 * Schemas of the market-metadata API ("Gamma", spec 4.2): wire records in, typed camelCase records
 * out (`z.output`). See ./common.ts for the rules (unknown fields tolerated, bot-critical fields
 * required, money exact, JSON-encoded string arrays parsed).
 *
 * Market records carry the venue's camelCase fields and mmkit's snake_case ones; the venue's form is
 * read first (it is what a real Gamma sends), the snake_case one is the fallback.
 */
import { z } from 'zod';
import { maxSpreadFromCents } from '../../core/rewards.ts';
import type { Pips, TickSize } from '../../core/units.ts';
import { decimalOrNull, decimalString, jsonStringArray, micro, pipsOrNull, tagLabels, tickSize } from './common.ts';

const str = z.string();
const optStr = z.string().nullish();

/** An outcome token of a market: id, outcome name, price (decimal string: mid, else last trade, else 0.5). */
export interface MarketToken {
  tokenId: string;
  outcome: string;
  price: string | null;
  winner: boolean;
}

/** The short event record inside a market's `events`. */
export const marketEventStubSchema = z
  .object({
    id: z.union([str, z.number().transform(String)]),
    slug: str.optional(),
    title: str.optional(),
    active: z.boolean().optional(),
    closed: z.boolean().optional(),
    neg_risk: z.boolean().optional(),
    negRisk: z.boolean().optional(),
  })
  .transform((e) => ({
    id: e.id,
    slug: e.slug ?? '',
    title: e.title ?? '',
    active: e.active ?? null,
    closed: e.closed ?? null,
    negRisk: e.negRisk ?? e.neg_risk ?? null,
  }));
export type MarketEventStub = z.output<typeof marketEventStubSchema>;

/** One dated reward allocation of a market (`clobRewards[]`). */
export interface GammaReward {
  id: string;
  /** The pool per day while the allocation runs, micro-collateral. */
  dailyRate: number;
  /** Dates (`YYYY-MM-DD` or ISO), null when absent (no end: open-ended). */
  startDate: string | null;
  endDate: string | null;
}

const clobRewardSchema = z
  .object({
    id: z.union([str, z.number().transform(String)]).optional(),
    rewardsDailyRate: micro.nullish().catch(null),
    startDate: optStr,
    endDate: optStr,
  })
  .transform(
    (r): GammaReward => ({
      id: r.id ?? '',
      dailyRate: r.rewardsDailyRate ?? 0,
      startDate: r.startDate ?? null,
      endDate: r.endDate ?? null,
    }),
  );

/** The raw wire form of a Gamma market record. */
export const rawGammaMarketSchema = z.object({
  id: z.union([str, z.number().transform(String)]),
  question: str,
  conditionId: str.optional(),
  condition_id: str.optional(),
  questionID: optStr,
  question_id: optStr,
  slug: str.optional(),
  description: optStr,
  outcomes: jsonStringArray,
  outcomePrices: jsonStringArray.optional(),
  clobTokenIds: jsonStringArray.optional(),
  tokens: z
    .array(z.object({ token_id: str, outcome: str, price: decimalOrNull.optional(), winner: z.boolean().optional() }))
    .optional(),
  active: z.boolean(),
  closed: z.boolean(),
  archived: z.boolean().optional(),
  acceptingOrders: z.boolean().optional(),
  accepting_orders: z.boolean().optional(),
  enableOrderBook: z.boolean().optional(),
  orderPriceMinTickSize: tickSize.optional(),
  tick_size: tickSize.optional(),
  orderMinSize: micro.optional(),
  min_order_size: micro.optional(),
  negRisk: z.boolean().optional(),
  neg_risk: z.boolean().optional(),
  fee_rate_bps: z.number().int().nonnegative().optional(),
  status: str.optional(),
  volume: decimalString.optional(),
  liquidity: decimalString.optional(),
  bestBid: pipsOrNull,
  best_bid: pipsOrNull,
  bestAsk: pipsOrNull,
  best_ask: pipsOrNull,
  lastTradePrice: pipsOrNull,
  last_trade_price: pipsOrNull,
  spread: pipsOrNull,
  mid: decimalOrNull.optional(),
  endDate: optStr,
  end_date: optStr,
  startDate: optStr,
  start_date: optStr,
  createdAt: optStr,
  created_at: optStr,
  category: optStr,
  event_id: optStr,
  event_slug: optStr,
  tags: tagLabels,
  events: z.array(marketEventStubSchema).optional(),
  // liquidity rewards (numbers on the wire; a malformed value reads as absent, never fails the market)
  rewardsMinSize: micro.nullish().catch(null),
  rewardsMaxSpread: z.union([z.number(), z.string()]).nullish().catch(null),
  clobRewards: z.array(clobRewardSchema).nullish().catch(null),
});

/** A market's metadata, as a bot uses it. */
export interface GammaMarket {
  /** The venue's market id (the paper exchange uses the condition id). */
  id: string;
  conditionId: string;
  questionId: string | null;
  question: string;
  slug: string;
  description: string;
  /** Outcome names, index i is token i ("Yes", "No"). */
  outcomes: string[];
  /** Outcome prices as exact decimal strings (mid, else last trade, else "0.5"; 1/0 once resolved). */
  outcomePrices: string[];
  /** Token ids, index i is outcome i. */
  clobTokenIds: string[];
  /** The tokens with their outcomes and prices, zipped. */
  tokens: MarketToken[];
  active: boolean;
  closed: boolean;
  archived: boolean;
  acceptingOrders: boolean;
  enableOrderBook: boolean;
  tickSize: TickSize;
  /** Minimum order size in micro-shares. */
  minOrderSize: number;
  /** Sign orders for the neg-risk exchange. */
  negRisk: boolean;
  feeRateBps: number | null;
  /** mmkit's lifecycle status (`active` / `closed` / `resolved`) when sent. */
  status: string | null;
  /** Traded notional, decimal string. */
  volume: string;
  /** Resting notional near the mid, decimal string. */
  liquidity: string;
  /** YES book figures, integer pips (null when absent). */
  bestBid: Pips | null;
  bestAsk: Pips | null;
  lastTradePrice: Pips | null;
  spread: Pips | null;
  /** YES mid, a decimal string (may be a half pip: "0.555"), or null. */
  mid: string | null;
  endDate: string | null;
  startDate: string | null;
  createdAt: string | null;
  category: string;
  eventId: string | null;
  eventSlug: string | null;
  tags: string[];
  events: MarketEventStub[];
  /** Liquidity rewards: the min size (micro-shares) and max spread (pips; the wire's cents x 100) when sent, and the dated allocations (`[]` without rewards). */
  rewardsMinSize: number | null;
  rewardsMaxSpread: number | null;
  clobRewards: GammaReward[];
}

type RawGammaMarket = z.output<typeof rawGammaMarketSchema>;

function toGammaMarket(m: RawGammaMarket, ctx: z.RefinementCtx): GammaMarket {
  const conditionId = m.conditionId ?? m.condition_id;
  const tick = m.orderPriceMinTickSize ?? m.tick_size;
  const minSize = m.orderMinSize ?? m.min_order_size;
  const tokenIds = m.clobTokenIds ?? m.tokens?.map((t) => t.token_id);
  const missing: Array<[string, string]> = [];
  if (conditionId === undefined) missing.push(['conditionId', 'required']);
  if (tick === undefined) missing.push(['orderPriceMinTickSize', 'required (the tick size)']);
  if (minSize === undefined) missing.push(['orderMinSize', 'required (the minimum order size)']);
  if (tokenIds === undefined) missing.push(['clobTokenIds', 'required (the token ids)']);
  else if (tokenIds.length !== m.outcomes.length)
    missing.push(['clobTokenIds', `${tokenIds.length} token ids for ${m.outcomes.length} outcomes`]);
  if (
    conditionId === undefined ||
    tick === undefined ||
    minSize === undefined ||
    tokenIds === undefined ||
    missing.length > 0
  ) {
    for (const [path, message] of missing) ctx.addIssue({ code: 'custom', path: [path], message });
    return z.NEVER;
  }
  const prices = m.outcomePrices ?? m.tokens?.map((t) => t.price ?? '') ?? [];
  const tokens: MarketToken[] = tokenIds.map((tokenId, i) => {
    const snake = m.tokens?.find((t) => t.token_id === tokenId);
    return {
      tokenId,
      outcome: m.outcomes[i] ?? snake?.outcome ?? '',
      price: prices[i] || (snake?.price ?? null),
      winner: snake?.winner ?? false,
    };
  });
  return {
    id: m.id,
    conditionId,
    questionId: m.questionID ?? m.question_id ?? null,
    question: m.question,
    slug: m.slug ?? '',
    description: m.description ?? '',
    outcomes: m.outcomes,
    outcomePrices: prices,
    clobTokenIds: tokenIds,
    tokens,
    active: m.active,
    closed: m.closed,
    archived: m.archived ?? false,
    acceptingOrders: m.acceptingOrders ?? m.accepting_orders ?? m.active,
    enableOrderBook: m.enableOrderBook ?? true,
    tickSize: tick,
    minOrderSize: minSize,
    negRisk: m.negRisk ?? m.neg_risk ?? false,
    feeRateBps: m.fee_rate_bps ?? null,
    status: m.status ?? null,
    volume: m.volume ?? '0',
    liquidity: m.liquidity ?? '0',
    bestBid: m.best_bid ?? m.bestBid,
    bestAsk: m.best_ask ?? m.bestAsk,
    lastTradePrice: m.last_trade_price ?? m.lastTradePrice,
    spread: m.spread,
    mid: m.mid ?? null,
    endDate: m.endDate ?? m.end_date ?? null,
    startDate: m.startDate ?? m.start_date ?? null,
    createdAt: m.createdAt ?? m.created_at ?? null,
    category: m.category ?? '',
    eventId: m.event_id ?? m.events?.[0]?.id ?? null,
    eventSlug: m.event_slug ?? m.events?.[0]?.slug ?? null,
    tags: m.tags,
    events: m.events ?? [],
    rewardsMinSize: m.rewardsMinSize ?? null,
    rewardsMaxSpread:
      m.rewardsMaxSpread === null || m.rewardsMaxSpread === undefined
        ? null
        : maxSpreadFromCents(Number(m.rewardsMaxSpread)),
    clobRewards: m.clobRewards ?? [],
  };
}

/** A Gamma market record → `GammaMarket`. */
export const gammaMarketSchema = rawGammaMarketSchema.transform(toGammaMarket);

/** The raw wire form of an event record (spec 2.1, snake_case, with the venue's camelCase aliases). */
export const rawGammaEventSchema = z.object({
  id: z.union([str, z.number().transform(String)]),
  slug: str,
  title: str,
  description: optStr,
  markets: z.array(gammaMarketSchema).optional(),
  tags: tagLabels,
  start_date: optStr,
  startDate: optStr,
  end_date: optStr,
  endDate: optStr,
  image_url: optStr,
  image: optStr,
  created_at: optStr,
  createdAt: optStr,
  active: z.boolean().optional(),
  closed: z.boolean().optional(),
  category: optStr,
  neg_risk: z.boolean().optional(),
  negRisk: z.boolean().optional(),
  volume: decimalString.optional(),
  liquidity: decimalString.optional(),
  series_slug: optStr,
  seriesSlug: optStr,
  sport: optStr,
});

/** An event (spec 2.1) with its markets. */
export interface GammaEvent {
  id: string;
  slug: string;
  title: string;
  description: string;
  markets: GammaMarket[];
  /** Tag labels. */
  tags: string[];
  startDate: string | null;
  endDate: string | null;
  imageUrl: string | null;
  createdAt: string | null;
  /** Closed when it has markets and all are closed. */
  active: boolean;
  closed: boolean;
  category: string;
  negRisk: boolean;
  /** Sums of its markets, decimal strings. */
  volume: string;
  liquidity: string;
  seriesSlug: string | null;
  sport: string | null;
}

/** Raw event → `GammaEvent` (shared with the Data API's events). */
export function toGammaEvent(e: z.output<typeof rawGammaEventSchema>): GammaEvent {
  const markets = e.markets ?? [];
  const closed = e.closed ?? (markets.length > 0 && markets.every((m) => m.closed));
  return {
    id: e.id,
    slug: e.slug,
    title: e.title,
    description: e.description ?? '',
    markets,
    tags: e.tags,
    startDate: e.start_date ?? e.startDate ?? null,
    endDate: e.end_date ?? e.endDate ?? null,
    imageUrl: e.image_url ?? e.image ?? null,
    createdAt: e.created_at ?? e.createdAt ?? null,
    active: e.active ?? !closed,
    closed,
    category: e.category ?? '',
    negRisk: e.neg_risk ?? e.negRisk ?? false,
    volume: e.volume ?? '0',
    liquidity: e.liquidity ?? '0',
    seriesSlug: e.series_slug ?? e.seriesSlug ?? null,
    sport: e.sport ?? null,
  };
}

/** A Gamma event record → `GammaEvent`. */
export const gammaEventSchema = rawGammaEventSchema.transform(toGammaEvent);

/** One row of GET /markets/data: a market's live figures (YES token). */
export const marketFiguresSchema = z
  .object({
    condition_id: str,
    token_ids: z.array(str),
    active: z.boolean(),
    closed: z.boolean(),
    best_bid: pipsOrNull,
    best_ask: pipsOrNull,
    mid: decimalOrNull.optional(),
    last_trade_price: pipsOrNull,
    spread: pipsOrNull,
    volume: decimalString,
    liquidity: decimalString,
  })
  .transform((r) => ({
    conditionId: r.condition_id,
    tokenIds: r.token_ids,
    active: r.active,
    closed: r.closed,
    bestBid: r.best_bid,
    bestAsk: r.best_ask,
    /** Decimal string (may be a half pip) or null. */
    mid: r.mid ?? null,
    lastTradePrice: r.last_trade_price,
    spread: r.spread,
    volume: r.volume,
    liquidity: r.liquidity,
  }));
export type MarketFigures = z.output<typeof marketFiguresSchema>;

const entityType = z.enum(['Event', 'Market']);

/** A comment (the venue's camelCase, snake_case fallback). */
export const commentSchema = z
  .object({
    id: z.union([str, z.number().transform(String)]),
    body: str,
    parentEntityType: entityType.optional(),
    parent_entity_type: entityType.optional(),
    parentEntityID: z.union([str, z.number().transform(String)]).optional(),
    parent_entity_id: optStr,
    parentCommentID: z.union([str, z.number().transform(String)]).nullish(),
    reply_to: optStr,
    userAddress: optStr,
    user_address: optStr,
    createdAt: optStr,
    created_at: optStr,
  })
  .transform((c, ctx) => {
    const parentEntityType = c.parentEntityType ?? c.parent_entity_type;
    const parentEntityId = c.parentEntityID ?? c.parent_entity_id;
    if (parentEntityType === undefined || parentEntityId === undefined || parentEntityId === null) {
      ctx.addIssue({ code: 'custom', path: ['parentEntityType'], message: 'parent entity required' });
      return z.NEVER;
    }
    return {
      id: c.id,
      body: c.body,
      parentEntityType,
      parentEntityId,
      /** The comment this one answers, or null. */
      replyTo: c.parentCommentID ?? c.reply_to ?? null,
      userAddress: (c.userAddress ?? c.user_address ?? '').toLowerCase(),
      createdAt: c.createdAt ?? c.created_at ?? '',
    };
  });
export type Comment = z.output<typeof commentSchema>;

/** A user profile. `synthetic`: made up by the paper exchange for an address that traded but has none. */
export const profileSchema = z
  .object({
    address: str.optional(),
    proxyWallet: str.optional(),
    name: optStr,
    pseudonym: optStr,
    bio: optStr,
    profileImage: optStr,
    profile_image: optStr,
    createdAt: optStr,
    created_at: optStr,
    synthetic: z.boolean().optional(),
  })
  .transform((p, ctx) => {
    const address = p.address ?? p.proxyWallet;
    if (address === undefined) {
      ctx.addIssue({ code: 'custom', path: ['address'], message: 'required' });
      return z.NEVER;
    }
    return {
      address: address.toLowerCase(),
      name: p.name ?? '',
      pseudonym: p.pseudonym ?? '',
      bio: p.bio ?? '',
      profileImage: p.profileImage ?? p.profile_image ?? '',
      createdAt: p.createdAt ?? p.created_at ?? null,
      synthetic: p.synthetic ?? false,
    };
  });
export type Profile = z.output<typeof profileSchema>;

/** A tag `{id, label, slug}`. */
export const tagSchema = z.object({ id: z.union([str, z.number().transform(String)]), label: str, slug: str });
export type Tag = z.output<typeof tagSchema>;

/** A sport category. */
export const sportSchema = z
  .object({
    id: z.union([str, z.number().transform(String)]),
    sport: str,
    label: optStr,
    image: optStr,
    tags: tagLabels,
  })
  .transform((s) => ({ id: s.id, sport: s.sport, label: s.label ?? s.sport, image: s.image ?? '', tags: s.tags }));
export type Sport = z.output<typeof sportSchema>;

/** A series of recurring events, with the short records of its events. */
export const seriesSchema = z
  .object({
    id: z.union([str, z.number().transform(String)]),
    slug: str,
    title: str,
    recurrence: optStr,
    category: optStr,
    events: z.array(z.object({ id: z.union([str, z.number().transform(String)]), slug: str, title: str })).optional(),
  })
  .transform((s) => ({
    id: s.id,
    slug: s.slug,
    title: s.title,
    recurrence: s.recurrence ?? '',
    category: s.category ?? '',
    events: s.events ?? [],
  }));
export type Series = z.output<typeof seriesSchema>;

/** GET /search: matching events, markets and tags. */
export const searchSchema = z.object({
  events: z.array(gammaEventSchema).default([]),
  markets: z.array(gammaMarketSchema).default([]),
  tags: z.array(tagSchema).default([]),
});
export type SearchResult = z.output<typeof searchSchema>;

/** Gamma lists are bare arrays. */
export const gammaEventsSchema = z.array(gammaEventSchema);
export const gammaMarketsSchema = z.array(gammaMarketSchema);
export const marketFiguresListSchema = z.array(marketFiguresSchema);
export const commentsSchema = z.array(commentSchema);
export const tagsSchema = z.array(tagSchema);
export const sportsSchema = z.array(sportSchema);
export const seriesListSchema = z.array(seriesSchema);
