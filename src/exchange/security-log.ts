/**
 * The paper exchange's security log: failed authentication, refused orders with their reason,
 * admin actions and rate-limit trips, each as one structured pino line (message: the kind) under
 * `component: "security"`, counted by kind and kept in a short ring for tests and `GET /admin/security`.
 * When the logger given already names a component (the bot's in-process exchange logs under
 * `component: "exchange"`), the lines say `log: "security"` instead: a JSON line never holds a key twice.
 *
 * Level: warn, except routine events (`record(e, 'debug')`): a cancel of an order already
 * cancelled or matched is an ordinary race of a market maker, not an attack; it is counted and kept
 * in the ring like the rest, and logged at debug; so is an order refused for balance (a business
 * refusal: the account's state, not an attack).
 *
 * Never a secret: an event carries the route, the client address, the CLAIMED key id (its first 8
 * characters only, `keyTag`: with the spec's Bearer form the key alone logs you in) and a reason;
 * never a secret, passphrase, signature, admin token, body or whole API key. Every path that names a
 * key tags it (HTTP: http/security-hooks.ts; the user channel: ws/user.ts), and `record` cuts any
 * whole key id (a UUID) left in an event's strings all the same. Every string is bounded, so a
 * hostile client cannot grow the log's lines.
 */
import type { Logger } from 'pino';

export type SecurityEventKind =
  /** An L1/L2 header set that did not verify (or was malformed / overlong). */
  | 'auth_failed'
  /** An order (or cancel) refused by the exchange, with its error code. */
  | 'order_refused'
  /** A request to an /admin route: accepted or refused. */
  | 'admin'
  /** A request refused 429 by the rate limiter. */
  | 'rate_limited'
  /** A WebSocket refused or closed for abuse (connection cap, auth deadline, message budget, idle). */
  | 'ws_refused';

export interface SecurityEvent {
  kind: SecurityEventKind;
  /** Method and path (`POST /clob/order`) or the socket's path. */
  route?: string;
  /** Client address (the socket's remote address). */
  ip?: string;
  /** The claimed address and/or API key (as `keyTag` shows it, never whole): bounded. */
  identity?: string;
  /** Error code or short reason (`UNAUTHORIZED`, `INVALID_ORDER_OWNER`, `connection cap`). */
  reason: string;
  /** Admin action taken (`POST /admin/funders`), or the refused rule's name. */
  detail?: string;
}

/** How loud an event is logged: warn, or debug for a routine one (a cancel race, a balance refusal). */
export type SecurityLogLevel = 'warn' | 'debug';

export interface SecurityLog {
  record(e: SecurityEvent, level?: SecurityLogLevel): void;
  /** Events per kind since start. */
  counts(): Readonly<Record<SecurityEventKind, number>>;
  /** The most recent events (oldest first), at most `RING` of them. */
  recent(): readonly SecurityEvent[];
}

const RING = 1000;
const MAX_FIELD = 64;
const MAX_REASON = 200;

/** A key id as the log shows it: `key:` and its first 8 characters (a short or odd claim: its length only). */
export function keyTag(key: string): string {
  return key.length >= 16 ? `key:${key.slice(0, 8)}…` : `key:…(${key.length})`;
}

/** A whole API key id (the exchange's keys are UUIDs): never written whole. */
const WHOLE_KEY = /\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;

/** Bounded to `n` characters, any whole key id cut to its first 8 (a path that forgot keyTag leaks nothing). */
const bound = (s: string | undefined, n: number): string | undefined => {
  if (s === undefined) return undefined;
  const t = s.replace(WHOLE_KEY, '$1…');
  return t.length > n ? `${t.slice(0, n)}…(${t.length})` : t;
};

export function createSecurityLog(logger?: Logger): SecurityLog {
  // pino writes a child's bindings after its parent's: a second `component` would be a duplicate key
  const log =
    logger === undefined
      ? undefined
      : 'component' in logger.bindings()
        ? logger.child({ log: 'security' })
        : logger.child({ component: 'security' });
  const counts: Record<SecurityEventKind, number> = {
    auth_failed: 0,
    order_refused: 0,
    admin: 0,
    rate_limited: 0,
    ws_refused: 0,
  };
  const ring: SecurityEvent[] = [];
  return {
    record(e, level = 'warn') {
      const ev: SecurityEvent = { kind: e.kind, reason: bound(e.reason, MAX_REASON) ?? '' };
      if (e.route !== undefined) ev.route = bound(e.route, MAX_REASON);
      if (e.ip !== undefined) ev.ip = bound(e.ip, MAX_FIELD);
      if (e.identity !== undefined) ev.identity = bound(e.identity, MAX_FIELD);
      if (e.detail !== undefined) ev.detail = bound(e.detail, MAX_REASON);
      counts[ev.kind]++;
      ring.push(ev);
      if (ring.length > RING) ring.splice(0, ring.length - RING);
      // the message is the kind alone: the component (or `log`) says it is the security log
      log?.[level]({ security: ev }, ev.kind);
    },
    counts: () => counts,
    recent: () => ring,
  };
}
