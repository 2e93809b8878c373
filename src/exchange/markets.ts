/**
 * The paper exchange's market registry: the metadata of every market (condition) the matching
 * engine trades, and the CLOB wire record of it; and what is read live of a market's books (mids,
 * liquidity), apart from the exchange's command log (exchange.ts), which only changes them.
 */
import { keccak256, toUtf8Bytes } from 'ethers';
import { Rng } from '../core/random.ts';
import { formatAmount, PRICE_SCALE, tickPips, type TickSize } from '../core/units.ts';
import type { BookView, MarketDef, MarketStatus } from './matching/types.ts';

export interface MarketMeta {
  conditionId: string;
  questionId: string;
  question: string;
  description: string;
  slug: string;
  outcomes: ['Yes', 'No'];
  tokens: [string, string];
  tick: TickSize;
  minSizeMicro: number;
  negRisk: boolean;
  feeRateBps: number;
  endDate: string; // ISO 8601
  createdAt: string;
  category: string;
  tags: string[];
  /** Id of the event that holds the market ('' when none). */
  eventId?: string;
  /** Crypto up/down markets: the symbol whose price decides them. */
  cryptoSymbol?: string;
}

/** A uint256 decimal token id derived from a label, like the venue's (77-78 digit) ids. */
export function tokenIdFor(label: string): string {
  return BigInt(keccak256(toUtf8Bytes(`token:${label}`))).toString(10);
}
export function conditionIdFor(label: string): string {
  return keccak256(toUtf8Bytes(`condition:${label}`));
}

export function toMarketDef(m: MarketMeta): MarketDef {
  return {
    conditionId: m.conditionId,
    yesToken: m.tokens[0],
    noToken: m.tokens[1],
    tickPips: tickPips(m.tick),
    minSizeMicro: m.minSizeMicro,
    negRisk: m.negRisk,
    feeRateBps: m.feeRateBps,
  };
}

export interface LiveMarketState {
  status: MarketStatus;
  tick: TickSize;
  winningToken?: string | undefined;
  /** Last trade price per token (pips), or undefined. */
  lastPrice: [number | undefined, number | undefined];
  /** Mid per token (pips, may be x.5), or undefined. */
  mid: [number | undefined, number | undefined];
}

/** What the live reads of a market read of the matching engine. */
export interface BookReader {
  book(tokenId: string): BookView;
  bestBidAsk(tokenId: string): { bid: number | null; ask: number | null };
}

/**
 * Refresh a market's live state: each token's mid (from its best bid and ask) and last trade price
 * (`lastPrice`); returns `state`.
 */
export function refreshLiveState(
  tokens: readonly [string, string],
  state: LiveMarketState,
  books: BookReader,
  lastPrice: (tokenId: string) => number | undefined,
): LiveMarketState {
  for (const i of [0, 1] as const) {
    const tok = tokens[i];
    const bba = books.bestBidAsk(tok);
    state.mid[i] = bba.bid !== null && bba.ask !== null ? (bba.bid + bba.ask) / 2 : undefined;
    state.lastPrice[i] = lastPrice(tok);
  }
  return state;
}

/**
 * Resting liquidity of a market in micro-collateral: the notional of every level of its YES token's
 * book within 10% of the mid (both sides).
 */
export function liquidityOf(books: BookReader, yesToken: string): number {
  const book = books.book(yesToken);
  const best = books.bestBidAsk(yesToken);
  const mid =
    best.bid !== null && best.ask !== null ? (best.bid + best.ask) / 2 : (best.bid ?? best.ask ?? PRICE_SCALE / 2);
  let sum = 0;
  for (const l of book.bids) if (Math.abs(l.price - mid) <= 1000) sum += Math.round((l.size * l.price) / PRICE_SCALE);
  for (const l of book.asks)
    if (Math.abs(l.price - mid) <= 1000) sum += Math.round((l.size * (PRICE_SCALE - l.price)) / PRICE_SCALE);
  return sum;
}

/** The `rewards` object of a market without rewards. */
export const NO_REWARDS: Readonly<Record<string, unknown>> = Object.freeze({ rates: null, min_size: 0, max_spread: 0 });

/**
 * CLOB market record (snake_case), as GET /markets and /markets/{condition_id} answer it;
 * `rewards` is its reward object (rewards/wire.ts `clobRewards`).
 */
export function clobMarketRecord(
  m: MarketMeta,
  s: LiveMarketState,
  rewards: Readonly<Record<string, unknown>> = NO_REWARDS,
): Record<string, unknown> {
  const tokenPrice = (i: 0 | 1): number => {
    if (s.status === 'resolved') return s.winningToken === m.tokens[i] ? 1 : 0;
    const p = s.mid[i] ?? s.lastPrice[i];
    // a mid may fall on a half pip: format it exactly at 6 decimals
    return p === undefined ? 0.5 : Number(formatAmount(Math.round(p * 100)));
  };
  return {
    condition_id: m.conditionId,
    question_id: m.questionId,
    question: m.question,
    description: m.description,
    market_slug: m.slug,
    tokens: [0, 1].map((i) => ({
      token_id: m.tokens[i as 0 | 1],
      outcome: m.outcomes[i as 0 | 1],
      price: tokenPrice(i as 0 | 1),
      winner: s.status === 'resolved' && s.winningToken === m.tokens[i as 0 | 1],
    })),
    minimum_order_size: Number(formatAmount(m.minSizeMicro)),
    minimum_tick_size: Number(s.tick),
    neg_risk: m.negRisk,
    neg_risk_market_id: m.negRisk ? m.questionId : '',
    active: s.status === 'active',
    closed: s.status !== 'active',
    archived: false,
    accepting_orders: s.status === 'active',
    enable_order_book: true,
    end_date_iso: m.endDate,
    game_start_time: null,
    seconds_delay: 0,
    maker_base_fee: 0,
    taker_base_fee: m.feeRateBps,
    fpmm: '',
    icon: '',
    image: '',
    rewards,
    is_50_50_outcome: false,
    tags: m.tags,
  };
}

const QUESTIONS: Array<[string, string, string[]]> = [
  ['Will the Fed cut rates at its next meeting?', 'economics', ['Economy', 'Fed']],
  ['Will BTC close above $120k this month?', 'crypto', ['Crypto', 'Bitcoin']],
  ['Will the home team win the championship final?', 'sports', ['Sports']],
  ['Will candidate A win the primary?', 'politics', ['Politics', 'Elections']],
  ['Will candidate B win the primary?', 'politics', ['Politics', 'Elections']],
  ['Will the new phone ship before the holidays?', 'tech', ['Tech']],
  ['Will average global temperature set a record this year?', 'science', ['Science', 'Climate']],
  ['Will ETH trade above $5k by year end?', 'crypto', ['Crypto', 'Ethereum']],
];

/**
 * The opening set of binary markets: deterministic for a seed, across all tick sizes, some
 * neg-risk (the two primary candidates share a neg-risk event), minimum size 5 shares.
 */
export function initialMarkets(seed: number, nowMs: number): MarketMeta[] {
  const rng = new Rng(seed);
  const ticks: TickSize[] = ['0.01', '0.01', '0.1', '0.001', '0.001', '0.01', '0.0001', '0.01'];
  return QUESTIONS.map(([question, category, tags], i) => {
    const label = `${seed}:${i}:${question}`;
    const slug = question
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '');
    const days = rng.int(7, 120);
    return {
      conditionId: conditionIdFor(label),
      questionId: keccak256(toUtf8Bytes(`question:${label}`)),
      question,
      description: `This market resolves to "Yes" if: ${question.replace(/\?$/, '')}. Otherwise it resolves to "No".`,
      slug,
      outcomes: ['Yes', 'No'],
      tokens: [tokenIdFor(`${label}:yes`), tokenIdFor(`${label}:no`)],
      tick: ticks[i] ?? '0.01',
      minSizeMicro: 5_000_000,
      negRisk: category === 'politics',
      feeRateBps: 0,
      endDate: new Date(nowMs + days * 86_400_000).toISOString(),
      createdAt: new Date(nowMs - rng.int(1, 30) * 86_400_000).toISOString(),
      category,
      tags,
    } satisfies MarketMeta;
  });
}
