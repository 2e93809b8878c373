/**
 * The types the kernel's parts share (moved out of ./create-trader.ts, which re-exports them): the
 * logger, the backtest tuning, the hooks, the fleet's view and the intent path's counters. Apart so
 * that the modules createTrader wires (./gate-path.ts, ./position-audit-wiring.ts,
 * ./collateral-wiring.ts) can name them without importing createTrader (no import cycle).
 */
import type { FillEvent } from '../core/events.ts';
import type { ConditionId, OrderId } from '../core/ids.ts';
import type { DesiredQuotes, ImmediateIntent } from '../core/intents.ts';
import type { EngineLogger } from '../engine/loop.ts';
import type { OthersToken } from '../engine/position-audit.ts';
import type { VenueFill } from '../core/venue.ts';
import type { ExternalFillClaims, FillSource } from '../execution/foreign-orders.ts';
import type { Approved, GateResult } from '../risk/gate.ts';
import type { FillChange, FillRecord } from '../store/store.ts';

/** A logger of the kernel's parts (pino's Logger fits). */
export interface TraderLogger extends EngineLogger {
  debug(obj: object, msg?: string): void;
}

/**
 * Backtest speed-ups: exact (no result changes), off by default. A daemon runs without them; a
 * backtest turns them on.
 */
export interface TraderTuning {
  /** Reuse the gate's answer while nothing it reads changed (src/risk/gate-memo.ts). */
  readonly memoiseGate?: boolean;
  /**
   * Do not hand the executor a quote set identical to the last one of its market while no order of
   * that market changed state and its tick is the same: the executor's diff would find nothing to do.
   * With `memoiseGate` too (and no `onQuoteSet` hook), a memoised answer that is that very set is
   * handed on as approved before (its time the earlier one's: it is not executed), not stamped anew.
   */
  readonly coalesceIntents?: boolean;
  /** The risk view and the engine read the tracker's cached live-order lists (rebuilt on change). */
  readonly cachedLiveOrders?: boolean;
  /** Fill keys the engine's state keeps for deduplication (default: all). */
  readonly fillKeys?: number;
  /** Finished order ids the engine's state remembers (default 50,000). */
  readonly terminalCapacity?: number;
}

/** What a caller observes of the trader (the daemon's ops, a backtest's measurements). */
export interface TraderHooks {
  /** Each fill of the bot's own orders after the store has it (`change`: what the store did: 'new', 'dup', 'void'...). */
  onFill?(fill: FillEvent, change: FillChange | undefined): void;
  /**
   * Each fill of an order the bot did not place (another client on the same wallet), after the
   * store recorded it with source 'external': from the user stream and from backfills.
   */
  onExternalFill?(fill: FillRecord, change: FillChange): void;
  /**
   * Each fill the position audit booked from the venue's trade history (one the user stream had not
   * delivered), after the store has it, with whose it is: the daemon counts the bot's own in its
   * session's fills, metrics and fill ratio as the user stream's (it is logged by the kernel).
   */
  onAuditFill?(fill: VenueFill, source: FillSource): void;
  /** Each approved quote set, before it reaches the executor (coalesced ones included). */
  onQuoteSet?(desired: Approved<DesiredQuotes>): void;
  /** Each gate decision on quotes: what was asked and the gate's answer (turns the gate memo off). */
  onGate?(desired: DesiredQuotes, result: GateResult): void;
  /** Each immediate order the gate decided on. */
  onGateOrder?(order: ImmediateIntent, approved: boolean, code: string | null): void;
  /**
   * A market's reward config changed (a `market_updated` event), after the reward estimate took it: a
   * backtest starts its own sampling timer here (the trader's `start()` samples by itself).
   */
  onRewardConfig?(market: ConditionId): void;
}

/** What the kernel reads of the fleet (TraderOptions.fleet). */
export interface TraderFleet {
  /** Whether this member sends the venue's heartbeats now (it holds the heartbeat lease). */
  shouldBeat(): boolean;
  /** Whether this member may quote the market now. */
  quotable(market: ConditionId): boolean;
  /** Whether orders may go out at all (Redis reachable, the fleet not killed). */
  canPlace(): boolean;
  /**
   * The account-wide caps this member may use now (its grant of the fleet's risk.maxNotionalGlobal,
   * µ, and risk.maxOpenOrdersGlobal: src/fleet/risk-reserve.ts), enforced by the gate in place of
   * the configured global limits. Return the same object while it does not change (the gate memo
   * keys on the limits' identity). Undefined: the configured limits.
   */
  globalCaps?(): { readonly notional: number; readonly orders: number };
  /**
   * Called when the gate cut or refused a quote for lack of global room (NOTIONAL_GLOBAL,
   * OPEN_ORDERS_GLOBAL): the member's keeper asks the fleet for more. When set, the gate memo is
   * not used (it does not report what it cut).
   */
  globalPressure?(): void;
  /** Fleet reconciliation (members share one wallet, each with its own ledger). Undefined: none. */
  readonly ledger?: TraderFleetLedger;
}

/**
 * Fleet reconciliation (issue 21; src/cli/run-fleet.ts wires src/fleet/fleet-ledger.ts): the
 * position audit compares the venue with the sum of the members' ledgers and books a difference
 * only on a market this member holds (`quotable`); orders and fills of the other members are not
 * foreign (src/execution/executor.ts `fleetMarket`).
 */
export interface TraderFleetLedger {
  /** True when `market` is another member's now (one of the fleet's markets this member does not hold). */
  othersMarket(market: ConditionId): boolean;
  /** The other members' published ledgers, summed by token. @throws when Redis cannot be read */
  others(): Promise<ReadonlyMap<string, OthersToken>>;
  /** The members whose ledger is, as of the last `others()`, a record put back from memory and not published since (nothing is booked meanwhile). */
  unconfirmed?(): readonly string[];
  /** This member's ledger changed (an own fill, an adjustment): publish it soon. */
  changed(): void;
  /**
   * Which of these orders (not this member's store's) the fleet's members placed (their fills are in
   * their ledgers, whatever market they are on: src/fleet/member-orders.ts). Absent: none known.
   * @throws when Redis cannot be read
   */
  memberOrders?(ids: readonly OrderId[]): Promise<ReadonlySet<string>>;
  /** An order of this member filled (recorded for the other members, who then ignore its fills). */
  ownFill?(orderId: OrderId): void;
  /**
   * A fill of an order no member placed, on a market outside the fleet's: booked only by the member
   * that claims it (src/fleet/member-orders.ts `claimExternalFill`). Absent: every member books it.
   */
  readonly externalClaims?: ExternalFillClaims;
  /**
   * Where the start's backfill begins when this member's store has no fill yet (unix ms): 0 when this
   * member's ledger books the account's history, else now (the other ledgers have it). Absent: 0.
   * @throws when Redis cannot be read
   */
  historySince?(): Promise<number>;
}

/** Counters of the kernel's intent path. */
export interface TraderCounters {
  /** Approved quote sets handed towards the executor (pulls included). */
  intents: number;
  /** Of those, not submitted: identical to the last one (tuning.coalesceIntents). */
  coalesced: number;
  /** Submitted to the executor. */
  submits: number;
  /** Immediate orders approved and refused by the gate. */
  ordersApproved: number;
  ordersRefused: number;
  /**
   * Quotes the gate refused, and approved with a cut size, by code (RiskCode): one per quote per
   * gating, memoised answers included (a strategy that re-states a refused quote on every event
   * counts it every time). Counted as they happen: nothing for a quote approved as asked. The
   * daemon's metrics, status and exit summary read them (with ordersRefusedByCode: gateCountsOf).
   */
  readonly quotesRefused: Record<string, number>;
  readonly quotesTrimmed: Record<string, number>;
  /** Immediate orders (FOK/FAK) the gate refused, by code (their total is ordersRefused). */
  readonly ordersRefusedByCode: Record<string, number>;
}
