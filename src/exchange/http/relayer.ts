/**
 * The relayer of the paper exchange, mounted under /relayer (`relayer_url`):
 *
 *  - `POST /submit` (L2 or Bearer, like `POST /order`; 25 requests per minute per account, spec
 *    8.1): `{type: "SPLIT" | "MERGE" | "REDEEM" | "CONVERT", conditionId, amount}` (CONVERT also
 *    takes `conditionIds: [...]` in place of `conditionId` to convert the NO tokens of several
 *    markets of one event; REDEEM's `amount` is optional: everything held). A simplification of the
 *    public relayer, which takes signed wallet transactions: here a typed request, applied at once
 *    and answered `STATE_CONFIRMED`. Operates on the caller's own balances, or with `proxyWallet`
 *    on those of one account the key trades for (its proxy wallet or Safe, a registered funder:
 *    the maker of its signatureType 1 / 2 orders; any other address is a 400).
 *  - `GET /transaction?id=` (public): `[record]`, or `[]` for an unknown id (the public relayer's
 *    convention).
 *
 * The body is validated strictly (unknown fields, a number for `amount`, more than 6 decimals...
 * are 400 with a message naming the field); a refused operation is 400 (404 for an unknown market)
 * with a typed code (`NOT_ENOUGH_BALANCE`, `MARKET_NOT_RESOLVED`, `NOT_NEG_RISK`,
 * `MARKET_RESOLVED`, `NOTHING_TO_REDEEM`, `INVALID_AMOUNT`, `MARKET_NOT_FOUND`); nothing changes
 * on any error.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { formatAmount, parseAmount } from '../../core/units.ts';
import type { PaperExchange } from '../exchange.ts';
import type { RelayerOp, RelayerTx } from '../relayer/types.ts';
import { authenticate, type AuthOptions } from './auth.ts';
import { parseWith, qString, type Query } from './body.ts';
import { badRequest, HttpError } from './errors.ts';

/** Largest amount of one operation: 10,000,000 shares (keeps every product of the ledger exact). */
export const MAX_RELAYER_AMOUNT_MICRO = 10_000_000 * 1_000_000;

const conditionId = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'expected 0x followed by 64 hex digits');
const amount = z
  .string({ error: 'expected a decimal string (e.g. "10.5")' })
  .regex(/^\d{1,9}(\.\d{1,6})?$/, 'expected a decimal string with at most 6 decimals (e.g. "10.5")');

const submitSchema = z.strictObject({
  type: z.enum(['SPLIT', 'MERGE', 'REDEEM', 'CONVERT']),
  conditionId: conditionId.optional(),
  conditionIds: z.array(conditionId).min(1).max(50).optional(),
  amount: amount.optional(),
  /** The account operated on: one the key trades for (its proxy wallet or Safe, a registered funder); default the key's address. */
  proxyWallet: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, '0x-prefixed 20-byte hex address')
    .optional(),
});

/**
 * The validated operation of a `/submit` body.
 * @throws HttpError 400 naming what is wrong.
 */
export function parseSubmit(body: unknown): RelayerOp {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('invalid body: expected a JSON object {type, conditionId, amount}');
  const b = parseWith(submitSchema, body, 'body');
  if (b.conditionIds !== undefined && b.type !== 'CONVERT')
    throw badRequest('invalid body: conditionIds: only CONVERT takes several markets; use conditionId');
  if ((b.conditionId === undefined) === (b.conditionIds === undefined))
    throw badRequest(
      b.conditionId === undefined
        ? 'invalid body: conditionId: required'
        : 'invalid body: give conditionId or conditionIds, not both',
    );
  const ids = (b.conditionIds ?? [b.conditionId as string]).map((c) => c.toLowerCase());
  if (new Set(ids).size !== ids.length) throw badRequest('invalid body: conditionIds: a market is named twice');
  if (b.amount === undefined) {
    if (b.type !== 'REDEEM') throw badRequest(`invalid body: amount: required for ${b.type}`);
    return { type: b.type, conditionIds: ids };
  }
  const micro = parseAmount(b.amount);
  if (micro <= 0) throw badRequest('invalid body: amount: must be positive', 'INVALID_AMOUNT');
  if (micro > MAX_RELAYER_AMOUNT_MICRO)
    throw badRequest(`invalid body: amount: at most ${formatAmount(MAX_RELAYER_AMOUNT_MICRO)}`, 'INVALID_AMOUNT');
  return { type: b.type, conditionIds: ids, amount: micro };
}

/** The wire record of a transaction (`POST /submit`'s answer, `GET /transaction`'s element). */
export function renderRelayerTx(tx: RelayerTx): Record<string, unknown> {
  return {
    transactionID: tx.id,
    transactionHash: tx.hash,
    state: 'STATE_CONFIRMED',
    type: tx.type,
    from: tx.account,
    conditionId: tx.conditionId,
    ...(tx.type === 'CONVERT' ? { conditionIds: [...tx.conditionIds] } : {}),
    amount: formatAmount(tx.amount),
    collateral_delta: formatAmount(tx.collateral),
    tokens: tx.tokens.map((d) => ({ asset_id: d.tokenId, delta: formatAmount(d.delta) })),
    createdAt: new Date(tx.at).toISOString(),
  };
}

export interface RelayerRouteOptions {
  auth: AuthOptions;
}

export function relayerRoutes(ex: PaperExchange, opts: RelayerRouteOptions) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    app.post('/submit', async (req) => {
      const k = authenticate(ex, req, opts.auth);
      const op = parseSubmit(req.body);
      // a proxy / Safe wallet's operations move the funder's balances, as its orders do
      const wallet = (req.body as { proxyWallet?: string }).proxyWallet?.toLowerCase();
      if (wallet !== undefined && !ex.accountsOf(k.address).includes(wallet))
        throw badRequest(
          'invalid body: proxyWallet is not an account of this API key (its address, its proxy wallet or Safe, or a funder registered to it)',
        );
      const r = ex.relayer(wallet ?? k.address, op);
      if (!r.ok) throw new HttpError(r.httpStatus, r.code, r.message);
      return renderRelayerTx(r.tx);
    });
    app.get('/transaction', async (req) => {
      const id = qString(req.query as Query, 'id');
      if (id === undefined) throw badRequest('missing query parameter id');
      const tx = ex.relayerLedger.get(id);
      return tx === undefined ? [] : [renderRelayerTx(tx)];
    });
  };
}
