/**
 * `GET {data_url}/activity?user=`: an account's activity, newest first, with the public data API's
 * field names: `{proxyWallet, timestamp` (unix s), `conditionId, type, size, usdcSize,
 * transactionHash, price, asset, side, outcomeIndex, outcome, title, slug, eventSlug}`.
 *
 *  - TRADE: one item per fill of the account (its taker part, its maker fills): `size` shares at
 *    `price` (the fill's average), `usdcSize` the notional, `asset` the token, `side`;
 *  - SPLIT / MERGE: `size` = `usdcSize` = the amount; REDEEM: `size` the shares burned, `usdcSize`
 *    the collateral paid; CONVERSION (the neg-risk convert): `size` the NO shares converted per
 *    market, `usdcSize` the collateral received. For these `asset` and `side` are "" and `price`
 *    "0", as at the public service.
 *  - REWARD: a liquidity reward paid at an epoch's end (one item per market): `size` = `usdcSize`
 *    = the amount, `timestamp` the epoch's end, `conditionId` the market; `asset`, `side` "" and
 *    `price` "0"; `transactionHash` derived from (epoch, market, maker).
 *
 * Amounts are exact decimal strings (the public service sends JSON numbers; clients should accept
 * both). Filters: `type` (comma-separated), `market` (condition ids, comma-separated), `start` /
 * `end` (unix s, inclusive); `limit` (100, at most 500), `offset`. The data API's success envelope.
 */
import type { FastifyInstance } from 'fastify';
import { formatAmount } from '../../core/units.ts';
import type { PaperExchange } from '../exchange.ts';
import type { RelayerTx } from '../relayer/types.ts';
import type { RewardPaymentRow } from '../rewards/ledger.ts';
import { keccak256, toUtf8Bytes } from 'ethers';
import { qInt, qString, type Query } from './body.ts';
import { badRequest } from './errors.ts';
import { eventOf, okPage, paginate, pathAddress, ratio6, unixSec, userFills, type UserFill } from './render-meta.ts';

export const ACTIVITY_TYPES = ['TRADE', 'SPLIT', 'MERGE', 'REDEEM', 'CONVERSION', 'REWARD'] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

const OP_TYPE: Readonly<Record<RelayerTx['type'], ActivityType>> = {
  SPLIT: 'SPLIT',
  MERGE: 'MERGE',
  REDEEM: 'REDEEM',
  CONVERT: 'CONVERSION',
};

interface Item {
  at: number;
  /** Tie-break within one millisecond: later first. */
  order: number;
  type: ActivityType;
  conditionId: string;
  render: () => Record<string, unknown>;
}

function list(q: Query, name: string): string[] | undefined {
  const v = qString(q, name);
  if (v === undefined) return undefined;
  return v
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

export function activityRoutes(ex: PaperExchange) {
  const marketFields = (conditionId: string) => {
    const entry = ex.market(conditionId);
    const ev = entry ? eventOf(ex, entry) : undefined;
    return { title: entry?.meta.question ?? '', slug: entry?.meta.slug ?? '', eventSlug: ev?.slug ?? '' };
  };
  const fillItem = (user: string, f: UserFill, order: number): Item => {
    const t = f.rec.trade;
    return {
      at: t.matchTime,
      order,
      type: 'TRADE',
      conditionId: t.market,
      render: () => {
        const found = ex.marketOfToken(f.tokenId);
        return {
          proxyWallet: user,
          timestamp: unixSec(t.matchTime),
          conditionId: t.market,
          type: 'TRADE',
          size: formatAmount(f.size),
          usdcSize: formatAmount(f.notional),
          transactionHash: f.rec.transactionHash,
          price: ratio6(f.notional, f.size),
          asset: f.tokenId,
          side: f.side,
          outcomeIndex: found?.index ?? null,
          outcome: found ? found.entry.meta.outcomes[found.index] : '',
          ...marketFields(t.market),
        };
      },
    };
  };
  const opItem = (user: string, tx: RelayerTx, order: number): Item => ({
    at: tx.at,
    order,
    type: OP_TYPE[tx.type],
    conditionId: tx.conditionId,
    render: () => {
      const burned = tx.tokens.reduce((s, d) => s + Math.max(0, -d.delta), 0);
      return {
        proxyWallet: user,
        timestamp: unixSec(tx.at),
        conditionId: tx.conditionId,
        type: OP_TYPE[tx.type],
        size: formatAmount(tx.type === 'REDEEM' ? burned : tx.amount),
        usdcSize: formatAmount(Math.abs(tx.collateral)),
        transactionHash: tx.hash,
        price: '0',
        asset: '',
        side: '',
        outcomeIndex: null,
        outcome: '',
        ...marketFields(tx.conditionId),
      };
    },
  });

  const rewardItem = (user: string, r: RewardPaymentRow, order: number): Item => ({
    at: r.epochEnd,
    order,
    type: 'REWARD',
    conditionId: r.market,
    render: () => ({
      proxyWallet: user,
      timestamp: unixSec(r.epochEnd),
      conditionId: r.market,
      type: 'REWARD',
      size: formatAmount(r.paid),
      usdcSize: formatAmount(r.paid),
      transactionHash: keccak256(toUtf8Bytes(`reward:${r.epochEnd}:${r.market}:${r.maker}`)),
      price: '0',
      asset: '',
      side: '',
      outcomeIndex: null,
      outcome: '',
      ...marketFields(r.market),
    }),
  });

  return async function plugin(app: FastifyInstance): Promise<void> {
    app.get('/activity', async (req) => {
      const q = req.query as Query;
      const user = qString(q, 'user');
      if (user === undefined) throw badRequest('missing query parameter user');
      const addr = pathAddress(user);
      const types = list(q, 'type')?.map((t) => t.toUpperCase());
      for (const t of types ?? [])
        if (!(ACTIVITY_TYPES as readonly string[]).includes(t))
          throw badRequest(`type must be among ${ACTIVITY_TYPES.join(', ')}`);
      const markets = list(q, 'market')?.map((m) => m.toLowerCase());
      const start = qInt(q, 'start', 0, 0, 1e11);
      const end = qInt(q, 'end', 1e11, 0, 1e11);
      const items: Item[] = [];
      let n = 0;
      for (const f of userFills(ex, addr)) items.push(fillItem(addr, f, n++));
      for (const tx of ex.relayerLedger.of(addr)) items.push(opItem(addr, tx, n++));
      for (const r of ex.rewards.historyOf(addr)) if (r.paid > 0) items.push(rewardItem(addr, r, n++));
      const picked = items
        .filter(
          (i) =>
            (types === undefined || types.includes(i.type)) &&
            (markets === undefined || markets.includes(i.conditionId.toLowerCase())) &&
            unixSec(i.at) >= start &&
            unixSec(i.at) <= end,
        )
        .sort((a, b) => b.at - a.at || b.order - a.order);
      return okPage(paginate(picked, q, 100, 500), (i) => i.render());
    });
  };
}
