/**
 * `mmkit markets`: search and list markets from the metadata (Gamma) API, each with a summary of
 * its YES book from the CLOB (best bid and ask, mid, spread, depth near the touch). Read-only and
 * unauthenticated: no wallet, no API key.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { ClobClient, OrderBook } from '../api/clob.ts';
import type { GammaMarket } from '../api/schemas/gamma.ts';
import { NotFoundError } from '../core/errors.ts';
import { formatAmount, formatFixed, formatPrice, parsePrice, tickPips, type Pips } from '../core/units.ts';
import {
  action,
  addCommonOptions,
  configFrom,
  printJson,
  printTable,
  positiveInt,
  withSession,
  type CommonOptions,
} from './common.ts';
import { EXIT_CODES_HELP, usageError } from './exit-codes.ts';
import { endsLabel, gammaRewardConfig, rewardFigures } from './markets-rewards.ts';

/** A book summary; prices and sizes as decimal strings, null when that side is empty. */
export interface BookSummary {
  tokenId: string;
  bestBid: string | null;
  bestAsk: string | null;
  mid: string | null;
  spread: string | null;
  /** Shares resting on the bid side within `band` of the best bid. */
  bidDepth: string;
  /** Shares resting on the ask side within `band` of the best ask. */
  askDepth: string;
  bidLevels: number;
  askLevels: number;
  /** The depth band, price units. */
  band: string;
}

/** Summarise a book (levels best first, integer units) with a depth band in pips. */
export function summariseBook(b: Pick<OrderBook, 'assetId' | 'bids' | 'asks'>, bandPips: number): BookSummary {
  const bid = b.bids[0]?.price;
  const ask = b.asks[0]?.price;
  const depth = (levels: OrderBook['bids'], inBand: (p: number) => boolean) =>
    levels.filter((l) => inBand(l.price)).reduce((s, l) => s + l.size, 0);
  return {
    tokenId: b.assetId,
    bestBid: bid === undefined ? null : formatPrice(bid),
    bestAsk: ask === undefined ? null : formatPrice(ask),
    // (bid + ask) / 2 may fall on a half pip: exact as (bid + ask) * 5 in 1e-5 units
    mid: bid === undefined || ask === undefined ? null : formatFixed((bid + ask) * 5, 5),
    spread: bid === undefined || ask === undefined ? null : formatPrice(ask - bid),
    bidDepth: formatAmount(bid === undefined ? 0 : depth(b.bids, (p) => p >= bid - bandPips)),
    askDepth: formatAmount(ask === undefined ? 0 : depth(b.asks, (p) => p <= ask + bandPips)),
    bidLevels: b.bids.length,
    askLevels: b.asks.length,
    band: formatPrice(bandPips),
  };
}

/** Books of many tokens: POST /books in chunks; a chunk with a missing book falls back to one by one. */
async function booksOf(clob: ClobClient, tokenIds: readonly string[]): Promise<Map<string, OrderBook | null>> {
  const out = new Map<string, OrderBook | null>();
  for (let i = 0; i < tokenIds.length; i += 20) {
    const chunk = tokenIds.slice(i, i + 20);
    try {
      const books = await clob.books(chunk);
      chunk.forEach((t, j) => out.set(t, books[j] ?? null));
    } catch (e) {
      if (!(e instanceof NotFoundError)) throw e;
      for (const t of chunk) {
        try {
          out.set(t, await clob.book(t));
        } catch (e2) {
          if (!(e2 instanceof NotFoundError)) throw e2;
          out.set(t, null);
        }
      }
    }
  }
  return out;
}

function marketRow(m: GammaMarket) {
  return {
    conditionId: m.conditionId,
    question: m.question,
    slug: m.slug,
    active: m.active,
    closed: m.closed,
    acceptingOrders: m.acceptingOrders,
    negRisk: m.negRisk,
    tickSize: m.tickSize,
    minOrderSize: formatAmount(m.minOrderSize),
    volume: m.volume,
    liquidity: m.liquidity,
    endDate: m.endDate,
    tokens: m.tokens.map((t) => ({ tokenId: t.tokenId, outcome: t.outcome })),
  };
}

interface MarketsOptions extends CommonOptions {
  search?: string;
  active?: boolean;
  limit: number;
  books: boolean;
  depthBand: string;
  rewards?: boolean;
}

/** How many active markets `--rewards` reads the metadata of (the venue's order: most liquid first). */
const REWARDS_SCAN = 5000;

export function register(program: Command): void {
  const cmd = program
    .command('markets')
    .description('search and list markets (metadata API) with a summary of each YES book (CLOB)')
    .option('--search <text>', 'only markets whose question, event or tags match this text')
    .option('--active', 'only active markets that are not closed')
    .option('--limit <n>', 'at most this many markets (1-100)', positiveInt('--limit', 100), 20)
    .option('--no-books', 'skip the book summaries (one request fewer per 20 markets)')
    .option(
      '--rewards',
      'only markets with liquidity rewards, ranked by the estimated daily reward of a two-sided min-size quote inside the reward band',
    )
    .option(
      '--depth-band <price>',
      'depth counts shares within this distance of the best price',
      (v: string) => {
        if (!/^0?\.\d{1,4}$/.test(v) || Number(v) <= 0)
          throw new InvalidArgumentError('--depth-band takes a price like 0.05');
        return v;
      },
      '0.05',
    );
  addCommonOptions(cmd);
  cmd.addHelpText(
    'after',
    `
Book columns are for the market's first (YES) token: best bid and ask, spread, and the shares
resting within --depth-band of each best price. Prices and sizes are decimal strings.

--rewards lists the active markets with a running reward pool, best first by EST/DAY: the pool x the
score of a two-sided quote of the min size inside the band / (that score + the score of the orders
already resting in the band, COMPETITION). Columns: the pool (USDC/day), the min size (shares),
the max spread (price units), the competition's score and the estimate (USDC/day).
JSON keys: rewardsDailyRate, rewardsMinSize, rewardsMaxSpread, competitionScore, estDailyReward,
estBid, estAsk, endDate.

Examples:
  mmkit markets --active --limit 10
  mmkit markets --search bitcoin --json | jq '.markets[] | {conditionId, spread: .book.spread}'
  mmkit markets --exchange-url http://127.0.0.1:8080 --no-books
  mmkit markets --rewards --limit 10
  mmkit markets --rewards --json | jq '.markets[] | {conditionId, estDailyReward, competitionScore}'
${EXIT_CODES_HELP}`,
  );
  cmd.action(
    action(async (o: MarketsOptions) => {
      const cfg = configFrom(o);
      if (o.rewards && !o.books) throw usageError('--rewards estimates from the books: drop --no-books');
      if (o.rewards) return withSession(cfg, { auth: false, json: o.json }, (s) => listRewards(s, o));
      return withSession(cfg, { auth: false, json: o.json }, async (s) => {
        let markets: GammaMarket[];
        if (o.search !== undefined) {
          const r = await s.gamma.search(o.search, { limit: Math.min(o.limit * (o.active ? 3 : 1), 100) });
          markets = r.markets;
          if (o.active) markets = markets.filter((m) => m.active && !m.closed);
          markets = markets.slice(0, o.limit);
        } else {
          markets = await s.gamma.listMarkets({
            ...(o.active ? { active: true, closed: false } : {}),
            order: 'liquidity',
            ascending: false,
            limit: o.limit,
          });
        }
        const bandPips = parsePrice(o.depthBand);
        const books = o.books
          ? await booksOf(
              s.clob,
              markets.map((m) => m.tokens[0]?.tokenId).filter((t): t is string => t !== undefined),
            )
          : new Map<string, OrderBook | null>();
        const rows = markets.map((m) => {
          const b = m.tokens[0] ? books.get(m.tokens[0].tokenId) : undefined;
          return { ...marketRow(m), book: b ? summariseBook(b, bandPips as Pips) : null };
        });
        if (o.json) {
          printJson({ venue: s.venue.base ?? s.venue.urls.gamma, count: rows.length, markets: rows });
          return;
        }
        if (rows.length === 0) {
          process.stdout.write('no markets\n');
          return;
        }
        printTable(
          rows.map((r) => ({
            market: r.conditionId,
            question: r.question.length > 40 ? r.question.slice(0, 39) + '…' : r.question,
            state: r.closed ? 'closed' : r.active ? 'active' : 'inactive',
            tick: r.tickSize,
            bid: r.book?.bestBid,
            ask: r.book?.bestAsk,
            spread: r.book?.spread,
            depth: r.book ? `${r.book.bidDepth}/${r.book.askDepth}` : undefined,
            volume: r.volume,
          })),
          ['market', 'question', 'state', 'tick', 'bid', 'ask', 'spread', ['depth', `depth±${o.depthBand}`], 'volume'],
        );
        process.stderr.write(
          `mmkit: ${rows.length} market(s) at ${s.venue.base ?? s.venue.urls.gamma}; book columns are the YES token's\n`,
        );
      });
    }),
  );
}

type Session = Parameters<Parameters<typeof withSession>[2]>[0];

/** `mmkit markets --rewards`: rewarded markets ranked by the estimated daily reward (./markets-rewards.ts). */
async function listRewards(s: Session, o: MarketsOptions): Promise<void> {
  const now = Date.now();
  let markets: GammaMarket[] = [];
  if (o.search !== undefined) markets = (await s.gamma.search(o.search, { limit: 100 })).markets;
  else
    for await (const m of s.gamma.iterMarkets(
      { active: true, closed: false, order: 'liquidity', ascending: false },
      { pageSize: 500, maxItems: REWARDS_SCAN },
    ))
      markets.push(m);
  const rewarded = markets
    .filter((m) => m.active && !m.closed && m.tokens[0] !== undefined)
    .map((m) => ({ m, cfg: gammaRewardConfig(m, now) }))
    .filter((x): x is { m: GammaMarket; cfg: NonNullable<typeof x.cfg> } => x.cfg !== null);
  const books = await booksOf(
    s.clob,
    rewarded.map((x) => x.m.tokens[0]!.tokenId),
  );
  const bandPips = parsePrice(o.depthBand);
  const rows = rewarded
    .map(({ m, cfg }) => {
      const b = books.get(m.tokens[0]!.tokenId) ?? null;
      const f = rewardFigures(cfg, b, tickPips(b?.tickSize ?? m.tickSize));
      return { m, b, f };
    })
    .sort(
      (x, y) => y.f.estDailyMicro - x.f.estDailyMicro || Number(y.f.rewardsDailyRate) - Number(x.f.rewardsDailyRate),
    )
    .slice(0, o.limit)
    .map(({ m, b, f }) => {
      const { estDailyMicro: _, ...figures } = f;
      return { ...marketRow(m), book: b ? summariseBook(b, bandPips as Pips) : null, ...figures };
    });
  if (o.json) {
    printJson({ venue: s.venue.base ?? s.venue.urls.gamma, count: rows.length, markets: rows });
    return;
  }
  if (rows.length === 0) {
    process.stdout.write('no market with liquidity rewards\n');
    return;
  }
  printTable(
    rows.map((r) => ({
      market: r.conditionId,
      question: r.question.length > 40 ? r.question.slice(0, 39) + '…' : r.question,
      mid: r.book?.mid,
      spread: r.book?.spread,
      pool: r.rewardsDailyRate,
      minSize: r.rewardsMinSize,
      maxSpread: r.rewardsMaxSpread,
      competition: r.competitionScore,
      est: r.estDailyReward,
      ends: endsLabel(r.endDate, now),
    })),
    [
      'market',
      'question',
      'mid',
      'spread',
      ['pool', 'pool/day'],
      ['minSize', 'min size'],
      ['maxSpread', 'max spread'],
      'competition',
      ['est', 'est/day'],
      'ends',
    ],
  );
  process.stderr.write(
    `mmkit: ${rows.length} rewarded market(s) at ${s.venue.base ?? s.venue.urls.gamma}; est/day: a two-sided min-size quote inside the band, USDC\n`,
  );
}
