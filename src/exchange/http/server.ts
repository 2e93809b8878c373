/**
 * The paper exchange's HTTP server: one fastify instance serving every API under its base path
 * (/clob, /gamma, /data, /content, /relayer) and, with an admin token, the operator routes
 * (/admin: http/admin.ts), with the spec's error envelope on every error, even those raised before
 * routing (http/error-handling.ts), raw-body capture for L2 signatures, and the spec's rate limits
 * (section 8) applied before any handler runs (http/rate-limit-hooks.ts): over a limit a request
 * is held briefly, then answered 429 with the X-RateLimit-* headers and Retry-After; and, on the
 * order and cancel routes, the venue's per-signer token buckets (http/signer-limits.ts). Failed
 * authentication, refused orders and cancels, admin actions and 429s go to the security log
 * (http/security-hooks.ts).
 */
import { geoblockRoutes } from './geoblock.ts';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { PaperExchange } from '../exchange.ts';
import type { RatePolicy } from '../limits/policy.ts';
import { SignerLimiter, type SignerLimitMode } from '../limits/signer-buckets.ts';
import type { SignerTierName } from '../../core/signer-limits.ts';
import { duplicatedCredentialHeader, MAX_IDENTITY_HEADER_LENGTH, overlongIdentityHeader } from './auth.ts';
import { adminRoutes } from './admin.ts';
import { clobRoutes } from './clob.ts';
import { activityRoutes } from './activity.ts';
import { contentRoutes } from './content.ts';
import { dataRoutes } from './data.ts';
import { gammaRoutes } from './gamma.ts';
import { liveActivityRoutes } from './live-activity.ts';
import { readonlyKeyRoutes } from './readonly-keys.ts';
import { relayerRoutes } from './relayer.ts';
import type { FaultController } from '../faults.ts';
import type { SecurityLog } from '../security-log.ts';
import { badRequest, HttpError, unauthorized } from './errors.ts';
import { clientErrorHandler, errorHandler, frameworkErrors, notFoundHandler } from './error-handling.ts';
import { installRateLimits } from './rate-limit-hooks.ts';
import { installOrderRefusalLog } from './security-hooks.ts';
import { signerGate } from './signer-limits.ts';

/** The admin token check (constant time), re-exported where it used to live. */
export { sameSecret } from './admin.ts';

export type ApiName = 'clob' | 'gamma' | 'data' | 'content' | 'relayer';
export const API_PREFIXES: Record<ApiName, string> = {
  clob: '/clob',
  gamma: '/gamma',
  data: '/data',
  content: '/content',
  relayer: '/relayer',
};

/** How long a request may take to arrive, headers and body (default; HttpOptions.requestTimeoutMs). */
export const REQUEST_TIMEOUT_MS = 30_000;
/** Most open HTTP connections (default; HttpOptions.maxConnections): one client cannot take every descriptor. */
export const MAX_CONNECTIONS = 4096;
/**
 * Most open HTTP connections from one client address (default; HttpOptions.maxConnectionsPerIp): one
 * client cannot take the whole MAX_CONNECTIONS from the others. A bot's pool holds tens.
 */
export const MAX_CONNECTIONS_PER_IP = 1024;

export interface HttpOptions {
  bodyLimit: number;
  /**
   * A request whose headers and body have not all arrived in this many ms is answered 408
   * `REQUEST_TIMEOUT` and its connection closed (default 30 s; node's own default, 300 s, let a body
   * dripped a byte at a time hold a socket for 5 minutes).
   */
  requestTimeoutMs?: number;
  /** Most open HTTP connections; more are closed at once (default 4096). */
  maxConnections?: number;
  /** Most open HTTP connections from one client address; more from it are closed at once (default 1024). */
  maxConnectionsPerIp?: number;
  rateLimits: {
    enabled: boolean;
    scale: number;
    queueMs: number;
    rules?: Record<string, { limit: number; windowMs: number }>;
    /** Most identities one rule's table holds (default 100,000; see RatePolicyBounds). */
    maxIdentities?: number;
    /** How often idle identities are swept from the tables, ms of the exchange's clock (default 30 s). */
    sweepMs?: number;
  };
  /**
   * The venue's per-signer order and cancel buckets (limits/signer-buckets.ts): `enforce` (default),
   * `warn` or `off`; every signer's tier (default standard) and per-address overrides. Off whenever
   * `rateLimits.enabled` is false; `rateLimits.scale` multiplies their rates and bursts too.
   */
  signerLimits?: { mode: SignerLimitMode; tier?: SignerTierName; tiers?: Record<string, SignerTierName> };
  /** Admin routes (/admin/...) are served only when a token is set; requests carry it in X-Admin-Token. */
  adminToken?: string | undefined;
  authMaxSkewSec: number;
  logger?: Logger | undefined;
  /** Fault injection (off unless rules are set). */
  faults?: FaultController | undefined;
  /** The security log (failed auth, refused orders, admin actions, limit trips). */
  security?: SecurityLog | undefined;
}

export const DEFAULT_HTTP_OPTIONS: HttpOptions = {
  bodyLimit: 256 * 1024,
  rateLimits: { enabled: true, scale: 1, queueMs: 500 },
  signerLimits: { mode: 'enforce', tier: 'standard' },
  authMaxSkewSec: 300,
};

function apiOf(path: string): { api: ApiName; rel: string } | undefined {
  for (const [api, prefix] of Object.entries(API_PREFIXES) as Array<[ApiName, string]>) {
    if (path === prefix || path.startsWith(prefix + '/')) return { api, rel: path.slice(prefix.length) || '/' };
  }
  return undefined;
}

/** Longest path parameter the router accepts (a condition id is 66 characters); longer is 414. */
const MAX_PARAM_LENGTH = 100;

declare module 'fastify' {
  interface FastifyInstance {
    /** The rate limiter (absent when rate limits are off); `size()` shows its tables' size. */
    rateLimits?: RatePolicy;
    /** The per-signer buckets (mode off when the limits are off). */
    signerLimits: SignerLimiter;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function buildHttpApp(ex: PaperExchange, opts: HttpOptions): FastifyInstance {
  const requestTimeout = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const app = Fastify({
    bodyLimit: opts.bodyLimit,
    requestTimeout,
    // node checks the request timeout this often (its default, 30 s, would let a 1 s timeout last 30 s);
    // the headers get no longer than the whole request (node 20 let a body drip on while its 60 s
    // headers timeout was above the request timeout)
    http: {
      connectionsCheckingInterval: Math.max(250, Math.min(5_000, Math.floor(requestTimeout / 4))),
      headersTimeout: requestTimeout,
    },
    // per-request logs are off (a daemon's log is for events, not traffic): warn and above only
    ...(opts.logger
      ? { loggerInstance: opts.logger.child({ component: 'http' }, { level: 'warn' }) as unknown as FastifyBaseLogger }
      : { logger: false }),
    return503OnClosing: true,
    forceCloseConnections: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // errors raised before any route runs answer the envelope too, without echoing the path
    frameworkErrors: frameworkErrors(MAX_PARAM_LENGTH),
    clientErrorHandler,
  });

  // Keep the raw body: L2 signatures cover the exact bytes the client sent.
  const parseJson = (req: FastifyRequest, body: string, done: (err: Error | null, v?: unknown) => void) => {
    req.rawBody = body;
    if (body === '' || /^\s*$/.test(body)) return done(null, undefined);
    try {
      done(null, JSON.parse(body));
    } catch {
      done(badRequest('malformed JSON body'));
    }
  };
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson);
  app.addContentTypeParser('*', { parseAs: 'string' }, parseJson);

  app.addHook('onRequest', async (req) => {
    // origin-form targets only: an absolute-form target (`GET http://h/clob/book`) or a fragment
    // (`/admin#x`) is routed as its path but matches no API prefix below (review 49b F1: they skipped
    // every rate limit, the admin token's included)
    if (!req.url.startsWith('/') || req.url.includes('#'))
      throw badRequest('the request target must be a path (/clob/..., /data/...), without a fragment');
    const path = req.url.split('?')[0] ?? '/';
    const a = apiOf(path);
    if (a) req.apiPath = a.rel;
    // the router decodes percent-escapes, `/%63lob/book` is `/clob/book`; everything keyed on the API
    // prefix (rate limits, the signed path, the admin checks) reads the raw one: an encoded prefix is refused
    // (security review 49 F1/F2: it skipped every rate limit and unbound the L2 signature from the route)
    else if (/^\/[^/]*%/.test(path))
      throw badRequest('percent-encoded characters in the API prefix: send /clob, /gamma, /data, ... as they are');
  });

  const faults = opts.faults;
  if (faults) {
    app.addHook('onRequest', async (req) => {
      const path = req.url.split('?')[0] ?? '/';
      if (path.startsWith('/admin')) return;
      const f = faults.http(req.method, path);
      if (f === undefined) return;
      if (f.latencyMs) await sleep(f.latencyMs);
      if (f.status === undefined) return;
      const now = ex.clock.now();
      switch (f.status) {
        case 425:
          throw new HttpError(
            425,
            'SERVICE_NOT_READY',
            'Service is not ready: the matching engine is restarting (injected fault)',
            { headers: { 'Retry-After': '1' } },
          );
        case 429:
          throw new HttpError(429, 'RATE_LIMITED', 'Too Many Requests (injected fault)', {
            headers: {
              'X-RateLimit-Limit': '0',
              'X-RateLimit-Remaining': '0',
              'X-RateLimit-Reset': String(Math.ceil(now / 1000) + 1),
              'Retry-After': '1',
            },
          });
        case 503:
          throw new HttpError(503, 'SERVICE_UNAVAILABLE', 'Trading is currently disabled (injected fault)', {
            headers: { 'Retry-After': '1' },
          });
        default:
          throw new HttpError(500, 'INTERNAL', 'internal server error (injected fault)');
      }
    });
  }

  // Identity strings are bounded, and given once, before anything is keyed on them (the limiter's tables,
  // key lookups).
  app.addHook('onRequest', async (req) => {
    const twice = duplicatedCredentialHeader(req);
    if (twice !== undefined)
      throw unauthorized(`${twice} header given more than once: send each credential header once`);
    const bad = overlongIdentityHeader(req);
    if (bad !== undefined) throw unauthorized(`${bad} longer than ${MAX_IDENTITY_HEADER_LENGTH} characters`);
  });

  if (opts.rateLimits.enabled) {
    const policy = installRateLimits(app, ex, {
      ...opts.rateLimits,
      authMaxSkewSec: opts.authMaxSkewSec,
      security: opts.security,
      apiOf,
    });
    app.decorate('rateLimits', policy);
  }
  const sl = opts.signerLimits ?? { mode: 'enforce' };
  const signerLimits = new SignerLimiter({
    mode: opts.rateLimits.enabled ? sl.mode : 'off',
    scale: opts.rateLimits.scale,
    ...(sl.tier !== undefined ? { tier: sl.tier } : {}),
    ...(sl.tiers !== undefined ? { tiers: sl.tiers } : {}),
  });
  app.decorate('signerLimits', signerLimits);
  if (signerLimits.mode !== 'off') {
    const sweeper = ex.clock.setInterval(() => signerLimits.sweep(ex.clock.now()), opts.rateLimits.sweepMs ?? 30_000);
    app.addHook('onClose', async () => ex.clock.clearInterval(sweeper));
  }
  if (opts.security) installOrderRefusalLog(app, opts.security);

  app.setErrorHandler(errorHandler({ bodyLimit: opts.bodyLimit, security: opts.security }));
  app.setNotFoundHandler(notFoundHandler);

  const auth = { maxSkewSec: opts.authMaxSkewSec };
  const signer = signerGate(ex, signerLimits, opts.security);
  app.register(clobRoutes(ex, { auth, signer }), { prefix: API_PREFIXES.clob });
  app.register(readonlyKeyRoutes(ex, { auth }), { prefix: API_PREFIXES.clob });
  app.register(liveActivityRoutes(ex), { prefix: API_PREFIXES.clob });
  app.register(gammaRoutes(ex), { prefix: API_PREFIXES.gamma });
  app.register(dataRoutes(ex), { prefix: API_PREFIXES.data });
  app.register(activityRoutes(ex), { prefix: API_PREFIXES.data });
  app.register(contentRoutes(ex), { prefix: API_PREFIXES.content });
  app.register(relayerRoutes(ex, { auth }), { prefix: API_PREFIXES.relayer });
  app.register(geoblockRoutes());
  if (opts.adminToken)
    app.register(
      adminRoutes(ex, { token: opts.adminToken, faults: opts.faults, security: opts.security, signerLimits }),
      {
        prefix: '/admin',
      },
    );
  return app;
}

/**
 * Closes a new connection at once when its client address already holds `cap` open ones (HTTP and
 * WebSocket alike: an upgraded socket stays counted until it closes). Counts by the socket's remote
 * address; a socket without one (already gone) is let through to fail on its own.
 */
export function capConnectionsPerAddress(server: import('node:net').Server, cap: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: import('node:net').Socket) => {
    const addr = socket.remoteAddress;
    if (addr === undefined) return;
    const n = open.get(addr) ?? 0;
    if (n >= cap) {
      socket.destroy();
      return;
    }
    open.set(addr, n + 1);
    socket.once('close', () => {
      const left = (open.get(addr) ?? 1) - 1;
      if (left <= 0) open.delete(addr);
      else open.set(addr, left);
    });
  });
}
