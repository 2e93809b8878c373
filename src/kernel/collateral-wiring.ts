/**
 * The collateral housekeeping's wiring (moved out of ./create-trader.ts; createTrader wires it):
 * the CollateralKeeper (src/execution/collateral-keeper.ts) over the trader's parts, which merges
 * complementary holdings and redeems resolved markets, and `keep`, which runs it once the engine
 * is ready (every `everyMs`, after a position audit, when a followed market resolves, at start).
 *
 * A merge takes the tokens the quotes offer: the executor pauses while it runs (what is on its way
 * lands first, bounded), the asks are taken down when asked, and the market's next quotes come
 * afresh once it is done.
 */
import type { Clock, TimerHandle } from '../core/clock.ts';
import type { TokenId } from '../core/ids.ts';
import type { MarketInfo, Venue } from '../core/venue.ts';
import type { Engine } from '../engine/loop.ts';
import { CollateralKeeper } from '../execution/collateral-keeper.ts';
import type { Executor } from '../execution/executor.ts';
import type { OrderTracker } from '../execution/tracker.ts';
import type { Store } from '../store/store.ts';
import type { TraderFleet, TraderLogger } from './types.ts';

/** The collateral housekeeping's settings (TraderOptions.collateral). */
export interface CollateralConfig {
  /** Merge complementary holdings of at least this many micro-shares (0: never). */
  readonly mergeMinSize: number;
  /** Redeem the holdings of resolved markets. */
  readonly redeem: boolean;
  /** Period of the housekeeping, ms (0: only after audits, on resolutions and at start). */
  readonly everyMs: number;
}

/** The trader's parts the collateral housekeeping uses (createTrader's). */
export interface CollateralParts {
  readonly venue: Venue;
  readonly clock: Clock;
  /** Records the merges and redemptions (operations with their legs). */
  readonly store: Store;
  readonly log: TraderLogger;
  /** Paused during a merge; forgets the market's last quotes after it. */
  readonly executor: Executor;
  /** The live asks a merge takes down. */
  readonly tracker: OrderTracker;
  /** The engine (made after this wiring: read when needed). */
  readonly engine: () => Engine | undefined;
  /** The markets traded. */
  readonly markets: readonly MarketInfo[];
  /** A fleet member keeps only the markets it holds now, and merges no more than its own ledger holds. */
  readonly fleet: TraderFleet | undefined;
  /** Undefined: no housekeeping. */
  readonly config: CollateralConfig | undefined;
  /**
   * A merge or redemption done at the venue whose operation could not be stored (disk full, I/O
   * error): the trader's store failure (the kill switch's `storeFailure`); the error is thrown on.
   */
  readonly storeFailed: (what: string, error: unknown) => void;
}

/** The collateral housekeeping of a trader. */
export interface CollateralWiring {
  /** The keeper (undefined without a config). */
  readonly keeper: CollateralKeeper | undefined;
  /** Runs the housekeeping now when the keeper can and the engine is ready (not awaited). */
  readonly keep: () => void;
}

/** Wires the collateral housekeeping over the trader's parts (see the module comment). */
export function createCollateralWiring(p: CollateralParts): CollateralWiring {
  const { venue, clock, store, log, executor, tracker, engine, markets, fleet, config, storeFailed } = p;
  const keeper =
    config === undefined
      ? undefined
      : new CollateralKeeper({
          venue,
          // a fleet member keeps the markets it holds now (one member per market: no two merge or
          // redeem one market's holdings)
          markets: () => (fleet === undefined ? markets : markets.filter((m) => fleet.quotable(m.market))),
          // and every bot merges no more than its ledger holds: the merge's legs are booked against the
          // ledger, so merging holdings it has not booked yet (a split made by `mmkit split` beside the
          // daemon, booked by the next position audit) showed a short of both tokens until that audit,
          // and the audit's correction named the wrong cause (trial 8 F1). A fleet member's ledger is
          // its share of the wallet's holdings
          own: (t: TokenId) => engine()?.state.position(t).size ?? 0,
          winner: (m) => engine()?.state.winner(m),
          mid: (t) => {
            const b = engine()?.state.book(t);
            return b?.mid == null ? undefined : b.mid;
          },
          mergeMinSize: config.mergeMinSize,
          redeem: config.redeem,
          release: async (market, cancelAsks) => {
            executor.pause('merge');
            try {
              // what is already on its way lands first (bounded: a cycle backing off is not waited for)
              let bound: TimerHandle | undefined;
              await Promise.race([
                executor.idle(),
                new Promise<void>((r) => {
                  bound = clock.setTimeout(r, 5_000);
                }),
              ]);
              if (bound !== undefined) clock.clearTimeout(bound);
              const sells = !cancelAsks
                ? []
                : tracker
                    .liveOrders(market)
                    .filter((x) => x.side === 'SELL')
                    .map((x) => x.id);
              if (sells.length > 0) {
                // (the executor's cancels: known as the bot's own, never "cancelled outside the daemon": trial 17 F3)
                const r = await executor.cancel(sells);
                log.info({ market, canceled: r.canceled.length }, 'asks taken down for a merge');
              }
            } catch (err) {
              executor.resume('merge');
              throw err;
            }
            return () => {
              // the quotes computed before the merge offered tokens that are gone: the next come afresh
              executor.forget(market);
              executor.resume('merge');
            };
          },
          record: (op, legs) => {
            try {
              store.recordOperation({
                kind: op.kind,
                market: op.market,
                amount: op.amount,
                collateral: op.collateral,
                legs,
                tx: op.tx,
                ...(op.hash !== undefined ? { txHash: op.hash } : {}),
                at: clock.now(),
              });
            } catch (err) {
              // done at the venue, not in the ledger: the positions are no longer known for sure
              storeFailed(`a ${op.kind} done at the venue (tx ${op.tx}) could not be stored`, err);
              throw err;
            }
            for (const l of legs) engine()?.state.adjustPosition(l.tokenId, l.size, l.price);
          },
          log,
        });
  const keep = (): void => {
    if (keeper?.enabled === true && engine()?.ready === true) void keeper.run();
  };
  return { keeper, keep };
}
