/**
 * Read-only API keys, as the public clients call them (mounted under /clob):
 *
 *  - `POST /auth/readonly-api-key` (L2 or Bearer with a full key, as the public TS client sends it;
 *    L1 also accepted) → `{apiKey}`; an address holds at most 20 at once;
 *  - `GET /auth/readonly-api-keys` (full key) → the account's read-only keys, a JSON array of strings;
 *  - `DELETE /auth/readonly-api-key {key}` (full key; `apiKey` / `api_key` also read) → `true` when
 *    it was a read-only key of the caller's address and is gone, else `false` (nothing changes);
 *  - `GET /auth/validate-readonly-api-key?address=&key=` (public; `api_key` also read) →
 *    `{valid: boolean}`: whether `key` is a read-only key of `address`.
 *
 * What a read-only key can do: read its account, sent as `Authorization: Bearer <key>` (it has no
 * secret, so it cannot sign L2 headers): open orders, one order, trades, balances, positions,
 * balance-allowance, notifications and the closed-only status (http/clob.ts). Nothing else: it
 * never places or cancels an order, sends a heartbeat, posts a comment, submits to the relayer or
 * manages keys (403 FORBIDDEN), and it never sees the account's API keys (orders and trades show
 * the owner's alias, as to anyone but the key itself). Created and deleted keys are journaled
 * commands, so with --db they survive restarts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { MAX_READONLY_KEYS, type ReadonlyKeyRecord } from '../accounts/keys.ts';
import type { PaperExchange } from '../exchange.ts';
import { authenticate, authenticateL1, type AuthOptions } from './auth.ts';
import { parseWith, qRequired, qString, type Query } from './body.ts';
import { badRequest } from './errors.ts';

const deleteSchema = z
  .object({
    key: z.string().min(1).max(128).optional(),
    apiKey: z.string().min(1).max(128).optional(),
    api_key: z.string().min(1).max(128).optional(),
  })
  .refine((b) => (b.key ?? b.apiKey ?? b.api_key) !== undefined, { message: 'key is required' });

export interface ReadonlyKeyRouteOptions {
  auth: AuthOptions;
}

export function readonlyKeyRoutes(ex: PaperExchange, opts: ReadonlyKeyRouteOptions) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    /** The address of a full key (L2 or Bearer), or with no key header, of an L1 wallet signature. */
    const owner = (req: FastifyRequest): string => {
      const keyed = req.headers.poly_api_key !== undefined || req.headers.authorization !== undefined;
      return keyed ? authenticate(ex, req, opts.auth).address : authenticateL1(ex, req, opts.auth).address;
    };

    app.post('/auth/readonly-api-key', async (req) => {
      const rec = ex.exec({ k: 'rokey', address: owner(req) }) as ReadonlyKeyRecord | null;
      if (rec === null)
        throw badRequest(
          `an address holds at most ${MAX_READONLY_KEYS} read-only API keys: delete one first`,
          'TOO_MANY_READONLY_KEYS',
        );
      return { apiKey: rec.apiKey };
    });

    app.get('/auth/readonly-api-keys', async (req) => {
      const k = authenticate(ex, req, opts.auth);
      return ex.keys.listReadonly(k.address).map((r) => r.apiKey);
    });

    app.delete('/auth/readonly-api-key', async (req) => {
      const k = authenticate(ex, req, opts.auth);
      const b = parseWith(deleteSchema, req.body, 'body');
      const key = (b.key ?? b.apiKey ?? b.api_key) as string;
      // another address's key, or no read-only key at all: nothing to journal, nothing said about it
      if (ex.keys.readonly(key)?.address !== k.address) return false;
      return ex.exec({ k: 'delrokey', address: k.address, apiKey: key }) as boolean;
    });

    app.get('/auth/validate-readonly-api-key', async (req) => {
      const q = req.query as Query;
      const address = qRequired(q, 'address');
      const key = qString(q, 'key') ?? qString(q, 'api_key');
      if (key === undefined || key === '') throw badRequest('missing query parameter key');
      const rec = ex.keys.readonly(key);
      return { valid: rec !== undefined && rec.address === address.toLowerCase() };
    });
  };
}
