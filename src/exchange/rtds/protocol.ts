/**
 * Client messages of the real-time data stream (RTDS), parsed without side effects:
 * `{"action": "subscribe"|"unsubscribe", "subscriptions": [{"topic", "type", "filters"}]}`.
 *
 * Filters take the forms the public clients send: for `crypto_prices` a comma-separated string
 * ("btcusdt,ethusdt"), a JSON array, or a JSON array encoded as a string; for `comments` an object
 * `{"parentEntityID": 100, "parentEntityType": "Event"}` or that object encoded as a string.
 */
import type { Parsed } from '../ws/protocol.ts';

export const RTDS_TOPICS = ['crypto_prices', 'crypto_prices_chainlink', 'comments'] as const;

/** The two price topics: Binance-style symbols (`btcusdt`) and Chainlink's (`btc/usd`), one series each. */
export type PriceTopic = 'crypto_prices' | 'crypto_prices_chainlink';

/** The Chainlink name of a series (`btcusdt` → `btc/usd`), undefined for a symbol not quoted in USDT. */
export function chainlinkSymbol(symbol: string): string | undefined {
  return symbol.endsWith('usdt') && symbol.length > 4 ? `${symbol.slice(0, -4)}/usd` : undefined;
}
export type RtdsTopic = (typeof RTDS_TOPICS)[number];

/** Most subscriptions in one message, and most symbols in one filter. */
export const MAX_SUBSCRIPTIONS = 50;
export const MAX_SYMBOLS = 100;

export interface CommentFilter {
  parentEntityID?: string;
  parentEntityType?: string;
}

export type RtdsSubscription =
  | { topic: PriceTopic; type: string; symbols: string[] | 'all' }
  | { topic: 'comments'; type: string; filter: CommentFilter | 'all' };

export interface RtdsRequest {
  action: 'subscribe' | 'unsubscribe';
  subscriptions: RtdsSubscription[];
}

function symbolsOf(filters: unknown): Parsed<string[] | 'all'> {
  if (filters === undefined || filters === null || filters === '') return { ok: true, value: 'all' };
  let list: unknown = filters;
  if (typeof filters === 'string') {
    const s = filters.trim();
    if (s.startsWith('[')) {
      try {
        list = JSON.parse(s);
      } catch {
        return { ok: false, message: 'crypto_prices filters: malformed JSON array' };
      }
    } else list = s.split(',');
  }
  if (!Array.isArray(list))
    return { ok: false, message: 'crypto_prices filters must be "btcusdt,ethusdt" or an array of symbols' };
  if (list.length > MAX_SYMBOLS) return { ok: false, message: `crypto_prices filters: at most ${MAX_SYMBOLS} symbols` };
  const out: string[] = [];
  for (const x of list) {
    if (typeof x !== 'string') return { ok: false, message: 'crypto_prices filters: symbols must be strings' };
    const sym = x.trim().toLowerCase();
    if (sym.length === 0) continue;
    if (sym.length > 30 || !/^[a-z0-9/_-]+$/.test(sym))
      return { ok: false, message: `crypto_prices filters: bad symbol ${JSON.stringify(sym.slice(0, 30))}` };
    out.push(sym);
  }
  return out.length === 0 ? { ok: true, value: 'all' } : { ok: true, value: [...new Set(out)] };
}

function commentFilterOf(filters: unknown): Parsed<CommentFilter | 'all'> {
  if (filters === undefined || filters === null || filters === '') return { ok: true, value: 'all' };
  let v: unknown = filters;
  if (typeof filters === 'string') {
    try {
      v = JSON.parse(filters);
    } catch {
      return { ok: false, message: 'comments filters: expected a JSON object {"parentEntityID", "parentEntityType"}' };
    }
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    return { ok: false, message: 'comments filters must be an object {"parentEntityID", "parentEntityType"}' };
  const o = v as Record<string, unknown>;
  const out: CommentFilter = {};
  const id = o['parentEntityID'] ?? o['parentEntityId'];
  if (id !== undefined) {
    if ((typeof id !== 'string' && typeof id !== 'number') || String(id).length > 100)
      return { ok: false, message: 'comments filters: parentEntityID must be a string or a number' };
    out.parentEntityID = String(id);
  }
  const type = o['parentEntityType'];
  if (type !== undefined) {
    if (typeof type !== 'string' || type.length > 30)
      return { ok: false, message: 'comments filters: parentEntityType must be a string' };
    out.parentEntityType = type;
  }
  return { ok: true, value: out };
}

/** Parses an RTDS message (already a JSON object). Unknown topics are refused. */
export function parseRtdsRequest(msg: Record<string, unknown>): Parsed<RtdsRequest> {
  const action = msg['action'];
  if (action !== 'subscribe' && action !== 'unsubscribe')
    return { ok: false, message: '"action" must be "subscribe" or "unsubscribe"' };
  const subs = msg['subscriptions'];
  if (!Array.isArray(subs) || subs.length === 0)
    return { ok: false, message: '"subscriptions" must be a non-empty array of {topic, type, filters}' };
  if (subs.length > MAX_SUBSCRIPTIONS)
    return { ok: false, message: `at most ${MAX_SUBSCRIPTIONS} subscriptions per message` };
  const out: RtdsSubscription[] = [];
  for (const s of subs) {
    if (s === null || typeof s !== 'object' || Array.isArray(s))
      return { ok: false, message: 'each subscription must be an object {topic, type, filters}' };
    const r = s as Record<string, unknown>;
    const topic = r['topic'];
    if (typeof topic !== 'string') return { ok: false, message: 'a subscription needs a "topic" string' };
    const type = r['type'] ?? '*';
    if (typeof type !== 'string' || type.length > 40)
      return { ok: false, message: 'a subscription "type" must be a string' };
    if (topic === 'crypto_prices') {
      if (type !== '*' && type !== 'update')
        return { ok: false, message: 'crypto_prices: type must be "update" or "*"' };
      const sy = symbolsOf(r['filters']);
      if (!sy.ok) return sy;
      out.push({ topic, type, symbols: sy.value });
    } else if (topic === 'crypto_prices_chainlink') {
      // the public form: filters {"symbol": "btc/usd"} (an object or its JSON); a list of symbols too
      if (type !== '*' && type !== 'update')
        return { ok: false, message: 'crypto_prices_chainlink: type must be "update" or "*"' };
      let f: unknown = r['filters'];
      if (typeof f === 'string' && f.trim().startsWith('{')) {
        try {
          f = JSON.parse(f);
        } catch {
          return { ok: false, message: 'crypto_prices_chainlink filters: malformed JSON object' };
        }
      }
      if (f !== null && typeof f === 'object' && !Array.isArray(f)) {
        // an object names its symbol: one without (a typo, {"symbols": ...}) is no subscription to all (review 49b F8)
        const sym = (f as Record<string, unknown>)['symbol'];
        if (typeof sym !== 'string' || sym.trim() === '')
          return { ok: false, message: 'crypto_prices_chainlink filters: an object needs a "symbol" ("btc/usd")' };
        f = sym;
      }
      const sy = symbolsOf(f);
      if (!sy.ok) return { ok: false, message: sy.message.replace('crypto_prices', 'crypto_prices_chainlink') };
      if (sy.value !== 'all')
        for (const x of sy.value)
          if (!/^[a-z0-9]+\/usd$/.test(x))
            return {
              ok: false,
              message: `crypto_prices_chainlink filters: symbols are "<base>/usd" ("btc/usd"), got ${JSON.stringify(x)}`,
            };
      // kept by the series' own name (btc/usd → btcusdt)
      const symbols = sy.value === 'all' ? 'all' : sy.value.map((x) => `${x.slice(0, -4)}usdt`);
      out.push({ topic, type, symbols });
    } else if (topic === 'comments') {
      if (type !== '*' && type !== 'comment_created')
        return {
          ok: false,
          message: 'comments: type must be "comment_created" or "*" (the only comment event of this exchange)',
        };
      const f = commentFilterOf(r['filters']);
      if (!f.ok) return f;
      out.push({ topic, type, filter: f.value });
    } else {
      return {
        ok: false,
        message: `unknown topic ${JSON.stringify(topic.slice(0, 40))}: this exchange serves ${RTDS_TOPICS.join(', ')}`,
      };
    }
  }
  return { ok: true, value: { action, subscriptions: out } };
}
