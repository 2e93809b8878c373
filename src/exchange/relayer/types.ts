/**
 * The relayer's operations and transactions (see ./ledger.ts): the journaled request and the
 * confirmed record.
 */
import type { PositionOpCode, TokenDelta } from '../matching/types.ts';

export type RelayerOpType = 'SPLIT' | 'MERGE' | 'REDEEM' | 'CONVERT';

/** A validated relayer request (what the `relayer` command journals). */
export interface RelayerOp {
  type: RelayerOpType;
  /** The market (SPLIT, MERGE, REDEEM: exactly one; CONVERT: the markets whose NO tokens are converted). */
  conditionIds: string[];
  /** Micro-shares; optional only for REDEEM (absent: everything held). */
  amount?: number;
}

/** A confirmed relayer transaction. */
export interface RelayerTx {
  /** UUID-shaped, unique (derived from the account, the time and the sequence number). */
  readonly id: string;
  readonly hash: string;
  /** 1, 2, ... in the order they were applied. */
  readonly seq: number;
  readonly account: string;
  readonly type: RelayerOpType;
  /** The first (for SPLIT, MERGE, REDEEM: the only) market. */
  readonly conditionId: string;
  readonly conditionIds: readonly string[];
  /** Micro-shares: split, merged, converted per market, or winning shares redeemed. */
  readonly amount: number;
  /** The account's signed collateral change, micro. */
  readonly collateral: number;
  /** The account's token changes, micro-shares. */
  readonly tokens: readonly TokenDelta[];
  /** Unix ms. */
  readonly at: number;
}

export type RelayerOutcome =
  | { ok: true; tx: RelayerTx }
  | { ok: false; code: PositionOpCode; message: string; httpStatus: number };
