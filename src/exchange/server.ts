/**
 * Start and stop the whole paper exchange on one loopback port: HTTP APIs (CLOB, metadata, data,
 * content), the market/user streams and the real-time data stream, the synthetic world, fault
 * injection and, with a database file, persistence.
 */
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { LiveClock, type Clock } from '../core/clock.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange, type ExchangeOptions } from './exchange.ts';
import { FaultController, type FaultRule } from './faults.ts';
import { newWorldIdentity, type WorldIdentity } from './identity.ts';
import type { RatePolicy } from './limits/policy.ts';
import type { SignerLimiter } from './limits/signer-buckets.ts';
import {
  buildHttpApp,
  capConnectionsPerAddress,
  DEFAULT_HTTP_OPTIONS,
  MAX_CONNECTIONS,
  MAX_CONNECTIONS_PER_IP,
  type HttpOptions,
} from './http/server.ts';
import { openJournal, type Journal } from './persist/journal.ts';
import { createSecurityLog, type SecurityLog } from './security-log.ts';
import { attachStreams, streamLimits, type Streams, type StreamsOptions } from './ws/index.ts';
import { seedWorld, startWorld, type WorldOptions } from './world/index.ts';

export interface ExchangeServerOptions {
  host: string;
  port: number;
  seed: number;
  clock?: Clock;
  exchange?: Partial<Omit<ExchangeOptions, 'clock'>>;
  http?: Partial<HttpOptions>;
  /** World activity; default: agents on, lifecycle on, price feed on. */
  world?: Partial<Omit<WorldOptions, 'seed'>>;
  /** Fault rules active from the start (more can be set through the admin route). */
  faults?: FaultRule[];
  /** SQLite file: state survives restarts. In memory when absent. */
  dbFile?: string;
  /** Collateral to credit at start: address -> micro-units. */
  fund?: Array<{ address: string; micro: number }>;
  /**
   * Abuse limits of the WebSockets (connection caps, auth deadline, server pings and idle
   * timeout, per-connection message budget); defaults in src/exchange/ws/index.ts and budget.ts.
   */
  ws?: Omit<StreamsOptions, 'maxPayload' | 'security'>;
  logger?: Logger;
}

export interface ExchangeUrls {
  clob_url: string;
  gamma_url: string;
  data_url: string;
  content_url: string;
  /** The relayer (`POST /submit`: split, merge, redeem, convert; `GET /transaction`). */
  relayer_url: string;
  ws_url: string;
  price_feed_url: string;
}

export interface RunningExchange {
  exchange: PaperExchange;
  faults: FaultController;
  /** Connected sockets and frame counters of the streams. */
  streams: Streams;
  urls: ExchangeUrls;
  port: number;
  /** The world's identity (`GET {clob_url}/world`): new for a fresh world, kept by a restored one. */
  identity: WorldIdentity;
  /**
   * What the world runs with: its seed and taker fee rate (bps), a restored world's from its journal
   * whatever was asked (the banner says these: trial 13 F15).
   */
  world: { readonly seed: number; readonly feeRateBps: number; readonly restored: boolean };
  /** The HTTP rate limiter (absent when rate limits are off): tests read its tables' `size()`. */
  rateLimits: RatePolicy | undefined;
  /** The per-signer order and cancel buckets (mode `off` when the limits are off). */
  signerLimits: SignerLimiter;
  /** The security log (failed auth, refused orders, admin actions, limit trips): counts and recent events. */
  security: SecurityLog;
  /** Idempotent: stops the world, closes sockets and the server, flushes the journal. */
  close(): Promise<void>;
}

export async function startExchange(o: Partial<ExchangeServerOptions> = {}): Promise<RunningExchange> {
  const clock = o.clock ?? new LiveClock();
  const host = o.host ?? '127.0.0.1';
  const seed = o.seed ?? 1;
  streamLimits(o.ws ?? {}); // a bad limit stops here, before anything is opened
  let journal: Journal | undefined;
  let serverSecret = o.exchange?.serverSecret;
  if (o.dbFile !== undefined) {
    journal = openJournal(o.dbFile, { seed, now: clock.now() });
    serverSecret = journal.serverSecret;
  }
  const identity = journal?.identity ?? newWorldIdentity(seed, clock.now());
  const ex = new PaperExchange({
    ...DEFAULT_EXCHANGE_OPTIONS,
    ...(o.exchange ?? {}),
    ...(serverSecret ? { serverSecret } : {}),
    identity,
    clock,
  });
  const replayed = journal ? ex.replay(journal.commands()) : 0;
  if (journal) ex.setSink(journal);
  if (replayed === 0)
    seedWorld(ex, journal?.seed ?? seed, {
      ...(o.world?.feeRateBps !== undefined ? { feeRateBps: o.world.feeRateBps } : {}),
    });
  for (const f of o.fund ?? []) ex.fund(f.address, f.micro);

  const security = createSecurityLog(o.logger);
  const faults = new FaultController(() => clock.now(), seed);
  if (o.faults?.length) faults.set(o.faults);
  const httpOpts: HttpOptions = {
    ...DEFAULT_HTTP_OPTIONS,
    ...(o.http ?? {}),
    rateLimits: { ...DEFAULT_HTTP_OPTIONS.rateLimits, ...(o.http?.rateLimits ?? {}) },
    logger: o.logger,
    faults,
    security,
  };
  const app = buildHttpApp(ex, httpOpts);
  // every connection, HTTP and WebSocket upgrades alike (those have per-address caps of their own)
  app.server.maxConnections = httpOpts.maxConnections ?? MAX_CONNECTIONS;
  capConnectionsPerAddress(app.server, httpOpts.maxConnectionsPerIp ?? MAX_CONNECTIONS_PER_IP);
  const streams = attachStreams(app.server, ex, faults, { maxPayload: 64 * 1024, ...(o.ws ?? {}), security });
  await app.listen({ host, port: o.port ?? 0 });
  const port = (app.server.address() as AddressInfo).port;
  ex.start();
  // a restored world keeps the fee rate it was created with, for the markets it lists later too
  // (one rate for the whole world): a different one asked for is said, not applied
  const restoredRate = replayed > 0 ? worldFeeRate(ex) : undefined;
  const asked = o.world?.feeRateBps;
  if (restoredRate !== undefined && asked !== undefined && asked !== restoredRate)
    o.logger?.warn(
      { feeRateBps: asked, kept: restoredRate, db: o.dbFile ?? null },
      `fee rate ${asked} bps not applied: the world restored from the journal keeps its markets' ${restoredRate} bps`,
    );
  const world = startWorld(ex, {
    seed: journal?.seed ?? seed,
    agents: 'default',
    lifecycle: true,
    priceFeed: true,
    ...(o.world ?? {}),
    ...(restoredRate !== undefined ? { feeRateBps: restoredRate } : {}),
  });
  o.logger?.info(
    { replayed, db: o.dbFile ?? null, world: identity.worldId },
    replayed ? 'state restored from the journal' : 'fresh state',
  );
  const h = host.includes(':') ? `[${host}]` : host;
  const base = `http://${h}:${port}`;
  const urls: ExchangeUrls = {
    clob_url: `${base}/clob`,
    gamma_url: `${base}/gamma`,
    data_url: `${base}/data`,
    content_url: `${base}/content`,
    relayer_url: `${base}/relayer`,
    ws_url: `ws://${h}:${port}`,
    price_feed_url: `ws://${h}:${port}/rtds`,
  };
  let closing: Promise<void> | undefined;
  return {
    exchange: ex,
    faults,
    streams,
    urls,
    port,
    identity,
    world: {
      seed: journal?.seed ?? seed,
      feeRateBps: restoredRate ?? asked ?? 0,
      restored: replayed > 0,
    },
    rateLimits: app.rateLimits,
    signerLimits: app.signerLimits,
    security,
    close() {
      closing ??= (async () => {
        world.stop();
        ex.stop();
        await streams.close();
        await app.close();
        journal?.close();
      })();
      return closing;
    },
  };
}

/** The taker fee rate of a restored world's markets: the highest of them (one rate for the whole world), 0 without markets. */
function worldFeeRate(ex: PaperExchange): number {
  let r = 0;
  for (const m of ex.listMarkets()) r = Math.max(r, m.meta.feeRateBps);
  return r;
}
