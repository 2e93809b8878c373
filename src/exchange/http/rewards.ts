/**
 * The liquidity rewards API of the paper exchange, under /clob, as the public service and its
 * public clients use it (`@polymarket/clob-client-v2`: isOrderScoring, areOrdersScoring,
 * getCurrentRewards, getRawRewardsForMarket, getEarningsForUserForDay,
 * getTotalEarningsForUserForDay, getRewardPercentages, getUserEarningsAndMarketsConfig):
 *
 *  - `GET /order-scoring?order_id=` (L2) → `{scoring}`: the caller's order is live on a rewarded
 *    market, its remaining size is at least the min size, and it is strictly inside the max spread
 *    of the size-cutoff-adjusted midpoint now. `POST /orders-scoring` (L2; the body a bare JSON
 *    array of ids; also `GET ?order_ids=a,b`) → `{id: bool}` (another user's or an unknown id: false).
 *  - `GET /rewards/markets/current` (public, 500 a page) and `GET /rewards/markets/{condition_id}`
 *    (public, 100 a page; a market without rewards: empty `data`).
 *  - `GET /rewards/user?date=YYYY-MM-DD` (L2, 100 a page): per market, what the date's closed epochs
 *    paid the maker (`earnings`, USDC; 0 when it earned less than the minimum payout);
 *    `/rewards/user/total?date=` (a bare array, one row per maker and asset);
 *    `/rewards/user/percentages` (a bare map condition id → percent 0-100 of the running epoch's
 *    scores so far); `/rewards/user/markets` (every rewarded market with the maker's earnings of
 *    `date`, default today, and its running percentage; `page_size` up to 500, `q`, `order_by`,
 *    `position`; `no_competition` and the other filters of the public route are accepted and ignored).
 *
 * Paginated answers are `{limit, count, next_cursor, data}` ending with `next_cursor: "LTE="` (the
 * public client loops until it sees it). Which maker: `maker_address` (one of the key's accounts),
 * else `signature_type` (0 the key's address, 1 its proxy wallet, 2 its Safe, 3 the funders
 * registered to it), else every account the key trades for. Earnings and rates are JSON numbers
 * (USDC), as at the public service; dates of earnings rows `YYYY-MM-DDT00:00:00Z`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { SHARE_SCALE, maxSpreadToCents, type RewardConfig } from '../../core/rewards.ts';
import { PRICE_SCALE } from '../../core/units.ts';
import type { MarketEntry, PaperExchange } from '../exchange.ts';
import type { OrderState } from '../matching/types.ts';
import { utcDate } from '../rewards/ledger.ts';
import { bookMid2 } from '../rewards/sampler.ts';
import { microNumber, rewardPeriod, rewardsConfigEntry } from '../rewards/wire.ts';
import { authenticate, type AuthOptions } from './auth.ts';
import { decodeCursor, encodeCursor, END_CURSOR, parseWith, qInt, qString, type Query } from './body.ts';
import { badRequest, notFound } from './errors.ts';
import { CONDITION_ID } from './live-activity.ts';
import { eventOf } from './render-meta.ts';

/** Most ids in one orders-scoring request. */
export const MAX_SCORING_IDS = 500;
const ORDER_ID = /^[0-9a-zA-Z_-]{1,100}$|^0x[0-9a-fA-F]{1,98}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const idsSchema = z.array(z.string().regex(ORDER_ID, 'an order id')).max(MAX_SCORING_IDS);

/** A `YYYY-MM-DD` date that exists, else the public service's 400. */
export function parseDate(s: string | undefined): string {
  if (s === undefined || !DATE.test(s) || Number.isNaN(Date.parse(`${s}T00:00:00Z`)) || utcDate(Date.parse(s)) !== s)
    throw badRequest('Invalid date (format: YYYY-MM-DD)');
  return s;
}

/** One cursor page of `items`, `size` a page (the rewards API's envelope). */
function page<T, U>(items: readonly T[], q: Query, size: number, render: (t: T) => U) {
  const start = decodeCursor(qString(q, 'next_cursor'));
  if (start < 0) return { limit: size, count: 0, next_cursor: END_CURSOR, data: [] as U[] };
  const slice = items.slice(start, start + size);
  const end = start + slice.length;
  return {
    limit: size,
    count: slice.length,
    next_cursor: end >= items.length ? END_CURSOR : encodeCursor(end),
    data: slice.map(render),
  };
}

export interface RewardRouteOptions {
  auth: AuthOptions;
}

export function rewardRoutes(ex: PaperExchange, opts: RewardRouteOptions) {
  const l2 = (req: FastifyRequest) => authenticate(ex, req, opts.auth);

  /** The maker accounts a rewards-user request is about (see the module comment). */
  const makersOf = (address: string, q: Query): string[] => {
    const accounts = ex.accountsOf(address);
    const ma = qString(q, 'maker_address');
    if (ma !== undefined) {
      const a = ma.toLowerCase();
      if (!ADDRESS.test(ma) || !accounts.includes(a)) throw badRequest('Invalid maker_address');
      return [a];
    }
    const st = qString(q, 'signature_type');
    if (st === undefined) return accounts;
    if (!/^[0-3]$/.test(st)) throw badRequest('Invalid signature_type');
    const n = Number(st);
    return n === 3 ? accounts.slice(3) : [accounts[n]!];
  };

  /** Whether an order scores now; `mids` caches each market's adjusted midpoint within one request. */
  const scoring = (o: OrderState, mids: Map<string, number | null>): boolean => {
    if (o.status !== 'LIVE') return false;
    const cfg = ex.rewards.configOf(o.market);
    if (cfg === null) return false;
    if (o.originalSize - o.sizeMatched < cfg.minSize) return false;
    let mid2 = mids.get(o.market);
    if (mid2 === undefined) mids.set(o.market, (mid2 = bookMid2(ex.engine, o.market, cfg.minSize)));
    if (mid2 === null) return false;
    const p = o.outcome === 'Yes' ? o.price : PRICE_SCALE - o.price;
    return Math.abs(2 * p - mid2) < 2 * cfg.maxSpread;
  };

  const tokens = (e: MarketEntry) => {
    const s = ex.marketState(e);
    return [0, 1].map((i) => {
      const p = s.mid[i as 0 | 1] ?? s.lastPrice[i as 0 | 1];
      return {
        token_id: e.meta.tokens[i as 0 | 1],
        outcome: e.meta.outcomes[i as 0 | 1],
        price: p === undefined ? 0.5 : Math.round(p) / PRICE_SCALE,
      };
    });
  };
  const period = (e: MarketEntry) => rewardPeriod(e.meta.createdAt, e.meta.endDate);
  /** The fields every rewards market row shares. */
  const marketFields = (e: MarketEntry, cfg: RewardConfig, configId: number) => ({
    condition_id: e.meta.conditionId,
    question: e.meta.question,
    market_slug: e.meta.slug,
    event_slug: eventOf(ex, e)?.slug ?? '',
    image: '',
    rewards_max_spread: maxSpreadToCents(cfg.maxSpread),
    rewards_min_size: microNumber(cfg.minSize),
    rewards_config: [rewardsConfigEntry(cfg, ex.rewardAsset, period(e), configId)],
  });
  /** Rewarded markets that accept orders, in the order they got their config. */
  const currentMarkets = (): Array<[MarketEntry, RewardConfig]> => {
    const out: Array<[MarketEntry, RewardConfig]> = [];
    for (const [cid, cfg] of ex.rewards.rewarded()) {
      const e = ex.market(cid);
      if (e !== undefined && e.state.status === 'active') out.push([e, cfg]);
    }
    return out;
  };
  const percent = (share: bigint): number => Number((share * 100_000_000n) / SHARE_SCALE) / 1e6;

  return async function plugin(app: FastifyInstance): Promise<void> {
    // ---- order scoring ----------------------------------------------------------------------------
    app.get('/order-scoring', async (req) => {
      const k = l2(req);
      const id = qString(req.query as Query, 'order_id');
      if (id === undefined || !ORDER_ID.test(id)) throw badRequest('Invalid order_id');
      const o = ex.getOrder(k.address, id);
      if (o === undefined) throw notFound('order not found');
      return { scoring: scoring(o, new Map()) };
    });
    const manyScoring = (address: string, ids: readonly string[]) => {
      const mids = new Map<string, number | null>();
      return Object.fromEntries(
        ids.map((id) => {
          const o = ex.getOrder(address, id);
          return [id, o !== undefined && scoring(o, mids)];
        }),
      );
    };
    app.post('/orders-scoring', async (req) => {
      const k = l2(req);
      return manyScoring(k.address, parseWith(idsSchema, req.body ?? [], 'order ids (a JSON array)'));
    });
    app.get('/orders-scoring', async (req) => {
      const k = l2(req);
      const raw = qString(req.query as Query, 'order_ids');
      const ids = raw === undefined ? [] : raw.split(',').filter((s) => s !== '');
      return manyScoring(k.address, parseWith(idsSchema, ids, 'order_ids'));
    });

    // ---- public: the rewarded markets --------------------------------------------------------------
    app.get('/rewards/markets/current', async (req) =>
      page(currentMarkets(), req.query as Query, 500, ([e, cfg]) => {
        const rate = microNumber(cfg.dailyRate);
        return { ...marketFields(e, cfg, 0), tokens: tokens(e), native_daily_rate: rate, total_daily_rate: rate };
      }),
    );
    app.get<{ Params: { condition_id: string } }>('/rewards/markets/:condition_id', async (req) => {
      const cid = req.params.condition_id;
      if (!CONDITION_ID.test(cid)) throw badRequest('Invalid market');
      const e = ex.market(cid);
      const cfg = e === undefined ? null : ex.rewards.configOf(e.meta.conditionId);
      const rows: Array<[MarketEntry, RewardConfig]> = e !== undefined && cfg !== null ? [[e, cfg]] : [];
      return page(rows, req.query as Query, 100, ([m, c]) => ({
        ...marketFields(m, c, 1),
        market_competitiveness: ex.rewards.competitiveness(m.meta.conditionId),
        tokens: tokens(m),
      }));
    });

    // ---- the user's earnings ----------------------------------------------------------------------
    const earningRow = (date: string, r: { market: string; maker: string; paid: number }) => ({
      date: `${date}T00:00:00Z`,
      condition_id: r.market,
      asset_address: ex.rewardAsset,
      maker_address: r.maker,
      earnings: microNumber(r.paid),
      asset_rate: 1,
    });
    app.get('/rewards/user', async (req) => {
      const k = l2(req);
      const q = req.query as Query;
      const date = parseDate(qString(q, 'date'));
      const rows = ex.rewards.earningsOn(date, makersOf(k.address, q));
      return page(rows, q, 100, (r) => earningRow(date, r));
    });
    app.get('/rewards/user/total', async (req) => {
      const k = l2(req);
      const q = req.query as Query;
      const date = parseDate(qString(q, 'date'));
      const byMaker = new Map<string, number>();
      for (const r of ex.rewards.earningsOn(date, makersOf(k.address, q)))
        byMaker.set(r.maker, (byMaker.get(r.maker) ?? 0) + r.paid);
      return [...byMaker].map(([maker, paid]) => ({
        date: `${date}T00:00:00Z`,
        asset_address: ex.rewardAsset,
        maker_address: maker,
        earnings: microNumber(paid),
        asset_rate: 1,
      }));
    });
    app.get('/rewards/user/percentages', async (req) => {
      const k = l2(req);
      const makers = makersOf(k.address, req.query as Query);
      const out: Array<[string, number]> = [];
      for (const [cid] of ex.rewards.rewarded()) {
        let share = 0n;
        for (const m of makers) share += ex.rewards.shareOf(cid, m);
        if (share > 0n) out.push([cid, percent(share)]);
      }
      return Object.fromEntries(out);
    });
    app.get('/rewards/user/markets', async (req) => {
      const k = l2(req);
      const q = req.query as Query;
      const rawDate = qString(q, 'date');
      const date = rawDate === undefined ? utcDate(ex.clock.now()) : parseDate(rawDate);
      const size = qInt(q, 'page_size', 100, 1, 500);
      const makers = makersOf(k.address, q);
      const paid = new Map<string, Map<string, number>>();
      for (const r of ex.rewards.earningsOn(date, makers)) {
        let m = paid.get(r.market);
        if (m === undefined) paid.set(r.market, (m = new Map()));
        m.set(r.maker, (m.get(r.maker) ?? 0) + r.paid);
      }
      const needle = qString(q, 'q')?.toLowerCase();
      const rows = currentMarkets()
        .filter(([e]) => needle === undefined || e.meta.question.toLowerCase().includes(needle))
        .map(([e, cfg]) => {
          const cid = e.meta.conditionId;
          let share = 0n;
          let top = makers[0] ?? k.address;
          let topShare = -1n;
          for (const m of makers) {
            const s = ex.rewards.shareOf(cid, m);
            share += s;
            if (s > topShare) (topShare = s), (top = m);
          }
          const earned = [...(paid.get(cid)?.values() ?? [])].reduce((a, b) => a + b, 0);
          const ev = eventOf(ex, e);
          return {
            ...marketFields(e, cfg, 0),
            market_id: cid,
            event_id: ev?.id ?? '',
            volume_24hr: microNumber(e.volume),
            spread: 0,
            market_competitiveness: ex.rewards.competitiveness(cid),
            tokens: tokens(e),
            maker_address: top,
            earning_percentage: percent(share),
            earnings: [{ asset_address: ex.rewardAsset, earnings: microNumber(earned), asset_rate: 1 }],
            rate: cfg.dailyRate,
          };
        });
      sortRows(rows, qString(q, 'order_by'), qString(q, 'position'));
      return { ...page(rows, q, size, ({ rate: _r, ...row }) => row), total_count: rows.length };
    });
  };
}

type MarketRow = {
  question: string;
  rewards_max_spread: number;
  rewards_min_size: number;
  market_competitiveness: number;
  earning_percentage: number;
  earnings: Array<{ earnings: number }>;
  rate: number;
};

const SORT_KEYS: Readonly<Record<string, (r: MarketRow) => number | string>> = {
  max_spread: (r) => r.rewards_max_spread,
  min_size: (r) => r.rewards_min_size,
  earning_percentage: (r) => r.earning_percentage,
  rate_per_day: (r) => r.rate,
  earnings: (r) => r.earnings[0]?.earnings ?? 0,
  competitiveness: (r) => r.market_competitiveness,
  question: (r) => r.question,
};

/** Sort `/rewards/user/markets` rows by `order_by` (an unknown or empty key keeps the order), `position` ASC | DESC (default DESC). */
function sortRows(rows: MarketRow[], orderBy: string | undefined, position: string | undefined): void {
  if (position !== undefined && position !== 'ASC' && position !== 'DESC')
    throw badRequest('Invalid position: ASC or DESC');
  const key = orderBy !== undefined && Object.hasOwn(SORT_KEYS, orderBy) ? SORT_KEYS[orderBy] : undefined;
  if (key === undefined) return;
  const dir = position === 'ASC' ? 1 : -1;
  rows.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    return (x < y ? -1 : x > y ? 1 : 0) * dir;
  });
}
