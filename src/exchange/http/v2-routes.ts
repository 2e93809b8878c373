/**
 * Routes of the CLOB that the public V2 client (`@polymarket/clob-client-v2`) calls and the V1
 * client did not, mounted under /clob (registered from http/clob.ts). Shapes are those the client
 * parses (its `types/clob` and `client.js`):
 *
 *  - `GET /version` → `{version}`: the protocol the exchange speaks (`--protocol`, config
 *    `exchange.protocol`): 2, or 1, on which the V2 client signs V1 orders (an answer without a
 *    version it reads as 2);
 *  - `GET /clob-markets/{condition_id}` → the compact market info the client builds orders from:
 *    `{c, t: [{t, o}, {t, o}], mts, nr, mos, mbf, tbf, fd: {r, e, to}, r, gst, sd, ao, rfqe, ibce}`
 *    (condition id; tokens with their outcome; minimum tick, a number; neg-risk; minimum order
 *    size; maker and taker base fee, bps; the fee curve: rate (the market's fee rate as a
 *    fraction), exponent, taker only; rewards (none here: null); game start time (null); seconds
 *    of taker delay; accepting orders; RFQ and the Blockaid check (off));
 *  - `GET /markets-by-token/{token_id}` → `{condition_id, primary_token_id, secondary_token_id}`;
 *  - `GET /prices-history?market=<token id>&interval=|startTs=&endTs=&fidelity=` → `{history: [{t, p}]}`
 *    (http/price-history.ts; the Data API serves the same in its envelope);
 *  - `GET /data/pre-migration-orders?next_cursor=` (L2, or a read-only key as Bearer) → the
 *    caller's open orders signed in the V1 form while the exchange speaks V2, paginated as
 *    `/data/orders` (`{limit, count, next_cursor, data}`); on a V1 exchange nothing predates a
 *    migration: always the empty page.
 *
 * The live activity of a market (`GET /markets/live-activity/{condition_id}`) is served by
 * http/live-activity.ts, builder keys and fees by http/builder.ts. Malformed ids are 400, unknown
 * ones 404, in the error envelope.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { formatAmount } from '../../core/units.ts';
import { compactRewards } from '../rewards/wire.ts';
import { DEFAULT_PROTOCOL, type ClobProtocol, type MarketEntry, type PaperExchange } from '../exchange.ts';
import type { OrderState } from '../matching/types.ts';
import { authenticateRead, type AuthOptions } from './auth.ts';
import { cursorPage, type Query } from './body.ts';
import { badRequest, notFound } from './errors.ts';
import { CONDITION_ID } from './live-activity.ts';
import { priceHistoryOf } from './price-history.ts';
import { renderOrder } from './render.ts';

/** A token id: a decimal uint256. */
export const TOKEN_ID = /^\d{1,78}$/;

/** The protocol `ex` speaks. */
export function protocolOf(ex: PaperExchange): ClobProtocol {
  return ex.opts.protocol ?? DEFAULT_PROTOCOL;
}

/** The compact market info of `GET /clob-markets/{condition_id}`. */
export function clobMarketInfo(ex: PaperExchange, e: MarketEntry): Record<string, unknown> {
  const m = e.meta;
  const s = ex.marketState(e);
  return {
    c: m.conditionId,
    t: [0, 1].map((i) => ({ t: m.tokens[i as 0 | 1], o: m.outcomes[i as 0 | 1] })),
    mts: Number(s.tick),
    nr: m.negRisk,
    mos: Number(formatAmount(m.minSizeMicro)),
    mbf: 0,
    tbf: m.feeRateBps,
    // the market's fee schedule: one taker rate (bps); makers pay nothing
    fd: { r: m.feeRateBps / 10_000, e: 1, to: true },
    r: compactRewards(ex.rewards.configOf(m.conditionId)),
    gst: null,
    sd: 0,
    ao: s.status === 'active',
    rfqe: false,
    ibce: false,
  };
}

export interface V2RouteOptions {
  auth: AuthOptions;
}

export function v2Routes(ex: PaperExchange, opts: V2RouteOptions) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get('/version', async () => ({ version: protocolOf(ex) }));

    app.get<{ Params: { condition_id: string } }>('/clob-markets/:condition_id', async (req) => {
      const cid = req.params.condition_id;
      if (!CONDITION_ID.test(cid)) throw badRequest('Invalid condition id: 0x + 64 hex digits');
      const e = ex.market(cid);
      if (e === undefined) throw notFound('market not found');
      return clobMarketInfo(ex, e);
    });

    app.get<{ Params: { token_id: string } }>('/markets-by-token/:token_id', async (req) => {
      const tokenId = req.params.token_id;
      if (!TOKEN_ID.test(tokenId)) throw badRequest('Invalid token id');
      const found = ex.marketOfToken(tokenId);
      if (found === undefined) throw notFound('market not found for the requested token id');
      const m = found.entry.meta;
      return { condition_id: m.conditionId, primary_token_id: m.tokens[0], secondary_token_id: m.tokens[1] };
    });

    app.get('/prices-history', async (req) => ({ history: priceHistoryOf(ex, req.query as Query).history }));

    app.get('/data/pre-migration-orders', async (req: FastifyRequest) => {
      const k = authenticateRead(ex, req, opts.auth);
      const list =
        protocolOf(ex) === 2
          ? ex.openOrders(k.address).filter((o) => ex.signedProtocol(o.id) === 1)
          : ([] as OrderState[]);
      return cursorPage(list, req.query as Query, (o) => renderOrder(o, k.apiKey, ex.opts.gtdThresholdSec), 500, 500);
    });
  };
}
