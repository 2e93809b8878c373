/**
 * Taking a live bot's own resting orders out of a feed recorded while it traded (used by the
 * backtest-vs-live comparison).
 *
 * The market channel shows aggregate levels: a feed recorded while the bot quoted holds the bot's
 * own resting size in every `book` snapshot, `price_change` level and best bid/ask. Backtested as
 * is, the simulated bot would queue behind the live bot's orders and take the live bot's quotes as
 * other traders' liquidity (its mid included). The paper exchange runs in the test's process, so the
 * bot's resting size per level is known exactly, from the exchange's own event stream:
 *
 *  - {@link OwnOrderTimeline} listens to the exchange (the same drains, in the same order, that the
 *    market channel fans out) and keeps, per market, the bot's resting size at each YES-book level
 *    after every drain that changed it, stamped with the exchange time of the drain;
 *  - {@link removeOwnOrders} rewrites a recorded feed: every level of a `book` or `price_change`
 *    message loses the bot's resting size at that level as of the message's venue `timestamp`
 *    (the exchange time of the batch that made it), levels that end at 0 are dropped, and
 *    `best_bid` / `best_ask` (price_change entries, best_bid_ask messages) are recomputed from the
 *    rewritten book. Trades (`last_trade_price`) are kept: the takers' flow is the market's, and
 *    in the bot's absence it would have met the other orders at those prices.
 *
 * Timestamps are whole milliseconds: when the bot's orders changed in a drain with the same
 * millisecond as an earlier drain of the same market, that earlier drain's messages are adjusted
 * with the later state. The error lasts one millisecond: any change of the bot's orders changes
 * the level's total, so the later drain's price_change for that level sets it right (counted as
 * `clamped` when a level would have gone below 0).
 *
 * The rewrite can also cut the feed to a window (the live bot's active time): messages before it
 * only build the book, which is then written as one `book` snapshot per token at the window's
 * start, after a header and an initial `connect` status stamped with that time.
 */
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { formatAmount, formatPrice, parseAmount, parsePrice, PRICE_SCALE } from '../../../src/core/units.ts';
import {
  frameLine,
  headerLine,
  marketLine,
  statusLine,
  type FeedHeader,
  type FeedItem,
} from '../../../src/venues/sim/feed.ts';
import { replayFeeds } from '../../../src/backtest/replay.ts';
import type { ExchangeEvent, PaperExchange } from '../../../src/exchange/exchange.ts';
import type { OrderState } from '../../../src/exchange/matching/types.ts';

/** The bot's resting size per YES-book level of one market (pips -> micro-shares). */
export interface OwnLevels {
  readonly bid: ReadonlyMap<number, number>;
  readonly ask: ReadonlyMap<number, number>;
}

const NONE: OwnLevels = { bid: new Map(), ask: new Map() };

interface OwnOrder {
  market: string;
  yesBid: boolean;
  yesPrice: number;
  remaining: number;
}

/**
 * The bot's resting orders per market over exchange time, from the exchange's event stream (see
 * the module comment). Also keeps when each of the bot's orders reached the book (`placedAt`), to
 * measure the live loop's order-entry latency.
 */
export class OwnOrderTimeline {
  /** Exchange time each of the bot's orders was placed, by order id. */
  readonly placedAt = new Map<string, number>();
  /** Exchange time of the bot's first and last order event (NaN before any). */
  firstAt = Number.NaN;
  lastAt = Number.NaN;
  private readonly live = new Map<string, OwnOrder>();
  private readonly series = new Map<string, Array<{ at: number; levels: OwnLevels }>>();
  private readonly unsubscribe: () => void;

  constructor(
    ex: PaperExchange,
    private readonly account: string,
    markets: readonly string[],
  ) {
    for (const m of markets) this.series.set(m, []);
    this.unsubscribe = ex.subscribe((events) => this.onDrain(events));
  }

  stop(): void {
    this.unsubscribe();
  }

  /** Changes of the bot's levels recorded for a market. */
  changes(market: string): number {
    return this.series.get(market)?.length ?? 0;
  }

  /** The bot's resting levels on `market` after every drain stamped at or before `at` (exchange ms). */
  levelsAt(market: string, at: number): OwnLevels {
    const s = this.series.get(market);
    if (s === undefined || s.length === 0 || s[0]!.at > at) return NONE;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (s[mid]!.at <= at) lo = mid;
      else hi = mid - 1;
    }
    return s[lo]!.levels;
  }

  private onDrain(events: readonly ExchangeEvent[]): void {
    let touched: Set<string> | undefined;
    let at = 0;
    for (const e of events) {
      if (e.type !== 'order_placed' && e.type !== 'order_updated' && e.type !== 'order_canceled') continue;
      const o: OrderState = e.order;
      if (o.account !== this.account || !this.series.has(o.market)) continue;
      if (e.type === 'order_placed' && !this.placedAt.has(o.id)) this.placedAt.set(o.id, e.at);
      if (Number.isNaN(this.firstAt)) this.firstAt = e.at;
      this.lastAt = e.at;
      at = Math.max(at, e.at);
      // the order object is the engine's: its state now is its state after this drain
      const remaining = o.status === 'LIVE' ? o.originalSize - o.sizeMatched : 0;
      if (remaining > 0) {
        const yes = o.outcome === 'Yes';
        this.live.set(o.id, {
          market: o.market,
          yesBid: yes === (o.side === 'BUY'),
          yesPrice: yes ? o.price : PRICE_SCALE - o.price,
          remaining,
        });
      } else this.live.delete(o.id);
      (touched ??= new Set()).add(o.market);
    }
    if (touched === undefined) return;
    for (const m of touched) {
      const bid = new Map<number, number>();
      const ask = new Map<number, number>();
      for (const o of this.live.values()) {
        if (o.market !== m) continue;
        const side = o.yesBid ? bid : ask;
        side.set(o.yesPrice, (side.get(o.yesPrice) ?? 0) + o.remaining);
      }
      const s = this.series.get(m)!;
      // exchange times never go back, but keep the series sorted whatever happens
      s.push({ at: Math.max(at, s.length > 0 ? s[s.length - 1]!.at : at), levels: { bid, ask } });
    }
  }
}

/** What {@link removeOwnOrders} did. */
export interface RewriteStats {
  /** Market-channel messages read, and written (inside the window). */
  messagesIn: number;
  messagesOut: number;
  /** Book levels (snapshot levels and price_change entries) that lost some of the bot's size. */
  adjusted: number;
  /** Levels where the bot's size exceeded the recorded size (set to 0; see the module comment). */
  clamped: number;
  /** Snapshots written at the window's start. */
  startSnapshots: number;
}

type Msg = Record<string, unknown>;
type WireLevel = { price: string; size: string };

/** One token's book as rewritten so far (pips -> micro-shares). */
class TokenBook {
  readonly bids = new Map<number, number>();
  readonly asks = new Map<number, number>();
  template: Msg | undefined;
  lastTrade: string | undefined;
  bestBid(): number {
    let b = 0;
    for (const [p, s] of this.bids) if (s > 0 && p > b) b = p;
    return b;
  }
  bestAsk(): number {
    let a = 0;
    for (const [p, s] of this.asks) if (s > 0 && (a === 0 || p < a)) a = p;
    return a;
  }
}

/**
 * Rewrites the feed `input` into `output` (gzip NDJSON, the recorder's format) without the bot's
 * own resting orders, keeping only what was received in [fromMs, toMs] (local receive time). See
 * the module comment.
 */
export async function removeOwnOrders(
  input: readonly string[],
  output: string,
  own: OwnOrderTimeline,
  window: { fromMs: number; toMs: number },
): Promise<RewriteStats> {
  const st: RewriteStats = { messagesIn: 0, messagesOut: 0, adjusted: 0, clamped: 0, startSnapshots: 0 };
  const tokens = new Map<string, { market: string; index: 0 | 1; book: TokenBook }>();
  const lines: string[] = [];
  let header: FeedHeader | undefined;
  let started = false;

  /** The bot's size at a level of a token's book (token's own side and price). */
  const ownSize = (market: string, index: 0 | 1, bidSide: boolean, price: number, at: number): number => {
    const l = own.levelsAt(market, at);
    // YES: bids are YES bids; NO: a NO bid at q is a YES ask at 1 - q, a NO ask a YES bid
    if (index === 0) return (bidSide ? l.bid : l.ask).get(price) ?? 0;
    return (bidSide ? l.ask : l.bid).get(PRICE_SCALE - price) ?? 0;
  };
  const net = (recorded: number, mine: number): number => {
    if (mine === 0) return recorded;
    st.adjusted++;
    if (mine > recorded) st.clamped++;
    return Math.max(0, recorded - mine);
  };
  const levelsOf = (side: Map<number, number>, ascending: boolean): WireLevel[] =>
    [...side.entries()]
      .filter(([, s]) => s > 0)
      .sort(([a], [b]) => (ascending ? a - b : b - a))
      .map(([p, s]) => ({ price: formatPrice(p), size: formatAmount(s) }));

  const rewrite = (m: Msg): Msg => {
    const type = m['event_type'];
    const tok = typeof m['asset_id'] === 'string' ? tokens.get(m['asset_id']) : undefined;
    const at = Number(m['timestamp']);
    if (type === 'book' && tok !== undefined) {
      const b = tok.book;
      b.bids.clear();
      b.asks.clear();
      for (const [wire, bidSide] of [
        [m['bids'], true],
        [m['asks'], false],
      ] as const) {
        for (const l of wire as WireLevel[]) {
          const p = parsePrice(l.price);
          (bidSide ? b.bids : b.asks).set(p, net(parseAmount(l.size), ownSize(tok.market, tok.index, bidSide, p, at)));
        }
      }
      if (typeof m['last_trade_price'] === 'string' && m['last_trade_price'] !== '')
        b.lastTrade = m['last_trade_price'];
      // the venue's order: bids ascending, asks descending (best last)
      const out = { ...m, bids: levelsOf(b.bids, true), asks: levelsOf(b.asks, false) };
      b.template = out;
      return out;
    }
    if (type === 'price_change' && Array.isArray(m['price_changes'])) {
      const entries = (m['price_changes'] as Msg[]).map((c) => {
        const t = tokens.get(c['asset_id'] as string);
        if (t === undefined) return c;
        const bidSide = c['side'] === 'BUY';
        const p = parsePrice(c['price'] as string);
        const size = net(parseAmount(c['size'] as string), ownSize(t.market, t.index, bidSide, p, at));
        (bidSide ? t.book.bids : t.book.asks).set(p, size);
        return { ...c, size: formatAmount(size) };
      });
      // best prices after the whole batch, as the venue computes them
      for (const c of entries) {
        const t = tokens.get(c['asset_id'] as string);
        if (t === undefined) continue;
        const bb = t.book.bestBid();
        const ba = t.book.bestAsk();
        c['best_bid'] = bb === 0 ? '0' : formatPrice(bb);
        c['best_ask'] = ba === 0 ? '0' : formatPrice(ba);
      }
      return { ...m, price_changes: entries };
    }
    if (type === 'best_bid_ask' && tok !== undefined) {
      const bb = tok.book.bestBid();
      const ba = tok.book.bestAsk();
      return {
        ...m,
        best_bid: bb === 0 ? '0' : formatPrice(bb),
        best_ask: ba === 0 ? '0' : formatPrice(ba),
        spread: bb !== 0 && ba !== 0 ? formatPrice(Math.max(0, ba - bb)) : '0',
      };
    }
    if (type === 'last_trade_price' && tok !== undefined && typeof m['price'] === 'string')
      tok.book.lastTrade = m['price'];
    return m;
  };

  /** The window opens: header, connect, and the book of every token as it stands. */
  const start = (): void => {
    if (header === undefined) throw new Error('removeOwnOrders: the feed has no header');
    started = true;
    const t = window.fromMs;
    lines.push(headerLine({ ...header, t, part: 0 }));
    lines.push(statusLine(t, 'm', 'connect', 'initial'));
    for (const [id, x] of tokens) {
      const tpl = x.book.template;
      if (tpl === undefined) continue;
      const book: Msg = {
        ...tpl,
        timestamp: String(Math.floor(t)),
        bids: levelsOf(x.book.bids, true),
        asks: levelsOf(x.book.asks, false),
        last_trade_price: x.book.lastTrade ?? '',
        asset_id: id,
      };
      lines.push(frameLine(t, 'm', JSON.stringify(book)));
      st.startSnapshots++;
    }
  };

  for await (const item of replayFeeds(input) as AsyncIterable<FeedItem>) {
    if (item.t > window.toMs) break;
    if (item.kind === 'header') {
      if (header === undefined) {
        header = item.header;
        for (const m of header.markets)
          m.tokens.forEach((t, i) =>
            tokens.set(t.tokenId, { market: m.market, index: i as 0 | 1, book: new TokenBook() }),
          );
      }
      continue;
    }
    if (!started && item.t >= window.fromMs) start();
    if (item.kind === 'status') {
      if (started) lines.push(statusLine(item.t, item.ch, item.status, item.reason));
      continue;
    }
    if (item.kind === 'market') {
      if (started) lines.push(marketLine(item.t, item.info));
      continue;
    }
    if (item.ch !== 'm') {
      if (started) lines.push(frameLine(item.t, item.ch, item.raw));
      continue;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(item.raw);
    } catch {
      continue;
    }
    const msgs = (Array.isArray(parsed) ? parsed : [parsed]) as Msg[];
    st.messagesIn += msgs.length;
    const out = msgs.map(rewrite);
    if (!started) continue;
    st.messagesOut += out.length;
    lines.push(frameLine(item.t, 'm', JSON.stringify(Array.isArray(parsed) ? out : out[0])));
  }
  if (!started) start();
  writeFileSync(output, gzipSync(lines.join('\n') + '\n'), { flag: 'wx' });
  return st;
}

// ---- checking a feed's books against the exchange's ------------------------------------------------

/** One token's book: [price pips, size micro] per level, best first. */
export interface PlainBook {
  readonly bids: ReadonlyArray<readonly [number, number]>;
  readonly asks: ReadonlyArray<readonly [number, number]>;
}

/** The book of a token at the exchange now, without `account`'s resting orders when given. */
export function exchangeBook(ex: PaperExchange, tokenId: string, account?: string): PlainBook {
  const view = ex.engine.book(tokenId);
  const minus = { bids: new Map<number, number>(), asks: new Map<number, number>() };
  if (account !== undefined)
    for (const o of ex.openOrders(account)) {
      if (o.market !== view.market) continue;
      // this token's view: its own orders as they are, the complement's mirrored
      const mine = o.tokenId === tokenId;
      const bid = mine === (o.side === 'BUY');
      const p = mine ? o.price : PRICE_SCALE - o.price;
      const side = bid ? minus.bids : minus.asks;
      side.set(p, (side.get(p) ?? 0) + o.originalSize - o.sizeMatched);
    }
  const net = (
    levels: ReadonlyArray<{ price: number; size: number }>,
    m: Map<number, number>,
  ): Array<[number, number]> =>
    levels.map((l): [number, number] => [l.price, l.size - (m.get(l.price) ?? 0)]).filter(([, s]) => s > 0);
  return { bids: net(view.bids, minus.bids), asks: net(view.asks, minus.asks) };
}

export const sameBook = (a: PlainBook | undefined, b: PlainBook | undefined): boolean =>
  a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b);

/**
 * The books of `tokens` as a feed shows them at each of `times` (exchange ms), replaying its
 * `book` and `price_change` messages by their venue timestamps: `before` is the state before the
 * first message stamped at or after the time, `after` before the first one stamped after it (the
 * exchange's state at that millisecond is one of the two, or in between).
 */
export async function feedBooksAt(
  input: readonly string[],
  tokens: readonly string[],
  times: readonly number[],
): Promise<Array<{ before: Map<string, PlainBook>; after: Map<string, PlainBook> }>> {
  const books = new Map<string, TokenBook>(tokens.map((t) => [t, new TokenBook()]));
  const snap = (): Map<string, PlainBook> => {
    const out = new Map<string, PlainBook>();
    for (const [t, b] of books) {
      const side = (m: Map<number, number>, desc: boolean): Array<[number, number]> =>
        [...m.entries()].filter(([, s]) => s > 0).sort(([x], [y]) => (desc ? y - x : x - y));
      out.set(t, { bids: side(b.bids, true), asks: side(b.asks, false) });
    }
    return out;
  };
  const res = times.map(() => ({ before: new Map<string, PlainBook>(), after: new Map<string, PlainBook>() }));
  let nb = 0; // next time whose `before` is not taken yet
  let na = 0;
  const reach = (ts: number): void => {
    while (nb < times.length && ts >= times[nb]!) res[nb++]!.before = snap();
    while (na < times.length && ts > times[na]!) res[na++]!.after = snap();
  };
  for await (const item of replayFeeds(input, { channels: ['m'] }) as AsyncIterable<FeedItem>) {
    if (item.kind !== 'frame') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(item.raw);
    } catch {
      continue;
    }
    for (const m of (Array.isArray(parsed) ? parsed : [parsed]) as Msg[]) {
      const ts = Number(m['timestamp']);
      if (Number.isFinite(ts)) reach(ts);
      if (m['event_type'] === 'book') {
        const b = books.get(m['asset_id'] as string);
        if (b === undefined) continue;
        b.bids.clear();
        b.asks.clear();
        for (const l of m['bids'] as WireLevel[]) b.bids.set(parsePrice(l.price), parseAmount(l.size));
        for (const l of m['asks'] as WireLevel[]) b.asks.set(parsePrice(l.price), parseAmount(l.size));
      } else if (m['event_type'] === 'price_change') {
        for (const c of m['price_changes'] as Msg[]) {
          const b = books.get(c['asset_id'] as string);
          if (b !== undefined)
            (c['side'] === 'BUY' ? b.bids : b.asks).set(
              parsePrice(c['price'] as string),
              parseAmount(c['size'] as string),
            );
        }
      }
    }
  }
  reach(Number.POSITIVE_INFINITY);
  return res;
}
