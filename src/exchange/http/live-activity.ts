/**
 * `GET {clob_url}/live-activity/events/{condition_id}` (where the public V1 client calls it) and
 * `GET {clob_url}/markets/live-activity/{condition_id}` (where the public V2 client calls it): a
 * market's recent trades, as both clients' `getMarketTradesEvents(conditionID)` read them (public,
 * no credential; one handler, the same answer on both paths). Newest first,
 * at most `limit` (default 100, at most 500), one item per trade, for its taker:
 *
 *   {event_type: "trade", market: {condition_id, asset_id, question, icon, slug},
 *    user: {address, username, profile_picture, optimized_profile_picture, pseudonym},
 *    side, size, fee_rate_bps, price, outcome, outcome_index, transaction_hash, timestamp}
 *
 * `asset_id`, `side`, `price` and `outcome` are the taker's token and side; `size` and `price` are
 * decimal strings; `timestamp` is unix seconds, as a string. The user fields come from the world's
 * profile of the taker's address (a trader without one: its shortened address as pseudonym, the
 * rest ""). An unknown condition id is 404 (the public service answers 404 for markets it no longer
 * serves); a malformed one (not 0x + 64 hex digits) is 400; a market without trades answers [].
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { formatAmount, formatPrice } from '../../core/units.ts';
import type { PaperExchange, TradeRecord } from '../exchange.ts';
import { qInt, type Query } from './body.ts';
import { badRequest, notFound } from './errors.ts';

/** A condition id: 0x + 64 hex digits. */
export const CONDITION_ID = /^0x[0-9a-fA-F]{64}$/;
import { eventOf, unixSec } from './render-meta.ts';

export function liveActivityRoutes(ex: PaperExchange) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    const handler = async (req: FastifyRequest<{ Params: { condition_id: string } }>) => {
      const cidParam = req.params.condition_id;
      if (!CONDITION_ID.test(cidParam)) throw badRequest('Invalid condition id: 0x + 64 hex digits');
      const entry = ex.market(cidParam);
      if (entry === undefined) throw notFound('market not found');
      const limit = qInt(req.query as Query, 'limit', 100, 1, 500);
      const cid = entry.meta.conditionId;
      const all = ex.allTrades();
      const picked: TradeRecord[] = [];
      for (let i = all.length - 1; i >= 0 && picked.length < limit; i--) {
        const r = all[i] as TradeRecord;
        if (r.trade.market === cid) picked.push(r);
      }
      const icon = eventOf(ex, entry)?.imageUrl ?? '';
      return picked.map((r) => {
        const t = r.trade;
        const found = ex.marketOfToken(t.tokenId);
        const p = ex.world.profiles.get(t.takerAccount);
        return {
          event_type: 'trade',
          market: {
            condition_id: cid,
            asset_id: t.tokenId,
            question: entry.meta.question,
            icon,
            slug: entry.meta.slug,
          },
          user: {
            address: t.takerAccount,
            username: p?.name ?? '',
            profile_picture: p?.profileImage ?? '',
            optimized_profile_picture: p?.profileImage ?? '',
            pseudonym: p?.pseudonym ?? `${t.takerAccount.slice(0, 6)}…${t.takerAccount.slice(-4)}`,
          },
          side: t.side,
          size: formatAmount(t.size),
          fee_rate_bps: String(t.feeRateBps),
          price: formatPrice(t.price),
          outcome: t.outcome,
          outcome_index: found?.index ?? (t.outcome === 'Yes' ? 0 : 1),
          transaction_hash: r.transactionHash,
          timestamp: String(unixSec(t.matchTime)),
        };
      });
    };
    app.get('/live-activity/events/:condition_id', handler);
    app.get('/markets/live-activity/:condition_id', handler);
  };
}
