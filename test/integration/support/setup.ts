import { Wallet } from 'ethers';
import { createOrDeriveApiKey } from '../../../src/api/auth.ts';
import { createTransport, type HttpTransport, type TransportOptions } from '../../../src/api/http/transport.ts';
import { OrderBuilder, type OrderProtocol } from '../../../src/api/orders.ts';
import { LiveClock } from '../../../src/core/clock.ts';
import { startExchange, type ExchangeServerOptions, type RunningExchange } from '../../../src/exchange/server.ts';
import { createLiveVenue, type LiveVenueOptions } from '../../../src/venues/live/create-live-venue.ts';
import { liveVenueFromParts, type LiveVenue, type LiveVenueParts } from '../../../src/venues/live/live-venue.ts';
import { listMarkets, Trader, type MarketInfo } from './trader.ts';

export const ADMIN = 'test-admin-token';

export interface TestVenue {
  running: RunningExchange;
  clob: string;
  markets: MarketInfo[];
  /** A normal (not neg-risk) market with tick 0.01. */
  m1: MarketInfo;
  /** A neg-risk market. */
  negRisk: MarketInfo;
  trader(): Promise<Trader>;
  admin(path: string, body: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export async function startVenue(o: Partial<ExchangeServerOptions> = {}): Promise<TestVenue> {
  const running = await startExchange({
    port: 0,
    seed: 7,
    ...o,
    world: { agents: 'none', lifecycle: false, priceFeed: false, ...(o.world ?? {}) },
    http: { adminToken: ADMIN, ...(o.http ?? {}) },
  });
  const clob = running.urls.clob_url;
  const markets = await listMarkets(clob);
  const m1 = markets.find((m) => !m.neg_risk && m.minimum_tick_size === 0.01);
  const negRisk = markets.find((m) => m.neg_risk);
  if (!m1 || !negRisk) throw new Error('seeded markets lack a 0.01 market or a neg-risk market');
  return {
    running,
    clob,
    markets,
    m1,
    negRisk,
    async trader() {
      const t = new Trader(clob);
      t.protocol = running.exchange.protocol; // sign what the exchange speaks
      const r = await t.createKey();
      if (r.status !== 200) throw new Error(`createKey: ${r.status} ${JSON.stringify(r.body)}`);
      return t;
    },
    async admin(path, body) {
      const res = await fetch(`${clob.replace(/\/clob$/, '')}/admin${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-admin-token': ADMIN },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    },
    close: () => running.close(),
  };
}

/** A URL of the paper exchange a LiveVenue may be given beyond clob, gamma, data and ws. */
export type ExtraUrl = 'content' | 'relayer';

/**
 * The LiveVenue URL set of a paper exchange: clob, gamma, data and ws, plus the `extra` ones asked for.
 * Only those asked for: a venue given a relayer (or content) URL offers what it serves, so each test keeps
 * the set it tested with.
 */
export function liveUrls(v: TestVenue | RunningExchange, ...extra: ExtraUrl[]): LiveVenueOptions['urls'] {
  const u = 'running' in v ? v.running.urls : v.urls;
  return {
    clob: u.clob_url,
    gamma: u.gamma_url,
    data: u.data_url,
    ws: u.ws_url,
    ...(extra.includes('content') ? { content: u.content_url } : {}),
    ...(extra.includes('relayer') ? { relayer: u.relayer_url } : {}),
  };
}

/**
 * A LiveVenue on the paper exchange `v` (URLs from `liveUrls(v, ...extra)`); `o` is the rest of its
 * options, its wallet a fresh random one unless given.
 */
export function liveVenueFor(
  v: TestVenue | RunningExchange,
  o: Omit<LiveVenueOptions, 'urls' | 'wallet'> & { wallet?: Wallet } = {},
  ...extra: ExtraUrl[]
): Promise<LiveVenue> {
  return createLiveVenue({
    ...o,
    urls: liveUrls(v, ...extra),
    wallet: o.wallet ?? new Wallet(Wallet.createRandom().privateKey),
  });
}

/**
 * A LiveVenue assembled from its parts on the paper exchange `v`, for the tests that set what
 * createLiveVenue does not expose (the transport's retry, budgets, timeout): a fresh wallet, its own
 * transport on the clob URL (chain 137, a wall clock, plus `o.transport`) carrying a derived API key, an
 * OrderBuilder (of `o.protocol` if given) and the ws URL, all on one clock (returned); its markets are loaded.
 */
export async function partsVenueFor(
  v: TestVenue,
  o: { transport?: Partial<TransportOptions>; protocol?: OrderProtocol; presign?: LiveVenueParts['presign'] } = {},
): Promise<{ venue: LiveVenue; transport: HttpTransport; wallet: Wallet; clock: LiveClock }> {
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  const clock = new LiveClock();
  const transport = createTransport({ urls: { clob: v.clob }, signer: wallet, chainId: 137, clock, ...o.transport });
  const creds = await createOrDeriveApiKey(transport);
  transport.setCredentials(creds);
  const venue = liveVenueFromParts({
    transport,
    creds,
    address: wallet.address,
    builder: new OrderBuilder({
      wallet,
      chainId: 137,
      clock,
      ...(o.protocol !== undefined ? { protocol: o.protocol } : {}),
    }),
    urls: { ws: v.running.urls.ws_url },
    clock,
    ...(o.presign !== undefined ? { presign: o.presign } : {}),
  });
  await venue.markets();
  return { venue, transport, wallet, clock };
}

export const yes = (m: MarketInfo): string => m.tokens[0]!.token_id;
export const no = (m: MarketInfo): string => m.tokens[1]!.token_id;
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** GET a URL and parse its JSON body (untyped, for assertions). */
export async function getJson(url: string): Promise<any> {
  const r = await fetch(url);
  return r.json();
}

/**
 * Polls `cond` (sync or async) every `everyMs` until it holds or `timeoutMs` passed; returns whether
 * it held. For what happens after a delay the test cannot see (a held request landing, a timer at the
 * exchange): a fixed sleep then one look fails on a loaded machine.
 */
export async function eventually(
  cond: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await cond()) return true;
    if (Date.now() >= end) return false;
    await sleep(everyMs);
  }
}
