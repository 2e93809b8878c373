/**
 * The fuzz target (issue 16): a paper exchange driven in process, with every input checked against
 * the invariants of refused input.
 *
 *  - HTTP: the real fastify app of src/exchange/http/server.ts (routing, hooks, content parsers,
 *    handlers, error handler) through `app.inject()` (no sockets), and for a slice of the inputs
 *    through a real loopback socket (undici) to the same app listening on 127.0.0.1.
 *  - WebSocket: the real streams of src/exchange/ws/index.ts attached to the same server; most
 *    inputs reach them through a fake socket (ws-wire.ts: only the transport is fake, the `ws`
 *    server parses the bytes), a slice through real loopback sockets.
 *
 * Invariants, per input: no 5xx (no close 1011, no INTERNAL error frame, no listener error); no
 * exception escapes (uncaught exceptions and unhandled rejections are failures); no prototype
 * pollution; every refusal (HTTP status outside 2xx, a refused order in a batch, a WebSocket error
 * frame) is the spec's envelope `{success: false, error: {code, message}}` (WebSocket:
 * `{event_type: "error", error: {code, message}}`); and the exchange's state (balances, reserved
 * collateral and tokens, open orders, books, trades, keys, comments, relayer transactions) is
 * unchanged by a refused input, and by any WebSocket input.
 *
 * The exchange is deterministic for a seed: a virtual clock that never moves, a fixed server
 * secret, wallets derived from fixed strings, no world agents. The same seed replays the same run.
 */
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import { keccak256, toUtf8Bytes, Wallet } from 'ethers';
import type { FastifyInstance } from 'fastify';
import { Pool } from 'undici';
import WebSocket from 'ws';
import { buildHmacSignature } from '../../src/api/signing/hmac.ts';
import { l1Headers } from '../../src/api/signing/clob-auth.ts';
import { VirtualClock } from '../../src/core/clock.ts';
import { AMOUNT_SCALE, tickFromPips, type TickSize } from '../../src/core/units.ts';
import { proxyWalletOf, safeOf } from '../../src/exchange/accounts/funders.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../../src/exchange/exchange.ts';
import { FaultController } from '../../src/exchange/faults.ts';
import { buildHttpApp, DEFAULT_HTTP_OPTIONS } from '../../src/exchange/http/server.ts';
import { newWorldIdentity } from '../../src/exchange/identity.ts';
import { createSecurityLog } from '../../src/exchange/security-log.ts';
import { attachStreams, type Streams } from '../../src/exchange/ws/index.ts';
import { seedWorld } from '../../src/exchange/world/index.ts';
import { clientFrameBytes, FakeSocket, upgradeRequest, type ClientFrame, type ServerFrame } from './ws-wire.ts';

export const ADMIN_TOKEN = 'fuzz-admin-token';
export const API_PREFIXES = ['/clob', '/gamma', '/data', '/content', '/relayer', '/admin'] as const;
/** The exchange's clock: fixed (2025-06-01T00:00:00Z), so signed timestamps stay valid all run. */
export const FUZZ_NOW_MS = Date.UTC(2025, 5, 1);
const MAX_WS_PAYLOAD = 64 * 1024;
/** An input with no answer after this long hangs the exchange (a failure). */
const HANG_MS = 20_000;
/** FUZZ_TRACE=<file>: every input is appended to the file before it runs (to find a hang). */
const TRACE = process.env['FUZZ_TRACE'];
const ZERO = '0x0000000000000000000000000000000000000000';

// ---- inputs ---------------------------------------------------------------------------------------

/** One HTTP request, concrete (what the shrunk counterexample prints). */
export interface HttpInput {
  kind: 'http';
  /** In process (`app.inject`) or over a real loopback socket. */
  via: 'inject' | 'loopback';
  /** The route template it was generated for (`POST /clob/order`), for the statistics. */
  route: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

/** Frames sent on one WebSocket connection (a new one, or the one kept open for `path`). */
export interface WsInput {
  kind: 'ws';
  via: 'fake' | 'real';
  path: string;
  fresh: boolean;
  /** A malformed handshake (fake socket only). */
  handshake?: 'method' | 'key' | 'version';
  frames: ClientFrame[];
}

export type FuzzInput = HttpInput | WsInput;

// ---- the world the generators draw from -----------------------------------------------------------

export interface FuzzTrader {
  index: number;
  address: string; // lower case
  checksum: string;
  priv: Buffer;
  creds: { apiKey: string; secret: string; passphrase: string };
  nonce: string;
  proxy: string;
  safe: string;
  /** Valid L1 header sets of this wallet, by nonce (0..2). */
  l1: Array<Record<string, string>>;
}

export interface CoreMarket {
  cid: string;
  tokens: [string, string];
  tick: TickSize;
  tickPips: number;
  negRisk: boolean;
}

export interface RouteRef {
  method: string;
  url: string;
}

/** Everything a generator needs: valid values to start from, and the routes. */
export interface FuzzWorld {
  nowSec: number;
  adminToken: string;
  traders: FuzzTrader[];
  /** A wallet with no key yet: its valid L1 headers create one (then refused as existing). */
  newcomer: { address: string; l1: Array<Record<string, string>> };
  core: CoreMarket[];
  /** Markets that admin routes may close, resolve or re-tick (never the core ones). */
  sacrificial: string[];
  routes: RouteRef[];
  pools: Record<string, string[]>;
  /** Live order ids of a trader now (dynamic). */
  liveOrders(trader: number): string[];
  /** Ids of orders that exist (any account, any status) and trade ids (dynamic). */
  knownOrders(): string[];
  tradeIds(): string[];
  relayerTxIds(): string[];
}

// ---- statistics -----------------------------------------------------------------------------------

export interface FuzzStats {
  inputs: number;
  httpInject: number;
  httpLoopback: number;
  /** Loopback requests undici will not send (URL or header characters), sent as raw bytes instead. */
  loopbackRaw: number;
  wsFake: number;
  wsReal: number;
  wsFrames: number;
  /** Status class counts (`2xx`, `4xx`...) and error codes seen in refusals. */
  status: Record<string, number>;
  codes: Record<string, number>;
  /** Per route template: inputs and accepted (2xx) inputs. */
  routes: Record<string, { n: number; ok: number }>;
  /** Signed requests (valid L2) answered with something else than 401: they reached the handler. */
  pastAuth: number;
  ordersAccepted: number;
  tradesAtEnd: number;
  wsErrorFrames: number;
  wsClosed: Record<string, number>;
  stateChecks: number;
  /** Every route the app registered (`METHOD /url`). */
  registered: string[];
}

function newStats(): FuzzStats {
  return {
    inputs: 0,
    httpInject: 0,
    httpLoopback: 0,
    loopbackRaw: 0,
    wsFake: 0,
    wsReal: 0,
    wsFrames: 0,
    status: {},
    codes: {},
    routes: {},
    pastAuth: 0,
    ordersAccepted: 0,
    tradesAtEnd: 0,
    wsErrorFrames: 0,
    wsClosed: {},
    stateChecks: 0,
    registered: [],
  };
}

// ---- state digest ---------------------------------------------------------------------------------

/**
 * Everything an input could change, as one string: every account's collateral (available and
 * reserved) and token balances, its live orders (price, size, matched, reserved), every market's
 * status, tick and YES book (the NO book mirrors it), and the counts of trades, API keys, funders,
 * comments and relayer transactions. Accounts and key and funder counts are read from the private
 * tables (a test may look; the fuzzer must not miss an account a bug would create).
 */
export function stateDigest(ex: PaperExchange): string {
  const eng = ex.engine;
  const priv = eng as unknown as { accounts?: Map<string, unknown> };
  const parts: string[] = [];
  for (const a of priv.accounts?.keys() ?? []) {
    const b = eng.balance(a);
    let s = `${a}:${b.collateral}/${b.collateralReserved}`;
    for (const [t, v] of b.tokens) s += ` ${t.slice(-8)}=${v.available}/${v.reserved}`;
    for (const o of eng.openOrders(a))
      s += ` [${o.id.slice(2, 14)} ${o.price}x${o.originalSize}-${o.sizeMatched} r${o.reserved} ${o.status}]`;
    parts.push(s);
  }
  for (const m of ex.listMarkets()) {
    const book = eng.book(m.meta.tokens[0]);
    let s = `${m.meta.conditionId.slice(2, 10)} ${m.state.status} ${m.state.tick} b`;
    for (const l of book.bids) s += `${l.price}:${l.size},`;
    s += 'a';
    for (const l of book.asks) s += `${l.price}:${l.size},`;
    parts.push(s);
  }
  const keys = (ex.keys as unknown as { byKey?: Map<string, unknown> }).byKey?.size ?? -1;
  const funders = (ex as unknown as { accounts?: { funders?: Map<string, Set<string>> } }).accounts?.funders;
  let nf = 0;
  for (const s of funders?.values() ?? []) nf += s.size;
  parts.push(
    `trades=${ex.allTrades().length} keys=${keys} funders=${nf} comments=${ex.world.comments.length} relayer=${ex.relayerLedger.all().length}`,
  );
  return parts.join('\n');
}

/** What differs between two digests: lines gone and lines new (for a failure message). */
function digestDiff(a: string, b: string): string {
  const x = new Set(a.split('\n'));
  const y = new Set(b.split('\n'));
  const gone = [...x].filter((l) => !y.has(l)).slice(0, 3);
  const added = [...y].filter((l) => !x.has(l)).slice(0, 3);
  return [...gone.map((l) => `before: ${l.slice(0, 300)}`), ...added.map((l) => `after:  ${l.slice(0, 300)}`)].join(
    '\n  ',
  );
}

// ---- envelope checks ------------------------------------------------------------------------------

/** Why `v` is not the spec's error envelope `{success: false, error: {code, message}}`, or undefined. */
export function notEnvelope(v: unknown): string | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return 'not a JSON object';
  const o = v as Record<string, unknown>;
  if (o['success'] !== false) return '"success" is not false';
  const e = o['error'];
  if (e === null || typeof e !== 'object' || Array.isArray(e)) return '"error" is not an object';
  const err = e as Record<string, unknown>;
  if (typeof err['code'] !== 'string' || err['code'] === '') return 'error.code is not a non-empty string';
  if (typeof err['message'] !== 'string') return 'error.message is not a string';
  const extra = Object.keys(err).filter((k) => k !== 'code' && k !== 'message');
  if (extra.length > 0) return `error has extra keys ${extra.join(',')}`;
  return undefined;
}

/** Why a WebSocket text frame is not a well-formed answer, or undefined; `error` tells whether it is an error frame. */
function checkWsText(text: string): { bad?: string; error?: { code: string } } {
  if (text === 'PONG' || text === 'pong') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return { bad: `server sent a text frame that is not JSON: ${text.slice(0, 120)}` };
  }
  const items = Array.isArray(v) ? v : [v];
  for (const it of items) {
    if (it === null || typeof it !== 'object')
      return { bad: `server sent a JSON frame that is not an object: ${text.slice(0, 120)}` };
    const o = it as Record<string, unknown>;
    if (o['event_type'] === 'error' || 'error' in o) {
      const keys = Object.keys(o).sort().join(',');
      const e = o['error'] as Record<string, unknown> | null;
      if (
        keys !== 'error,event_type' ||
        o['event_type'] !== 'error' ||
        e === null ||
        typeof e !== 'object' ||
        typeof e['code'] !== 'string' ||
        typeof e['message'] !== 'string' ||
        Object.keys(e).length !== 2
      )
        return { bad: `error frame outside the envelope: ${text.slice(0, 200)}` };
      return { error: { code: e['code'] as string } };
    }
  }
  return {};
}

// ---- the target -----------------------------------------------------------------------------------

export interface FuzzTargetOptions {
  seed: number;
  /** Listen on a loopback port too (for the loopback HTTP and real-socket WS slices). */
  loopback: boolean;
}

interface FakeConn {
  socket: FakeSocket;
  path: string;
}

interface RealConn {
  ws: WebSocket;
  texts: string[];
  /** Payloads of the pong frames received (the sentinel pings'). */
  pongs: string[];
  closed: number | undefined;
  waiters: Array<() => void>;
}

export class FuzzTarget {
  readonly stats = newStats();
  private lastDigest: string;
  private protoSnapshot: string;
  private crashes: string[] = [];
  private readonly fake = new Map<string, FakeConn>();
  private readonly real = new Map<string, RealConn>();
  private pool: Pool | undefined;
  private sentinels = 0;
  private readonly onCrash = (e: unknown) => {
    this.crashes.push(e instanceof Error ? `${e.name}: ${e.message}\n${e.stack ?? ''}` : String(e));
  };

  private constructor(
    readonly ex: PaperExchange,
    readonly app: FastifyInstance,
    readonly streams: Streams,
    readonly faults: FaultController,
    readonly world: FuzzWorld,
    private readonly port: number | undefined,
  ) {
    this.lastDigest = stateDigest(ex);
    this.protoSnapshot = protoState();
    this.stats.registered = [...new Set(world.routes.map((r) => `${r.method} ${r.url}`))];
    process.on('uncaughtException', this.onCrash);
    process.on('unhandledRejection', this.onCrash);
    if (port !== undefined) this.pool = new Pool(`http://127.0.0.1:${port}`, { connections: 2, pipelining: 1 });
  }

  static async create(o: FuzzTargetOptions): Promise<FuzzTarget> {
    const clock = new VirtualClock(FUZZ_NOW_MS);
    const ex = new PaperExchange({
      ...DEFAULT_EXCHANGE_OPTIONS,
      // the default protocol, V2 (the generators sign V2 orders, and some V1 ones: refused)
      protocol: 2,
      clock,
      identity: newWorldIdentity(o.seed, clock.now()),
      serverSecret: Buffer.from(keccak256(toUtf8Bytes(`mmkit-fuzz-server-${o.seed}`)).slice(2), 'hex'),
    });
    seedWorld(ex, 7);
    const nowSec = Math.floor(clock.now() / 1000);

    // markets: the core ones take orders; admin routes may only close, resolve or re-tick the others
    const normal = ex
      .listMarkets()
      .filter((m) => !m.meta.negRisk)
      .sort((a, b) => Number(a.state.tick !== '0.01') - Number(b.state.tick !== '0.01'));
    const neg = ex.listMarkets().filter((m) => m.meta.negRisk);
    const coreEntries = [...normal.slice(0, 3), ...neg.slice(0, 1)];
    const core: CoreMarket[] = coreEntries.map((m) => ({
      cid: m.meta.conditionId,
      tokens: [m.meta.tokens[0], m.meta.tokens[1]],
      tick: m.state.tick,
      tickPips: Math.round(Number(m.state.tick) * 10_000),
      negRisk: m.meta.negRisk,
    }));
    const coreIds = new Set(core.map((c) => c.cid));
    const sacrificial = ex
      .listMarkets()
      .map((m) => m.meta.conditionId)
      .filter((c) => !coreIds.has(c));

    // traders: keys, collateral, tokens of the core markets, funded proxy wallets
    const traders: FuzzTrader[] = [];
    for (let i = 0; i < 4; i++) {
      const w = new Wallet(keccak256(toUtf8Bytes(`mmkit-fuzz-trader-${o.seed}-${i}`)));
      const address = w.address.toLowerCase();
      const rec = ex.createApiKey(address, '0');
      if (rec === null) throw new Error('fuzz setup: key exists');
      for (const c of core) for (const t of c.tokens) ex.setTokens(address, t, 50_000 * AMOUNT_SCALE);
      ex.fund(proxyWalletOf(address), 2_000 * AMOUNT_SCALE);
      const l1 = [0, 1, 2].map((n) => ({ ...l1Headers(w, 137, nowSec, n) }) as Record<string, string>);
      traders.push({
        index: i,
        address,
        checksum: w.address,
        priv: Buffer.from(w.privateKey.slice(2), 'hex'),
        creds: { apiKey: rec.apiKey, secret: rec.secret, passphrase: rec.passphrase },
        nonce: '0',
        proxy: proxyWalletOf(address),
        safe: safeOf(address),
        l1,
      });
    }
    const nw = new Wallet(keccak256(toUtf8Bytes(`mmkit-fuzz-newcomer-${o.seed}`)));
    const newcomer = {
      address: nw.address.toLowerCase(),
      l1: [0, 1, 2].map((n) => ({ ...l1Headers(nw, 137, nowSec, n) }) as Record<string, string>),
    };

    // resting liquidity of a house account on every core market, so orders can trade
    const house = '0x' + 'ab'.repeat(20);
    ex.fund(house, 1_000_000 * AMOUNT_SCALE);
    let hid = 0;
    for (const c of core) {
      ex.setTokens(house, c.tokens[0], 1_000_000 * AMOUNT_SCALE);
      for (const [side, p] of [
        ['BUY', 3000],
        ['BUY', 4000],
        ['SELL', 6000],
        ['SELL', 7000],
      ] as const) {
        const r = ex.placeInternal({
          id: keccak256(toUtf8Bytes(`house-${hid++}`)),
          account: house,
          tokenId: c.tokens[0],
          side,
          price: p,
          size: 200 * AMOUNT_SCALE,
          type: 'GTC',
        });
        if (!r.ok) throw new Error(`fuzz setup: house order refused: ${r.message}`);
      }
    }

    const security = createSecurityLog(undefined);
    const faults = new FaultController(() => clock.now(), o.seed);
    const app = buildHttpApp(ex, {
      ...DEFAULT_HTTP_OPTIONS,
      rateLimits: { enabled: false, scale: 1, queueMs: 0 },
      adminToken: ADMIN_TOKEN,
      authMaxSkewSec: 300,
      faults,
      security,
      logger: undefined,
    });
    const routes: RouteRef[] = [];
    app.addHook('onRoute', (r) => {
      for (const m of Array.isArray(r.method) ? r.method : [r.method]) routes.push({ method: m, url: r.url });
    });
    const streams = attachStreams(app.server, ex, faults, { maxPayload: MAX_WS_PAYLOAD, security });
    let port: number | undefined;
    if (o.loopback) {
      await app.listen({ host: '127.0.0.1', port: 0 });
      port = (app.server.address() as AddressInfo).port;
    } else await app.ready();

    const w = ex.world;
    const pools: Record<string, string[]> = {
      token: ex.listMarkets().flatMap((m) => [...m.meta.tokens]),
      coreToken: core.flatMap((c) => c.tokens),
      cid: ex.listMarkets().map((m) => m.meta.conditionId),
      coreCid: core.map((c) => c.cid),
      sacrificial,
      marketSlug: ex.listMarkets().map((m) => m.meta.slug),
      eventId: [...w.events.values()].map((e) => e.id),
      eventSlug: [...w.events.values()].map((e) => e.slug),
      tagId: [...w.tags.values()].map((t) => t.id),
      tagSlug: [...w.tags.values()].map((t) => t.slug),
      tagLabel: [...w.tags.values()].map((t) => t.label),
      articleId: [...w.articles.values()].map((a) => a.id),
      articleSlug: [...w.articles.values()].map((a) => a.slug),
      commentId: w.comments.slice(0, 50).map((c) => c.id),
      profile: [...w.profiles.keys()].slice(0, 20),
      seriesSlug: [...w.series.values()].map((s) => s.slug),
      trader: traders.map((t) => t.address),
      apiKey: traders.map((t) => t.creds.apiKey),
      house: [house],
    };
    const world: FuzzWorld = {
      nowSec,
      adminToken: ADMIN_TOKEN,
      traders,
      newcomer,
      core,
      sacrificial,
      routes,
      pools,
      liveOrders: (i) => {
        const t = traders[i];
        return t === undefined ? [] : ex.engine.openOrders(t.address).map((x) => x.id);
      },
      knownOrders: () => ex.engine.openOrders(house).map((x) => x.id),
      tradeIds: () => {
        const all = ex.allTrades();
        return all.slice(Math.max(0, all.length - 20)).map((r) => r.trade.id);
      },
      relayerTxIds: () => {
        const all = ex.relayerLedger.all();
        return all.slice(Math.max(0, all.length - 10)).map((r) => r.id);
      },
    };
    return new FuzzTarget(ex, app, streams, faults, world, port);
  }

  get hasLoopback(): boolean {
    return this.port !== undefined;
  }

  /** Runs one input; returns why it broke an invariant, or undefined. */
  async run(input: FuzzInput): Promise<string | undefined> {
    this.stats.inputs++;
    if (TRACE) appendFileSync(TRACE, `${this.stats.inputs} ${JSON.stringify(input).slice(0, 3000)}\n`);
    const crashes = this.crashes.length;
    let failure: string | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const hung = new Promise<string>((r) => {
        timer = setTimeout(() => r(`no answer within ${HANG_MS / 1000} s (the input hangs the exchange)`), HANG_MS);
      });
      failure = await Promise.race([input.kind === 'http' ? this.runHttp(input) : this.runWs(input), hung]);
    } catch (e) {
      failure = `the harness caught an exception: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`;
    } finally {
      clearTimeout(timer);
    }
    if (failure === undefined && this.crashes.length > crashes)
      failure = `uncaught exception or unhandled rejection: ${this.crashes.slice(crashes).join('\n')}`;
    if (failure === undefined) {
      const p = protoState();
      if (p !== this.protoSnapshot) {
        failure = `prototype pollution: ${p}`;
        this.protoSnapshot = p;
      }
    }
    if (failure === undefined) {
      const listenerErrors = this.streams.stats().listenerErrors;
      if (listenerErrors > 0) failure = `the streams caught ${listenerErrors} listener error(s)`;
    }
    return failure;
  }

  // ---- HTTP ---------------------------------------------------------------------------------------

  private async runHttp(input: HttpInput): Promise<string | undefined> {
    const r = this.stats.routes[input.route] ?? (this.stats.routes[input.route] = { n: 0, ok: 0 });
    r.n++;
    let status: number;
    let text: string;
    let contentType: string;
    if (input.via === 'loopback' && this.pool !== undefined) {
      this.stats.httpLoopback++;
      // what undici will not send (a path with spaces or characters over 0xff, header characters)
      // goes as raw bytes on a socket of its own
      let res;
      if (/[^\u0021-\u00ff]/.test(input.url)) res = undefined;
      else
        try {
          res = await this.pool.request({
            method: input.method as 'GET',
            path: input.url,
            headers: input.headers,
            ...(input.body !== undefined ? { body: input.body } : {}),
          });
        } catch (e) {
          const code = (e as { code?: string }).code ?? '';
          if (code !== 'UND_ERR_INVALID_ARG') return `loopback request failed: ${code} ${(e as Error).message}`;
          // and a fresh pool: undici can stall a connection after refusing an argument
          const old = this.pool;
          this.pool = new Pool(`http://127.0.0.1:${this.port}`, { connections: 2, pipelining: 1 });
          void old.destroy();
        }
      if (res === undefined) {
        this.stats.loopbackRaw++;
        const a = await rawHttp(this.port!, input);
        if (typeof a === 'string') return a;
        ({ status, text, contentType } = a);
      } else {
        status = res.statusCode;
        text = await res.body.text();
        const ct = res.headers['content-type'];
        contentType = Array.isArray(ct) ? (ct[0] ?? '') : (ct ?? '');
      }
    } else {
      this.stats.httpInject++;
      const res = await this.app.inject({
        method: input.method as 'GET',
        url: input.url,
        headers: input.headers,
        ...(input.body !== undefined ? { payload: input.body } : {}),
      });
      status = res.statusCode;
      text = res.body;
      const ct = res.headers['content-type'];
      contentType = Array.isArray(ct) ? (ct[0] ?? '') : String(ct ?? '');
    }
    const cls = `${Math.floor(status / 100)}xx`;
    this.stats.status[cls] = (this.stats.status[cls] ?? 0) + 1;
    if (status >= 500) return `status ${status}: ${text.slice(0, 300)}`;
    const ok = status >= 200 && status < 300;
    let refused = !ok;
    if (!ok && input.method !== 'HEAD') {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return `refusal ${status} is not JSON (${contentType}): ${text.slice(0, 200)}`;
      }
      const bad = notEnvelope(body);
      if (bad !== undefined) return `refusal ${status} outside the envelope (${bad}): ${text.slice(0, 300)}`;
      if (!contentType.startsWith('application/json')) return `refusal ${status} with content-type ${contentType}`;
      const code = String((body as { error: { code: string } }).error.code);
      this.stats.codes[code] = (this.stats.codes[code] ?? 0) + 1;
    }
    if (ok) {
      r.ok++;
      const sem = this.semanticRefusal(input, text);
      if (sem.bad !== undefined) return sem.bad;
      if (sem.refused) refused = true;
    }
    if (input.headers['x-fuzz-signed'] === '1' && status !== 401) this.stats.pastAuth++;
    // state: a refusal leaves it as it was; an accepted input may change it (then restore the
    // fuzz's own keys and clear fault rules, so later inputs keep reaching the handlers)
    if (refused) {
      this.stats.stateChecks++;
      const d = stateDigest(this.ex);
      if (d !== this.lastDigest) {
        const diff = digestDiff(this.lastDigest, d);
        this.lastDigest = d;
        return `state changed by a refused input (status ${status}: ${text.slice(0, 200)})\n  ${diff}`;
      }
    } else {
      this.restore();
      this.lastDigest = stateDigest(this.ex);
    }
    return undefined;
  }

  /**
   * Refusals inside a 2xx answer: a batch of orders all refused, a cancel that canceled nothing.
   * Each refused order of a batch must be in the envelope.
   */
  private semanticRefusal(input: HttpInput, text: string): { refused: boolean; bad?: string } {
    const path = input.url.split('?')[0] ?? '';
    if (input.method === 'POST' && path === '/clob/order') {
      this.stats.ordersAccepted++;
      return { refused: false };
    }
    if (input.method === 'POST' && path === '/clob/orders') {
      let v: unknown;
      try {
        v = JSON.parse(text);
      } catch {
        return { refused: false, bad: `POST /orders answered 2xx with a body that is not JSON: ${text.slice(0, 200)}` };
      }
      if (!Array.isArray(v))
        return { refused: false, bad: `POST /orders answered 2xx without an array: ${text.slice(0, 200)}` };
      let accepted = 0;
      for (const e of v) {
        if (e !== null && typeof e === 'object' && (e as { success?: unknown }).success === true) accepted++;
        else {
          const bad = notEnvelope(e);
          if (bad !== undefined)
            return {
              refused: false,
              bad: `a refused order of a batch is outside the envelope (${bad}): ${JSON.stringify(e).slice(0, 300)}`,
            };
        }
      }
      this.stats.ordersAccepted += accepted;
      return { refused: accepted === 0 };
    }
    if (input.method === 'DELETE' && (path === '/clob/order' || path === '/clob/orders')) {
      try {
        const v = JSON.parse(text) as { canceled?: unknown };
        return { refused: Array.isArray(v.canceled) && v.canceled.length === 0 };
      } catch {
        return { refused: false };
      }
    }
    return { refused: false };
  }

  /**
   * After an accepted input: the fuzz traders keep a key, and no fault rule stays active. A key deleted
   * and created again is a new key (new secret and passphrase): the trader signs with whatever key its
   * (address, nonce) has now.
   */
  private restore(): void {
    for (const t of this.world.traders) {
      if (this.ex.keys.get(t.creds.apiKey) !== undefined) continue;
      const rec = this.ex.keys.find(t.address, t.nonce) ?? this.ex.createApiKey(t.address, t.nonce);
      if (rec) t.creds = { apiKey: rec.apiKey, secret: rec.secret, passphrase: rec.passphrase };
    }
    if (this.faults.list().length > 0) this.faults.clear();
  }

  // ---- WebSocket ----------------------------------------------------------------------------------

  private async runWs(input: WsInput): Promise<string | undefined> {
    this.stats.wsFrames += input.frames.length;
    const failure =
      input.via === 'real' && this.port !== undefined ? await this.runWsReal(input) : await this.runWsFake(input);
    if (failure !== undefined) return failure;
    // no client frame changes the exchange's state
    this.stats.stateChecks++;
    const d = stateDigest(this.ex);
    if (d !== this.lastDigest) {
      const diff = digestDiff(this.lastDigest, d);
      this.lastDigest = d;
      return `state changed by a WebSocket input\n  ${diff}`;
    }
    return undefined;
  }

  private fakeConn(input: WsInput): FakeConn {
    const key = input.path;
    const cur = this.fake.get(key);
    if (
      !input.fresh &&
      input.handshake === undefined &&
      cur !== undefined &&
      !cur.socket.gone &&
      cur.socket.closedCode === undefined
    )
      return cur;
    if (cur !== undefined) {
      cur.socket.destroy();
      this.fake.delete(key);
    }
    const socket = new FakeSocket();
    const conn = { socket, path: input.path };
    this.app.server.emit('upgrade', upgradeRequest(input.path, socket, input.handshake), socket, Buffer.alloc(0));
    if (input.handshake === undefined) this.fake.set(key, conn);
    return conn;
  }

  private async runWsFake(input: WsInput): Promise<string | undefined> {
    this.stats.wsFake++;
    const conn = this.fakeConn(input);
    const s = conn.socket;
    const collected: ServerFrame[] = [];
    const pull = (): string | undefined => {
      const r = s.collect();
      collected.push(...r.frames);
      return r.error;
    };
    let err = pull();
    if (err !== undefined) return err;
    let expectAnswer = 0;
    for (const f of input.frames) {
      if (s.refusedWith !== undefined || s.closedCode !== undefined || s.gone) break;
      if (expectsError(f)) expectAnswer++;
      s.send(clientFrameBytes(f));
      err = pull();
      if (err !== undefined) return err;
    }
    // writes corked until the end of the tick, closes and cleanups: let them happen
    await new Promise<void>((r) => setImmediate(r));
    err = pull();
    if (err !== undefined) return err;
    if (s.refusedWith !== undefined) {
      const code = Number(s.refusedWith.split(' ')[1]);
      if (!(code >= 400 && code < 500)) return `upgrade of ${input.path} answered ${s.refusedWith}`;
      this.fake.delete(input.path);
      s.destroy();
      return undefined;
    }
    const f = this.checkServerFrames(collected, expectAnswer, sentClose(input));
    if (s.closedCode !== undefined || s.gone) {
      if (this.fake.get(input.path) === conn) this.fake.delete(input.path);
      s.destroy();
    }
    return f;
  }

  /** Checks what the server sent for one input; `expectAnswer`: frames that must get an error (or a close). */
  private checkServerFrames(frames: ServerFrame[], expectAnswer: number, clientClosed: boolean): string | undefined {
    let errors = 0;
    let closed = false;
    for (const f of frames) {
      if (f.opcode === 0x1) {
        const c = checkWsText(f.payload.toString('utf8'));
        if (c.bad !== undefined) return c.bad;
        if (c.error !== undefined) {
          errors++;
          this.stats.wsErrorFrames++;
          this.stats.codes[`ws:${c.error.code}`] = (this.stats.codes[`ws:${c.error.code}`] ?? 0) + 1;
          if (c.error.code === 'INTERNAL') return `INTERNAL error frame: ${f.payload.toString('utf8').slice(0, 200)}`;
        }
      } else if (f.opcode === 0x8) {
        closed = true;
        const code = f.payload.length >= 2 ? f.payload.readUInt16BE(0) : 1005;
        this.stats.wsClosed[String(code)] = (this.stats.wsClosed[String(code)] ?? 0) + 1;
        if (code === 1011 && !clientClosed)
          return `close ${code}: ${f.payload.subarray(2).toString('utf8').slice(0, 120)}`;
      } else if (f.opcode === 0x2) return 'the server sent a binary frame';
      else if (f.opcode !== 0x9 && f.opcode !== 0xa) return `the server sent opcode ${f.opcode}`;
    }
    if (expectAnswer > 0 && errors === 0 && !closed)
      return `a malformed message (not a JSON object, not a ping) got no error frame`;
    return undefined;
  }

  private async realConn(input: WsInput): Promise<RealConn | string> {
    const cur = this.real.get(input.path);
    if (!input.fresh && cur !== undefined && cur.closed === undefined && cur.ws.readyState === WebSocket.OPEN)
      return cur;
    if (cur !== undefined) {
      cur.ws.terminate();
      this.real.delete(input.path);
    }
    const ws = new WebSocket(`ws://127.0.0.1:${this.port}${input.path}`, { perMessageDeflate: false });
    const conn: RealConn = { ws, texts: [], pongs: [], closed: undefined, waiters: [] };
    const wake = () => {
      const w = conn.waiters;
      conn.waiters = [];
      for (const f of w) f();
    };
    ws.on('message', (d, isBinary) => {
      conn.texts.push(isBinary ? '\u0000binary' : d.toString());
      wake();
    });
    ws.on('pong', (d) => {
      conn.pongs.push(d.toString());
      wake();
    });
    ws.on('close', (code) => {
      conn.closed = code;
      wake();
    });
    ws.on('error', () => {
      conn.closed ??= 1006;
      wake();
    });
    const opened = await Promise.race([
      once(ws, 'open').then(() => 'open'),
      once(ws, 'unexpected-response').then(([, res]) => `status ${(res as { statusCode: number }).statusCode}`),
      once(ws, 'close').then(() => 'closed'),
      once(ws, 'error').then(() => 'closed'),
    ]);
    if (opened !== 'open') {
      ws.terminate();
      const st = /^status (\d+)/.exec(opened);
      if (st && Number(st[1]) >= 500) return `upgrade of ${input.path} answered ${opened}`;
      return 'refused';
    }
    this.real.set(input.path, conn);
    return conn;
  }

  private async runWsReal(input: WsInput): Promise<string | undefined> {
    this.stats.wsReal++;
    const c = await this.realConn(input);
    if (c === 'refused') return undefined;
    if (typeof c === 'string') return c;
    c.texts = [];
    c.pongs = [];
    let expectAnswer = 0;
    for (const f of input.frames) {
      if (c.closed !== undefined || c.ws.readyState !== WebSocket.OPEN) break;
      if (expectsError(f)) expectAnswer++;
      if (f.t === 'text') c.ws.send(f.text);
      else if (f.t === 'binary') c.ws.send(Buffer.from(f.bytes), { binary: true });
      else if (f.t === 'ping') c.ws.ping(Buffer.from(f.payload).subarray(0, 125));
      else {
        // the rest as raw bytes on the socket (masked client frames, as a client sends them)
        const sock = (c.ws as unknown as { _socket?: { write(b: Buffer): void } })._socket;
        sock?.write(clientFrameBytes(f));
      }
    }
    // sentinel: a ping frame of our own; its pong comes after every answer to the frames before it
    // (one socket, in order; the text PING is no sentinel: the fuzzed frames may hold one too)
    const sentinel = `sentinel-${++this.sentinels}`;
    if (c.closed === undefined && c.ws.readyState === WebSocket.OPEN) c.ws.ping(Buffer.from(sentinel));
    const deadline = Date.now() + 10_000;
    while (c.closed === undefined && !c.pongs.includes(sentinel)) {
      if (Date.now() > deadline) return 'no answer (PONG or close) within 10 s';
      await new Promise<void>((r) => {
        const t = setTimeout(r, 50);
        c.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
    const frames: ServerFrame[] = c.texts
      .filter((t) => t !== 'PONG')
      .map((t) =>
        t === '\u0000binary' ? { opcode: 2, payload: Buffer.alloc(0) } : { opcode: 1, payload: Buffer.from(t) },
      );
    if (c.closed !== undefined) {
      const code = c.closed;
      this.stats.wsClosed[`real:${code}`] = (this.stats.wsClosed[`real:${code}`] ?? 0) + 1;
      this.real.delete(input.path);
      if (code === 1011 && !sentClose(input)) return 'close 1011 (internal error)';
      frames.push({ opcode: 8, payload: Buffer.from([code >> 8, code & 0xff]) });
    }
    return this.checkServerFrames(
      frames.map((f) => (f.opcode === 8 && c.closed === 1006 ? { opcode: 8, payload: Buffer.from([0x03, 0xe8]) } : f)),
      expectAnswer,
      sentClose(input),
    );
  }

  /** Builds L2 headers for trader `i` over exactly what is sent. */
  l2For(i: number, method: string, signedPath: string, body: string | undefined): Record<string, string> {
    const t = this.world.traders[i]!;
    return l2HeadersFor(t, this.world.nowSec, method, signedPath, body);
  }

  async close(): Promise<void> {
    process.off('uncaughtException', this.onCrash);
    process.off('unhandledRejection', this.onCrash);
    this.stats.tradesAtEnd = this.ex.allTrades().length;
    for (const c of this.fake.values()) c.socket.destroy();
    for (const c of this.real.values()) c.ws.terminate();
    await this.pool?.close();
    await this.streams.close();
    await this.app.close();
  }
}

/**
 * An HTTP request as raw bytes on a new loopback connection (`Connection: close`): the status,
 * body and content type of the answer, or why there is none.
 */
function rawHttp(
  port: number,
  input: HttpInput,
): Promise<{ status: number; text: string; contentType: string } | string> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    sock.setTimeout(HANG_MS - 1000, () => sock.destroy());
    sock.on('data', (d) => chunks.push(d));
    sock.on('error', () => {});
    sock.on('close', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end < 0) return resolve(`raw request: the connection closed without an answer (${all.length} bytes)`);
      const head = all.subarray(0, end).toString('latin1');
      let body = all.subarray(end + 4);
      if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
        const parts: Buffer[] = [];
        let i = 0;
        for (;;) {
          const le = body.indexOf('\r\n', i);
          if (le < 0) break;
          const n = Number.parseInt(body.subarray(i, le).toString('latin1'), 16);
          if (!(n > 0)) break;
          parts.push(body.subarray(le + 2, le + 2 + n));
          i = le + 2 + n + 2;
        }
        body = Buffer.concat(parts);
      }
      resolve({
        status: Number(head.split(' ')[1]),
        text: body.toString('utf8'),
        contentType: /\r\ncontent-type: *([^\r\n]*)/i.exec(head)?.[1] ?? '',
      });
    });
    const lines = [`${input.method} ${input.url} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
    for (const [k, v] of Object.entries(input.headers)) lines.push(`${k}: ${v}`);
    const body = input.body === undefined ? Buffer.alloc(0) : Buffer.from(input.body, 'utf8');
    if (input.body !== undefined) lines.push(`Content-Length: ${body.length}`);
    sock.end(Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'utf8'), body]));
  });
}

/** L2 headers of trader `t` over `method`, `signedPath` and `body` at `nowSec`. */
export function l2HeadersFor(
  t: FuzzTrader,
  nowSec: number,
  method: string,
  signedPath: string,
  body: string | undefined,
): Record<string, string> {
  return {
    POLY_ADDRESS: t.checksum,
    POLY_SIGNATURE: buildHmacSignature(t.creds.secret, nowSec, method, signedPath, body),
    POLY_TIMESTAMP: String(nowSec),
    POLY_API_KEY: t.creds.apiKey,
    POLY_PASSPHRASE: t.creds.passphrase,
  };
}

/** True when the server must answer the frame with an error frame (or close): text that is neither a ping nor a JSON object. */
function expectsError(f: ClientFrame): boolean {
  if (f.t !== 'text') return false;
  const t = f.text;
  if (t.length > MAX_WS_PAYLOAD / 2) return false; // maybe over the frame limit (a close, not an error frame)
  if (t.length <= 6 && (t.trim() === 'PING' || t.trim() === 'ping')) return false;
  try {
    const v = JSON.parse(t);
    return v === null || typeof v !== 'object' || Array.isArray(v);
  } catch {
    return true;
  }
}

/** Whether the client sent a close frame (the server then echoes its code, whatever it is). */
function sentClose(input: WsInput): boolean {
  return input.frames.some((f) => f.t === 'close' || (f.t === 'raw' && ((f.bytes[0] ?? 0) & 0x0f) === 0x8));
}

/** The own property names of the built-in prototypes (a pollution changes them). */
function protoState(): string {
  return [Object.prototype, Array.prototype, Function.prototype, String.prototype]
    .map((p) => Object.getOwnPropertyNames(p).length)
    .join(',');
}

export { tickFromPips, ZERO };
