/**
 * Probing the venue a recording reads (`mmkit record`, ./recorder.ts): its URLs from its base URL
 * (`venueUrls`), its world id and a probe for it (`watchWorld`, a paper exchange's `GET /world`),
 * the order protocol it speaks (`venueProtocol`, its `GET /version`), and its markets as it lists
 * them now (`marketReader`, `GET /markets/{id}`, for the recorder's re-reads).
 */
import { ClobClient } from '../api/clob.ts';
import type { MarketInfo } from '../core/market-info.ts';
import { toMarketInfo } from '../venues/live/live-mappers.ts';
import { createTransport } from '../api/http/transport.ts';
import { ConfigError } from '../core/errors.ts';
import type { FeeProtocol } from '../core/fees.ts';

/** A venue's world as `startRecorder` watches it (`world`), and the connections to release after. */
export interface WorldWatch {
  /** Undefined: the venue has no `GET /world` (the public service): nothing to watch. */
  readonly world: { readonly id: string; readonly probe: () => Promise<string | undefined> } | undefined;
  close(): Promise<void>;
}

/**
 * The venue's world id now (`GET {clob}/world`, a paper exchange's) and a probe that asks for it
 * again, for `startRecorder`'s `world` option.
 * @throws the API client's errors (NetworkError...) when the venue cannot be reached
 */
export async function watchWorld(clobUrl: string): Promise<WorldWatch> {
  const transport = createTransport({ urls: { clob: clobUrl } });
  const clob = new ClobClient(transport);
  try {
    const first = await clob.world();
    return {
      world: first === undefined ? undefined : { id: first.worldId, probe: async () => (await clob.world())?.worldId },
      close: () => transport.close(),
    };
  } catch (err) {
    await transport.close();
    throw err;
  }
}

/** Reads a recorded market as the venue lists it now, for `startRecorder`'s `marketRefresh`. */
export interface MarketReader {
  /** The market's info now (its fee rate as at the start); undefined: not a binary market any more. */
  read(market: MarketInfo): Promise<MarketInfo | undefined>;
  close(): Promise<void>;
}

/**
 * A reader of the venue's markets (`GET {clob}/markets/{id}`), mapped as the live venue maps them;
 * the fee rate is not asked again (the market's at the start is kept).
 */
export function marketReader(clobUrl: string): MarketReader {
  const transport = createTransport({ urls: { clob: clobUrl } });
  const clob = new ClobClient(transport);
  return {
    read: async (was) => toMarketInfo(await clob.market(was.market), was.feeRateBps),
    close: () => transport.close(),
  };
}

/**
 * The order protocol the venue speaks: its `GET /version` (1 or 2; a venue without the route, 404,
 * predates CLOB V2: 1), as the live venue signs by (src/venues/live/create-live-venue.ts). It goes
 * into the feed's header: a backtest of the feed charges that protocol's taker fee.
 * @throws NetworkError, ValidationError as any request
 */
export async function venueProtocol(clobUrl: string): Promise<FeeProtocol> {
  const transport = createTransport({ urls: { clob: clobUrl } });
  try {
    return await new ClobClient(transport).version();
  } finally {
    await transport.close();
  }
}

/** The URLs of a venue from its base URL (`http://host:port`), as `mmkit run --exchange-url` reads it. */
export function venueUrls(base: string): { clob: string; gamma: string; ws: string; market: string; rtds: string } {
  let u: URL;
  try {
    u = new URL(base);
  } catch {
    throw new ConfigError('--exchange-url', `not a URL: ${base}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new ConfigError('--exchange-url', 'must be an http(s) URL');
  const root = `${u.protocol}//${u.host}`;
  const ws = `${u.protocol === 'https:' ? 'wss' : 'ws'}://${u.host}`;
  return { clob: `${root}/clob`, gamma: `${root}/gamma`, ws, market: `${ws}/ws/market`, rtds: `${ws}/rtds` };
}
