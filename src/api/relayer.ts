/**
 * Typed client of the relayer (`{relayer_url}`): split collateral into YES + NO, merge them back,
 * redeem a resolved market's tokens, and the neg-risk conversion of NO tokens. Over the same
 * Transport as the other clients (./http/types.ts): L2 (or Bearer) auth like `POST /order`, and the
 * `relayer-submit` budget of spec 8.1 (25 requests per minute, src/core/rate-limits.ts), so the
 * client waits rather than being refused.
 *
 * The paper exchange's `/submit` takes a typed request (a simplification of the public relayer,
 * which takes signed wallet transactions) and answers the confirmed transaction. A submit is NOT
 * idempotent (a second split splits again): it is never retried after an ambiguous failure
 * (timeout, dropped connection); look the account's balances or activity up instead.
 *
 * Refusals (nothing changed at the venue) are ValidationError (400) or NotFoundError (unknown
 * market, 404) whose `details.code` is the venue's code; `relayerRejectCode(err)` reads it.
 */
import { MmkitError, ValidationError } from '../core/errors.ts';
import { formatAmount, type Micro } from '../core/units.ts';
import type { RequestSpec, Transport } from './http/types.ts';
import { getSpec, type CallOptions } from './request.ts';
import {
  relayerTransactionListSchema,
  relayerTransactionSchema,
  type RelayerOpType,
  type RelayerTransaction,
} from './schemas/relayer.ts';

export { RELAYER_OP_TYPES, type RelayerOpType, type RelayerTransaction } from './schemas/relayer.ts';

/** Why the relayer refused an operation (nothing changed). */
export const RELAYER_REJECT_CODES = [
  'INVALID_AMOUNT',
  'MARKET_NOT_FOUND',
  'NOT_ENOUGH_BALANCE',
  'MARKET_NOT_RESOLVED',
  'MARKET_RESOLVED',
  'NOT_NEG_RISK',
  'NOTHING_TO_REDEEM',
  'BAD_REQUEST',
] as const;
export type RelayerRejectCode = (typeof RELAYER_REJECT_CODES)[number];

/** The relayer's refusal code of an error thrown by a RelayerClient call, if it is one. */
export function relayerRejectCode(err: unknown): RelayerRejectCode | undefined {
  if (!(err instanceof MmkitError)) return undefined;
  const c = err.details?.['code'];
  return typeof c === 'string' && (RELAYER_REJECT_CODES as readonly string[]).includes(c)
    ? (c as RelayerRejectCode)
    : undefined;
}

const CONDITION_ID = /^0x[0-9a-fA-F]{64}$/;

function conditionId(v: string): string {
  if (typeof v !== 'string' || !CONDITION_ID.test(v))
    throw new ValidationError(`conditionId: expected 0x followed by 64 hex digits, got ${String(v).slice(0, 70)}`);
  return v;
}

function amountOf(v: Micro): string {
  if (!Number.isSafeInteger(v) || v <= 0)
    throw new ValidationError(`amount: expected a positive integer of micro-units, got ${String(v)}`);
  return formatAmount(v);
}

/** Options of a RelayerClient. */
export interface RelayerClientOptions {
  /**
   * The proxy / Safe wallet (the funder of signatureType 1 / 2 orders) whose balances the
   * operations move, sent as `proxyWallet`; absent: the API key's own address.
   */
  proxyWallet?: string;
}

/** The relayer client. Stateless apart from the transport; safe to share. */
export class RelayerClient {
  readonly #t: Transport;
  readonly #proxyWallet: string | undefined;

  constructor(transport: Transport, o: RelayerClientOptions = {}) {
    this.#t = transport;
    this.#proxyWallet = o.proxyWallet ? o.proxyWallet.toLowerCase() : undefined;
  }

  #submit(body: Record<string, unknown>, call: CallOptions | undefined): Promise<RelayerTransaction> {
    const spec: RequestSpec = {
      api: 'relayer',
      method: 'POST',
      path: '/submit',
      auth: 'l2',
      body: this.#proxyWallet !== undefined ? { ...body, proxyWallet: this.#proxyWallet } : body,
      idempotent: false,
    };
    if (call?.signal !== undefined) spec.signal = call.signal;
    if (call?.timeoutMs !== undefined) spec.timeoutMs = call.timeoutMs;
    return this.#t.request(spec, relayerTransactionSchema);
  }

  /**
   * Split `amount` collateral into `amount` YES + `amount` NO of the market.
   * @throws ValidationError (bad argument, or refused: NOT_ENOUGH_BALANCE...), NotFoundError (unknown market), AuthError, RateLimitError, NetworkError
   */
  split(market: string, amount: Micro, call?: CallOptions): Promise<RelayerTransaction> {
    return this.#submit(this.#body('SPLIT', conditionId(market), amountOf(amount)), call);
  }

  /**
   * Merge `amount` YES + `amount` NO of the market back into `amount` collateral.
   * @throws as {@link split}
   */
  merge(market: string, amount: Micro, call?: CallOptions): Promise<RelayerTransaction> {
    return this.#submit(this.#body('MERGE', conditionId(market), amountOf(amount)), call);
  }

  /**
   * Redeem a resolved market's tokens: 1 collateral per winning share, 0 per losing one. With
   * `amount`: that many winning shares; without: everything held of both outcomes.
   * @throws as {@link split} (MARKET_NOT_RESOLVED, NOTHING_TO_REDEEM...)
   */
  redeem(market: string, amount?: Micro, call?: CallOptions): Promise<RelayerTransaction> {
    const body = this.#body('REDEEM', conditionId(market), amount === undefined ? undefined : amountOf(amount));
    return this.#submit(body, call);
  }

  /**
   * The neg-risk conversion: give up `amount` NO of each of the k markets named (all of one
   * neg-risk event of n markets), receive `amount` YES of each of the n - k others and
   * (k - 1) x `amount` collateral (the public NegRiskAdapter's rule, no fee).
   * @throws as {@link split} (NOT_NEG_RISK, MARKET_RESOLVED...)
   */
  convert(markets: string | readonly string[], amount: Micro, call?: CallOptions): Promise<RelayerTransaction> {
    const ids = typeof markets === 'string' ? [markets] : [...markets];
    if (ids.length === 0) throw new ValidationError('convert: at least one market');
    const a = amountOf(amount);
    const body: Record<string, unknown> =
      ids.length === 1
        ? { type: 'CONVERT', conditionId: conditionId(ids[0]!), amount: a }
        : { type: 'CONVERT', conditionIds: ids.map(conditionId), amount: a };
    return this.#submit(body, call);
  }

  /** GET /transaction?id=: one transaction, or undefined when the relayer does not know it. */
  async transaction(id: string, call?: CallOptions): Promise<RelayerTransaction | undefined> {
    if (typeof id !== 'string' || id.length === 0 || id.length > 200)
      throw new ValidationError('transaction id: expected 1 to 200 characters');
    const list = await this.#t.request(getSpec('relayer', '/transaction', { id }, call), relayerTransactionListSchema);
    return list[0];
  }

  #body(type: RelayerOpType, market: string, amount: string | undefined): Record<string, unknown> {
    return amount === undefined ? { type, conditionId: market } : { type, conditionId: market, amount };
  }
}
