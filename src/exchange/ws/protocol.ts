/**
 * Client messages of the market and user channels, parsed without side effects: a frame's text
 * becomes a typed request or a reason to refuse it. Shapes follow the public venue's clients
 * (see /work/shared/reference/public-service-protocol.md section 4), leniently where the public
 * clients differ: `type` is case-insensitive ("market" | "MARKET"), extras such as `markets`,
 * `initial_dump` and `level` are accepted on the market channel.
 */

/** Most assets one market-channel connection may follow (the venue's documented limit). */
export const MAX_ASSETS_PER_CONNECTION = 500;
/** Most markets listed in one user-channel message. */
export const MAX_MARKETS_PER_MESSAGE = 1000;
/** Most market ids a user-channel connection keeps (followed, or excluded in its all-markets mode). */
export const MAX_MARKETS_PER_CONNECTION = 1000;
/** Longest id (token id, condition id) accepted; real ones are 66-78 characters. */
export const MAX_ID_LENGTH = 100;

/** A parse result: the value, or the reason (sent back in the error frame). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** The channels of `/ws`. */
export type Channel = 'market' | 'user';

/** A market-channel request: the first subscription or a later subscribe / unsubscribe. */
export interface MarketRequest {
  op: 'subscribe' | 'unsubscribe';
  assets: string[];
  /** Present when the message set it: turns best_bid_ask, new_market and market_resolved on or off. */
  custom?: boolean;
  /** false: no book snapshot on subscribe (default true). */
  initialDump: boolean;
}

/** The user channel's credentials (the API key set of `POST /auth/api-key`). */
export interface UserAuth {
  apiKey: string;
  secret: string;
  passphrase: string;
}

/** A user-channel request. `markets` are condition ids (lower case); empty on subscribe = all markets. */
export interface UserRequest {
  op: 'subscribe' | 'unsubscribe';
  auth?: UserAuth;
  markets: string[];
}

/** The keep-alive texts: "PING" is answered "PONG", "ping" is answered "pong". */
export function pingReply(text: string): string | undefined {
  if (text.length > 6) return undefined;
  const t = text.trim();
  if (t === 'PING') return 'PONG';
  if (t === 'ping') return 'pong';
  return undefined;
}

/** The error frame every stream answers a refused message with. */
export function errorFrame(code: string, message: string): string {
  return JSON.stringify({ event_type: 'error', error: { code, message } });
}

/** JSON text to a plain object; anything else (array, scalar, bad JSON) is refused. */
export function parseObject(text: string): Parsed<Record<string, unknown>> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { ok: false, message: 'malformed JSON' };
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return { ok: false, message: 'expected a JSON object' };
  return { ok: true, value: v as Record<string, unknown> };
}

/** The channel a message asks for through `type` ("market" | "user", any case), if it names one. */
export function channelOf(msg: Record<string, unknown>): Parsed<Channel | undefined> {
  const t = msg['type'];
  if (t === undefined) return { ok: true, value: undefined };
  if (typeof t !== 'string') return { ok: false, message: '"type" must be a string' };
  const l = t.toLowerCase();
  if (l === 'market' || l === 'user') return { ok: true, value: l };
  // JSON keep-alives ({"type":"ping"}) are handled by the caller before this
  return { ok: false, message: `unknown channel type ${JSON.stringify(t.slice(0, 20))}: use "market" or "user"` };
}

/** True for a JSON keep-alive `{"type":"ping"}` (ignored, answered by nothing). */
export function isJsonPing(msg: Record<string, unknown>): boolean {
  return typeof msg['type'] === 'string' && (msg['type'] as string).toLowerCase() === 'ping';
}

function operationOf(msg: Record<string, unknown>): Parsed<'subscribe' | 'unsubscribe'> {
  const op = msg['operation'];
  if (op === undefined) return { ok: true, value: 'subscribe' };
  if (typeof op !== 'string') return { ok: false, message: '"operation" must be "subscribe" or "unsubscribe"' };
  const l = op.toLowerCase();
  if (l === 'subscribe' || l === 'unsubscribe') return { ok: true, value: l };
  return { ok: false, message: '"operation" must be "subscribe" or "unsubscribe"' };
}

function idList(v: unknown, name: string, max: number): Parsed<string[]> {
  if (!Array.isArray(v)) return { ok: false, message: `"${name}" must be an array of strings` };
  if (v.length > max) return { ok: false, message: `"${name}" lists ${v.length} ids; at most ${max} per message` };
  const out: string[] = [];
  for (const x of v) {
    if (typeof x !== 'string' || x.length === 0 || x.length > MAX_ID_LENGTH)
      return { ok: false, message: `"${name}" must hold non-empty id strings (at most ${MAX_ID_LENGTH} characters)` };
    out.push(x);
  }
  return { ok: true, value: out };
}

function optBool(msg: Record<string, unknown>, key: string): Parsed<boolean | undefined> {
  const v = msg[key];
  if (v === undefined) return { ok: true, value: undefined };
  if (typeof v !== 'boolean') return { ok: false, message: `"${key}" must be a boolean` };
  return { ok: true, value: v };
}

/**
 * A market-channel message: `{"assets_ids": [...], "type": "market", "custom_feature_enabled"?}`
 * first, then `{"assets_ids": [...], "operation": "subscribe"|"unsubscribe"}`.
 */
export function parseMarketRequest(msg: Record<string, unknown>): Parsed<MarketRequest> {
  const ch = channelOf(msg);
  if (!ch.ok) return ch;
  if (ch.value === 'user') return { ok: false, message: 'this is the market channel: "type" must be "market"' };
  const op = operationOf(msg);
  if (!op.ok) return op;
  if (msg['assets_ids'] === undefined) return { ok: false, message: '"assets_ids" (array of token ids) is required' };
  const assets = idList(msg['assets_ids'], 'assets_ids', MAX_ASSETS_PER_CONNECTION);
  if (!assets.ok) return assets;
  const custom = optBool(msg, 'custom_feature_enabled');
  if (!custom.ok) return custom;
  const dump = optBool(msg, 'initial_dump');
  if (!dump.ok) return dump;
  if (msg['markets'] !== undefined && !Array.isArray(msg['markets']))
    return { ok: false, message: '"markets" must be an array' };
  const out: MarketRequest = { op: op.value, assets: [...new Set(assets.value)], initialDump: dump.value ?? true };
  if (custom.value !== undefined) out.custom = custom.value;
  return { ok: true, value: out };
}

/**
 * A user-channel message: `{"auth": {apiKey, secret, passphrase}, "markets": [...], "type": "user"}`
 * first, then `{"markets": [...], "operation": "subscribe"|"unsubscribe"}`.
 */
export function parseUserRequest(msg: Record<string, unknown>): Parsed<UserRequest> {
  const ch = channelOf(msg);
  if (!ch.ok) return ch;
  if (ch.value === 'market') return { ok: false, message: 'this is the user channel: "type" must be "user"' };
  const op = operationOf(msg);
  if (!op.ok) return op;
  let markets: string[] = [];
  if (msg['markets'] !== undefined && msg['markets'] !== null) {
    const m = idList(msg['markets'], 'markets', MAX_MARKETS_PER_MESSAGE);
    if (!m.ok) return m;
    markets = [...new Set(m.value.map((x) => x.toLowerCase()))];
  }
  const out: UserRequest = { op: op.value, markets };
  const a = msg['auth'];
  if (a !== undefined) {
    if (a === null || typeof a !== 'object' || Array.isArray(a))
      return { ok: false, message: '"auth" must be an object {apiKey, secret, passphrase}' };
    const r = a as Record<string, unknown>;
    const apiKey = r['apiKey'] ?? r['key'];
    const { secret, passphrase } = r;
    if (typeof apiKey !== 'string' || typeof secret !== 'string' || typeof passphrase !== 'string')
      return { ok: false, message: '"auth" needs string fields apiKey, secret and passphrase' };
    out.auth = { apiKey, secret, passphrase };
  }
  return { ok: true, value: out };
}
