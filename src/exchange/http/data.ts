/**
 * The Data API (spec 4.3) of the paper exchange, mounted under /data. Every success is the spec's
 * envelope `{success: true, data}`; list endpoints put the array in `data` and the page facts
 * (`count, limit, offset, total, next_cursor`) beside it. Errors are the spec's error envelope.
 *
 * Everything here is public data computed from the exchange's real state: trades (price history,
 * volumes, builder attribution), the position book (cost, realized PnL, fees) and the live books
 * (marks at the mid). An address that never traded is not an error: it gets empty lists and zero
 * statistics (200).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { formatAmount, parseAmount, PRICE_SCALE } from '../../core/units.ts';
import type { MarketEntry, PaperExchange } from '../exchange.ts';
import {
  avgPrice6,
  halfPipMicroToMicro,
  PositionBook,
  pipMicroToMicro,
  unrealizedAt,
  unrealizedHalfPm,
} from '../accounts/positions.ts';
import type { Trade } from '../matching/types.ts';
import { qSeconds, qString, type Query } from './body.ts';
import { priceHistoryOf } from './price-history.ts';
import { badRequest } from './errors.ts';
import {
  eventOf,
  eventMarkets,
  eventRecord,
  figures,
  fillPriceOn,
  iso,
  ok,
  okPage,
  paginate,
  pathAddress,
  priceString,
  ratio6,
  selectEvents,
  selectMarkets,
  takerFill,
  unixSec,
  userFills,
  valueAt,
  type UserFill,
} from './render-meta.ts';

/** One open position of a user, integers (micro / pips). */
interface PositionRow {
  entry: MarketEntry;
  index: 0 | 1;
  tokenId: string;
  size: number;
  cost: number;
  realized: number;
  bought: number;
  fees: number;
  /** Average entry price, 6 decimals exact from the book's pip-micro cost. */
  avgPrice: string;
  /** Exact cost, pip-micro (for the unrealized PnL, rounded once). */
  costPm: bigint;
  mark: number | null;
  markSource: 'mid' | 'last' | 'resolution' | null;
  value: number | null;
}

function markOf(
  ex: PaperExchange,
  entry: MarketEntry,
  index: 0 | 1,
): { mark: number | null; source: PositionRow['markSource'] } {
  const s = ex.marketState(entry);
  if (s.status === 'resolved')
    return { mark: s.winningToken === entry.meta.tokens[index] ? PRICE_SCALE : 0, source: 'resolution' };
  const mid = s.mid[index];
  if (mid !== undefined) return { mark: mid, source: 'mid' };
  const last = s.lastPrice[index];
  if (last !== undefined) return { mark: last, source: 'last' };
  return { mark: null, source: null };
}

/**
 * Every token the account holds (size > 0, reserved tokens included) with its cost basis and PnL
 * from the position book, marked to the mid (else the last trade, else unmarked).
 */
function positionsOf(ex: PaperExchange, account: string): PositionRow[] {
  const bal = ex.engine.balance(account);
  const tokens = new Set<string>([...ex.positions.positions(account).map(([t]) => t), ...bal.tokens.keys()]);
  const out: PositionRow[] = [];
  for (const tokenId of tokens) {
    const found = ex.marketOfToken(tokenId);
    if (found === undefined) continue;
    const b = bal.tokens.get(tokenId);
    const size = b ? b.available + b.reserved : 0;
    if (size <= 0) continue;
    const p = ex.positions.get(account, tokenId);
    const { mark, source } = markOf(ex, found.entry, found.index);
    out.push({
      entry: found.entry,
      index: found.index,
      tokenId,
      size,
      cost: p?.cost ?? 0,
      realized: p?.realized ?? 0,
      bought: p?.bought ?? 0,
      fees: p?.fees ?? 0,
      avgPrice: p ? avgPrice6(p) : '0',
      costPm: p?.costPm ?? 0n,
      mark,
      markSource: source,
      value: mark === null ? null : valueAt(size, mark),
    });
  }
  return out;
}

function renderPosition(account: string, r: PositionRow): Record<string, unknown> {
  const m = r.entry.meta;
  return {
    proxy_wallet: account,
    asset: r.tokenId,
    token_id: r.tokenId,
    condition_id: m.conditionId,
    outcome: m.outcomes[r.index],
    outcome_index: r.index,
    opposite_asset: m.tokens[r.index === 0 ? 1 : 0],
    title: m.question,
    slug: m.slug,
    size: formatAmount(r.size),
    avg_price: r.avgPrice,
    initial_value: formatAmount(r.cost),
    current_value: r.value === null ? null : formatAmount(r.value),
    cash_pnl: r.mark === null ? null : formatAmount(unrealizedAt(r.size, r.mark, r.costPm)),
    realized_pnl: formatAmount(r.realized),
    total_bought: formatAmount(r.bought),
    fees: formatAmount(r.fees),
    cur_price: priceString(r.mark),
    mark_source: r.markSource,
    market_status: r.entry.state.status,
    end_date: m.endDate,
    neg_risk: m.negRisk,
  };
}

/**
 * PnL totals of an account (micro): realized over every position ever held, unrealized over marked
 * open ones; summed exact (pip-micro) and rounded once each, the total too.
 */
function pnlTotals(ex: PaperExchange, account: string) {
  let realizedPm = 0n;
  let fees = 0;
  for (const [, p] of ex.positions.positions(account)) {
    realizedPm += p.realizedPm;
    fees += p.fees;
  }
  let unrealized2 = 0n; // half-pip-micro
  let value = 0;
  let costPm = 0n;
  let unmarked = 0;
  const rows = positionsOf(ex, account);
  for (const r of rows) {
    costPm += r.costPm;
    if (r.value === null || r.mark === null) unmarked++;
    else {
      value += r.value;
      unrealized2 += unrealizedHalfPm(r.size, r.mark, r.costPm);
    }
  }
  return {
    realized: pipMicroToMicro(realizedPm),
    unrealized: halfPipMicroToMicro(unrealized2),
    total: halfPipMicroToMicro(2n * realizedPm + unrealized2),
    fees,
    value,
    cost: pipMicroToMicro(costPm),
    unmarked,
    open: rows.length,
  };
}

function renderFill(ex: PaperExchange, account: string, f: UserFill): Record<string, unknown> {
  const t = f.rec.trade;
  const found = ex.marketOfToken(f.tokenId);
  const m = found?.entry.meta;
  return {
    id: t.id,
    proxy_wallet: account,
    role: f.role,
    side: f.side,
    asset: f.tokenId,
    condition_id: t.market,
    outcome: m && found ? m.outcomes[found.index] : '',
    outcome_index: found?.index ?? null,
    size: formatAmount(f.size),
    price: ratio6(f.notional, f.size),
    notional: formatAmount(f.notional),
    fee: formatAmount(f.fee),
    order_id: f.orderId,
    builder: ex.orderBuilder.get(f.orderId) ?? null,
    timestamp: unixSec(t.matchTime),
    match_time: iso(t.matchTime),
    status: ex.tradeStatus(t),
    transaction_hash: f.rec.transactionHash,
    title: m?.question ?? '',
    slug: m?.slug ?? '',
  };
}

/** Per market: number of trades and the time of the last one. */
function tradeCounts(ex: PaperExchange): Map<string, { count: number; last: number }> {
  const out = new Map<string, { count: number; last: number }>();
  for (const r of ex.allTrades()) {
    const c = out.get(r.trade.market);
    if (c) {
      c.count++;
      c.last = Math.max(c.last, r.trade.matchTime);
    } else out.set(r.trade.market, { count: 1, last: r.trade.matchTime });
  }
  return out;
}

/** Parse a unix-seconds query parameter. */
/** Builder attribution of one trade: per side whose order carried `key`, that side's notional. */
function builderShare(ex: PaperExchange, key: string, t: Trade) {
  let volume = 0;
  let fills = 0;
  const accounts = new Set<string>();
  const takerKey = ex.orderBuilder.get(t.takerOrderId);
  for (const m of t.makers) {
    if (takerKey === key) {
      volume += valueAt(m.size, fillPriceOn(m, t.tokenId));
      fills++;
      accounts.add(t.takerAccount);
    }
    if (ex.orderBuilder.get(m.orderId) === key) {
      volume += valueAt(m.size, m.price);
      fills++;
      accounts.add(m.account);
    }
  }
  return { volume, fills, accounts };
}

/** A positions list's `sizeThreshold` (shares, micro; `absent` when not given). @throws HTTP 400 when it is no decimal */
function sizeThresholdOf(th: string | undefined, absent = 0): number {
  if (th === undefined) return absent;
  try {
    return parseAmount(th, 'down');
  } catch {
    throw badRequest('sizeThreshold must be a non-negative decimal');
  }
}

function builderKey(s: string): string {
  if (s.length < 1 || s.length > 100) throw badRequest('builder api_key must be 1 to 100 characters');
  return s;
}

/**
 * The Data routes: GET /health, /events, /markets, /prices, /users/{address},
 * /users/{address}/trades, /users/{address}/positions, /users/{address}/pnl, /builders/{api_key},
 * /builders/{api_key}/volume; /prices-history is an alias of /prices (the venue's name).
 */
export function dataRoutes(ex: PaperExchange) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get('/health', async () => ok({ status: 'ok' }));

    // ---- events and markets -------------------------------------------------------------------
    app.get('/events', async (req) => {
      const q = req.query as Query;
      const counts = tradeCounts(ex);
      return okPage(paginate(selectEvents(ex, q), q, 20), (ev) => ({
        ...eventRecord(ex, ev),
        trade_count: eventMarkets(ex, ev).reduce((s, e) => s + (counts.get(e.meta.conditionId)?.count ?? 0), 0),
      }));
    });
    app.get('/markets', async (req) => {
      const q = req.query as Query;
      const counts = tradeCounts(ex);
      const supply = ex.engine.totals().tokenSupply;
      return okPage(paginate(selectMarkets(ex, q), q, 10), (e) => {
        const f = figures(ex, e);
        const c = counts.get(e.meta.conditionId);
        const ev = eventOf(ex, e);
        return {
          condition_id: e.meta.conditionId,
          question: e.meta.question,
          slug: e.meta.slug,
          event_id: ev?.id ?? null,
          status: e.state.status,
          active: e.state.status === 'active',
          closed: e.state.status !== 'active',
          volume: formatAmount(f.volume),
          liquidity: formatAmount(f.liquidity),
          trade_count: c?.count ?? 0,
          last_trade_at: c ? iso(c.last) : null,
          open_interest: formatAmount(supply.get(e.meta.tokens[0]) ?? 0),
          best_bid: priceString(f.bid),
          best_ask: priceString(f.ask),
          mid: priceString(f.mid),
          spread: priceString(f.spread),
          last_trade_price: priceString(f.last),
          tokens: [0, 1].map((i) => ({
            token_id: e.meta.tokens[i as 0 | 1],
            outcome: e.meta.outcomes[i as 0 | 1],
            price: priceString(f.marks[i as 0 | 1]),
          })),
        };
      });
    });

    // ---- price history ------------------------------------------------------------------------
    const priceHistory = async (req: FastifyRequest) => ok(priceHistoryOf(ex, req.query as Query));
    app.get('/prices', priceHistory);
    app.get('/prices-history', priceHistory);

    // ---- users --------------------------------------------------------------------------------
    app.get<{ Params: { address: string } }>('/users/:address', async (req) => {
      const addr = pathAddress(req.params.address);
      const fills = userFills(ex, addr);
      const trades = ex.tradesOf(addr);
      let volume = 0;
      let bought = 0;
      let sold = 0;
      const markets = new Set<string>();
      for (const f of fills) {
        volume += f.notional;
        if (f.side === 'BUY') bought += f.notional;
        else sold += f.notional;
        markets.add(f.rec.trade.market);
      }
      const tot = pnlTotals(ex, addr);
      const first = trades[0];
      const last = trades[trades.length - 1];
      return ok({
        address: addr,
        trades: trades.length,
        fills: fills.length,
        volume: formatAmount(volume),
        buy_volume: formatAmount(bought),
        sell_volume: formatAmount(sold),
        markets_traded: markets.size,
        open_positions: tot.open,
        positions_value: formatAmount(tot.value),
        positions_cost: formatAmount(tot.cost),
        realized_pnl: formatAmount(tot.realized),
        unrealized_pnl: formatAmount(tot.unrealized),
        total_pnl: formatAmount(tot.total),
        fees: formatAmount(tot.fees),
        first_trade_at: first ? iso(first.trade.matchTime) : null,
        last_trade_at: last ? iso(last.trade.matchTime) : null,
      });
    });

    app.get<{ Params: { address: string } }>('/users/:address/trades', async (req) => {
      const addr = pathAddress(req.params.address);
      const q = req.query as Query;
      const market = qString(q, 'market')?.toLowerCase();
      const asset = qString(q, 'asset') ?? qString(q, 'asset_id') ?? qString(q, 'token_id');
      const side = qString(q, 'side')?.toUpperCase();
      if (side !== undefined && side !== 'BUY' && side !== 'SELL') throw badRequest('side must be BUY or SELL');
      const role = qString(q, 'role')?.toUpperCase();
      if (role !== undefined && role !== 'TAKER' && role !== 'MAKER') throw badRequest('role must be TAKER or MAKER');
      const fills = userFills(ex, addr).filter(
        (f) =>
          (market === undefined || f.rec.trade.market.toLowerCase() === market) &&
          (asset === undefined || f.tokenId === asset) &&
          (side === undefined || f.side === side) &&
          (role === undefined || f.role === role),
      );
      // newest trade first; within a trade, the taker part first, then the maker fills
      const byTrade: UserFill[][] = [];
      for (const f of fills) {
        const lastGroup = byTrade[byTrade.length - 1];
        if (lastGroup !== undefined && lastGroup[0]!.rec === f.rec) lastGroup.push(f);
        else byTrade.push([f]);
      }
      const newestFirst = byTrade.reverse().flat();
      return okPage(paginate(newestFirst, q, 10), (f) => renderFill(ex, addr, f));
    });

    app.get<{ Params: { address: string } }>('/users/:address/positions', async (req) => {
      const addr = pathAddress(req.params.address);
      const q = req.query as Query;
      const threshold = sizeThresholdOf(qString(q, 'sizeThreshold') ?? qString(q, 'size_threshold'));
      const market = qString(q, 'market')?.toLowerCase();
      const rows = positionsOf(ex, addr)
        .filter(
          (r) => r.size >= threshold && (market === undefined || r.entry.meta.conditionId.toLowerCase() === market),
        )
        .sort(
          (a, b) =>
            (b.value ?? -1) - (a.value ?? -1) ||
            b.cost - a.cost ||
            (a.tokenId < b.tokenId ? -1 : a.tokenId > b.tokenId ? 1 : 0),
        );
      return okPage(paginate(rows, q, 10), (r) => renderPosition(addr, r));
    });

    app.get<{ Params: { address: string } }>('/users/:address/pnl', async (req) => {
      const addr = pathAddress(req.params.address);
      const q = req.query as Query;
      const tot = pnlTotals(ex, addr);
      const out: Record<string, unknown> = {
        address: addr,
        realized_pnl: formatAmount(tot.realized),
        unrealized_pnl: formatAmount(tot.unrealized),
        total_pnl: formatAmount(tot.total),
        fees: formatAmount(tot.fees),
        positions_value: formatAmount(tot.value),
        positions_cost: formatAmount(tot.cost),
        open_positions: tot.open,
        unmarked_positions: tot.unmarked,
      };
      if (qString(q, 'history') === 'true' || qString(q, 'history') === '1') {
        // replay the user's trades through a scratch position book: realized PnL after each trade
        // (trading only: settlement of resolved markets is not a trade and is not in the series)
        const book = new PositionBook();
        out.history = ex.tradesOf(addr).map((r) => {
          book.applyTrade(r.trade);
          let realized = 0n;
          for (const [, p] of book.positions(addr)) realized += p.realizedPm;
          return { t: unixSec(r.trade.matchTime), realized_pnl: formatAmount(pipMicroToMicro(realized)) };
        });
      }
      return ok(out);
    });

    // ---- the public data API's own routes (trial 24 F2: an existing client's first calls) ---------
    // `?user=`, bare arrays, camelCase, amounts as JSON numbers, as the public service answers them
    // (the spec's /users/{address}/... above stay the exact decimal strings in the envelope)
    const num = (micro: number) => Number(formatAmount(micro));
    const userOf = (q: Query) => {
      const u = qString(q, 'user');
      if (u === undefined) throw badRequest('missing query parameter user');
      return pathAddress(u);
    };
    app.get('/positions', async (req) => {
      const q = req.query as Query;
      const addr = userOf(q);
      // (the public service's default: 1 share; dust below it is not listed)
      const threshold = sizeThresholdOf(qString(q, 'sizeThreshold'), 1_000_000);
      const markets = qString(q, 'market')
        ?.split(',')
        .map((x) => x.trim().toLowerCase());
      const rows = positionsOf(ex, addr)
        .filter(
          (r) =>
            r.size >= threshold && (markets === undefined || markets.includes(r.entry.meta.conditionId.toLowerCase())),
        )
        .sort((a, b) => (b.value ?? -1) - (a.value ?? -1) || b.cost - a.cost);
      return paginate(rows, q, 100, 500).items.map((r) => {
        const m = r.entry.meta;
        const cash = r.mark === null ? 0 : unrealizedAt(r.size, r.mark, r.costPm);
        const resolved = r.markSource === 'resolution';
        return {
          proxyWallet: addr,
          asset: r.tokenId,
          conditionId: m.conditionId,
          size: num(r.size),
          avgPrice: Number(r.avgPrice),
          initialValue: num(r.cost),
          currentValue: r.value === null ? 0 : num(r.value),
          cashPnl: num(cash),
          percentPnl: r.cost > 0 ? (cash / r.cost) * 100 : 0,
          totalBought: num(r.bought),
          realizedPnl: num(r.realized),
          curPrice: r.mark === null ? 0 : r.mark / PRICE_SCALE,
          redeemable: resolved,
          mergeable: false,
          title: m.question,
          slug: m.slug,
          outcome: m.outcomes[r.index],
          outcomeIndex: r.index,
          oppositeAsset: m.tokens[r.index === 0 ? 1 : 0],
          endDate: m.endDate,
          negativeRisk: m.negRisk,
        };
      });
    });
    app.get('/trades', async (req) => {
      const q = req.query as Query;
      // `user` is a filter: without it, the trades of every account (each as its taker's fill)
      const user = qString(q, 'user');
      const addr = user === undefined ? undefined : pathAddress(user);
      const markets = qString(q, 'market')
        ?.split(',')
        .map((x) => x.trim().toLowerCase());
      const side = qString(q, 'side')?.toUpperCase();
      if (side !== undefined && side !== 'BUY' && side !== 'SELL') throw badRequest('side must be BUY or SELL');
      const takerOnly = qString(q, 'takerOnly') !== 'false';
      const all: [string, UserFill][] =
        addr !== undefined
          ? userFills(ex, addr).map((f) => [addr, f])
          : ex.allTrades().map((rec) => [rec.trade.takerAccount, takerFill(rec)]);
      const fills = all
        .filter(
          ([, f]) =>
            (markets === undefined || markets.includes(f.rec.trade.market.toLowerCase())) &&
            (side === undefined || f.side === side) &&
            (!takerOnly || f.role === 'TAKER'),
        )
        .reverse();
      return paginate(fills, q, 100, 500).items.map(([account, f]) => {
        const found = ex.marketOfToken(f.tokenId);
        const m = found?.entry.meta;
        return {
          proxyWallet: account,
          side: f.side,
          asset: f.tokenId,
          conditionId: f.rec.trade.market,
          size: num(f.size),
          price: Number(ratio6(f.notional, f.size)),
          timestamp: unixSec(f.rec.trade.matchTime),
          title: m?.question ?? '',
          slug: m?.slug ?? '',
          outcome: m && found ? m.outcomes[found.index] : '',
          outcomeIndex: found?.index ?? null,
          transactionHash: f.rec.transactionHash,
        };
      });
    });
    app.get('/value', async (req) => {
      const addr = userOf(req.query as Query);
      return [{ user: addr, value: num(pnlTotals(ex, addr).value) }];
    });

    // ---- builders -----------------------------------------------------------------------------
    app.get<{ Params: { api_key: string } }>('/builders/:api_key', async (req) => {
      const key = builderKey(req.params.api_key);
      let orders = 0;
      const users = new Set<string>();
      for (const [orderId, k] of ex.orderBuilder) {
        if (k !== key) continue;
        orders++;
        const o = ex.engine.getOrder(orderId);
        if (o) users.add(o.account);
      }
      let volume = 0;
      let trades = 0;
      let fills = 0;
      let last: number | null = null;
      const markets = new Set<string>();
      for (const r of ex.allTrades()) {
        const s = builderShare(ex, key, r.trade);
        if (s.fills === 0) continue;
        trades++;
        fills += s.fills;
        volume += s.volume;
        markets.add(r.trade.market);
        last = r.trade.matchTime;
      }
      return ok({
        builder: key,
        orders,
        users: users.size,
        trades,
        fills,
        volume: formatAmount(volume),
        markets: markets.size,
        last_trade_at: last === null ? null : iso(last),
      });
    });

    app.get<{ Params: { api_key: string } }>('/builders/:api_key/volume', async (req) => {
      const key = builderKey(req.params.api_key);
      const q = req.query as Query;
      const startTs = qSeconds(q, 'startTs', 'start_ts');
      const endTs = qSeconds(q, 'endTs', 'end_ts');
      let volume = 0;
      let trades = 0;
      const byDay = new Map<string, { volume: number; trades: number }>();
      const byMarket = new Map<string, { volume: number; trades: number }>();
      for (const r of ex.allTrades()) {
        const t = r.trade;
        const sec = unixSec(t.matchTime);
        if ((startTs !== undefined && sec < startTs) || (endTs !== undefined && sec > endTs)) continue;
        const s = builderShare(ex, key, t);
        if (s.fills === 0) continue;
        volume += s.volume;
        trades++;
        const day = iso(t.matchTime).slice(0, 10);
        const d = byDay.get(day) ?? { volume: 0, trades: 0 };
        d.volume += s.volume;
        d.trades++;
        byDay.set(day, d);
        const mk = byMarket.get(t.market) ?? { volume: 0, trades: 0 };
        mk.volume += s.volume;
        mk.trades++;
        byMarket.set(t.market, mk);
      }
      return ok({
        builder: key,
        volume: formatAmount(volume),
        trades,
        by_day: [...byDay.entries()]
          .sort((a, b) => (a[0] < b[0] ? -1 : 1))
          .map(([date, d]) => ({ date, volume: formatAmount(d.volume), trades: d.trades })),
        by_market: [...byMarket.entries()]
          .sort((a, b) => b[1].volume - a[1].volume || (a[0] < b[0] ? -1 : 1))
          .map(([cid, d]) => ({
            condition_id: cid,
            question: ex.market(cid)?.meta.question ?? '',
            volume: formatAmount(d.volume),
            trades: d.trades,
          })),
      });
    });
  };
}
