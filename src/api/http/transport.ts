/**
 * The HTTP transport under every typed client (the `Transport` of ./types.ts).
 *
 * For each request: the body is serialised ONCE; each attempt waits for the endpoint's budget
 * (budgets.ts), signs those exact bytes (L2 HMAC with a fresh timestamp, Bearer, or L1), and sends
 * them on a keep-alive undici Pool (one per origin) with a timeout and the caller's AbortSignal;
 * the answer is unwrapped from either envelope, validated with the caller's zod schema, or mapped
 * to the error tree of src/core/errors.ts; failures are retried per retry.ts. A retry re-sends the
 * same bytes: a signed order is never re-signed here (its id is its hash; the venue refuses the
 * second copy as INVALID_ORDER_DUPLICATED, and the CLOB client resolves it by id).
 *
 * Envelopes: `{success: true, data}` becomes `data`. When the envelope carries facts beside `data`
 * (a page of the data or content API: `{success, data: [...], count, limit, offset, total,
 * next_cursor}`), it becomes that object without `success`, so list schemas see
 * `{data, next_cursor, ...}` in both APIs, like a CLOB cursor page. Anything else is taken as is.
 *
 * Timeouts are per attempt and soft: the caller gets a TimeoutError on time, but the request is
 * left to finish in the background (its late answer dropped, its budget slot held until then),
 * because it may land anyway; it is torn down after `abandonAfterMs`. The caller's AbortSignal
 * cancels at once, wherever the request is (queued, waiting for its budget, in flight, or
 * sleeping before a retry): `request` then rejects with the signal's reason.
 *
 * Secrets (API secret, passphrase, the API key used as a Bearer token) never appear in errors or
 * logs; headers are never logged.
 */
import { Pool } from 'undici';
import type { z } from 'zod';
import { LiveClock, type Clock, type TimerHandle } from '../../core/clock.ts';
import {
  AuthError,
  ConfigError,
  MmkitError,
  NetworkError,
  NotFoundError,
  OrderRejectedError,
  RateLimitError,
  TimeoutError,
  ValidationError,
  VENUE_REJECT_CODES,
  type VenueRejectCode,
} from '../../core/errors.ts';
import { l1Headers, type L1Signer } from '../signing/clob-auth.ts';
import { l2Headers } from '../signing/hmac.ts';
import { Budgets, type BudgetConfig, type BudgetSlot } from './budgets.ts';
import { SIGNER_HEADERS, signerRequestOf } from '../../core/signer-limits.ts';
import { createRetryPolicy, retryAfterFromHeaders, type RetryConfig, type RetryPolicy } from './retry.ts';
import type { ApiName, QueryValue, RequestSpec, Transport } from './types.ts';

/** API credentials issued by L1 (POST /auth/api-key or GET /auth/derive-api-key). */
export interface ApiCredentials {
  apiKey: string;
  secret: string;
  passphrase: string;
}

/** The subset of a pino logger the transport uses. */
export interface LoggerLike {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** Options of `createTransport`. */
export interface TransportOptions {
  /** Base URL per API, e.g. `{clob: 'http://127.0.0.1:8080/clob'}`; paths are appended to it. */
  urls: Partial<Record<ApiName, string>>;
  /** L2 credentials (settable later with `setCredentials`). */
  credentials?: ApiCredentials;
  /** POLY_ADDRESS of L2 requests; default the signer's address. */
  address?: string;
  /** How 'l2' requests authenticate: the venue's HMAC headers (default) or the spec's Bearer token. */
  authMode?: 'l2' | 'bearer';
  /** The wallet for 'l1' requests (an ethers Wallet, or `{signingKey}`). */
  signer?: L1Signer;
  /** Chain id of L1 ClobAuth signatures (default 137). */
  chainId?: number;
  /** Timestamps (clock.now()), timeouts and retry sleeps. Default: the wall clock. */
  clock?: Clock;
  /** Per-attempt timeout, ms (default 10 s); a RequestSpec's timeoutMs wins. */
  timeoutMs?: number;
  /**
   * How long a timed-out request may still run in the background before its connection is torn
   * down, ms (default 60 s). Its late answer is dropped; its budget slot is held until then.
   */
  abandonAfterMs?: number;
  /** Budget configuration, or a Budgets instance to share between transports of one identity. */
  budgets?: BudgetConfig | Budgets;
  retry?: RetryConfig;
  logger?: LoggerLike;
  /**
   * Called as each HTTP attempt leaves (after its budget admitted it), for metrics: never with
   * headers or bodies.
   */
  onSend?: (e: { api: ApiName; method: string; path: string; attempt: number; at: number }) => void;
  /**
   * Called as each HTTP attempt's answer has been read whole, with its round trip in ms from its
   * departure (after its budget admitted it): for metrics (order and cancel round trips); never
   * with headers or bodies. Attempts without an answer (timeouts, connection errors) are not told.
   */
  onAnswer?: (e: { api: ApiName; method: string; path: string; status: number; ms: number }) => void;
  /** A monotonic clock in ms for `onAnswer`'s round trips (default `performance.now`). */
  hrNow?: () => number;
  /** Connections per origin (default 32). */
  connections?: number;
}

/** Transport counters, for metrics and tests. */
export interface TransportStats {
  /** Calls of `request`. */
  requests: number;
  /** HTTP attempts sent (first tries and retries). */
  attempts: number;
  retries: number;
  /** Answers per HTTP status. */
  statuses: Record<number, number>;
  /** Attempts that ended without an answer: timeouts and connection errors. */
  timeouts: number;
  networkErrors: number;
}

/** Extra, optional fields a caller may add to a RequestSpec; other transports ignore them. */
export interface RequestObserver {
  /** Called before each retry with the error of the attempt that failed. */
  onRetry?: (err: MmkitError, attempt: number) => void;
}

/** The transport: the `Transport` contract plus credentials, budgets, counters and shutdown. */
export interface HttpTransport extends Transport {
  readonly budgets: Budgets;
  /** Use these L2 credentials from now on. */
  setCredentials(creds: ApiCredentials | undefined): void;
  /** Whether L2 credentials are set (never returns them). */
  hasCredentials(): boolean;
  /** The POLY_ADDRESS used for L2 (or undefined). */
  readonly address: string | undefined;
  /**
   * The API key id of the credentials (the `owner` of every order the key posts), or undefined.
   * The secret and passphrase are never exposed.
   */
  readonly apiKey: string | undefined;
  stats(): TransportStats;
  /** Reject queued requests and tear down the connections (requests in flight fail). Idempotent. */
  close(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * Build a transport: one per identity (API key), shared by every client of that identity, since the
 * budgets it holds are the identity's (the venue counts per key).
 *
 * `request` throws (src/core/errors.ts): AuthError (401/403, or no credentials / wallet for the
 * auth asked), NotFoundError (404), RateLimitError (429, after the retries), NetworkError
 * (connection failures, 5xx; SERVICE_UNAVAILABLE for 425/503), TimeoutError, OrderRejectedError
 * (a venue refusal, with its code), ValidationError (other 4xx, a malformed answer naming the
 * field, or a body that cannot be serialised), ConfigError (no base URL for the API); or the
 * caller's abort reason.
 * @throws ConfigError when a base URL is not an absolute http(s) URL or a number is out of range.
 */
export function createTransport(opts: TransportOptions): HttpTransport {
  return new UndiciTransport(opts);
}

interface Base {
  origin: string;
  prefix: string;
}

class UndiciTransport implements HttpTransport {
  readonly budgets: Budgets;
  readonly #bases = new Map<ApiName, Base>();
  readonly #pools = new Map<string, Pool>();
  readonly #clock: Clock;
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #abandonAfterMs: number;
  readonly #authMode: 'l2' | 'bearer';
  readonly #signer: L1Signer | undefined;
  readonly #chainId: number;
  readonly #logger: LoggerLike | undefined;
  readonly #connections: number;
  readonly #onSend: TransportOptions['onSend'];
  readonly #onAnswer: TransportOptions['onAnswer'];
  readonly #hrNow: () => number;
  readonly #ownsBudgets: boolean;
  #creds: ApiCredentials | undefined;
  #address: string | undefined;
  #closed = false;
  readonly #stats: TransportStats = {
    requests: 0,
    attempts: 0,
    retries: 0,
    statuses: {},
    timeouts: 0,
    networkErrors: 0,
  };

  constructor(o: TransportOptions) {
    for (const [api, url] of Object.entries(o.urls) as Array<[ApiName, string | undefined]>) {
      if (url === undefined) continue;
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        throw new ConfigError(`urls.${api}`, 'not an absolute URL');
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:')
        throw new ConfigError(`urls.${api}`, 'must be http or https');
      this.#bases.set(api, { origin: u.origin, prefix: u.pathname.replace(/\/+$/, '') });
    }
    this.#clock = o.clock ?? new LiveClock();
    this.#retry = createRetryPolicy(o.retry);
    this.#timeoutMs = o.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(this.#timeoutMs > 0)) throw new ConfigError('timeoutMs', 'must be positive');
    this.#abandonAfterMs = o.abandonAfterMs ?? 60_000;
    if (!(this.#abandonAfterMs > 0)) throw new ConfigError('abandonAfterMs', 'must be positive');
    this.#authMode = o.authMode ?? 'l2';
    this.#signer = o.signer;
    this.#chainId = o.chainId ?? 137;
    this.#logger = o.logger;
    this.#connections = o.connections ?? 32;
    this.#onSend = o.onSend;
    this.#onAnswer = o.onAnswer;
    this.#hrNow = o.hrNow ?? (() => performance.now());
    this.#creds = o.credentials;
    this.#address = o.address ?? o.signer?.address;
    if (o.budgets instanceof Budgets) {
      this.budgets = o.budgets;
      this.#ownsBudgets = false;
    } else {
      this.budgets = new Budgets(o.budgets ?? {}, this.#clock);
      this.#ownsBudgets = true;
    }
  }

  get address(): string | undefined {
    return this.#address;
  }

  get apiKey(): string | undefined {
    return this.#creds?.apiKey;
  }

  setCredentials(creds: ApiCredentials | undefined): void {
    this.#creds = creds;
  }

  hasCredentials(): boolean {
    return this.#creds !== undefined;
  }

  stats(): TransportStats {
    return { ...this.#stats, statuses: { ...this.#stats.statuses } };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#ownsBudgets) await this.budgets.stop();
    // requests still running (e.g. timed out ones waiting for a late answer) are torn down
    await Promise.all([...this.#pools.values()].map((p) => p.destroy().catch(() => undefined)));
    this.#pools.clear();
  }

  #pool(origin: string): Pool {
    let p = this.#pools.get(origin);
    if (p === undefined) {
      p = new Pool(origin, {
        connections: this.#connections,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 600_000,
      });
      this.#pools.set(origin, p);
    }
    return p;
  }

  async request<S extends z.ZodType>(spec: RequestSpec & RequestObserver, schema: S): Promise<z.output<S>> {
    if (this.#closed) throw new NetworkError('transport closed');
    this.#stats.requests++;
    const base = this.#bases.get(spec.api);
    if (base === undefined) throw new ConfigError(`urls.${spec.api}`, 'no base URL configured for this API');
    if (!spec.path.startsWith('/')) throw new ValidationError(`path must start with "/": ${spec.path.slice(0, 80)}`);
    let body: string | undefined;
    try {
      body = requestBody(spec);
    } catch (err) {
      throw new ValidationError(`${spec.method} ${spec.path}: request body is not serialisable`, { cause: err });
    }
    const url = base.prefix + spec.path + queryString(spec.query);
    const what = `${spec.method} ${spec.path}`;
    // what the request costs in the venue's per-signer buckets (order and cancel routes only)
    const signer = spec.api === 'clob' ? signerRequestOf(spec.method, spec.path, spec.body) : undefined;
    // fail before taking a budget slot when the request cannot be authenticated at all
    if (spec.auth === 'l2' && this.#creds === undefined)
      throw new AuthError(`${what} needs API credentials: none are configured (create or derive a key first)`);
    if (spec.auth === 'l2' && this.#authMode === 'l2' && this.#address === undefined)
      throw new AuthError('L2 auth needs the wallet address (POLY_ADDRESS): set `address` or `signer`');
    if (spec.auth === 'l1' && this.#signer === undefined)
      throw new AuthError(`${what} needs a wallet (L1 auth): none is configured`);
    for (let attempt = 1; ; attempt++) {
      if (spec.signal?.aborted) throw abortReason(spec.signal);
      let err: MmkitError;
      try {
        const parsed = await this.budgets.schedule(
          spec.api,
          spec.method,
          spec.path,
          (slot) => this.#attempt(spec, base, url, body, slot, attempt),
          spec.signal,
          signer,
        );
        return this.#validate(what, parsed, schema);
      } catch (e) {
        if (!(e instanceof MmkitError)) {
          if (this.#closed && !(spec.signal?.aborted ?? false))
            throw new NetworkError(`${what}: transport closed`, 'NETWORK', { cause: e });
          throw e;
        }
        err = e;
      }
      if (err instanceof RateLimitError) {
        const limit = err.details?.['limit'];
        const paused = this.budgets.onRateLimited(
          spec.api,
          spec.method,
          spec.path,
          err.retryAfterMs,
          typeof limit === 'number' ? limit : undefined,
          err.details?.['layer'] === 'signer' ? 'signer' : 'window',
        );
        this.#logger?.warn(
          { api: spec.api, endpoint: what, retryAfterMs: err.retryAfterMs, paused, attempt },
          'rate limited (429): pausing the budget',
        );
      }
      const d = this.#retry.decide(err, attempt, spec.idempotent);
      if (!d.retry) throw err;
      this.#stats.retries++;
      this.#logger?.warn(
        { api: spec.api, endpoint: what, code: err.code, attempt, delayMs: d.delayMs, reason: d.reason },
        'retrying request',
      );
      spec.onRetry?.(err, attempt);
      await sleep(this.#clock, d.delayMs, spec.signal);
    }
  }

  #headers(spec: RequestSpec, body: string | undefined): Record<string, string> {
    const h: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) h['content-type'] = 'application/json';
    if (spec.auth === 'l2') {
      const c = this.#creds;
      if (c === undefined)
        throw new AuthError(
          `${spec.method} ${spec.path} needs API credentials: none are configured (create or derive a key first)`,
        );
      if (this.#authMode === 'bearer') {
        h['authorization'] = `Bearer ${c.apiKey}`;
      } else {
        if (this.#address === undefined)
          throw new AuthError('L2 auth needs the wallet address (POLY_ADDRESS): set `address` or `signer`');
        const ts = Math.floor(this.#clock.now() / 1000);
        const l2 = l2Headers(
          { key: c.apiKey, secret: c.secret, passphrase: c.passphrase },
          this.#address,
          spec.method,
          spec.path,
          body,
          ts,
        );
        h['POLY_ADDRESS'] = l2.POLY_ADDRESS;
        h['POLY_SIGNATURE'] = l2.POLY_SIGNATURE;
        h['POLY_TIMESTAMP'] = l2.POLY_TIMESTAMP;
        h['POLY_API_KEY'] = l2.POLY_API_KEY;
        h['POLY_PASSPHRASE'] = l2.POLY_PASSPHRASE;
      }
    } else if (spec.auth === 'l1') {
      if (this.#signer === undefined)
        throw new AuthError(`${spec.method} ${spec.path} needs a wallet (L1 auth): none is configured`);
      const ts = Math.floor(this.#clock.now() / 1000);
      Object.assign(h, l1Headers(this.#signer, this.#chainId, ts, spec.nonce ?? 0));
    }
    return h;
  }

  /**
   * One HTTP attempt: the parsed payload of a 2xx answer, or a mapped error.
   *
   * The timeout is soft: when it fires the caller gets a TimeoutError at once, but the request is
   * not torn down; it may still land (that is what makes it ambiguous), its late answer is read
   * and dropped, and its budget slot stays held until then (the server counted it). It is aborted
   * for good only after `abandonAfterMs` or when the caller's signal aborts.
   */
  async #attempt(
    spec: RequestSpec,
    base: Base,
    url: string,
    body: string | undefined,
    slot: BudgetSlot,
    attempt: number,
  ): Promise<unknown> {
    const what = `${spec.method} ${spec.path}`;
    const headers = this.#headers(spec, body);
    const timeoutMs = spec.timeoutMs ?? this.#timeoutMs;
    const hard = new AbortController();
    const signal = spec.signal ? AbortSignal.any([spec.signal, hard.signal]) : hard.signal;
    const abandon = Math.max(timeoutMs, this.#abandonAfterMs);
    const hardHandle = this.#clock.setTimeout(
      () => hard.abort(new TimeoutError(`${what}: abandoned after ${abandon} ms`, abandon)),
      abandon,
    );
    this.#stats.attempts++;
    const t0 = this.#clock.now();
    this.#onSend?.({ api: spec.api, method: spec.method, path: spec.path, attempt, at: t0 });
    const hr0 = this.#onAnswer !== undefined ? this.#hrNow() : 0;
    const inner = (async () => {
      const res = await this.#pool(base.origin).request({
        method: spec.method,
        path: url,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal,
        idempotent: spec.idempotent,
      });
      const text = await res.body.text();
      return { status: res.statusCode, headers: res.headers as Record<string, string | string[] | undefined>, text };
    })();
    const release = slot.detach();
    void inner.then(
      (r) => {
        this.#clock.clearTimeout(hardHandle);
        release(r);
      },
      () => {
        this.#clock.clearTimeout(hardHandle);
        release();
      },
    );
    let softHandle: TimerHandle | undefined;
    const soft = new Promise<'timeout'>((resolve) => {
      softHandle = this.#clock.setTimeout(() => resolve('timeout'), timeoutMs);
    });
    let res: { status: number; headers: Record<string, string | string[] | undefined>; text: string };
    try {
      const r = await Promise.race([inner, soft]);
      if (r === 'timeout') {
        this.#stats.timeouts++;
        throw new TimeoutError(`${what}: no answer within ${timeoutMs} ms`, timeoutMs);
      }
      res = r;
    } catch (e) {
      if (e instanceof TimeoutError) throw e;
      if (spec.signal?.aborted) throw abortReason(spec.signal);
      if (hard.signal.aborted) {
        this.#stats.timeouts++;
        throw new TimeoutError(`${what}: abandoned after ${abandon} ms`, abandon, { cause: e });
      }
      this.#stats.networkErrors++;
      const code = (e as { code?: unknown }).code;
      throw new NetworkError(`${what}: connection failed${typeof code === 'string' ? ` (${code})` : ''}`, 'NETWORK', {
        cause: e,
      });
    } finally {
      if (softHandle !== undefined) this.#clock.clearTimeout(softHandle);
    }
    const status = res.status;
    this.#stats.statuses[status] = (this.#stats.statuses[status] ?? 0) + 1;
    this.#onAnswer?.({ api: spec.api, method: spec.method, path: spec.path, status, ms: this.#hrNow() - hr0 });
    this.#logger?.debug({ api: spec.api, endpoint: what, status, ms: this.#clock.now() - t0 }, 'http');
    const parsed = parseBody(res.text);
    if (status >= 200 && status < 300) return unwrapEnvelope(parsed);
    throw this.#mapError(what, status, parsed, res.headers);
  }

  #validate<S extends z.ZodType>(what: string, payload: unknown, schema: S): z.output<S> {
    const r = schema.safeParse(payload);
    if (r.success) return r.data;
    const issue = r.error.issues[0];
    const path = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    throw new ValidationError(`${what}: malformed response at ${path}: ${issue?.message ?? 'invalid'}`, {
      details: {
        path,
        issues: r.error.issues.slice(0, 5).map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
      },
    });
  }

  #redact(s: string): string {
    // secrets out first, then cut: cut first, a secret straddling the cut would leave its prefix
    let out = s;
    const c = this.#creds;
    if (c !== undefined)
      for (const secret of [c.secret, c.passphrase, c.apiKey])
        if (secret.length >= 4) out = out.split(secret).join('[redacted]');
    return out.length > 500 ? out.slice(0, 500) + '…' : out;
  }

  #mapError(
    what: string,
    status: number,
    body: unknown,
    headers: Record<string, string | string[] | undefined>,
  ): MmkitError {
    const info = errorInfo(body);
    const message = this.#redact(
      `${what}: ${status}${info.code ? ` ${info.code}` : ''}: ${info.message ?? 'no message'}`,
    );
    const details: Record<string, unknown> = { status };
    if (info.code !== undefined) details['code'] = info.code;
    if (info.orderID !== undefined) details['orderID'] = info.orderID;
    const now = this.#clock.now();
    if (status === 401) return new AuthError(message, 'UNAUTHORIZED', { details });
    if (status === 403) return new AuthError(message, 'FORBIDDEN', { details });
    if (status === 404) return new NotFoundError(message, { details });
    if (status === 429) {
      // the venue's per-signer buckets say so with their headers; a cost above the burst never passes
      if (first(headers[SIGNER_HEADERS.tier.toLowerCase()]) !== undefined) {
        details['layer'] = 'signer';
        if (info.code === 'RATE_LIMIT_BURST_EXCEEDED') return new ValidationError(message, { details });
      }
      const wait = retryAfterFromHeaders(headers, now) ?? 1000;
      const lim = Number(first(headers['x-ratelimit-limit']));
      if (Number.isSafeInteger(lim) && lim > 0) details['limit'] = lim;
      return new RateLimitError(message, wait, { details });
    }
    if (status === 425 || status === 503) {
      const wait = retryAfterFromHeaders(headers, now);
      if (wait !== undefined) details['retryAfterMs'] = wait;
      return new NetworkError(message, 'SERVICE_UNAVAILABLE', { details });
    }
    if (status >= 500) return new NetworkError(message, 'NETWORK', { details });
    const venue = venueCodeOf(info);
    if (venue !== undefined) return new OrderRejectedError(venue, message, { details });
    return new ValidationError(message, { details });
  }
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/**
 * The exact bytes a request sends (and signs): its pre-serialised `bodyJson` when the caller gave
 * one, else `JSON.stringify(body)`; undefined without a body.
 * @throws what JSON.stringify throws (a cycle, a BigInt)
 */
export function requestBody(spec: Pick<RequestSpec, 'body' | 'bodyJson'>): string | undefined {
  if (spec.body === undefined) return undefined;
  return spec.bodyJson ?? JSON.stringify(spec.body);
}

/** Sleep on the injected clock; rejects with the signal's reason when aborted. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  if (ms <= 0) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(h);
      reject(abortReason(signal!));
    };
    const h = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** `?a=1&b=x&b=y` from a query record (undefined values skipped, arrays repeated), or ''. */
export function queryString(q: Record<string, QueryValue> | undefined): string {
  if (q === undefined) return '';
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const x of v) p.append(k, x);
    else p.append(k, String(v));
  }
  const s = p.toString();
  return s === '' ? '' : `?${s}`;
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Remove the success envelope: `{success: true, data}` → data; with facts beside `data` (a page) →
 * the object without `success`. Anything else is returned as is.
 */
export function unwrapEnvelope(v: unknown): unknown {
  if (!isRecord(v) || v['success'] !== true || !('data' in v)) return v;
  const keys = Object.keys(v);
  if (keys.length === 2) return v['data'];
  const { success: _success, ...rest } = v;
  return rest;
}

interface ErrorInfo {
  code: string | undefined;
  message: string | undefined;
  orderID: string | undefined;
  /** The order-response shape (`errorMsg` present). */
  orderShape: boolean;
}

/** The code and message of an error body: the spec's envelope, the public `{error: "msg"}`, or an order response. */
function errorInfo(body: unknown): ErrorInfo {
  const out: ErrorInfo = { code: undefined, message: undefined, orderID: undefined, orderShape: false };
  if (typeof body === 'string') {
    out.message = body; // cut by #redact, after the secrets are out
    return out;
  }
  if (!isRecord(body)) return out;
  const e = body['error'];
  if (isRecord(e)) {
    if (typeof e['code'] === 'string') out.code = e['code'];
    if (typeof e['message'] === 'string') out.message = e['message'];
  } else if (typeof e === 'string') out.message = e;
  if (typeof body['errorMsg'] === 'string') {
    out.orderShape = true;
    if (body['errorMsg'] !== '') out.message ??= body['errorMsg'];
  }
  if (typeof body['orderID'] === 'string' && body['orderID'] !== '') out.orderID = body['orderID'];
  return out;
}

/** The public service's order-insert error texts → venue codes (public-service-protocol §1). */
const REJECT_TEXTS: ReadonlyArray<readonly [RegExp, VenueRejectCode]> = [
  [/minimum tick size/i, 'INVALID_ORDER_MIN_TICK_SIZE'],
  [/lower than the minimum/i, 'INVALID_ORDER_MIN_SIZE'],
  [/duplicated/i, 'INVALID_ORDER_DUPLICATED'],
  [/not enough balance|allowance/i, 'INVALID_ORDER_NOT_ENOUGH_BALANCE'],
  [/invalid expiration/i, 'INVALID_ORDER_EXPIRATION'],
  [/only GTC and GTD/i, 'INVALID_POST_ONLY_ORDER_TYPE'],
  [/post-only order.*crosses/i, 'INVALID_POST_ONLY_ORDER'],
  [/FOK orders are fully filled|couldn't be fully filled/i, 'FOK_ORDER_NOT_FILLED_ERROR'],
  [/not yet ready/i, 'MARKET_NOT_READY'],
  [/invalid (order )?signature/i, 'INVALID_SIGNATURE'],
  [/could not insert order/i, 'INVALID_ORDER_ERROR'],
];

function isVenueCode(c: string): c is VenueRejectCode {
  return (VENUE_REJECT_CODES as readonly string[]).includes(c);
}

/** The venue code of a refusal, if the body is one: the spec envelope's code, or the public texts. */
export function venueCodeOf(info: {
  code: string | undefined;
  message: string | undefined;
  orderShape?: boolean;
}): VenueRejectCode | undefined {
  if (info.code !== undefined) {
    if (isVenueCode(info.code)) return info.code;
    return undefined;
  }
  if (info.message !== undefined) for (const [re, code] of REJECT_TEXTS) if (re.test(info.message)) return code;
  if (info.orderShape === true) return 'INVALID_ORDER_ERROR';
  return undefined;
}
