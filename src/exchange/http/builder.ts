/**
 * Builder keys, builder trades and builder fees of CLOB V2, as the public V2 client calls them
 * (mounted under /clob, registered from http/clob.ts):
 *
 *  - `POST /auth/builder-api-key` (L2, a full key) → `{key, secret, passphrase}`: a new builder API
 *    key of the caller's address (at most MAX_BUILDER_KEYS live ones: past that 400
 *    TOO_MANY_BUILDER_KEYS);
 *  - `GET /auth/builder-api-key` (L2) → `[{key, createdAt, revokedAt?}]`, the address's builder
 *    keys oldest first, ISO times, revoked ones included with their revocation time;
 *  - `DELETE /auth/builder-api-key` (L2; the client sends no body) → `"OK"`: revokes the address's
 *    live builder keys (only `{key}` when a body names one);
 *  - `GET /builder/trades?builder_code=&id=&market=&asset_id=&maker_address=&before=&after=&next_cursor=`
 *    (public, as the client sends it) → `{limit, count, next_cursor, data: BuilderTrade[]}`: one row
 *    per side of a trade whose order carried the builder code, newest last;
 *  - `GET /fees/builder-fees/{builder_code}` → `{builder_maker_fee_rate_bps, builder_taker_fee_rate_bps}`:
 *    0 and 0 for every code (the paper exchange charges no builder fee).
 *
 * A builder code is bytes32 (0x + 64 hex digits), not zero: anything else is 400. An order carries
 * its builder attribution in `PaperExchange.orderBuilder` (the V1 payload's `builder`, and the V2
 * order's `builder` field once V2 orders are admitted); codes compare case-insensitively. Key
 * creation and revocation are journaled commands, so with --db they survive restarts.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { formatAmount, formatPrice } from '../../core/units.ts';
import { MAX_BUILDER_KEYS, ownerAlias, type BuilderKeyRecord } from '../accounts/keys.ts';
import type { PaperExchange, TradeRecord } from '../exchange.ts';
import { authenticate, type AuthOptions } from './auth.ts';
import { cursorPage, parseWith, qString, type Query } from './body.ts';
import { badRequest } from './errors.ts';
import { fillPriceOn, iso, valueAt } from './render-meta.ts';

const BUILDER_CODE = /^0x[0-9a-fA-F]{64}$/;
const ZERO_CODE = `0x${'0'.repeat(64)}`;

/** The builder code of a request, lower case; 400 unless bytes32 and not zero. */
export function builderCode(v: string | undefined): string {
  if (v === undefined || v === '') throw badRequest('missing builder code');
  if (!BUILDER_CODE.test(v)) throw badRequest('Invalid builder code: 0x + 64 hex digits');
  const code = v.toLowerCase();
  if (code === ZERO_CODE) throw badRequest('Invalid builder code: the zero code attributes nothing');
  return code;
}

const revokeSchema = z
  .object({ key: z.string().min(1).max(128).optional() })
  .nullish()
  .transform((v) => v ?? {});

/** One BuilderTrade row: one side of `rec` whose order carried the code. */
function builderRows(ex: PaperExchange, rec: TradeRecord, code: string): Array<Record<string, unknown>> {
  const t = rec.trade;
  const attributed = (orderId: string) => ex.orderBuilder.get(orderId)?.toLowerCase() === code;
  const status = ex.tradeStatus(t);
  const found = ex.marketOfToken(t.tokenId);
  const at = iso(t.matchTime);
  const row = (o: {
    type: 'TAKER' | 'MAKER';
    tokenId: string;
    outcome: 'Yes' | 'No';
    side: string;
    size: number;
    price: number;
    notional: number;
    owner: string;
    account: string;
    fee: number;
  }) => {
    const index = found ? (found.entry.meta.tokens[0] === o.tokenId ? 0 : 1) : o.outcome === 'Yes' ? 0 : 1;
    return {
      id: t.id,
      tradeType: o.type,
      takerOrderHash: t.takerOrderId,
      builder: code,
      market: t.market,
      assetId: o.tokenId,
      side: o.side,
      size: formatAmount(o.size),
      sizeUsdc: formatAmount(o.notional),
      price: formatPrice(o.price),
      status,
      outcome: o.outcome,
      outcomeIndex: index,
      owner: ownerAlias(o.owner),
      maker: o.account,
      transactionHash: rec.transactionHash,
      matchTime: String(Math.floor(t.matchTime / 1000)),
      bucketIndex: 0,
      fee: formatAmount(o.fee),
      feeUsdc: formatAmount(o.fee),
      builderFee: '0',
      builderCode: code,
      err_msg: null,
      createdAt: at,
      updatedAt: at,
    };
  };
  const out: Array<Record<string, unknown>> = [];
  if (attributed(t.takerOrderId)) {
    let notional = 0;
    for (const m of t.makers) notional += valueAt(m.size, fillPriceOn(m, t.tokenId));
    out.push(
      row({
        type: 'TAKER',
        tokenId: t.tokenId,
        outcome: t.outcome,
        side: t.side,
        size: t.size,
        price: t.price,
        notional,
        owner: t.takerOwner,
        account: t.takerAccount,
        fee: t.fee,
      }),
    );
  }
  for (const m of t.makers)
    if (attributed(m.orderId))
      out.push(
        row({
          type: 'MAKER',
          tokenId: m.tokenId,
          outcome: m.outcome,
          side: m.side,
          size: m.size,
          price: m.price,
          notional: valueAt(m.size, m.price),
          owner: m.owner,
          account: m.account,
          fee: 0,
        }),
      );
  return out;
}

export interface BuilderRouteOptions {
  auth: AuthOptions;
}

export function builderRoutes(ex: PaperExchange, opts: BuilderRouteOptions) {
  return async function plugin(app: FastifyInstance): Promise<void> {
    const l2 = (req: FastifyRequest) => authenticate(ex, req, opts.auth);

    app.post('/auth/builder-api-key', async (req) => {
      const k = l2(req);
      const rec = ex.exec({ k: 'bkey', address: k.address }) as BuilderKeyRecord | null;
      if (rec === null)
        throw badRequest(
          `an address holds at most ${MAX_BUILDER_KEYS} live builder API keys: revoke them first`,
          'TOO_MANY_BUILDER_KEYS',
        );
      return { key: rec.apiKey, secret: rec.secret, passphrase: rec.passphrase };
    });

    app.get('/auth/builder-api-key', async (req) => {
      const k = l2(req);
      return ex.keys.listBuilder(k.address).map((r) => ({
        key: r.apiKey,
        createdAt: iso(r.createdAt),
        ...(r.revokedAt !== undefined ? { revokedAt: iso(r.revokedAt) } : {}),
      }));
    });

    app.delete('/auth/builder-api-key', async (req) => {
      const k = l2(req);
      const { key } = parseWith(revokeSchema, req.body ?? undefined, 'body');
      const live = ex.keys
        .listBuilder(k.address)
        .some((r) => r.revokedAt === undefined && (key === undefined || r.apiKey === key));
      // nothing live to revoke (or another address's key): nothing to journal, nothing said about it
      if (live) ex.exec({ k: 'revbkey', address: k.address, ...(key !== undefined ? { apiKey: key } : {}) });
      return 'OK';
    });

    app.get('/builder/trades', async (req) => {
      const q = req.query as Query;
      const code = builderCode(qString(q, 'builder_code'));
      const id = qString(q, 'id');
      const market = qString(q, 'market');
      const asset = qString(q, 'asset_id');
      const maker = qString(q, 'maker_address')?.toLowerCase();
      const before = qString(q, 'before');
      const after = qString(q, 'after');
      for (const [name, v] of [
        ['before', before],
        ['after', after],
      ] as const)
        if (v !== undefined && !/^\d{1,12}$/.test(v)) throw badRequest(`${name} must be unix seconds`);
      const rows: Array<Record<string, unknown>> = [];
      // no order carries a builder code until attributed orders arrive: skip the scan
      if (ex.orderBuilder.size > 0)
        for (const rec of ex.allTrades()) {
          const t = rec.trade;
          if (id !== undefined && t.id !== id) continue;
          if (market !== undefined && t.market !== market) continue;
          const sec = t.matchTime / 1000;
          if (before !== undefined && !(sec < Number(before))) continue;
          if (after !== undefined && !(sec > Number(after))) continue;
          for (const r of builderRows(ex, rec, code)) {
            if (asset !== undefined && r.assetId !== asset) continue;
            if (maker !== undefined && r.maker !== maker) continue;
            rows.push(r);
          }
        }
      return cursorPage(rows, q, (r) => r, 100, 500);
    });

    app.get<{ Params: { builder_code: string } }>('/fees/builder-fees/:builder_code', async (req) => {
      builderCode(req.params.builder_code);
      return { builder_maker_fee_rate_bps: 0, builder_taker_fee_rate_bps: 0 };
    });
  };
}
