/**
 * The user channel (`/ws/user`): a user's own orders and trades. The first message authenticates
 * with the API key's credentials (`{"auth": {apiKey, secret, passphrase}, "markets": [...],
 * "type": "user"}`); a wrong or unknown key gets an error frame and close 1008 (and an `auth_failed`
 * line in the security log naming the claimed key by its first 8 characters). The frame carries secrets: nothing here
 * logs them. A socket that does not authenticate within the auth timeout is closed by index.ts.
 *
 * Events go to every connection authenticated for the ADDRESS (account) concerned, filtered by
 * market (condition id; an empty list on the first message means all markets):
 *  - `order` (type PLACEMENT | UPDATE | CANCELLATION) for the account's orders: the REST order
 *    record (renderOrder) plus event_type, type, order_owner and timestamp (unix seconds string).
 *  - `trade` for the taker and for every maker account of a match: the REST trade record
 *    (renderTrade, so REST and WS agree, with trader_side TAKER or MAKER), plus type "TRADE",
 *    matchtime, trade_owner (the connection's own key) and timestamp. Status MATCHED at once, then
 *    MINED at matchTime + minedMs and CONFIRMED at matchTime + confirmedMs (exchange clock). The
 *    status follow-ups are scheduled only for trades that had a subscriber when they matched and go
 *    to whoever is subscribed when they fall due.
 * Other users' API keys never appear: renderOrder/renderTrade alias every owner but the viewer's.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { TimerHandle } from '../../core/clock.ts';
import type { ApiKeyRecord } from '../accounts/keys.ts';
import type { ExchangeEvent, PaperExchange, TradeStatus } from '../exchange.ts';
import { renderOrder, renderTrade } from '../http/render.ts';
import type { OrderState, Trade } from '../matching/types.ts';
import { keyTag, type SecurityLog } from '../security-log.ts';
import { frame, type Gate, type StreamConn } from './conn.ts';
import { MAX_MARKETS_PER_CONNECTION, parseUserRequest } from './protocol.ts';

interface UserClient {
  conn: StreamConn;
  key: ApiKeyRecord | undefined; // undefined until authenticated
  /** 'all': every market except `markets`; 'some': only `markets`. */
  mode: 'all' | 'some';
  markets: Set<string>;
}

type Ev = Record<string, unknown>;

const ORDER_TYPE: Record<'order_placed' | 'order_updated' | 'order_canceled', string> = {
  order_placed: 'PLACEMENT',
  order_updated: 'UPDATE',
  order_canceled: 'CANCELLATION',
};

/** Compares two secrets in time independent of where they differ (and of their lengths). */
export function secretEquals(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a, 'utf8').digest();
  const hb = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(ha, hb);
}

const secs = (ms: number): string => String(Math.floor(ms / 1000));

/** Authentication, market filters and fan-out of the user channel (see the module comment). */
export class UserChannel {
  private readonly clients = new Map<StreamConn, UserClient>();
  private readonly byAccount = new Map<string, Set<UserClient>>();
  private readonly timers = new Set<TimerHandle>();

  constructor(
    private readonly ex: PaperExchange,
    private readonly gate: () => Gate,
    private readonly security?: SecurityLog,
  ) {}

  /** True once the connection has authenticated. */
  isAuthenticated(conn: StreamConn): boolean {
    return this.clients.get(conn)?.key !== undefined;
  }

  get size(): number {
    return this.clients.size;
  }

  /** Status follow-ups (MINED, CONFIRMED) waiting to fire. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  add(conn: StreamConn): void {
    this.clients.set(conn, { conn, key: undefined, mode: 'all', markets: new Set() });
  }

  remove(conn: StreamConn): void {
    const c = this.clients.get(conn);
    if (c === undefined) return;
    this.clients.delete(conn);
    if (c.key !== undefined) {
      const set = this.byAccount.get(c.key.address);
      set?.delete(c);
      if (set?.size === 0) this.byAccount.delete(c.key.address);
    }
  }

  /** Cancels the pending status timers (the streams are closing). */
  close(): void {
    for (const t of this.timers) this.ex.clock.clearTimeout(t);
    this.timers.clear();
  }

  /** A parsed JSON message of a user client. */
  handle(conn: StreamConn, msg: Record<string, unknown>): void {
    const c = this.clients.get(conn);
    if (c === undefined) return;
    const r = parseUserRequest(msg);
    if (c.key === undefined) {
      // the first message must authenticate; never echo what it carried
      if (!r.ok) return this.refuse(conn, r.message, 'malformed auth message');
      const a = r.value.auth;
      if (a === undefined)
        return this.refuse(
          conn,
          'authentication required: the first message carries "auth": {apiKey, secret, passphrase}',
          'no credentials',
        );
      const rec = this.ex.keys.get(a.apiKey);
      const ok = rec !== undefined && secretEquals(a.secret, rec.secret) && secretEquals(a.passphrase, rec.passphrase);
      if (!ok || rec === undefined) return this.refuse(conn, 'invalid API credentials', 'UNAUTHORIZED', a.apiKey);
      c.key = rec;
      let set = this.byAccount.get(rec.address);
      if (set === undefined) this.byAccount.set(rec.address, (set = new Set()));
      set.add(c);
      c.mode = r.value.markets.length === 0 ? 'all' : 'some';
      c.markets = new Set(r.value.markets);
      return;
    }
    if (!r.ok) return conn.error('BAD_REQUEST', r.message);
    const { op, markets } = r.value;
    // the set grows when a 'some' connection subscribes or an 'all' one unsubscribes: at most
    // MAX_MARKETS_PER_CONNECTION ids (security review 49 F4: uncapped, one account's sockets grew the heap 10 MiB/s)
    if (markets.length > 0 && (op === 'subscribe') === (c.mode === 'some')) {
      let adding = 0;
      for (const m of markets) if (!c.markets.has(m)) adding++;
      if (c.markets.size + adding > MAX_MARKETS_PER_CONNECTION)
        return conn.error(
          'LIMIT_EXCEEDED',
          `a connection keeps at most ${MAX_MARKETS_PER_CONNECTION} market ids (${c.markets.size} now, ${adding} more asked)`,
        );
    }
    if (op === 'subscribe') {
      if (markets.length === 0) {
        c.mode = 'all';
        c.markets.clear();
      } else if (c.mode === 'all') for (const m of markets) c.markets.delete(m);
      else for (const m of markets) c.markets.add(m);
    } else {
      if (markets.length === 0) {
        c.mode = 'some';
        c.markets.clear();
      } else if (c.mode === 'all') for (const m of markets) c.markets.add(m);
      else for (const m of markets) c.markets.delete(m);
    }
  }

  private refuse(conn: StreamConn, message: string, reason: string, apiKey?: string): void {
    // the claimed key by its first 8 characters only (with Bearer auth the key alone logs you in),
    // as the HTTP side logs it; the secret and passphrase never leave
    this.security?.record({
      kind: 'auth_failed',
      route: conn.origin.route,
      ip: conn.origin.ip,
      ...(apiKey !== undefined ? { identity: keyTag(apiKey) } : {}),
      reason,
    });
    conn.error('UNAUTHORIZED', message);
    conn.close(1008, 'authentication failed');
  }

  private follows(c: UserClient, market: string): boolean {
    return c.mode === 'all' ? !c.markets.has(market) : c.markets.has(market);
  }

  /** Clients of `account` following `market`, with a key that still exists. */
  private audience(account: string, market: string): UserClient[] {
    const set = this.byAccount.get(account);
    if (set === undefined) return [];
    const out: UserClient[] = [];
    for (const c of set) {
      if (!this.follows(c, market)) continue;
      if (this.ex.keys.get(c.key!.apiKey) === undefined) {
        // the key was deleted: its streams end
        c.conn.error('UNAUTHORIZED', 'the API key was deleted');
        c.conn.close(1008, 'API key deleted');
        continue;
      }
      out.push(c);
    }
    return out;
  }

  /** Fans one exchange batch out to the accounts concerned. */
  onEvents(events: readonly ExchangeEvent[]): void {
    if (this.byAccount.size === 0) return;
    let gate: Gate | undefined;
    for (const e of events) {
      if (e.type === 'order_placed' || e.type === 'order_updated' || e.type === 'order_canceled') {
        const o = e.order;
        const to = this.audience(o.account, o.market);
        if (to.length === 0) continue;
        gate ??= this.gate();
        for (const c of to)
          c.conn.data(
            frame(JSON.stringify(orderEvent(o, ORDER_TYPE[e.type], c.key!.apiKey, e.at, this.ex.opts.gtdThresholdSec))),
            gate,
          );
      } else if (e.type === 'trade') {
        const t = e.trade;
        const accounts = tradeAccounts(t);
        let any = false;
        for (const a of accounts) {
          const to = this.audience(a, t.market);
          if (to.length === 0) continue;
          any = true;
          gate ??= this.gate();
          this.sendTrade(t, a, to, 'MATCHED', e.at, gate);
        }
        if (any) this.schedule(t);
      }
    }
  }

  private sendTrade(t: Trade, account: string, to: UserClient[], status: TradeStatus, at: number, gate: Gate): void {
    const rec = this.ex.trade(t.id);
    if (rec === undefined) return;
    for (const c of to) {
      const body = renderTrade(this.ex, rec, account, c.key!.apiKey);
      const ev: Ev = {
        event_type: 'trade',
        type: 'TRADE',
        ...body,
        status,
        matchtime: body['match_time'],
        last_update: secs(at),
        trade_owner: c.key!.apiKey,
        timestamp: secs(at),
      };
      c.conn.data(frame(JSON.stringify(ev)), gate);
    }
  }

  /** MINED and CONFIRMED follow-ups of a trade, on the exchange clock. */
  private schedule(t: Trade): void {
    const steps: Array<[TradeStatus, number]> = [
      ['MINED', this.ex.opts.minedMs],
      ['CONFIRMED', this.ex.opts.confirmedMs],
    ];
    for (const [status, after] of steps) {
      const h = this.ex.clock.setTimeout(
        () => {
          this.timers.delete(h);
          const now = this.ex.clock.now();
          let gate: Gate | undefined;
          for (const a of tradeAccounts(t)) {
            const to = this.audience(a, t.market);
            if (to.length === 0) continue;
            gate ??= this.gate();
            this.sendTrade(t, a, to, status, now, gate);
          }
        },
        Math.max(0, t.matchTime + after - this.ex.clock.now()),
      );
      this.timers.add(h);
    }
  }
}

/** The taker and every maker account of a trade, each once, taker first. */
function tradeAccounts(t: Trade): string[] {
  const out = [t.takerAccount];
  for (const m of t.makers) if (!out.includes(m.account)) out.push(m.account);
  return out;
}

function orderEvent(o: OrderState, type: string, viewerKey: string, at: number, gtdThresholdSec: number): Ev {
  const r = renderOrder(o, viewerKey, gtdThresholdSec);
  return { event_type: 'order', type, ...r, order_owner: r['owner'], timestamp: secs(at) };
}
