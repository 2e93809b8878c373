/**
 * The trader's start reconciliation (src/kernel/create-trader.ts hands it to the engine as
 * `reconcile`): the venue's open orders and the fills made while the bot was down
 * (src/engine/restart.ts `reconcileOnStart`), then the position audit, before anything is quoted.
 *
 * In a fleet, another member's orders and fills are in that member's ledger, not ours; an external
 * fill on a market outside the fleet's is booked by the member claiming it. Only fills the store
 * holds in the current ledger epoch reach the engine's positions (trial 15 F1).
 */
import type { ConditionId, OrderId } from '../core/ids.ts';
import type { VenueFill, Venue } from '../core/venue.ts';
import type { PositionAuditor } from '../engine/position-audit.ts';
import type { StartReconciliation } from '../engine/loop.ts';
import { reconcileOnStart } from '../engine/restart.ts';
import type { Executor, ForeignOrderPolicy } from '../execution/executor.ts';
import { restartStore } from '../store/restart.ts';
import type { Store } from '../store/store.ts';
import type { fillLines } from './fill-lines.ts';
import type { PositionAuditConfig } from './position-audit-wiring.ts';
import type { TraderFleetLedger, TraderLogger } from './types.ts';

/** What the start reconciliation uses of the trader. */
export interface ReconcileParts {
  readonly venue: Venue;
  readonly store: Store;
  readonly executor: Executor;
  readonly restartPolicy: 'cancel' | 'adopt';
  readonly foreignOrders: ForeignOrderPolicy;
  /** False: no "reconciled with the venue" line (and no logger handed to the reconciliation). */
  readonly logReconcile: boolean;
  readonly log: TraderLogger;
  readonly lines: ReturnType<typeof fillLines>;
  readonly fleetLedger: TraderFleetLedger | undefined;
  readonly auditor: PositionAuditor | undefined;
  readonly audit: PositionAuditConfig | undefined;
}

/** The engine's `reconcile` for a trader (see the module comment). @throws what the reconciliation throws */
export function traderReconcile(p: ReconcileParts): () => Promise<StartReconciliation> {
  const { venue, store, executor, fleetLedger, auditor, audit, lines, log } = p;
  return async () => {
    // a fleet member with no fill yet backfills the account's history only when its ledger books
    // it (else the other members' ledgers have it)
    const firstRunSinceMs =
      fleetLedger?.historySince !== undefined && store.lastFillTime() === undefined
        ? await fleetLedger.historySince()
        : undefined;
    const epochStartedAt = store.currentEpoch?.()?.startedAt;
    const r = await reconcileOnStart(
      venue,
      // an order is the bot's when the store recorded it (in any run), whatever its status there
      { ...restartStore(store), knowsOrder: (id) => store.order(id as OrderId) !== undefined },
      {
        policy: p.restartPolicy,
        foreign: p.foreignOrders,
        // orders of an earlier epoch (a paper world gone with its exchange) are told apart
        ...(epochStartedAt !== undefined ? { epochStartedAt } : {}),
        ...(firstRunSinceMs !== undefined ? { firstRunSinceMs } : {}),
        ...(fleetLedger !== undefined
          ? {
              othersOrder: (id: string, m: string) =>
                fleetLedger.othersMarket(m as ConditionId) || executor.isMemberOrder(id as OrderId),
            }
          : {}),
        // (other members' orders, whatever market they are on: their fills are in their ledgers)
        ...(fleetLedger?.memberOrders !== undefined
          ? {
              othersOrders: async (ids: readonly string[]) => {
                const theirs = await fleetLedger.memberOrders!(ids as OrderId[]);
                executor.markMemberOrders([...theirs] as OrderId[]);
                return theirs;
              },
            }
          : {}),
        // (a fill from outside the fleet on a market outside its markets: booked by the member claiming it)
        ...(fleetLedger?.externalClaims !== undefined
          ? { bookExternal: (f: VenueFill) => executor.claimExternal(f) }
          : {}),
        ...(p.logReconcile ? { logger: log } : {}),
      },
    );
    // kept: the bot's adopted ones, and the foreign ones left alone (tracked apart: self-trade check)
    if (r.adopted.length + r.left.length > 0) executor.adopt([...r.adopted, ...r.left]);
    // (another member's fills are in its ledger, not in ours)
    const fills =
      fleetLedger === undefined
        ? r.fills
        : r.fills.filter(
            (f) => executor.fillSource(f.orderId, f.market) !== 'member' && !executor.othersFill(f.tradeId, f.orderId),
          );
    for (const f of fills) {
      executor.onVenueFill(f);
      if (fleetLedger?.ownFill !== undefined && executor.fillSource(f.orderId, f.market) === 'bot')
        fleetLedger.ownFill(f.orderId);
    }
    // each fill made while the bot was down, named as the user channel's are (trial 13 F3: only a
    // count was said, and these fills are in no session's figures)
    // (a ledger that starts now, a data dir's first run or a new epoch, was never "down": trial 25 F4)
    const when =
      audit?.opening !== undefined
        ? "backfilled: made before this data dir's ledger began"
        : 'backfilled: made while the bot was down';
    for (const f of r.freshFills ?? []) {
      if (fleetLedger !== undefined && !fills.includes(f)) continue;
      const external = r.externalFills.has(`${f.tradeId}|${f.orderId}`);
      lines.backfilled(f, external, when);
    }
    // the venue's holdings are the truth: before anything is quoted, the ledger follows them
    if (auditor !== undefined) {
      const a = await auditor.audit({ confirm: false, ...(audit?.opening ? { opening: audit.opening } : {}) });
      for (const x of a.adjusted) audit?.onAdjust?.(x);
    }
    if (p.logReconcile)
      log.info(
        {
          found: r.found.length,
          foreign: r.foreign.length,
          canceled: r.canceled.length,
          adopted: r.adopted.length,
          left: r.left.length,
          backfilled: r.newFills,
          external: r.externalFills.size,
        },
        'reconciled with the venue',
      );
    // the engine's positions are the epoch's (seeded from its ledger): a fill of the backfill window
    // that an earlier epoch holds is not counted again (trial 15 F1: the positions of a start after
    // an epoch change counted the old epoch's fills on top of the venue's holdings, so asks above
    // the holdings were refused until the kill switch tripped)
    return { adopted: r.adopted, fills: fills.filter((f) => store.hasFillInEpoch(f.tradeId, f.orderId)) };
  };
}
