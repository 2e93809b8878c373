/**
 * Start and stop the whole paper exchange on one loopback port.
 */
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { LiveClock, type Clock } from '../core/clock.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange, type ExchangeOptions } from './exchange.ts';
import { buildHttpApp, DEFAULT_HTTP_OPTIONS, type HttpOptions } from './http/server.ts';
import { initialMarkets } from './markets.ts';

export interface ExchangeServerOptions {
  host: string;
  port: number;
  seed: number;
  clock?: Clock;
  exchange?: Partial<Omit<ExchangeOptions, 'clock'>>;
  http?: Partial<HttpOptions>;
  /** Collateral to credit at start: address -> micro-units. */
  fund?: Array<{ address: string; micro: number }>;
  logger?: Logger;
}

export interface ExchangeUrls {
  clob_url: string;
  gamma_url: string;
  data_url: string;
  content_url: string;
  ws_url: string;
  price_feed_url: string;
}

export interface RunningExchange {
  exchange: PaperExchange;
  urls: ExchangeUrls;
  port: number;
  /** Idempotent. */
  close(): Promise<void>;
}

export async function startExchange(o: Partial<ExchangeServerOptions> = {}): Promise<RunningExchange> {
  const clock = o.clock ?? new LiveClock();
  const host = o.host ?? '127.0.0.1';
  const ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, ...(o.exchange ?? {}), clock });
  for (const m of initialMarkets(o.seed ?? 1, clock.now())) ex.addMarket(m);
  for (const f of o.fund ?? []) ex.fund(f.address, f.micro);
  const httpOpts: HttpOptions = {
    ...DEFAULT_HTTP_OPTIONS,
    ...(o.http ?? {}),
    rateLimits: { ...DEFAULT_HTTP_OPTIONS.rateLimits, ...(o.http?.rateLimits ?? {}) },
    logger: o.logger,
  };
  const app = buildHttpApp(ex, httpOpts);
  await app.listen({ host, port: o.port ?? 0 });
  const port = (app.server.address() as AddressInfo).port;
  ex.start();
  const h = host.includes(':') ? `[${host}]` : host;
  const base = `http://${h}:${port}`;
  const urls: ExchangeUrls = {
    clob_url: `${base}/clob`,
    gamma_url: `${base}/gamma`,
    data_url: `${base}/data`,
    content_url: `${base}/content`,
    ws_url: `ws://${h}:${port}`,
    price_feed_url: `ws://${h}:${port}/rtds`,
  };
  let closing: Promise<void> | undefined;
  return {
    exchange: ex,
    urls,
    port,
    close() {
      closing ??= (async () => {
        ex.stop();
        await app.close();
      })();
      return closing;
    },
  };
}
