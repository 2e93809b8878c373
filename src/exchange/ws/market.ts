/**
 * The market channel (`/ws/market`): public book data per token. A client subscribes to token ids
 * (`assets_ids`) and gets a `book` snapshot of each, then every change in engine order:
 *
 *  - `price_change`: one message per exchange batch and market, listing each touched level of every
 *    subscribed token of that market (both tokens when both are subscribed, YES entry then NO entry
 *    per level). `size` is the level's total now ("0" removes it). `hash` is the hash of the token's
 *    book after the batch, computed as GET /book computes it with the message's `timestamp`, and
 *    `best_bid` / `best_ask` are the token's best prices after the batch ("0" when a side is empty).
 *  - `tick_size_change` per subscribed token, `last_trade_price` per trade and subscribed token (the
 *    last fill's price on that token's scale, like GET /last-trade-price), then a fresh `book` of
 *    each subscribed token after a batch with trades (after its price_change).
 *  - With `custom_feature_enabled`: `best_bid_ask` when a token's top of book changes (spread "0"
 *    when a side is empty), `new_market` for every market created (sent to every such client) and
 *    `market_resolved` to the subscribers of a resolved market.
 *
 * Exactness: a client that applies the snapshot, then every price_change, and replaces its book on
 * every later `book`, holds exactly what GET /book answers whenever the exchange is quiet.
 *
 * Unknown token ids are kept as subscriptions without a snapshot (a market created later with that
 * token streams to them); a connection follows at most MAX_ASSETS_PER_CONNECTION tokens.
 *
 * Subscribing again to a token already followed (the bot's resync) answers with a fresh snapshot,
 * charged to the connection's message budget (budget.ts; the first snapshot of a token on a
 * connection is free): over the budget the snapshots are withheld and a RATE_LIMITED error frame
 * answers, so re-subscribing cannot amplify. Pushed changes are never limited.
 */
import { formatAmount, formatPrice, PRICE_SCALE, tickFromPips } from '../../core/units.ts';
import type { ExchangeEvent, MarketEntry, PaperExchange } from '../exchange.ts';
import { renderBook } from '../http/render.ts';
import type { BookView, Trade } from '../matching/types.ts';
import { frame, type Gate, type SnapshotItem, type StreamConn } from './conn.ts';
import {
  bestOf,
  LevelCollector,
  noLevelOf,
  priceChangeEntry,
  spreadOf,
  withCurrentSizes,
  yesLevelOf,
  type PriceChangeEntry,
} from './market-map.ts';
import { MAX_ASSETS_PER_CONNECTION, parseMarketRequest } from './protocol.ts';

interface MarketClient {
  conn: StreamConn;
  assets: Set<string>;
  custom: boolean;
}

interface MarketBatch {
  entry: MarketEntry;
  at: number;
  levels: LevelCollector;
  trades: Trade[];
  ticks: Array<{ oldTickPips: number; newTickPips: number }>;
  resolved: string | undefined; // winning token
}

type Ev = Record<string, unknown>;

/** The fields `new_market` and `market_resolved` share (the venue's new_market record). */
export function marketEventFields(ex: PaperExchange, entry: MarketEntry, at: number): Ev {
  const m = entry.meta;
  const ev = ex.world.eventOfMarket.get(m.conditionId);
  return {
    id: m.conditionId,
    question: m.question,
    market: m.conditionId,
    slug: m.slug,
    description: m.description,
    assets_ids: [...m.tokens],
    outcomes: [...m.outcomes],
    event_message: ev
      ? { id: ev.id, ticker: ev.slug, slug: ev.slug, title: ev.title, description: ev.description }
      : { id: '', ticker: m.slug, slug: m.slug, title: m.question, description: m.description },
    timestamp: String(at),
    tags: [...m.tags],
    condition_id: m.conditionId,
    clob_token_ids: [...m.tokens],
    order_price_min_tick_size: entry.state.tick,
    neg_risk: m.negRisk,
    active: entry.state.status === 'active',
  };
}

/** Subscriptions and fan-out of the market channel (see the module comment for the messages). */
export class MarketChannel {
  private readonly clients = new Map<StreamConn, MarketClient>();
  private readonly subs = new Map<string, Set<MarketClient>>();
  private readonly customClients = new Set<MarketClient>();
  /** Last top of book announced per subscribed token ("bid|ask"), for best_bid_ask. */
  private readonly lastTop = new Map<string, string>();

  constructor(
    private readonly ex: PaperExchange,
    private readonly gate: () => Gate,
  ) {}

  get size(): number {
    return this.clients.size;
  }

  /** Starts serving a connection (its first message subscribes). */
  add(conn: StreamConn): void {
    const c: MarketClient = { conn, assets: new Set(), custom: false };
    this.clients.set(conn, c);
  }

  /** Forgets a connection and its subscriptions. */
  remove(conn: StreamConn): void {
    const c = this.clients.get(conn);
    if (c === undefined) return;
    this.clients.delete(conn);
    this.customClients.delete(c);
    for (const a of c.assets) this.unsub(c, a);
  }

  /** A parsed JSON message of a market client. */
  handle(conn: StreamConn, msg: Record<string, unknown>): void {
    const c = this.clients.get(conn);
    if (c === undefined) return;
    const r = parseMarketRequest(msg);
    if (!r.ok) return conn.error('BAD_REQUEST', r.message);
    const req = r.value;
    if (req.custom !== undefined) {
      c.custom = req.custom;
      if (req.custom) this.customClients.add(c);
      else this.customClients.delete(c);
    }
    if (req.op === 'unsubscribe') {
      for (const a of req.assets) if (c.assets.delete(a)) this.unsub(c, a);
      return;
    }
    let adding = 0;
    for (const a of req.assets) if (!c.assets.has(a)) adding++;
    if (c.assets.size + adding > MAX_ASSETS_PER_CONNECTION)
      return conn.error(
        'LIMIT_EXCEEDED',
        `a connection follows at most ${MAX_ASSETS_PER_CONNECTION} assets (${c.assets.size} now, ${adding} more asked)`,
      );
    const now = this.ex.clock.now();
    const wanted: SnapshotItem[] = [];
    for (const a of req.assets) {
      if (!c.assets.has(a)) {
        c.assets.add(a);
        let set = this.subs.get(a);
        if (set === undefined) this.subs.set(a, (set = new Set()));
        set.add(c);
      }
      const known = this.ex.marketOfToken(a) !== undefined;
      if (known && !this.lastTop.has(a)) this.lastTop.set(a, topKey(this.ex.engine.book(a)));
      if (known && req.initialDump)
        wanted.push({
          key: `book:${a}`,
          render: () => JSON.stringify({ event_type: 'book', ...renderBook(this.ex, this.ex.engine.book(a), now) }),
        });
    }
    if (wanted.length === 0) return;
    // a re-subscription answers with fresh snapshots, within the connection's budget
    const books = conn.snapshots(wanted);
    if (books.length > 0) conn.data(frame(books.length === 1 ? books[0]! : `[${books.join(',')}]`), this.gate());
  }

  private unsub(c: MarketClient, asset: string): void {
    const set = this.subs.get(asset);
    if (set === undefined) return;
    set.delete(c);
    if (set.size === 0) {
      this.subs.delete(asset);
      this.lastTop.delete(asset);
    }
  }

  /** Fans one exchange batch out to the subscribers. */
  onEvents(events: readonly ExchangeEvent[]): void {
    if (this.clients.size === 0) return;
    let batches: Map<string, MarketBatch> | undefined;
    let quiet: Set<string> | undefined; // markets nobody follows (looked up once per batch)
    let created: Array<{ cid: string; at: number }> | undefined;
    for (const e of events) {
      let cid: string;
      switch (e.type) {
        case 'level':
        case 'tick_size_change':
        case 'market_status':
          cid = e.market;
          break;
        case 'trade':
          cid = e.trade.market;
          break;
        case 'new_market':
          if (this.customClients.size > 0) (created ??= []).push({ cid: e.conditionId, at: e.at });
          continue;
        default:
          continue;
      }
      let b = batches?.get(cid);
      if (b === undefined) {
        if (quiet?.has(cid)) continue;
        const entry = this.ex.market(cid);
        if (entry === undefined || (!this.subs.has(entry.meta.tokens[0]) && !this.subs.has(entry.meta.tokens[1]))) {
          (quiet ??= new Set()).add(cid);
          continue;
        }
        b = { entry, at: e.at, levels: new LevelCollector(), trades: [], ticks: [], resolved: undefined };
        (batches ??= new Map()).set(cid, b);
      }
      b.at = e.at;
      if (e.type === 'level') b.levels.add(e.side, e.yesPrice, e.size);
      else if (e.type === 'trade') b.trades.push(e.trade);
      else if (e.type === 'tick_size_change') b.ticks.push({ oldTickPips: e.oldTickPips, newTickPips: e.newTickPips });
      else if (e.type === 'market_status' && e.status === 'resolved' && e.winningToken !== undefined)
        b.resolved = e.winningToken;
    }
    if (batches === undefined && created === undefined) return;
    const gate = this.gate();
    if (batches) for (const b of batches.values()) this.emit(b, gate);
    if (created) {
      for (const { cid, at } of created) {
        const entry = this.ex.market(cid);
        if (entry === undefined) continue;
        const buf = frame(JSON.stringify({ event_type: 'new_market', ...marketEventFields(this.ex, entry, at) }));
        for (const c of this.customClients) c.conn.data(buf, gate);
      }
    }
  }

  private emit(b: MarketBatch, gate: Gate): void {
    const ex = this.ex;
    const meta = b.entry.meta;
    const tokens = meta.tokens;
    // subscribers grouped by what they see: bit 1 YES, bit 2 NO, bit 4 custom features
    const groups = new Map<number, MarketClient[]>();
    const seen = this.subs.get(tokens[0]);
    const add = (c: MarketClient) => {
      const k = (c.assets.has(tokens[0]) ? 1 : 0) | (c.assets.has(tokens[1]) ? 2 : 0) | (c.custom ? 4 : 0);
      let g = groups.get(k);
      if (g === undefined) groups.set(k, (g = []));
      g.push(c);
    };
    if (seen) for (const c of seen) add(c);
    const sn = this.subs.get(tokens[1]);
    if (sn) for (const c of sn) if (!seen?.has(c)) add(c);
    if (groups.size === 0) return;
    let need = 0;
    for (const k of groups.keys()) need |= k;

    const at = b.at;
    const ts = String(at);
    const cid = meta.conditionId;
    const changed = b.levels.size > 0;
    const traded = b.trades.length > 0;
    const views: [BookView | undefined, BookView | undefined] = [undefined, undefined];
    const yesView = ex.engine.book(tokens[0]);
    if (need & 1) views[0] = yesView;
    if (need & 2) views[1] = ex.engine.book(tokens[1]);

    // per token: hash (of the book as GET /book renders it at `at`), best prices, top change
    const wire = [0, 1].map((i) =>
      views[i] !== undefined && (changed || traded) ? renderBook(ex, views[i]!, at) : undefined,
    );
    const bba: Array<Ev | undefined> = [undefined, undefined];
    if (changed) {
      for (const i of [0, 1] as const) {
        const v = views[i];
        if (v === undefined) continue;
        const top = topKey(v);
        if (this.lastTop.get(tokens[i]) !== top) {
          this.lastTop.set(tokens[i], top);
          const best = bestOf(v);
          bba[i] = {
            event_type: 'best_bid_ask',
            market: cid,
            asset_id: tokens[i],
            best_bid: best.best_bid,
            best_ask: best.best_ask,
            spread: spreadOf(v),
            timestamp: ts,
          };
        }
      }
    }
    // price_change entries per token, level by level
    const entries: [PriceChangeEntry[], PriceChangeEntry[]] = [[], []];
    if (changed) {
      const levels = withCurrentSizes(b.levels.levels(), yesView);
      for (const i of [0, 1] as const) {
        const v = views[i];
        if (v === undefined) continue;
        const best = bestOf(v);
        const hash = wire[i]!.hash;
        const map = i === 0 ? yesLevelOf : noLevelOf;
        for (const l of levels) entries[i].push(priceChangeEntry(tokens[i], map(l), hash, best));
      }
    }
    const priceChange = new Map<number, Buffer>();
    const priceChangeFor = (mask: number): Buffer => {
      let buf = priceChange.get(mask);
      if (buf === undefined) {
        let list: PriceChangeEntry[];
        if (mask === 3) {
          list = [];
          for (let j = 0; j < entries[0].length; j++) list.push(entries[0][j]!, entries[1][j]!);
        } else list = mask === 1 ? entries[0] : entries[1];
        buf = frame(JSON.stringify({ event_type: 'price_change', market: cid, timestamp: ts, price_changes: list }));
        priceChange.set(mask, buf);
      }
      return buf;
    };
    // per-token frames, serialised once
    const perToken = (make: (i: 0 | 1) => Ev | undefined): [Buffer | undefined, Buffer | undefined] =>
      [0, 1].map((i) => {
        const ev = (need & (1 << i)) !== 0 ? make(i as 0 | 1) : undefined;
        return ev === undefined ? undefined : frame(JSON.stringify(ev));
      }) as [Buffer | undefined, Buffer | undefined];
    const ticks = b.ticks.map((t) =>
      perToken((i) => ({
        event_type: 'tick_size_change',
        asset_id: tokens[i],
        market: cid,
        old_tick_size: tickFromPips(t.oldTickPips),
        new_tick_size: tickFromPips(t.newTickPips),
        timestamp: ts,
      })),
    );
    const trades = b.trades.map((t) => perToken((i) => lastTradePrice(ex, t, tokens[i], cid)));
    const books = traded ? perToken((i) => ({ event_type: 'book', ...wire[i]! })) : undefined;
    const bbaBufs = perToken((i) => bba[i]);
    const resolved =
      b.resolved !== undefined && (need & 4) !== 0
        ? frame(
            JSON.stringify({
              event_type: 'market_resolved',
              ...marketEventFields(ex, b.entry, at),
              winning_asset_id: b.resolved,
              winning_outcome: meta.outcomes[tokens.indexOf(b.resolved)] ?? '',
            }),
          )
        : undefined;

    for (const [k, clients] of groups) {
      const out: Buffer[] = [];
      const tok = (pair: [Buffer | undefined, Buffer | undefined]) => {
        if (k & 1 && pair[0]) out.push(pair[0]);
        if (k & 2 && pair[1]) out.push(pair[1]);
      };
      for (const t of ticks) tok(t);
      if (changed && (k & 3) !== 0) out.push(priceChangeFor(k & 3));
      for (const t of trades) tok(t);
      if (books) tok(books);
      if (k & 4) {
        tok(bbaBufs);
        if (resolved) out.push(resolved);
      }
      for (const buf of out) for (const c of clients) c.conn.data(buf, gate);
    }
  }
}

/** Top of book of a view as a comparable key. */
function topKey(v: BookView): string {
  return `${v.bids[0]?.price ?? ''}|${v.asks[0]?.price ?? ''}`;
}

/** `last_trade_price` of a trade on one token: the last fill's price on that token's scale. */
function lastTradePrice(ex: PaperExchange, t: Trade, tokenId: string, market: string): Ev {
  const last = t.makers[t.makers.length - 1];
  const price = last === undefined ? t.price : last.tokenId === tokenId ? last.price : PRICE_SCALE - last.price;
  const side = tokenId === t.tokenId ? t.side : t.side === 'BUY' ? 'SELL' : 'BUY';
  return {
    event_type: 'last_trade_price',
    asset_id: tokenId,
    market,
    price: formatPrice(price),
    side,
    size: formatAmount(t.size),
    fee_rate_bps: String(t.feeRateBps),
    timestamp: String(t.matchTime),
    transaction_hash: ex.trade(t.id)?.transactionHash ?? '',
  };
}
