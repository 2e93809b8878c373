/**
 * Wire schemas of the relayer's answers (`POST /submit`, `GET /transaction`), validated at the
 * boundary by the transport. Decimal strings become integer micro-units here, once (signed where the
 * field is a change); unknown extra fields are tolerated.
 */
import { z } from 'zod';
import { parseAmount, type Micro } from '../../core/units.ts';

const DECIMAL = /^-?\d+(\.\d{1,6})?$/;

/** A signed decimal string (6 decimals at most) as signed micro-units. */
const signedMicro = z
  .string()
  .regex(DECIMAL, 'expected a decimal string')
  .transform((s): number => {
    const neg = s.startsWith('-');
    const v = parseAmount(neg ? s.slice(1) : s);
    return neg ? -v : v;
  });

/** A non-negative decimal string as micro-units. */
const micro = z
  .string()
  .regex(/^\d+(\.\d{1,6})?$/, 'expected a non-negative decimal string')
  .transform((s): Micro => parseAmount(s));

/** The operations of the relayer's `/submit`. */
export const RELAYER_OP_TYPES = ['SPLIT', 'MERGE', 'REDEEM', 'CONVERT'] as const;
export type RelayerOpType = (typeof RELAYER_OP_TYPES)[number];

/** One relayer transaction record. */
export const relayerTransactionSchema = z
  .object({
    transactionID: z.string().min(1),
    transactionHash: z.string(),
    state: z.string(),
    type: z.enum(RELAYER_OP_TYPES),
    from: z.string().optional(),
    conditionId: z.string(),
    conditionIds: z.array(z.string()).optional(),
    amount: micro,
    collateral_delta: signedMicro,
    tokens: z.array(z.object({ asset_id: z.string(), delta: signedMicro })),
    createdAt: z.string().optional(),
  })
  .transform((t) => ({
    id: t.transactionID,
    hash: t.transactionHash,
    /** `STATE_CONFIRMED` once applied (the paper exchange applies at once). */
    state: t.state,
    type: t.type,
    /** The account operated on (lower case), when the venue says. */
    from: t.from?.toLowerCase() ?? null,
    conditionId: t.conditionId,
    /** CONVERT: every market whose NO tokens were converted; else `[conditionId]`. */
    conditionIds: t.conditionIds ?? [t.conditionId],
    /** Micro-shares: split, merged, converted per market, or winning shares redeemed. */
    amount: t.amount,
    /** The account's signed collateral change, micro (split negative; merge, redeem, convert >= 0). */
    collateralDelta: t.collateral_delta,
    /** The account's signed token changes, micro-shares. */
    tokens: t.tokens.map((d) => ({ tokenId: d.asset_id, delta: d.delta })),
    /** Unix ms, or null. */
    createdAt: t.createdAt === undefined ? null : Date.parse(t.createdAt),
  }));
export type RelayerTransaction = z.output<typeof relayerTransactionSchema>;

/** `GET /transaction?id=`: an array of (at most) one record. */
export const relayerTransactionListSchema = z.array(relayerTransactionSchema);
