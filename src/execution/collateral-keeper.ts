/**
 * The daemon's collateral housekeeping: complementary holdings (YES and NO of one market) lock
 * collateral that a merge frees (one YES + one NO = one unit of collateral), and a resolved market's
 * tokens pay out only once redeemed. Periodically (and after each position audit), for the markets
 * the bot follows:
 *  - MERGE: when it holds at least `mergeMinSize` of both tokens free of open orders, the smaller of
 *    the two is merged back into collateral;
 *  - REDEEM: a resolved market's tokens still held are redeemed (the winner pays 1, the loser 0).
 *
 * Each operation goes through the venue (its relayer) and is recorded in the ledger by the caller's
 * `record` with its legs: a merge disposes of YES at the YES mid p and NO at 1 − p (the pair is worth
 * 1 at marks that sum to 1, so the total PnL does not move); a redeem disposes of the winner at 1
 * and the loser at 0 (the PnL is realised). Failures are logged and retried at the next run; nothing
 * is recorded for an operation the venue did not confirm.
 */
import type { ConditionId, TokenId } from '../core/ids.ts';
import { PRICE_SCALE, formatAmount, type Micro } from '../core/units.ts';
import type { CtfOperationResult, MarketInfo, Venue } from '../core/venue.ts';

/** The log field of an operation's on-chain hash, when the venue gave one. */
const txHash = (op: { readonly hash?: string }): { txHash?: string } =>
  op.hash !== undefined ? { txHash: op.hash } : {};

/** One leg of an operation for the ledger: a token's position change at a price (pips). */
export interface OperationLeg {
  readonly tokenId: TokenId;
  /** Signed micro-shares. */
  readonly size: number;
  readonly price: number;
}

/** Options of `CollateralKeeper`. */
export interface CollateralKeeperOptions {
  readonly venue: Pick<Venue, 'holdings' | 'merge' | 'redeem'>;
  /** The markets the bot follows. */
  markets(): readonly MarketInfo[];
  /** The winning token of a resolved market (undefined: not resolved; null: resolved, winner unknown). */
  winner(market: ConditionId): TokenId | null | undefined;
  /** A token's mid, pips, when known. */
  mid(tokenId: TokenId): number | undefined;
  /** Merge when both tokens are held free of orders at least this much, micro-shares (0: never merge). */
  readonly mergeMinSize: number;
  /** Redeem resolved markets' tokens. */
  readonly redeem: boolean;
  /**
   * Frees a market's tokens that its resting SELL orders reserve (pausing new places), for a merge;
   * returns what resumes placing. Optional: without it, only the tokens free of orders are merged.
   */
  release?(market: ConditionId, cancelAsks: boolean): Promise<() => void>;
  /** Records a confirmed operation with its legs (the ledger, the engine's positions). */
  record(op: CtfOperationResult, legs: readonly OperationLeg[]): void;
  /**
   * This bot's own position of a token (micro-shares, its ledger's): a merge takes no more than the
   * ledger holds of both tokens, so its legs never book a short (holdings the ledger has not booked yet
   * wait for the position audit), and in a fleet each member merges its own pairs. Undefined: the
   * venue's holdings alone (kept for callers without a ledger).
   */
  own?(tokenId: TokenId): number;
  readonly log?: {
    info(obj: object, msg: string): void;
    warn(obj: object, msg: string): void;
  };
}

/** What one run did. */
export interface KeeperReport {
  readonly merged: readonly CtfOperationResult[];
  readonly redeemed: readonly CtfOperationResult[];
}

/** The legs of a merge (negative sizes) or split (positive) of `amount` at the YES mid `p` (pips). */
export function pairLegs(m: MarketInfo, amount: number, p: number): OperationLeg[] {
  const [yes, no] = m.tokens;
  return [
    { tokenId: yes.tokenId, size: amount, price: p },
    { tokenId: no.tokenId, size: amount, price: PRICE_SCALE - p },
  ];
}

/** The legs of a redeem: each token's delta at 1 for the winner, 0 for the loser. */
export function redeemLegs(op: CtfOperationResult, winner: TokenId | null): OperationLeg[] {
  return op.tokens
    .filter((t) => t.delta !== 0)
    .map((t) => ({
      tokenId: t.tokenId,
      size: t.delta,
      price: winner !== null && t.tokenId === winner ? PRICE_SCALE : 0,
    }));
}

/** The YES mid to price a pair's legs at: the YES book's mid, else 1 − the NO book's, else 0.5. */
export function pairPrice(m: MarketInfo, mid: (t: TokenId) => number | undefined): number {
  const y = mid(m.tokens[0].tokenId);
  if (y !== undefined) return Math.min(PRICE_SCALE, Math.max(0, Math.round(y)));
  const n = mid(m.tokens[1].tokenId);
  if (n !== undefined) return Math.min(PRICE_SCALE, Math.max(0, PRICE_SCALE - Math.round(n)));
  return PRICE_SCALE / 2;
}

/** See the module comment. */
export class CollateralKeeper {
  readonly #o: CollateralKeeperOptions;
  #running: Promise<KeeperReport> | undefined;

  constructor(o: CollateralKeeperOptions) {
    this.#o = o;
  }

  /** True when the venue can do what this keeper is configured to do. */
  get enabled(): boolean {
    const o = this.#o;
    return (
      o.venue.holdings !== undefined &&
      ((o.mergeMinSize > 0 && o.venue.merge !== undefined) || (o.redeem && o.venue.redeem !== undefined))
    );
  }

  /** One pass (concurrent calls share it). Never throws: failures are logged. */
  run(): Promise<KeeperReport> {
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  async #run(): Promise<KeeperReport> {
    const o = this.#o;
    const merged: CtfOperationResult[] = [];
    const redeemed: CtfOperationResult[] = [];
    if (!this.enabled) return { merged, redeemed };
    let holdings: Awaited<ReturnType<NonNullable<Venue['holdings']>>>;
    try {
      holdings = await o.venue.holdings!();
    } catch (err) {
      o.log?.warn({ err: errMsg(err) }, 'collateral housekeeping: holdings not read (retried next time)');
      return { merged, redeemed };
    }
    const held = new Map(holdings.tokens.map((t) => [t.tokenId as string, t]));
    for (const m of o.markets()) {
      const [yes, no] = m.tokens;
      const y = held.get(yes.tokenId);
      const n = held.get(no.tokenId);
      const winner = o.winner(m.market);
      if (winner !== undefined) {
        if (!o.redeem || o.venue.redeem === undefined || ((y?.size ?? 0) <= 0 && (n?.size ?? 0) <= 0)) continue;
        try {
          const op = await o.venue.redeem(m.market);
          o.record(op, redeemLegs(op, winner));
          redeemed.push(op);
          o.log?.info(
            { market: m.market, tx: op.tx, ...txHash(op), collateral: formatAmount(op.collateral) },
            'redeemed the tokens of a resolved market',
          );
        } catch (err) {
          o.log?.warn({ market: m.market, err: errMsg(err) }, 'redeem failed (retried next time)');
        }
        continue;
      }
      if (o.mergeMinSize <= 0 || o.venue.merge === undefined) continue;
      // what this bot holds of both tokens (the wallet's, or its own share of it in a fleet)
      const ownBoth = o.own === undefined ? Infinity : Math.max(0, Math.min(o.own(yes.tokenId), o.own(no.tokenId)));
      let free = Math.min(y?.available ?? y?.size ?? 0, n?.available ?? n?.size ?? 0, ownBoth);
      const both = Math.min(y?.size ?? 0, n?.size ?? 0, ownBoth);
      let resume: (() => void) | undefined;
      try {
        if (free < o.mergeMinSize && (both < o.mergeMinSize || o.release === undefined)) continue;
        // places pause while the tokens are merged (the strategy's next quotes see them gone); the
        // strategy's asks that reserve them are taken down first when they must be
        if (o.release !== undefined) {
          resume = await o.release(m.market, free < o.mergeMinSize);
          // orders placed meanwhile may reserve some: what is free now
          const again = await o.venue.holdings!();
          const a = again.tokens.find((t) => t.tokenId === yes.tokenId);
          const b = again.tokens.find((t) => t.tokenId === no.tokenId);
          free = Math.min(a?.available ?? a?.size ?? 0, b?.available ?? b?.size ?? 0, ownBoth);
        }
        if (free < o.mergeMinSize) continue;
        const op = await o.venue.merge(m.market, free as Micro);
        o.record(op, pairLegs(m, -free, pairPrice(m, o.mid)));
        merged.push(op);
        o.log?.info(
          {
            market: m.market,
            amount: formatAmount(free),
            tx: op.tx,
            ...txHash(op),
            collateral: formatAmount(op.collateral),
          },
          'merged complementary holdings into collateral',
        );
      } catch (err) {
        o.log?.warn({ market: m.market, err: errMsg(err) }, 'merge failed (retried next time)');
      } finally {
        resume?.();
      }
    }
    return { merged, redeemed };
  }
}

function errMsg(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
