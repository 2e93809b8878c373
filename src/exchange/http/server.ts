/**
 * The paper exchange's HTTP server: one fastify instance serving every API under its base path
 * (/clob, /gamma, /data, /content, /relayer), with the spec's error envelope on every error,
 * raw-body capture for L2 signatures, and the spec's rate limits (section 8) applied before any
 * handler runs: over a limit a request is held briefly, then answered 429 with the X-RateLimit-*
 * headers and Retry-After.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { z } from 'zod';
import { parseAmount } from '../../core/units.ts';
import { ValidationError } from '../../core/errors.ts';
import type { PaperExchange } from '../exchange.ts';
import { RatePolicy, type RateRule } from '../limits/policy.ts';
import { authenticate, claimedApiKey, MAX_IDENTITY_HEADER_LENGTH, overlongIdentityHeader } from './auth.ts';
import { parseWith } from './body.ts';
import { clobRoutes } from './clob.ts';
import { activityRoutes } from './activity.ts';
import { contentRoutes } from './content.ts';
import { dataRoutes } from './data.ts';
import { gammaRoutes } from './gamma.ts';
import { relayerRoutes } from './relayer.ts';
import type { FaultController, FaultRule } from '../faults.ts';
import type { SecurityLog } from '../security-log.ts';
import { badRequest, envelope, forbidden, HttpError, notFound, unauthorized } from './errors.ts';
import { tickPips, isTickSize } from '../../core/units.ts';

export type ApiName = 'clob' | 'gamma' | 'data' | 'content' | 'relayer';
export const API_PREFIXES: Record<ApiName, string> = {
  clob: '/clob',
  gamma: '/gamma',
  data: '/data',
  content: '/content',
  relayer: '/relayer',
};

export interface HttpOptions {
  bodyLimit: number;
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
  authMaxSkewSec: 300,
};

/** The envelope of a refusal fastify makes before routing (never echoing the path). */
function frameworkRefusal(code: string): { status: number; code: string; message: string } {
  if (code === 'FST_ERR_MAX_PARAM_LENGTH')
    return { status: 414, code: 'URI_TOO_LONG', message: 'a path parameter is longer than 100 characters' };
  if (code === 'FST_ERR_BAD_URL')
    return { status: 400, code: 'BAD_REQUEST', message: 'malformed URL: invalid percent-encoding in the path' };
  return { status: 400, code: 'BAD_REQUEST', message: 'bad request' };
}

/**
 * A request the HTTP parser refused (malformed, headers too large, too slow): the envelope on the
 * raw socket, then the socket is closed (as fastify's default handler does, with its own body).
 */
function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, body] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', envelope('HEADERS_TOO_LARGE', 'request line and headers too large')]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', envelope('REQUEST_TIMEOUT', 'request not received in time')]
        : [400, 'Bad Request', envelope('BAD_REQUEST', 'malformed HTTP request')];
  const text = JSON.stringify(body);
  if (socket.writable)
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${text}`,
    );
  socket.destroy(err);
}

function apiOf(path: string): { api: ApiName; rel: string } | undefined {
  for (const [api, prefix] of Object.entries(API_PREFIXES) as Array<[ApiName, string]>) {
    if (path === prefix || path.startsWith(prefix + '/')) return { api, rel: path.slice(prefix.length) || '/' };
  }
  return undefined;
}

/** Default interval of the rate limiter's sweep of idle identities, ms. */
const SWEEP_MS = 30_000;

declare module 'fastify' {
  interface FastifyInstance {
    /** The rate limiter (absent when rate limits are off); `size()` shows its tables' size. */
    rateLimits?: RatePolicy;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export function buildHttpApp(ex: PaperExchange, opts: HttpOptions): FastifyInstance {
  const app = Fastify({
    bodyLimit: opts.bodyLimit,
    // per-request logs are off (a daemon's log is for events, not traffic): warn and above only
    ...(opts.logger
      ? { loggerInstance: opts.logger.child({ component: 'http' }, { level: 'warn' }) as unknown as FastifyBaseLogger }
      : { logger: false }),
    return503OnClosing: true,
    forceCloseConnections: true,
    routerOptions: { ignoreTrailingSlash: true },
    // refusals made before routing (a malformed percent-encoding, an overlong path parameter) and
    // by the HTTP parser (a malformed request, headers over the size limit) in the envelope too
    frameworkErrors: (err, _req, reply) => {
      const r = frameworkRefusal(err.code);
      (reply as FastifyReply).code(r.status).send(envelope(r.code, r.message));
    },
    clientErrorHandler: clientErrorHandler,
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
    const path = req.url.split('?')[0] ?? '/';
    const a = apiOf(path);
    if (a) req.apiPath = a.rel;
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

  // Identity strings are bounded before anything is keyed on them (the limiter's tables, key lookups).
  app.addHook('onRequest', async (req) => {
    const bad = overlongIdentityHeader(req);
    if (bad !== undefined) throw unauthorized(`${bad} longer than ${MAX_IDENTITY_HEADER_LENGTH} characters`);
  });

  if (opts.rateLimits.enabled) {
    const policy = new RatePolicy(
      {
        scale: opts.rateLimits.scale,
        ...(opts.rateLimits.rules ? { rules: opts.rateLimits.rules } : {}),
      },
      opts.rateLimits.maxIdentities !== undefined ? { maxIdentities: opts.rateLimits.maxIdentities } : {},
    );
    app.decorate('rateLimits', policy);
    // idle identities leave the tables on the exchange's clock
    const sweeper = ex.clock.setInterval(() => policy.sweep(ex.clock.now()), opts.rateLimits.sweepMs ?? SWEEP_MS);
    app.addHook('onClose', async () => ex.clock.clearInterval(sweeper));

    /** Requests that name a known API key wait for the body (the L2 signature covers it) to be counted. */
    const pending = new WeakMap<FastifyRequest, { api: ApiName; rules: RateRule[] }>();
    const clientId = (req: FastifyRequest) => `ip:${req.socket.remoteAddress ?? 'unknown'}`;

    const limit = async (reply: FastifyReply, identity: string, rules: RateRule[]) => {
      const deadline = ex.clock.now() + opts.rateLimits.queueMs;
      for (;;) {
        const now = ex.clock.now();
        const r = policy.acquire(identity, rules, now);
        if (r.ok) {
          reply.header('X-RateLimit-Limit', String(r.tightest.limit));
          reply.header('X-RateLimit-Remaining', String(r.tightest.remaining));
          reply.header('X-RateLimit-Reset', String(Math.ceil(r.tightest.resetAt / 1000)));
          return;
        }
        // the spec's edge delays an over-limit request before refusing it: hold it until a slot
        // frees or the queue time is spent, whichever comes first
        if (now < deadline) {
          await sleep(Math.max(1, Math.min(r.retryAt, deadline) - now));
          continue;
        }
        const retryAfter = Math.max(1, Math.ceil((r.retryAt - now) / 1000));
        throw new HttpError(
          429,
          'RATE_LIMITED',
          `Too Many Requests: ${r.rule.name} allows ${r.limit} requests per ${r.rule.windowMs / 1000} s`,
          {
            headers: {
              'X-RateLimit-Limit': String(r.limit),
              'X-RateLimit-Remaining': '0',
              'X-RateLimit-Reset': String(Math.ceil(r.resetAt / 1000)),
              'Retry-After': String(retryAfter),
            },
          },
        );
      }
    };

    // Unauthenticated requests (no key, or a key the exchange does not know) are counted by client
    // address at once; a request naming a known key is counted in preValidation, once its
    // signature is checked: under the key (the relayer: its account) if it verifies, else under
    // the client address. A claimed key id alone never moves a request into a key's windows.
    app.addHook('onRequest', async (req, reply) => {
      const path = req.url.split('?')[0] ?? '/';
      const a = apiOf(path);
      if (a === undefined) return;
      const route = req.routeOptions.url ? (apiOf(req.routeOptions.url)?.rel ?? a.rel) : a.rel;
      const rules = policy.rulesFor(a.api, req.method, route);
      const claimed = claimedApiKey(req);
      if (claimed !== undefined && ex.keys.get(claimed) !== undefined) {
        pending.set(req, { api: a.api, rules });
        return;
      }
      await limit(reply, clientId(req), rules);
    });
    app.addHook('preValidation', async (req, reply) => {
      const p = pending.get(req);
      if (p === undefined) return;
      pending.delete(req);
      let identity = clientId(req);
      try {
        const rec = authenticate(ex, req, { maxSkewSec: opts.authMaxSkewSec });
        // the relayer counts per account (every API key of an address shares its 25 a minute)
        identity = p.api === 'relayer' ? `account:${rec.address}` : `key:${rec.apiKey}`;
      } catch {
        // not verified: the handler answers 401; the request counts against the client address
      }
      await limit(reply, identity, p.rules);
    });
    // a request refused before preValidation (a malformed body) still counts, by client address
    app.addHook('onResponse', async (req) => {
      const p = pending.get(req);
      if (p === undefined) return;
      pending.delete(req);
      policy.acquire(clientId(req), p.rules, ex.clock.now());
    });
  }

  app.setErrorHandler((err: unknown, req, reply) => {
    if (err instanceof HttpError) {
      if (err.headers) reply.headers(err.headers);
      return reply.code(err.status).send(envelope(err.code, err.message, err.extra));
    }
    if (err instanceof ValidationError) return reply.code(400).send(envelope('BAD_REQUEST', err.message));
    const e = err as { statusCode?: number; code?: string; message?: string };
    const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
    if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
      return reply.code(413).send(envelope('PAYLOAD_TOO_LARGE', `request body larger than ${opts.bodyLimit} bytes`));
    if (status >= 400 && status < 500)
      return reply
        .code(status)
        .send(envelope(status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : 'BAD_REQUEST', e.message ?? 'bad request'));
    req.log.error({ err }, 'unhandled error');
    return reply.code(500).send(envelope('INTERNAL', 'internal server error'));
  });
  app.setNotFoundHandler((req, reply) => {
    reply.code(404).send(envelope('NOT_FOUND', `no route ${req.method} ${req.url.split('?')[0]}`));
  });

  app.register(clobRoutes(ex, { auth: { maxSkewSec: opts.authMaxSkewSec } }), { prefix: API_PREFIXES.clob });
  app.register(gammaRoutes(ex), { prefix: API_PREFIXES.gamma });
  app.register(dataRoutes(ex), { prefix: API_PREFIXES.data });
  app.register(activityRoutes(ex), { prefix: API_PREFIXES.data });
  app.register(contentRoutes(ex), { prefix: API_PREFIXES.content });
  app.register(relayerRoutes(ex, { auth: { maxSkewSec: opts.authMaxSkewSec } }), { prefix: API_PREFIXES.relayer });
  if (opts.adminToken) app.register(adminRoutes(ex, opts.adminToken, opts.faults), { prefix: '/admin' });
  return app;
}

const fundSchema = z.object({
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  collateral: z.string().optional(),
  tokens: z.record(z.string().regex(/^\d{1,78}$/), z.string()).optional(),
});

const faultSchema = z.object({
  id: z.string().max(50).optional(),
  route: z.string().max(200).optional(),
  status: z.union([z.literal(425), z.literal(429), z.literal(500), z.literal(503)]).optional(),
  latencyMs: z.number().int().min(0).max(600_000).optional(),
  probability: z.number().min(0).max(1).optional(),
  stream: z.enum(['market', 'user', 'rtds']).optional(),
  freeze: z.boolean().optional(),
  drop: z.boolean().optional(),
  dropAfterMs: z.number().int().min(0).optional(),
  untilMs: z.number().int().min(0).optional(),
});

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const funderSchema = z.object({
  signer: z.string().regex(ADDRESS, '0x-prefixed 20-byte hex address'),
  funder: z.string().regex(ADDRESS, '0x-prefixed 20-byte hex address'),
});

/**
 * True when `given` (a header value) is the secret, compared in constant time (of the digests: the
 * time says nothing of the secret, not even its length).
 */
export function sameSecret(given: string | string[] | undefined, secret: string): boolean {
  if (typeof given !== 'string') return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(secret).digest();
  return timingSafeEqual(a, b);
}

/** Test and operator controls; served only when an admin token is configured. */
function adminRoutes(ex: PaperExchange, token: string, faults: FaultController | undefined) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.addHook('onRequest', async (req) => {
      if (!sameSecret(req.headers['x-admin-token'], token)) throw forbidden('admin token required (X-Admin-Token)');
    });
    const amount = (s: string) => {
      try {
        return parseAmount(s);
      } catch (e) {
        throw badRequest(`invalid amount ${JSON.stringify(s)}: ${(e as Error).message}`);
      }
    };
    /** Set balances: collateral and/or token balances (decimal strings), replacing what was there. */
    app.post('/balances', async (req) => {
      const b = parseWith(fundSchema, req.body, 'body');
      const addr = b.address.toLowerCase();
      // everything is checked before anything is set: a refused request changes no balance
      const collateral = b.collateral !== undefined ? amount(b.collateral) : undefined;
      const tokens = Object.entries(b.tokens ?? {}).map(([tok, v]) => {
        if (!ex.marketOfToken(tok)) throw notFound(`unknown token ${tok}`);
        return [tok, amount(v)] as const;
      });
      if (collateral !== undefined) ex.setCollateral(addr, collateral);
      for (const [tok, micro] of tokens) ex.setTokens(addr, tok, micro);
      return { ok: true };
    });
    /**
     * Register a funder (maker account) to a signer: its proxy orders (signatureType 1/2) may then
     * be funded by it, and it joins the signer's orders, trades and heartbeats. The signer's derived
     * proxy wallet and Safe need no registration (accounts/funders.ts).
     */
    app.post('/funders', async (req) => {
      const b = parseWith(funderSchema, req.body, 'body');
      const signer = b.signer.toLowerCase();
      const funder = b.funder.toLowerCase();
      if (signer === funder) throw badRequest('funder must differ from signer');
      return { ok: true, signer, funder, added: ex.registerFunder(signer, funder) };
    });
    const market = (cid: string) => {
      const m = ex.market(cid);
      if (!m) throw notFound('market not found');
      return m;
    };
    app.post<{ Params: { cid: string } }>('/markets/:cid/tick-size', async (req) => {
      const b = parseWith(z.object({ tick_size: z.string() }), req.body, 'body');
      if (!isTickSize(b.tick_size)) throw badRequest('tick_size must be 0.1, 0.01, 0.001 or 0.0001');
      ex.setTickSize(market(req.params.cid).meta.conditionId, tickPips(b.tick_size));
      return { ok: true };
    });
    /** Fault injection at run time: list, replace (PUT), add (POST), remove (DELETE /:id) or clear (DELETE). */
    const needFaults = (): FaultController => {
      if (!faults) throw notFound('fault injection is not enabled on this exchange');
      return faults;
    };
    const asRule = (v: unknown): FaultRule => {
      const r = parseWith(faultSchema, v, 'fault rule');
      return r as FaultRule;
    };
    const guarded = <T>(fn: () => T): T => {
      try {
        return fn();
      } catch (e) {
        if (e instanceof RangeError) throw badRequest(e.message);
        throw e;
      }
    };
    app.get('/faults', async () => ({ rules: needFaults().list() }));
    app.put('/faults', async (req) => {
      const f = needFaults();
      const list = parseWith(z.array(z.unknown()).max(100), req.body, 'body').map(asRule);
      return { rules: guarded(() => f.set(list)) };
    });
    app.post('/faults', async (req) => {
      const f = needFaults();
      const rule = asRule(req.body);
      return { rule: guarded(() => f.add(rule)) };
    });
    app.delete('/faults', async () => {
      needFaults().clear();
      return { rules: [] };
    });
    app.delete<{ Params: { id: string } }>('/faults/:id', async (req) => {
      if (!needFaults().remove(req.params.id)) throw notFound('no such fault rule');
      return { ok: true };
    });
    app.post<{ Params: { cid: string } }>('/markets/:cid/close', async (req) => {
      ex.closeMarket(market(req.params.cid).meta.conditionId);
      return { ok: true };
    });
    app.post<{ Params: { cid: string } }>('/markets/:cid/resolve', async (req) => {
      const m = market(req.params.cid);
      const b = parseWith(z.object({ winning_token: z.string() }), req.body, 'body');
      if (!m.meta.tokens.includes(b.winning_token)) throw badRequest('winning_token is not a token of this market');
      ex.resolveMarket(m.meta.conditionId, b.winning_token);
      return { ok: true };
    });
  };
}
