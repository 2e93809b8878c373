/**
 * The real-time data stream (RTDS, at `/rtds`): topics `crypto_prices` (also as `crypto_prices_chainlink`, the series named `btc/usd`) and `comments`, fed by the
 * world's events (`crypto_price`, `comment_created`).
 *
 * Messages: `{topic, type, timestamp (unix ms number), payload, connection_id}`.
 *  - crypto_prices: `type: "update"`, payload `{symbol, timestamp, value}` (value a float USD price:
 *    market data, not money held). Subscribing with a symbol filter first sends, per symbol with
 *    recent history, a snapshot `{topic, type: "subscribe", timestamp, payload: {symbol, data:
 *    [{timestamp, value}]}}` (oldest first, at most HISTORY points). No filter = every symbol, no
 *    snapshot. Unsubscribing with symbols removes those, without filters the whole topic.
 *  - comments: `type: "comment_created"`, payload the comment in the venue's camelCase (id, body,
 *    parentEntityType, parentEntityID, parentCommentID, userAddress, createdAt, profile). Optional
 *    filter `{parentEntityID, parentEntityType}`; several filtered subscriptions add up.
 * Unknown topics and malformed messages get the error frame; PING is answered by the caller (the
 * text `ping` also with a WebSocket ping frame, which the public RTDS client waits for). A repeated
 * subscription to a symbol re-sends its snapshot within the connection's message budget
 * (../ws/budget.ts).
 */
import type { ExchangeEvent, PaperExchange } from '../exchange.ts';
import type { CommentRec } from '../world/model.ts';
import { frame, type Gate, type SnapshotItem, type StreamConn } from '../ws/conn.ts';
import { chainlinkSymbol, MAX_SYMBOLS, parseRtdsRequest, type CommentFilter, type PriceTopic } from './protocol.ts';

/**
 * Most comment filters one connection keeps (security review 49 F3: uncapped, one socket's thousands of
 * filters stalled the event loop at each subscribe and each comment). Symbols and exclusions: MAX_SYMBOLS.
 */
export const MAX_COMMENT_FILTERS = 100;

const PRICE_TOPICS: readonly PriceTopic[] = ['crypto_prices', 'crypto_prices_chainlink'];

/** Price points kept per symbol for subscription snapshots. */
export const HISTORY = 300;

interface CryptoSub {
  all: boolean;
  symbols: Set<string>; // followed (when not all)
  excluded: Set<string>; // unsubscribed (when all)
}

interface RtdsClient {
  conn: StreamConn;
  /** Per price topic, by the series' own symbols (`btcusdt`; a Chainlink subscription names it `btc/usd`). */
  crypto: Partial<Record<PriceTopic, CryptoSub>>;
  /** Comment filters by their JSON (at most MAX_COMMENT_FILTERS). */
  comments: Map<string, CommentFilter | 'all'>;
}

/** A comment as the venue's comment stream shows it (camelCase). */
export function commentPayload(ex: PaperExchange, c: CommentRec): Record<string, unknown> {
  const profile = ex.world.profiles.get(c.userAddress.toLowerCase());
  return {
    id: c.id,
    body: c.body,
    parentEntityType: c.parentEntityType,
    parentEntityID: c.parentEntityId,
    parentCommentID: c.replyTo ?? null,
    userAddress: c.userAddress,
    replyAddress: c.replyTo !== undefined ? (ex.world.commentById.get(c.replyTo)?.userAddress ?? null) : null,
    createdAt: c.createdAt,
    updatedAt: c.createdAt,
    reactionCount: 0,
    reportCount: 0,
    profile: profile
      ? {
          name: profile.name,
          pseudonym: profile.pseudonym,
          bio: profile.bio,
          profileImage: profile.profileImage,
          proxyWallet: profile.address,
        }
      : null,
  };
}

function matches(f: CommentFilter | 'all', c: CommentRec): boolean {
  if (f === 'all') return true;
  if (f.parentEntityID !== undefined && f.parentEntityID !== c.parentEntityId) return false;
  if (f.parentEntityType !== undefined && f.parentEntityType.toLowerCase() !== c.parentEntityType.toLowerCase())
    return false;
  return true;
}

function follows(s: CryptoSub | undefined, symbol: string): boolean {
  if (s === undefined) return false;
  return s.all ? !s.excluded.has(symbol) : s.symbols.has(symbol);
}

/** Subscriptions, price history and fan-out of RTDS (see the module comment). */
export class RtdsChannel {
  private readonly clients = new Map<StreamConn, RtdsClient>();
  private readonly history = new Map<string, Array<{ timestamp: number; value: number }>>();

  constructor(
    private readonly ex: PaperExchange,
    private readonly gate: () => Gate,
  ) {}

  get size(): number {
    return this.clients.size;
  }

  add(conn: StreamConn): void {
    this.clients.set(conn, { conn, crypto: {}, comments: new Map() });
  }

  remove(conn: StreamConn): void {
    this.clients.delete(conn);
  }

  /** A parsed JSON message of an RTDS client. */
  handle(conn: StreamConn, msg: Record<string, unknown>): void {
    const c = this.clients.get(conn);
    if (c === undefined) return;
    const r = parseRtdsRequest(msg);
    if (!r.ok) return conn.error('BAD_REQUEST', r.message);
    const { action, subscriptions } = r.value;
    // applied to copies, kept only within the caps: a refused message changes nothing
    const crypto: Partial<Record<PriceTopic, CryptoSub>> = {};
    for (const [t, x] of Object.entries(c.crypto) as [PriceTopic, CryptoSub][])
      crypto[t] = { all: x.all, symbols: new Set(x.symbols), excluded: new Set(x.excluded) };
    let next = { crypto, comments: new Map(c.comments) };
    const snapshots: [PriceTopic, string[]][] = [];
    for (const s of subscriptions) {
      if (s.topic !== 'comments') {
        const cur = next.crypto[s.topic];
        if (action === 'subscribe') {
          const sub = (next.crypto[s.topic] ??= { all: false, symbols: new Set(), excluded: new Set() });
          if (s.symbols === 'all') {
            sub.all = true;
            sub.excluded.clear();
          } else {
            for (const sym of s.symbols) {
              sub.symbols.add(sym);
              sub.excluded.delete(sym);
            }
            snapshots.push([s.topic, s.symbols]);
          }
        } else if (cur !== undefined) {
          if (s.symbols === 'all') delete next.crypto[s.topic];
          else
            for (const sym of s.symbols) {
              cur.symbols.delete(sym);
              if (cur.all) cur.excluded.add(sym);
            }
        }
      } else {
        const key = JSON.stringify(s.filter);
        if (action === 'subscribe') next.comments.set(key, s.filter);
        else if (s.filter === 'all') next = { ...next, comments: new Map() };
        else next.comments.delete(key);
      }
    }
    let symbols = 0;
    for (const x of Object.values(next.crypto)) symbols = Math.max(symbols, x.symbols.size, x.excluded.size);
    if (next.comments.size > MAX_COMMENT_FILTERS || symbols > MAX_SYMBOLS)
      return conn.error(
        'LIMIT_EXCEEDED',
        `a connection keeps at most ${MAX_COMMENT_FILTERS} comment filters and ${MAX_SYMBOLS} crypto symbols per price topic (this message would make ${next.comments.size} and ${symbols}): unsubscribe some first`,
      );
    c.crypto = next.crypto;
    c.comments = next.comments;
    for (const [topic, list] of snapshots) this.snapshot(conn, topic, list);
  }

  private snapshot(conn: StreamConn, topic: PriceTopic, symbols: string[]): void {
    const now = this.ex.clock.now();
    const wanted: SnapshotItem[] = [];
    for (const symbol of symbols) {
      const h = this.history.get(symbol);
      if (h === undefined || h.length === 0) continue;
      const named = topic === 'crypto_prices' ? symbol : chainlinkSymbol(symbol);
      if (named === undefined) continue;
      wanted.push({
        key: `${topic}:${symbol}`,
        render: () =>
          JSON.stringify({
            topic,
            type: 'subscribe',
            timestamp: now,
            payload: { symbol: named, data: h.map((p) => ({ ...p })) },
            connection_id: conn.id,
          }),
      });
    }
    if (wanted.length === 0) return;
    // a repeated subscription re-sends the history, within the connection's budget
    const texts = conn.snapshots(wanted);
    if (texts.length === 0) return;
    const gate = this.gate();
    for (const t of texts) conn.data(frame(t), gate);
  }

  /** Records prices and fans world events out to the subscribers. */
  onEvents(events: readonly ExchangeEvent[]): void {
    let gate: Gate | undefined;
    for (const e of events) {
      if (e.type === 'crypto_price') {
        let h = this.history.get(e.symbol);
        if (h === undefined) this.history.set(e.symbol, (h = []));
        h.push({ timestamp: e.at, value: e.value });
        if (h.length > HISTORY) h.splice(0, h.length - HISTORY);
        if (this.clients.size === 0) continue;
        const now = this.ex.clock.now();
        const chainlink = chainlinkSymbol(e.symbol);
        for (const c of this.clients.values()) {
          for (const topic of PRICE_TOPICS) {
            if (!follows(c.crypto[topic], e.symbol)) continue;
            const symbol = topic === 'crypto_prices' ? e.symbol : chainlink;
            if (symbol === undefined) continue;
            gate ??= this.gate();
            const msg = {
              topic,
              type: 'update',
              timestamp: now,
              payload: { symbol, timestamp: e.at, value: e.value },
              connection_id: c.conn.id,
            };
            c.conn.data(frame(JSON.stringify(msg)), gate);
          }
        }
      } else if (e.type === 'comment_created') {
        if (this.clients.size === 0) continue;
        let payload: Record<string, unknown> | undefined;
        const now = this.ex.clock.now();
        for (const c of this.clients.values()) {
          let any = false;
          for (const f of c.comments.values())
            if (matches(f, e.comment)) {
              any = true;
              break;
            }
          if (!any) continue;
          gate ??= this.gate();
          payload ??= commentPayload(this.ex, e.comment);
          const msg = { topic: 'comments', type: 'comment_created', timestamp: now, payload, connection_id: c.conn.id };
          c.conn.data(frame(JSON.stringify(msg)), gate);
        }
      }
    }
  }
}
