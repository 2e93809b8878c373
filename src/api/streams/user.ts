/**
 * The user channel (`{ws_url}/ws/user`) as an Observable of the user's own order updates and fills.
 *
 * Subscribes with `{"auth": {apiKey, secret, passphrase}, "markets": [...], "type": "user"}` on every
 * (re)connect (the frame carries secrets: it is never logged). The venue does not replay what was
 * missed while disconnected, so after every reconnect, once the server has confirmed the
 * subscription (so nothing can fall between the two), the injected `reconcile()` is called (in
 * production: the CLOB client's /data/orders and /data/trades, plus /data/order/{id} for the ids it
 * is given) and the order and fill events it reveals are emitted, deduplicated against what the
 * stream already delivered, then `resynced`. Sequence: `disconnected` → (live events, reconciled
 * events, in any interleaving, none twice) → `resynced`. A failed reconciliation is a
 * `stream_error` and is retried with backoff while the connection lasts.
 *
 * A connection can also stay open and answer PINGs while it delivers nothing (or orders but not
 * trades: a known failure of the public service's user channel), and an account may be quiet for
 * hours, so silence proves nothing. With `auditMs`, while synced, the account's open orders, the
 * orders last seen open and the trades since the previous audit are asked for (`reconcile` with
 * reason 'audit') every `auditMs`, and what the stream has not delivered (a fill, an order filled
 * or cancelled) is emitted, deduplicated like the rest: never twice, never a state going back.
 * The audit warns only of fills the channel missed: not of a later status of a fill it delivered,
 * nor of one recorded before this session (`recordedFill`: the store's, after a restart).
 */
import { Observable, share } from 'rxjs';
import { LiveClock, type Clock, type TimerHandle } from '../../core/clock.ts';
import type { FillEvent, OrderUpdateEvent, UserEvent } from '../../core/events.ts';
import type { FeeProtocol } from '../../core/fees.ts';
import { formatAmount, formatPrice } from '../../core/units.ts';
import {
  backoffDelay,
  DEFAULT_BACKOFF,
  reconnectingSocket,
  type BackoffPolicy,
  type SocketSignal,
  type SocketStats,
  type StreamLogger,
  type WsFactory,
} from './socket.ts';
import { serverErrorReason } from './market-decode.ts';
import {
  fillsOf,
  keysOtherAccount,
  orderEvent,
  othersOrder,
  orderMessageSchema,
  orderRecordSchema,
  parseWith,
  tradeMessageSchema,
  tradeRecordSchema,
  UserDedupe,
  type UserIdentity,
} from './user-decode.ts';

/** The API key set of `POST /auth/api-key`. */
export interface UserCreds {
  apiKey: string;
  secret: string;
  passphrase: string;
}

/** What `reconcile()` is told. */
export interface ReconcileContext {
  /** 'reconnect'; 'start' when `reconcileOnStart` is set; 'audit' for the periodic check (`auditMs`) while connected. */
  reason: 'reconnect' | 'start' | 'audit';
  /**
   * Local time (unix ms) up to which the stream is known to have delivered everything: the last
   * data or confirmed subscription before the gap. Fetch trades from a little before it.
   */
  since: number;
  /** Orders last seen open: look up those missing from /data/orders (filled or cancelled meanwhile). */
  openOrderIds: readonly string[];
  /** Aborted when the connection is lost again or the stream closes. */
  signal: AbortSignal;
}

/**
 * What `reconcile()` answers: raw records as the venue's REST API gives them (validated here):
 * orders as /data/orders and /data/order/{id} render them, trades as /data/trades does.
 */
export interface ReconcileResult {
  orders: readonly unknown[];
  trades: readonly unknown[];
}

export interface UserStreamOptions {
  /** The channel's URL, e.g. `${ws_url}/ws/user`. */
  url: string;
  creds: UserCreds;
  /** Condition ids to follow; empty or absent: every market. */
  markets?: readonly string[];
  /** The account's address (also recognises own maker orders by maker_address). */
  address?: string;
  /** Fetches the orders and trades the stream may have missed (see ReconcileContext). */
  reconcile: (ctx: ReconcileContext) => Promise<ReconcileResult>;
  /** Also reconcile after the first connection (emits the account's current state). Default false. */
  reconcileOnStart?: boolean;
  /** Data silence after which the connection is replaced (and reconciled), ms (default 30 s; 0 disables). */
  silenceMs?: number;
  /**
   * A fill this client does not book (a fleet member's view of another member's fill: in that
   * member's ledger). Still emitted (the consumer drops it), but an audit's warning about fills the
   * channel had not delivered counts it apart (`otherMembers`), never as one of this client's.
   */
  othersFill?: (fill: FillEvent) => boolean;
  /**
   * A fill already recorded before this stream knew of it: in production, one the store holds (its
   * trade id and order id), i.e. the previous session's (now moving MATCHED -> CONFIRMED) or the
   * restart backfill's. Still emitted (the consumer's store dedupes it), but no fill the channel
   * missed: an audit counts it apart (debug), never in its warning. Read before the fill is emitted.
   * Absent: the stream knows only what this session delivered.
   */
  recordedFill?: (fill: FillEvent) => boolean;
  /** While synced, reconcile every this many ms (open orders, orders last seen open, trades since the last audit) and emit what the stream missed (default 0: off). */
  auditMs?: number;
  /**
   * The order protocol the venue charges taker fees under (core/fees.ts): when given, every fill
   * carries the fee the venue charged (user-decode.ts `tradeTakerFee`); absent, the rate only.
   */
  feeProtocol?: FeeProtocol;
  /** PING interval, ms (default 10 s). */
  pingIntervalMs?: number;
  backoff?: Partial<BackoffPolicy>;
  connectTimeoutMs?: number;
  healthyAfterMs?: number;
  /** Entries remembered per kind for dedupe (default 100,000). */
  dedupeCapacity?: number;
  clock?: Clock;
  random?: () => number;
  logger?: StreamLogger;
  createSocket?: WsFactory;
}

/** Counters of a user stream. */
export interface UserStreamStats {
  socket: Readonly<SocketStats>;
  /** Messages and records refused (bad frames). */
  badFrames: number;
  /** Error frames from the venue (e.g. UNAUTHORIZED). */
  serverErrors: number;
  /** Events suppressed as already emitted. */
  duplicates: number;
  /** Reconciliations completed / failed. */
  reconciles: number;
  reconcileFailures: number;
  /** Events revealed by reconciliations (missed by the stream). */
  recovered: number;
  /** Audits completed / failed, and the events (fills and order updates) they revealed (also counted in `recovered`). */
  audits: number;
  auditFailures: number;
  auditRecovered: number;
}

/** A live user-channel client. */
export interface UserStream {
  /** Own order and fill events. Subscribing connects (shared); `close()` completes. */
  readonly events$: Observable<UserEvent>;
  /** Follows more markets (condition ids). */
  subscribe(markets: readonly string[]): void;
  /** Stops following markets. (Unsubscribing every listed market leaves an empty list: all markets on reconnect.) */
  unsubscribe(markets: readonly string[]): void;
  stats(): UserStreamStats;
  /** Closes the socket, aborts a reconciliation, completes `events$`. Idempotent. */
  close(): void;
}

/** An audit leaves fills younger than this (venue time) to the stream, ms: ordinary lag is not a miss. */
export const AUDIT_GRACE_MS = 5_000;

/** The recovered fills an audit's warning names, at most (the count says how many more). */
export const AUDIT_FILLS_LOGGED = 10;

/** A fill recovered by an audit as its warning names it: where, which trade and order, how much (decimals). */
function recoveredFillFields(f: FillEvent): Record<string, string> {
  return {
    market: f.market,
    token: f.tokenId,
    trade: f.tradeId,
    order: f.orderId,
    side: f.side,
    size: formatAmount(f.size),
    price: formatPrice(f.price),
    status: f.status,
  };
}

/** Creates a user-channel client (see the module comment). Nothing connects until `events$` is subscribed. */
export function userStream(o: UserStreamOptions): UserStream {
  const clock = o.clock ?? new LiveClock();
  const random = o.random ?? Math.random;
  const backoff: BackoffPolicy = { ...DEFAULT_BACKOFF, ...(o.backoff ?? {}) };
  const markets = new Set<string>(o.markets ?? []);
  const me: UserIdentity = { apiKey: o.creds.apiKey, ...(o.address ? { address: o.address.toLowerCase() } : {}) };
  const dedupe = new UserDedupe(o.dedupeCapacity ?? 100_000);
  const counters = {
    badFrames: 0,
    serverErrors: 0,
    duplicates: 0,
    reconciles: 0,
    reconcileFailures: 0,
    recovered: 0,
    audits: 0,
    auditFailures: 0,
    auditRecovered: 0,
  };
  const auditMs = o.auditMs ?? 0;
  if (!Number.isFinite(auditMs) || auditMs < 0)
    throw new RangeError(`auditMs must be a finite number >= 0, got ${auditMs}`);

  const sock = reconnectingSocket({
    url: o.url,
    stream: 'user',
    openFrames: () => [
      JSON.stringify({
        auth: { apiKey: o.creds.apiKey, secret: o.creds.secret, passphrase: o.creds.passphrase },
        markets: [...markets],
        type: 'user',
      }),
    ],
    pingIntervalMs: o.pingIntervalMs ?? 10_000,
    silenceMs: o.silenceMs ?? 30_000,
    clock,
    random,
    ...(o.backoff ? { backoff: o.backoff } : {}),
    ...(o.connectTimeoutMs !== undefined ? { connectTimeoutMs: o.connectTimeoutMs } : {}),
    ...(o.healthyAfterMs !== undefined ? { healthyAfterMs: o.healthyAfterMs } : {}),
    ...(o.logger ? { logger: o.logger } : {}),
    ...(o.createSocket ? { createSocket: o.createSocket } : {}),
  });

  let emit: ((e: UserEvent) => void) | undefined;
  let up = false;
  let initialDone = false;
  let since = clock.now(); // everything before this was delivered
  let conn = 0; // connection generation (bumped on every loss)
  let abort: AbortController | undefined;
  let retryTimer: TimerHandle | undefined;
  let auditTimer: TimerHandle | undefined;
  let auditAbort: AbortController | undefined;
  let auditSince: number | undefined; // trades before this were audited (or delivered before the first sync)

  const streamError = (reason: string, at: number) =>
    emit?.({ type: 'stream_error', stream: 'user', reason, venueTime: at, recvTime: at });
  const badRecord = (reason: string, at: number) => {
    counters.badFrames++;
    if (o.logger && (counters.badFrames <= 10 || counters.badFrames % 1000 === 0))
      o.logger.warn({ stream: 'user', reason, badFrames: counters.badFrames }, 'bad user message (skipped)');
    streamError(`bad message: ${reason}`, at);
  };
  const emitOrder = (e: OrderUpdateEvent): boolean => {
    if (!dedupe.order(e.id, e.status, e.sizeMatched)) {
      counters.duplicates++;
      return false;
    }
    emit?.(e);
    return true;
  };
  const emitFill = (e: FillEvent): boolean => {
    if (!dedupe.fill(e.tradeId, e.orderId, e.status)) {
      counters.duplicates++;
      return false;
    }
    emit?.(e);
    return true;
  };
  const resynced = (at: number) => {
    up = true;
    since = Math.max(since, at);
    auditSince ??= since;
    emit?.({ type: 'resynced', stream: 'user', initial: !initialDone, venueTime: at, recvTime: at });
    initialDone = true;
    scheduleAudit();
  };

  const onMessage = (msg: unknown, recvTime: number) => {
    if (up) since = recvTime; // while synced, everything up to here has arrived
    const type =
      typeof msg === 'object' && msg !== null && !Array.isArray(msg)
        ? (msg as Record<string, unknown>)['event_type']
        : undefined;
    if (type === 'order') {
      const r = parseWith(orderMessageSchema, msg);
      if (!r.ok) return badRecord(`order: ${r.reason}`, recvTime);
      // an order of another account of the same API key (the EOA's own, when the user is its Safe): not ours
      if (othersOrder(r.value, me)) return;
      emitOrder(orderEvent(r.value, r.value.type, 'stream', recvTime));
    } else if (type === 'trade') {
      const r = parseWith(tradeMessageSchema, msg);
      if (!r.ok) return badRecord(`trade: ${r.reason}`, recvTime);
      const fills = fillsOf(r.value, me, 'stream', recvTime, o.feeProtocol);
      if (fills.length === 0) {
        // a trade of another account of the same API key (the EOA's own, when the user is its Safe): not ours
        if (keysOtherAccount(r.value, me)) return;
        return badRecord("trade: none of its orders is recognisably the user's", recvTime);
      }
      for (const f of fills) emitFill(f);
    } else if (type === 'error') {
      counters.serverErrors++;
      const reason = serverErrorReason(msg);
      o.logger?.warn({ stream: 'user', reason }, 'error frame from the user channel');
      streamError(`venue error: ${reason}`, recvTime);
    } else if (typeof type === 'string') {
      // an event kind this client does not know: ignored
    } else badRecord('a message must be a JSON object with event_type', recvTime);
  };

  /** `o.recordedFill`; a predicate that throws (a store closing) answers no: then the audit warns, the safe side. */
  const isRecorded = (f: FillEvent): boolean => {
    try {
      return o.recordedFill?.(f) === true;
    } catch {
      return false;
    }
  };

  /**
   * Applies a reconciliation's records: fills first (by venue time), then order states (a listing
   * older than what the stream delivered meanwhile changes nothing: the dedupe never emits a state
   * going backwards, nor anything after a terminal one). Returns how many events were new.
   */
  const applyReconciled = (
    res: ReconcileResult,
    at: number,
    what = 'reconciled',
    audit?: { fillsBefore: number },
  ): {
    fills: number;
    others: number;
    outside: number;
    statuses: number;
    recorded: number;
    orders: number;
    recovered: FillEvent[];
  } => {
    const n = { fills: 0, others: 0, outside: 0, statuses: 0, recorded: 0, orders: 0, recovered: [] as FillEvent[] };
    const fills: FillEvent[] = [];
    for (const t of res.trades ?? []) {
      const r = parseWith(tradeRecordSchema, t);
      if (!r.ok) {
        badRecord(`${what} trade: ${r.reason}`, at);
        continue;
      }
      fills.push(...fillsOf(r.value, me, 'reconcile', at, o.feeProtocol));
    }
    fills.sort((a, b) => a.venueTime - b.venueTime);
    // an audit leaves the youngest fills to the stream (its messages may be on their way: taking
    // them first would count ordinary lag as a miss); the next audit reaches them if it never does
    for (const f of fills) {
      if (audit !== undefined && f.venueTime >= audit.fillsBefore) continue;
      // a later status (MINED, CONFIRMED) of a fill the stream delivered is no missed fill: the
      // venue's status follow-ups fall due about when an audit reaches the trade (confirmation
      // after 5 s on the paper exchange, the audit's grace), so REST may answer first
      const known = dedupe.knowsFill(f.tradeId, f.orderId);
      // nor is a fill recorded before this session (the store's: asked before the emit records it)
      const recorded = !known && audit !== undefined && isRecorded(f);
      if (!emitFill(f)) continue;
      counters.recovered++;
      if (known) n.statuses++;
      else if (recorded) n.recorded++;
      else if (o.othersFill?.(f) === true) n.others++;
      // a trade on a market the channel does not follow (one `reconcile` adds, e.g. a fleet's hand
      // trades outside its markets): the channel never delivers it, so it is no miss of the channel
      else if (markets.size > 0 && !markets.has(f.market)) n.outside++;
      else {
        n.fills++;
        n.recovered.push(f);
      }
    }
    for (const rec of res.orders ?? []) {
      const r = parseWith(orderRecordSchema, rec);
      if (!r.ok) {
        badRecord(`${what} order: ${r.reason}`, at);
        continue;
      }
      const m = r.value;
      if (othersOrder(m, me)) continue; // another account of the same API key
      const kind = m.status === 'CANCELED' ? 'CANCELLATION' : dedupe.knowsOrder(m.id) ? 'UPDATE' : 'PLACEMENT';
      // an audit reports what happened to orders the stream told of (a placement it has not told of
      // yet is most likely on its way; the placer knows its orders from its own requests)
      if (audit !== undefined && kind === 'PLACEMENT') continue;
      if (emitOrder(orderEvent(m, kind, 'reconcile', at))) {
        counters.recovered++;
        n.orders++;
      }
    }
    return n;
  };

  /** `o.reconcile` for the orders open now and the trades since `from`, as a promise (a synchronous throw rejects it). */
  const callReconcile = (
    reason: ReconcileContext['reason'],
    from: number,
    ac: AbortController,
  ): Promise<ReconcileResult> => {
    try {
      return Promise.resolve(
        o.reconcile({ reason, since: from, openOrderIds: dedupe.openOrderIds(), signal: ac.signal }),
      );
    } catch (err) {
      return Promise.reject(err);
    }
  };

  const stopAudit = () => {
    if (auditTimer !== undefined) clock.clearTimeout(auditTimer);
    auditTimer = undefined;
    auditAbort?.abort();
    auditAbort = undefined;
  };
  /** The next audit, `auditMs` from now (one at a time; only while synced: a reconnect reconciles anyway). */
  function scheduleAudit(): void {
    if (auditMs === 0 || auditTimer !== undefined || auditAbort !== undefined || !up || emit === undefined) return;
    auditTimer = clock.setTimeout(() => {
      auditTimer = undefined;
      runAudit();
    }, auditMs);
  }
  const runAudit = () => {
    if (!up || emit === undefined) return;
    const gen = conn;
    const startedAt = clock.now();
    const ac = new AbortController();
    auditAbort = ac;
    callReconcile('audit', auditSince ?? since, ac)
      .then(
        (res) => {
          if (emit === undefined || ac.signal.aborted) return;
          counters.audits++;
          const n = applyReconciled(res, clock.now(), 'audited', { fillsBefore: startedAt - AUDIT_GRACE_MS });
          counters.auditRecovered += n.fills + n.statuses + n.recorded + n.orders;
          if (n.statuses > 0)
            o.logger?.debug?.(
              { stream: 'user', statuses: n.statuses },
              'trade status updates taken from the audit before the user channel delivered them',
            );
          // (fills recorded before this session: the previous run's, the restart backfill's)
          if (n.recorded > 0)
            o.logger?.debug?.(
              { stream: 'user', recorded: n.recorded },
              'fills recorded before this session taken from the audit (status updates: not missed by the channel)',
            );
          // (fills of other fleet members are counted apart: they are not this client's to book)
          if (n.fills > 0)
            o.logger?.warn(
              {
                stream: 'user',
                fills: n.fills,
                ...(n.others > 0 ? { otherMembers: n.others } : {}),
                orders: n.orders,
                recovered: n.recovered.slice(0, AUDIT_FILLS_LOGGED).map(recoveredFillFields),
                ...(n.fills > AUDIT_FILLS_LOGGED ? { more: n.fills - AUDIT_FILLS_LOGGED } : {}),
              },
              'the user channel had not delivered these fills: recovered by the audit',
            );
          else if (n.others > 0)
            o.logger?.debug?.(
              { stream: 'user', otherMembers: n.others, orders: n.orders },
              'fills of other fleet members taken from the audit (in their ledgers: ignored here)',
            );
          else if (n.orders > 0)
            o.logger?.warn(
              { stream: 'user', orders: n.orders },
              'the user channel had not delivered these order updates: recovered by the audit',
            );
          if (n.outside > 0)
            o.logger?.debug?.(
              { stream: 'user', outside: n.outside },
              'fills on markets the user channel does not follow taken from the audit',
            );
          auditSince = startedAt - AUDIT_GRACE_MS;
        },
        (err: unknown) => {
          if (emit === undefined || ac.signal.aborted) return;
          counters.auditFailures++;
          const msg = err instanceof Error ? err.message : String(err);
          o.logger?.warn(
            { stream: 'user', err: msg.slice(0, 200) },
            'user channel audit failed; next one as scheduled',
          );
          streamError(`audit failed: ${msg.slice(0, 200)}`, clock.now());
        },
      )
      .finally(() => {
        if (auditAbort === ac) auditAbort = undefined;
        if (gen === conn) scheduleAudit();
      })
      // a subscriber that threw while taking the fills: reported, never an unhandled rejection
      .catch((err: unknown) =>
        o.logger?.warn(
          { stream: 'user', err: (err instanceof Error ? err.message : String(err)).slice(0, 200) },
          'user channel audit: a subscriber threw',
        ),
      );
  };

  const clearRetry = () => {
    if (retryTimer !== undefined) clock.clearTimeout(retryTimer);
    retryTimer = undefined;
  };

  const runReconcile = (reason: ReconcileContext['reason'], attempt: number) => {
    const gen = conn;
    const ac = new AbortController();
    abort = ac;
    callReconcile(reason, since, ac).then(
      (res) => {
        if (emit === undefined) return;
        if (gen !== conn) {
          // the connection was lost meanwhile: the records are still facts (emitted once); the
          // reconciliation after the next connection decides the resync
          applyReconciled(res, clock.now());
          return;
        }
        counters.reconciles++;
        const at = clock.now();
        applyReconciled(res, at);
        if (gen === conn) resynced(at);
      },
      (err: unknown) => {
        if (gen !== conn || emit === undefined) return;
        counters.reconcileFailures++;
        const msg = err instanceof Error ? err.message : String(err);
        o.logger?.warn({ stream: 'user', err: msg.slice(0, 200), attempt }, 'reconciliation failed; retrying');
        streamError(`reconcile failed: ${msg.slice(0, 200)}`, clock.now());
        const delay = backoffDelay(attempt, backoff, random());
        retryTimer = clock.setTimeout(() => {
          retryTimer = undefined;
          if (gen === conn && emit !== undefined) runReconcile(reason, attempt + 1);
        }, delay);
      },
    );
  };

  const onSignal = (s: SocketSignal) => {
    switch (s.kind) {
      case 'message':
        return onMessage(s.msg, s.recvTime);
      case 'bad_frame':
        return badRecord(s.reason, s.recvTime);
      case 'open':
        return;
      case 'ready':
        if (s.reconnect) runReconcile('reconnect', 0);
        else if (o.reconcileOnStart) runReconcile('start', 0);
        else {
          since = Math.max(since, s.at);
          resynced(s.at);
        }
        return;
      case 'down':
        conn++;
        clearRetry();
        stopAudit();
        abort?.abort();
        abort = undefined;
        if (up) {
          up = false;
          emit?.({ type: 'disconnected', stream: 'user', reason: s.reason, venueTime: s.at, recvTime: s.at });
        } else streamError(`connection attempt failed: ${s.reason}`, s.at);
        return;
    }
  };

  const events$ = new Observable<UserEvent>((sub) => {
    emit = (e) => sub.next(e);
    const inner = sock.signals$.subscribe({ next: onSignal, complete: () => sub.complete() });
    return () => {
      inner.unsubscribe();
      emit = undefined;
      conn++;
      clearRetry();
      stopAudit();
      abort?.abort();
      abort = undefined;
      up = false;
    };
  }).pipe(share());

  return {
    events$,
    subscribe(ids) {
      const fresh = [...new Set(ids)].filter((m) => !markets.has(m));
      if (fresh.length === 0) return;
      for (const m of fresh) markets.add(m);
      sock.send(JSON.stringify({ markets: fresh, operation: 'subscribe' }));
    },
    unsubscribe(ids) {
      const gone = [...new Set(ids)].filter((m) => markets.has(m));
      if (gone.length === 0) return;
      for (const m of gone) markets.delete(m);
      sock.send(JSON.stringify({ markets: gone, operation: 'unsubscribe' }));
    },
    stats: () => ({ socket: sock.stats, ...counters }),
    close() {
      conn++;
      clearRetry();
      stopAudit();
      abort?.abort();
      abort = undefined;
      sock.close();
    },
  };
}
