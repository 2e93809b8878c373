/**
 * The orderly shutdown of `mmkit run` (src/cli/run.ts wires the daemon, this ends it), once its stop
 * promise resolved: the quotes cancelled and the venue verified flat, a fleet member's status record,
 * last reward poll and leases released, the shutdown backfill of the fills the user channel had not
 * delivered (with a fleet's claims of the external ones), the fleet left, the store flushed and
 * closed, the venue, the in-process exchange and the status server closed, and the exit summary.
 *
 * The order matters and is the point of keeping it in one place: nothing may rest at the venue
 * before the backfill reads the trade history (nothing can fill any more then); a fleet member's
 * leases go before the backfill (another member takes the markets at once) but its connection stays
 * until `leave()`, after it (the backfill's claims and the ids of its fills go to the fleet's Redis);
 * the ledger is read at exit only once every fill is stored.
 *
 * `runExitSummary` is the exit summary's one assembly, shared with the shadow run (src/cli/run-shadow.ts).
 */
import { formatAmount } from '../core/units.ts';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import { fillLogFields } from '../core/events.ts';
import type { MarketInfo, Venue } from '../core/venue.ts';
import { backfillFills } from '../engine/restart.ts';
import type { RunningExchange } from '../exchange/server.ts';
import type { FleetMember } from '../fleet/member.ts';
import type { Trader } from '../kernel/create-trader.ts';
import type { DaemonOps } from '../ops/daemon-ops.ts';
import type { FlatReport } from '../execution/executor.ts';
import { componentLogger } from '../ops/logger.ts';
import type { RewardBook } from '../ops/reward-book.ts';
import { finalRewardPoll } from '../ops/reward-wiring.ts';
import type { Store } from '../store/store.ts';
import type { LedgerEpoch } from '../store/store-types.ts';
import { logNotFlat } from './run-checks.ts';
import type { FleetRef } from './run-fleet.ts';
import { describeStop, isRiskStop, type RunStop } from './run-stop.ts';
import {
  intentFigures,
  type LedgerAtExit,
  ledgerAtExit,
  midMarks,
  rejectionsNotCounted,
  type RunSummary,
  summaryLabels,
} from './run-summary.ts';
import { removeDaemonVenue, type VenueUrls } from './venue.ts';

/** The shutdown backfill starts this long before the run did (the venue filters trades on whole seconds; a clock may drift). */
const SHUTDOWN_BACKFILL_MARGIN_MS = 60_000;
/** With the user-channel audit on, the shutdown backfill reaches back this long (or 4 audit periods, if longer). */
const SHUTDOWN_BACKFILL_AUDITED_MS = 10 * 60_000;
/** The shutdown backfill gives up after this long. */
const SHUTDOWN_BACKFILL_TIMEOUT_MS = 20_000;

/** What `mmkit run` wired and its orderly shutdown stops, flushes and closes (`shutdownRun`). */
export interface RunShutdownParts {
  /**
   * The settings it reads: the data dir and the venue (named when orders may still rest), the user
   * channel's audit period.
   */
  readonly cfg: {
    readonly dataDir: string;
    /** The store file when not `<dataDir>/mmkit.db` (named when it cannot be written at shutdown). */
    readonly storeFile?: string | undefined;
    readonly exchangeUrl: string;
    readonly userAuditMs?: number | undefined;
  };
  /** The root logger (the components' loggers) and the daemon's own. */
  readonly log: Logger;
  readonly dlog: Logger;
  /** The per-component-and-market loggers (componentLoggers). */
  readonly marketLog: (component: string, market: string) => Logger;
  readonly clock: Pick<Clock, 'now'>;
  readonly trader: Trader;
  /** The venue the trader trades (instrumented). */
  readonly venue: Pick<Venue, 'fills' | 'close'>;
  readonly urls: VenueUrls;
  /** The in-process paper exchange (undefined: a venue given by URL). */
  readonly exchange: RunningExchange | undefined;
  readonly store: Store;
  readonly ops: DaemonOps;
  readonly rewardBook: RewardBook;
  /** The status line's timer. */
  readonly status: ReturnType<typeof setInterval>;
  /** The markets traded, those the venue listed at start, each traded token's outcome. */
  readonly markets: readonly MarketInfo[];
  readonly listed: readonly MarketInfo[];
  readonly outcomes: ReadonlyMap<string, string>;
  /** This run's ledger: its store session, the epoch, the realized PnL at start, the run's start. */
  readonly ledger: {
    readonly session: number;
    readonly epoch: LedgerEpoch;
    readonly realizedAtStart: number;
    readonly runStartMs: number;
  };
  /** A fleet member (undefined: a lone daemon), its late-bound parts, its status record's stop. */
  readonly fleetMember: FleetMember | undefined;
  readonly fleetRef: FleetRef;
  readonly stopFleetStatus: (() => Promise<void>) | undefined;
  /** Counts a fill of the bot's own the shutdown backfill found (the daemon's fill counter). */
  readonly onBotFill: () => void;
}

/**
 * The orderly shutdown after `stop` (see the module comment): cancels every order and verifies the
 * venue flat, backfills the fills not delivered (bounded in time), closes everything the run opened
 * and resolves with the exit summary.
 */
export async function shutdownRun(parts: RunShutdownParts, stop: RunStop): Promise<RunSummary> {
  const { cfg, log, dlog, marketLog, clock, trader, venue, urls, exchange, store, ops, rewardBook } = parts;
  const { fleetMember, fleetRef, stopFleetStatus, outcomes, markets, listed } = parts;
  const { executor, tracker, engine } = trader;
  const { session, epoch, realizedAtStart, runStartMs } = parts.ledger;
  const reason = describeStop(stop);

  // the bot stopping itself on a risk limit (exit 4) is an ERROR: a WARN+ log filter or alert sees it
  if (isRiskStop(stop)) dlog.error({ reason }, 'kill switch tripped: stopping, cancelling all orders');
  else dlog.info({ reason }, 'stopping: cancelling all orders');
  ops.lifecycle('stopping');
  clearInterval(parts.status);
  await trader.stop();
  await trader.cancelAll('shutdown');
  const flat = await trader.verifyFlat(5000);
  if (!flat.flat) logNotFlat(dlog, flat, tracker.liveOrders().length, cfg, urls, exchange !== undefined);
  await stopFleetStatus?.();
  // a fleet member's last poll of the payouts while it still holds its markets and reaches the
  // fleet (its claims are made in Redis; a payout it cannot claim now is booked by the next holder)
  if (fleetMember !== undefined && trader.rewards.active)
    await finalRewardPoll(rewardBook, componentLogger(log, 'rewards'));
  // the leases and the heartbeat go at once (another member takes the markets without waiting); the
  // connection stays for the backfill's claims and the ledger's last publish: it leaves below
  await fleetMember?.release();
  // answers a waiting `mmkit kill` (POST /api/kill) at once and takes the last status sample
  ops.flattened(flat, reason);
  // the user channel closed with the engine: a fill matched before the venue took the cancels (or
  // one a frozen user channel never delivered) is known only from the venue's trade history. Now
  // that nothing rests there, nothing can fill any more: take the fills since the run started (or,
  // with the user-channel audit on, since a few audit periods ago: the audits covered the rest),
  // each stored once (the store keys fills by trade and order id). Bounded in time: a venue that
  // does not answer does not hold the exit (the next start backfills from the last stored fill).
  const auditMs = cfg.userAuditMs ?? 0;
  const backfillFrom =
    (auditMs > 0
      ? Math.max(runStartMs, clock.now() - Math.max(SHUTDOWN_BACKFILL_AUDITED_MS, 4 * auditMs))
      : runStartMs) - SHUTDOWN_BACKFILL_MARGIN_MS;
  try {
    // (in a fleet, a fill from outside on a market outside the fleet's is booked by the member that
    // claims it: asked first; one that cannot be asked now is said, with its ids: a later backfill
    // books it only if its window still covers the fill)
    const work = backfillFills(venue, backfillFrom, async (f) => {
      const won = await executor.claimExternal(f).catch((err: unknown) => {
        marketLog('executor', f.market).warn(
          { trade: f.tradeId, order: f.orderId, err: err instanceof Error ? err.message : String(err) },
          "an external fill could not be claimed in the fleet's Redis at shutdown: not booked by this member",
        );
        return false;
      });
      return won ? executor.onVenueFill(f) === 'new' : false;
    });
    work.catch(() => {}); // when abandoned on the timeout (its error is reported below otherwise)
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer within ${SHUTDOWN_BACKFILL_TIMEOUT_MS} ms`)),
        SHUTDOWN_BACKFILL_TIMEOUT_MS,
      );
    });
    const { fresh } = await Promise.race([work, timeout]).finally(() => clearTimeout(timer));
    for (const f of fresh) {
      // a fill of an order the bot did not place is stored as external, never counted as its own
      const source = executor.fillSource(f.orderId);
      if (source === 'bot') {
        parts.onBotFill();
        // (and in the fill ratio, as in the fills: trial 13 F8)
        ops.monitor.backfilledFill(f.orderId);
        // (in a fleet, its id goes to the registry of the members' filled orders, written by its flush timer or, at the latest, by `leave()`
        // below: a member taking the market over then never books it as external; review-1 F2)
        fleetRef.orders?.add(f.orderId);
      }
      marketLog('executor', f.market).info(
        { ...fillLogFields(f, outcomes.get(f.tokenId)), source, backfilled: true },
        source === 'bot' ? 'fill' : 'external fill',
      );
    }
    if (fresh.length > 0)
      dlog.warn(
        { fills: fresh.length },
        'fills the user channel had not delivered, backfilled at shutdown (each logged above: a fill line with backfilled: true)',
      );
  } catch (err) {
    dlog.error(
      { err: err instanceof Error ? err.message : String(err) },
      'could not backfill fills at shutdown (the next start backfills from the last stored fill)',
    );
  }
  await fleetMember?.leave();
  await trader.close();
  // the payouts of the run's last epochs (bounded: a venue that does not answer does not hold the exit)
  if (fleetMember === undefined && trader.rewards.active)
    await finalRewardPoll(rewardBook, componentLogger(log, 'rewards'));
  const marks = midMarks(markets, engine, trader.venueMarks());
  // the store's own writes at shutdown (the session's end, the last flush) fail too on a full disk
  // or a failing one, often the very reason of the stop: each is one ERROR line naming the store, and
  // the shutdown goes on to its summary and exit code (4 after the store failure's trip, README "Exit
  // codes"), instead of ending on the bare SQLite error with exit 1 (trial 6 F2)
  const storeFile = cfg.storeFile || join(cfg.dataDir, 'mmkit.db');
  const storeWrite = <T>(what: string, write: () => T): T | undefined => {
    try {
      return write();
    } catch (err) {
      dlog.error(
        { err: err instanceof Error ? err.message : String(err), store: storeFile },
        `the store could not be written at shutdown: ${what} (what it had committed is kept; the next start backfills the fills from the venue)`,
      );
      return undefined;
    }
  };
  const exit = ledgerAtExit(
    {
      pnl: (m) => store.pnl(m),
      endSession: (id, at) => storeWrite("the session's end not recorded", () => store.endSession(id, at)) ?? false,
      summary: (o) => store.summary(o),
      positions: () => store.positions(),
      positionDecimals: () => store.positionDecimals(),
    },
    { session, now: clock.now(), marks, epoch, realizedAtStart, runStartMs },
  );
  for (const p of exit.positionsAtExit) dlog.info(p, 'position at exit');
  storeWrite('its last writes not flushed', () => store.close());
  await venue.close();
  removeDaemonVenue(cfg.dataDir);
  await exchange?.close();
  await ops.close();
  // positions of markets not quoted this run are named from the listing too
  const summary = runExitSummary(exit, { flat, reason, stop }, trader, markets, {
    listed,
    held: exit.positionsAtExit,
  });
  return {
    ...summary,
    trading: ops.monitor.tradeStats(summary.ordersPlaced),
    orderRoundTrips: ops.monitor.roundTrips(),
  };
}

/**
 * The exit summary of a run, `mmkit run`'s and its shadow run's (src/cli/run-shadow.ts): the ledger at
 * exit's figures with how the orders ended (`end`: verified flat or not, the stop and its reason), the
 * executor's rejections not counted by the kill switch, the strategy's errors and the gate's refusals
 * and trims, and the tokens' names (`labels`: also of positions held on markets not quoted this run,
 * named from the listing; `summaryLabels` in src/cli/run-summary.ts).
 */
export function runExitSummary(
  exit: LedgerAtExit,
  end: { readonly flat: FlatReport; readonly reason: string; readonly stop: RunStop },
  trader: Pick<Trader, 'executor' | 'engine' | 'counters'> & { readonly kill?: Pick<Trader['kill'], 'dailyPnl'> },
  markets: readonly MarketInfo[],
  labels?: Parameters<typeof summaryLabels>[1],
): RunSummary {
  const day = trader.kill?.dailyPnl;
  return {
    ...exit.summary(
      end.flat,
      end.reason,
      end.stop,
      rejectionsNotCounted(trader.executor.accountStats()),
      intentFigures(trader.engine, trader.counters),
    ),
    ...(day !== undefined ? { dayPnl: { date: day.date, pnl: formatAmount(Math.round(day.pnl)) } } : {}),
    ...summaryLabels(markets, labels),
  };
}
