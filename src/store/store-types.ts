/**
 * The shapes of the bot's store (./store.ts): stored orders and their patches, fill records and
 * their changes, audit entries, the summary, the options and the Store interface. Types and one
 * constant only.
 */
import type { Clock } from '../core/clock.ts';
import type { TradeStatus } from '../core/events.ts';
import type { ConditionId, OrderId, TokenId } from '../core/ids.ts';
import type { Micro, Pips, Side } from '../core/units.ts';
import type { PreparedOrder } from '../core/venue.ts';
import type { PnlReport, Position, PositionDecimals } from './positions.ts';

/** An order's status as the store keeps it (the tracker's states). */
export type StoredOrderStatus =
  | 'pending'
  | 'live'
  | 'partially_filled'
  | 'filled'
  | 'cancelled'
  | 'rejected'
  | 'unknown';
/** The statuses an order may still rest with (or may, when its fate is not known yet). */
export const OPEN_ORDER_STATUSES: readonly StoredOrderStatus[] = ['pending', 'live', 'partially_filled', 'unknown'];

/** One row of `orders`. */
export interface StoredOrder {
  readonly id: OrderId;
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly side: Side;
  readonly price: Pips;
  readonly size: Micro;
  readonly type: string;
  readonly status: StoredOrderStatus;
  readonly sizeMatched: Micro;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly rejectCode: string | null;
}

/** What may change on an order after it was recorded. `sizeMatched` never decreases. */
export interface OrderPatch {
  readonly status?: StoredOrderStatus;
  readonly sizeMatched?: number;
  readonly rejectCode?: string | null;
}

/** An order found at the venue (or in the user stream) that this store never recorded. */
export interface AdoptedOrder {
  readonly id: OrderId;
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly side: Side;
  readonly price: Pips;
  readonly originalSize: Micro;
  readonly sizeMatched: Micro;
  readonly status: StoredOrderStatus;
  readonly type?: string;
}

/**
 * Who made a fill: 'bot' (an order this store knows as the bot's own) or 'external' (an order on
 * the same wallet the bot did not place: another client, a manual trade). Both move positions;
 * the summary counts them apart.
 */
export type FillSource = 'bot' | 'external';

/** One fill of one own order in one trade. `VenueFill` of the Venue port has this shape. */
export interface FillRecord {
  readonly tradeId: string;
  readonly orderId: OrderId;
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly side: Side;
  readonly price: Pips;
  readonly size: Micro;
  /** Fee paid, micro-collateral (0 for a maker). */
  readonly fee: Micro;
  readonly role: 'TAKER' | 'MAKER';
  readonly status: TradeStatus;
  /** Unix ms. */
  readonly matchTime: number;
  /**
   * Whose order filled: 'bot' (default: an order this bot placed, in any run) or 'external' (an
   * order someone else placed on the same wallet: counted apart, never the strategy's). Fixed when
   * the fill is first recorded (a later status update keeps it).
   */
  readonly source?: FillSource;
}

/** A stored fill: the record plus bookkeeping. `status === 'FAILED'` means void. */
export interface StoredFill extends FillRecord {
  readonly source: FillSource;
  /** The ledger epoch current when it was first recorded (null: none was open). */
  readonly epoch: number | null;
  readonly recordedAt: number;
  readonly updatedAt: number;
}

// ---- the ledger: epochs, adjustments, operations, sessions ---------------------------------------

/**
 * A ledger epoch: one venue + world + address traded on. Positions and PnL read the current
 * (latest) epoch only, so a fresh venue world starts at zero instead of carrying the last one's.
 * Epoch 1 may be the synthetic legacy epoch of rows written before epochs existed (venue
 * 'unknown', world null, address '').
 */
export interface LedgerEpoch {
  readonly id: number;
  /** The venue's name (e.g. 'paper', 'polymarket'; 'unknown' for the legacy epoch). */
  readonly venue: string;
  /** The venue's world id (a paper exchange's); null when the venue has none. */
  readonly world: string | null;
  /** The trading address, lower-case ('' for the legacy epoch). */
  readonly address: string;
  /** Unix ms. */
  readonly startedAt: number;
}

/** What identifies an epoch: `openEpoch` continues the latest epoch when all three are the same. */
export interface EpochIdentity {
  readonly venue: string;
  readonly world: string | null;
  readonly address: string;
}

/** What `openEpoch` did: `fresh` when it started a new epoch (`previous`: the one before, if any). */
export interface EpochOpening {
  readonly epoch: LedgerEpoch;
  readonly fresh: boolean;
  readonly previous?: LedgerEpoch;
}

/** Why a position was adjusted to the venue's truth. */
export type AdjustmentCause =
  | 'external_trade'
  | 'split'
  | 'merge'
  | 'redeem'
  | 'convert'
  | 'venue_reset'
  | 'reward'
  | 'unknown';
/** The adjustment causes, in the order of the schema's CHECK. */
export const ADJUSTMENT_CAUSES: readonly AdjustmentCause[] = [
  'external_trade',
  'split',
  'merge',
  'redeem',
  'convert',
  'venue_reset',
  'reward',
  'unknown',
];
/** Where an adjustment's price came from: the venue's average price, the mid at the time, or none (0). */
export type PriceSource = 'venue' | 'mid' | 'none';

/**
 * A change of a token's position to match the venue (no fee): it opens or closes at its price as
 * a fill would (a positive size buys, a negative one sells).
 */
export interface AdjustmentInput {
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  /** Signed micro-shares, not 0. */
  readonly size: number;
  /** Pips, 0..10,000. */
  readonly price: number;
  /**
   * The exact price in millionths, 0..1,000,000 (the venue's average price at its 6 decimals), when
   * known: positions use it instead of `price` (whose pips it must round to).
   */
  readonly priceMicro?: number;
  readonly priceSource: PriceSource;
  readonly cause: AdjustmentCause;
  readonly note?: string;
  /** Unix ms (default: the store's clock). */
  readonly at?: number;
}

/** A stored adjustment. */
export interface StoredAdjustment {
  readonly seq: number;
  readonly epoch: number | null;
  readonly at: number;
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly size: Micro;
  readonly price: Pips;
  /** The exact price in millionths, when it was booked with one (null otherwise). */
  readonly priceMicro: number | null;
  readonly priceSource: PriceSource;
  readonly cause: AdjustmentCause;
  readonly note: string | null;
}

/** A conditional-token operation (through the venue's relayer). */
export type OperationKind = 'split' | 'merge' | 'redeem' | 'convert';

/**
 * One token leg of an operation: a signed size change at a price the caller chose (no fee).
 * Split / merge: YES at p and NO at 1 − p (prices summing to 10,000 pips), so total PnL at marks
 * summing to 1 does not move; redeem: the winner at 10,000, the loser at 0 (it realises).
 */
export interface OperationLeg {
  readonly tokenId: TokenId;
  /** Signed micro-shares, not 0 (split: positive; merge and redeem: negative). */
  readonly size: number;
  /** Pips, 0..10,000. */
  readonly price: number;
}

/** An operation to record (`recordOperation`). */
export interface LedgerOperation {
  readonly kind: OperationKind;
  readonly market: ConditionId;
  /** The operation's amount, micro (shares split / merged / redeemed / converted). */
  readonly amount: number;
  /** Signed collateral change, micro (split: negative; merge, redeem: positive). */
  readonly collateral: number;
  readonly legs: readonly OperationLeg[];
  /** The venue's transaction id (the relayer's), or its hash where the venue gives no id. */
  readonly tx?: string;
  /** The on-chain transaction hash, when known (the venue's account activity names the operation by it). */
  readonly txHash?: string;
  /** Unix ms (default: the store's clock). */
  readonly at?: number;
}

/** A stored operation. */
export interface StoredOperation {
  readonly seq: number;
  readonly epoch: number | null;
  readonly at: number;
  readonly kind: OperationKind;
  readonly market: ConditionId;
  readonly amount: Micro;
  readonly collateral: number;
  readonly legs: readonly { readonly tokenId: TokenId; readonly size: Micro; readonly price: Pips }[];
  readonly tx: string | null;
  /** The on-chain transaction hash (null: not known, or recorded before the store kept it). */
  readonly txHash: string | null;
}

/** One run of the daemon on this store. */
export interface LedgerSession {
  readonly id: number;
  /** The epoch current when it began (null: none). */
  readonly epoch: number | null;
  readonly startedAt: number;
  /** Null while it runs (or when it died without ending it). */
  readonly endedAt: number | null;
  readonly pid: number;
}

/**
 * One position-moving entry of the current epoch, in the order positions apply them (time; at the
 * same time fills, then operation legs, then adjustments): a fill, an adjustment or one leg of an
 * operation, as a fill-like record (the engine's state can be seeded from these).
 */
export interface LedgerEntry {
  readonly kind: 'fill' | 'adjustment' | 'operation';
  /** A fill's trade id; `adjustment:<seq>` or `operation:<seq>:<leg index>` otherwise. */
  readonly tradeId: string;
  /** A fill's order id; '' otherwise. */
  readonly orderId: string;
  readonly market: ConditionId;
  readonly tokenId: TokenId;
  readonly side: Side;
  readonly price: Pips;
  /** An adjustment's exact price in millionths, when booked with one. */
  readonly priceMicro?: number;
  /** Unsigned micro-shares (the side says the direction). */
  readonly size: Micro;
  /** 0 for adjustments and legs. */
  readonly fee: Micro;
  /** A fill's trade status; 'CONFIRMED' otherwise. */
  readonly status: TradeStatus;
  /** 'bot' or 'external' for a fill; undefined otherwise. */
  readonly source?: FillSource;
  /** Match time of a fill, `at` otherwise (unix ms). */
  readonly at: number;
}

/**
 * What `applyFill` did: `new` (first time this (trade, order) pair is seen), `status` (a later
 * trade status was recorded), `void` (the fill became FAILED: reversed in positions), `duplicate`
 * (a replay or an out-of-order older status: nothing changed).
 */
export type FillChange = 'new' | 'status' | 'void' | 'duplicate';

// ---- liquidity rewards (./rewards.ts) ----------------------------------------------------------------

/**
 * A reward row's state: the bot's estimate only, or paid by the venue (the venue's figure counts; in
 * a fleet, this member's part of it, 0 when another member booked the payout: `settleReward`).
 */
export type RewardStatus = 'estimated' | 'paid';

/** One market's rewards of one UTC date in one ledger epoch. Money in micro-collateral. */
export interface StoredReward {
  /** The ledger epoch (null: a store without epochs). */
  readonly epoch: number | null;
  readonly market: ConditionId;
  /** UTC date, `YYYY-MM-DD` (an epoch shorter than a day is reported under the date of its end). */
  readonly date: string;
  /** The bot's estimate of its quotes' share of the date's pool so far (floored to the micro). */
  readonly estimated: Micro;
  /** Collateral the venue paid for the date so far (the sum of its credits). */
  readonly paid: Micro;
  readonly status: RewardStatus;
  /** The bot's samples of the date, and those in which its quotes scored. */
  readonly samples: number;
  readonly scoredSamples: number;
  readonly updatedAt: number;
  /** When the paid figure last changed (null: never paid). */
  readonly paidAt: number | null;
}

/** The bot's running estimate of a market's rewards of a date (absolute values, not increments). */
export interface RewardEstimateInput {
  readonly market: ConditionId;
  readonly date: string;
  /** Micro, a non-negative integer. */
  readonly estimated: number;
  readonly samples: number;
  readonly scoredSamples: number;
  /** Unix ms (default: the store's clock). */
  readonly at?: number;
}

/** What the venue paid for a market and date so far (absolute: its figure for the date). */
export interface RewardPaymentInput {
  readonly market: ConditionId;
  readonly date: string;
  /** Micro, a non-negative integer. */
  readonly paid: number;
  /** Where the figure came from: the earnings endpoint (default) or the account's REWARD activity. */
  readonly source?: RewardCreditSource;
  /** Unix ms (default: the store's clock). */
  readonly at?: number;
}

export type RewardCreditSource = 'earnings' | 'activity';

/**
 * One change of the collateral the venue paid as a reward (append-only): the reconciliation of a
 * payout's collateral increase, always with cause 'reward'.
 */
export interface StoredRewardCredit {
  readonly seq: number;
  readonly epoch: number | null;
  readonly at: number;
  readonly market: ConditionId;
  readonly date: string;
  /** Micro, signed (a venue that lowers its figure: negative). */
  readonly amount: number;
  readonly cause: 'reward';
  readonly source: RewardCreditSource;
}

/** What `recordRewardPaid` did. */
export interface RewardPaymentChange {
  /** The row after the change (undefined: nothing paid and no row). */
  readonly reward: StoredReward | undefined;
  /** The credit recorded (undefined: the figure did not change). */
  readonly credit: StoredRewardCredit | undefined;
}

/**
 * Rewards of an epoch, micro: `paid` (credited by the venue), `estimated` (the bot's estimate of the
 * dates not paid yet) and their sum. Per market likewise.
 */
export interface RewardTotals {
  readonly paid: Micro;
  readonly estimated: Micro;
  readonly total: Micro;
  readonly byMarket: readonly {
    readonly market: ConditionId;
    readonly paid: Micro;
    readonly estimated: Micro;
    readonly total: Micro;
  }[];
}

/** One audit record. */
export interface AuditEntry {
  readonly seq: number;
  readonly time: number;
  readonly kind: string;
  readonly data: unknown;
}

/** What a summary covers: the current session (this daemon run) or the current epoch. */
export type SummaryScope = 'session' | 'epoch';

/**
 * Totals for the end-of-run summary, of one scope. Sizes in micro-shares, money in
 * micro-collateral. Fills are counted by source: `fills`, `volume`, `notional`, `fees` are the
 * bot's own; `external*` those of orders the bot did not place.
 *
 * Scope 'epoch': fills tagged with the current epoch, orders created since it started (with no
 * epoch at all: the whole store). Scope 'session': fills matched and orders created between the
 * current session's start and end (or now).
 */
export interface StoreSummary {
  readonly scope: SummaryScope;
  /** The epoch summarised (scope 'epoch') or current (scope 'session'); null: none. */
  readonly epoch: number | null;
  /** The session summarised (scope 'session'); null otherwise. */
  readonly session: number | null;
  /** Start of the scope, unix ms; null: the whole store. */
  readonly since: number | null;
  /** Orders recorded (signed and about to be sent, or adopted). */
  readonly ordersRecorded: number;
  /** Orders the venue accepted (live, partially filled, filled or cancelled now). */
  readonly ordersPlaced: number;
  readonly ordersCancelled: number;
  readonly ordersRejected: number;
  /** Orders that may still rest (pending, live, partially filled, unknown). */
  readonly ordersOpen: number;
  /** The bot's non-void fills. */
  readonly fills: number;
  /** The bot's FAILED fills (void). */
  readonly voidFills: number;
  /** Shares traded (the bot's non-void fills), micro-shares. */
  readonly volume: number;
  /** Collateral traded (the bot's non-void fills), micro-collateral, rounded down. */
  readonly notional: number;
  readonly fees: number;
  /** Non-void fills of orders the bot did not place (source 'external'), and their figures. */
  readonly externalFills: number;
  readonly externalVolume: number;
  readonly externalNotional: number;
  readonly externalFees: number;
  /** Adjustments and operations recorded in the scope. */
  readonly adjustments: number;
  readonly operations: number;
  /**
   * Liquidity rewards, micro: paid (epoch: every credit of the epoch; session: the credits recorded
   * during it) and estimated (the bot's estimate of dates not paid yet; session: of those rows it
   * updated).
   */
  readonly rewardsPaid: number;
  readonly rewardsEstimated: number;
  /**
   * Realized PnL before fees, micro-collateral, rounded toward −∞; only when asked (`summary({ realized:
   * true })`: it replays the epoch's ledger). Scope 'session': what the session MADE, the realized PnL of
   * the bot's own fills matched during it, each on the position the ledger held before it (not the
   * epoch's realized PnL moved by external fills, such as those the start's reconciliation backfills,
   * adjustments or operations). Scope 'epoch': the epoch's realized PnL, every entry of its ledger.
   */
  readonly realized?: number;
}

/**
 * SQLite `synchronous` level of a kind of write. 'off' (no fsync at all, not even at checkpoints)
 * is for backtests' throw-away stores only: a power loss may corrupt the file.
 */
export type Durability = 'normal' | 'full' | 'off';

/** Options of `openStore`. */
export interface StoreOptions {
  /** Time source for created_at / updated_at / audit time (default: the wall clock). */
  clock?: Clock;
  /** Durability of fill commits (default 'full': fsynced) and other commits (default 'normal'). */
  durability?: { fills?: Durability; other?: Durability };
  /**
   * Who checkpoints the WAL into the database file. 'worker' (default for files): a second
   * connection on a worker thread, every `checkpointMs` (default 1000), so the writer's commits
   * never pay for a checkpoint (SQLite's automatic one runs INSIDE a commit: milliseconds at p99.9
   * on the order path). 'auto': SQLite's own, in the writer. ':memory:' needs none.
   */
  checkpoint?: 'worker' | 'auto';
  checkpointMs?: number;
  /**
   * 'each' (default): every method is its own transaction, committed when it returns (the daemon:
   * a fill is on disk before anything reports it). 'batched': for BACKTESTS only: one transaction
   * stays open and `flush()` (or `close()`) commits everything written since the last flush; each
   * method still runs atomically (a savepoint inside it) and reads see the uncommitted rows, so the
   * rows, their order and exactly-once semantics are the same; only the commit points move. A crash
   * loses what was written since the last flush, which a backtest (re-runnable, deterministic) can
   * afford and the live daemon cannot: `mmkit run` never passes this option.
   * A batched store also DEFERS order writes: every change of one order between two write points
   * is merged in memory into one row write (one INSERT with the order's final state, or one UPDATE),
   * written before any read of the orders, at `flush()` / `close()`, and when `pendingOrders`
   * orders are waiting (memory stays bounded whatever the flush interval). Return values, errors
   * and rows (all columns, rowid order) are the same as without (see `openStore`). Its audit
   * entries are deferred too (./deferred-audit.ts): inserted together, in order, before a read of
   * the audit log, at a flush or a close.
   */
  commit?: 'each' | 'batched';
  /** A 'batched' store's bound of deferred orders (default BATCHED_PENDING_ORDERS; tests use small ones). */
  pendingOrders?: number;
  /**
   * A throw-away store that only this connection uses, for BACKTESTS only (their store is re-made
   * by running them again): the rollback journal in memory instead of the WAL (each page is written
   * once, to the database file, at a commit: no WAL copy, no checkpoint), an exclusive lock held
   * until close (no lock calls per transaction; no other connection can read the file meanwhile),
   * temporary tables in memory and a page cache large enough for a long run. Rows, rowids and
   * every method's result are the same; a crash or power loss may leave the file corrupt. Requires
   * `commit: 'batched'` and durability 'off' for both kinds of write; `mmkit run` never passes it.
   * Being the orders table's only writer, a scratch store also knows, from a filter of the ids it
   * wrote, which order ids are not in the table without looking them up; likewise for fills, so it
   * keeps its new fills and inserts them together before anything reads the fills table
   * (./deferred-fills.ts: the same returns and rows).
   */
  scratch?: boolean;
}

/** The store. Every method runs synchronously and has committed when it returns. */
export interface Store {
  readonly file: string;
  /**
   * Record a signed order BEFORE it is sent (its id is known), status 'pending'. Recording the same
   * id again (a resend of the same prepared order) changes nothing. Returns true when new.
   * @throws ValidationError when the row is not written: one the table refuses (a NOT NULL, CHECK
   *   or type constraint), or its id recorded for a different order (market, token, side, price,
   *   size or type): the order must not be sent (src/execution/order-writes.ts)
   * @throws RangeError on a price or size not a non-negative safe integer
   * @throws Error when the store is closed.
   */
  recordOrder(prepared: PreparedOrder): boolean;
  /**
   * Several prepared orders in one transaction (a batch about to be sent). Returns how many were
   * new. Throws as recordOrder; then none of them is recorded.
   */
  recordOrders(prepared: readonly PreparedOrder[]): number;
  /** Record an order this store never saw (found at the venue); an existing row is left alone. */
  adoptOrder(o: AdoptedOrder): boolean;
  /** Update an order's status / matched size / reject code. Returns false for an unknown id. */
  updateOrder(id: OrderId, patch: OrderPatch): boolean;
  /**
   * Several updates (and adoptions of orders never recorded) in ONE transaction: the answers of a
   * whole batch cost one commit. Returns how many rows changed.
   */
  updateOrders(
    updates: readonly { readonly id: OrderId; readonly patch: OrderPatch; readonly adopt?: AdoptedOrder }[],
  ): number;
  order(id: OrderId): StoredOrder | undefined;
  /** Orders that may still rest at the venue: pending, live, partially filled or unknown. */
  openOrders(market?: ConditionId): StoredOrder[];
  /** Record a fill; true only the first time its (trade id, order id) is seen. */
  recordFill(fill: FillRecord): boolean;
  /** Record a fill and say what changed (see FillChange). */
  applyFill(fill: FillRecord): FillChange;
  /** Fills (void ones included, status FAILED) with match time ≥ sinceMs, in time order. */
  fills(sinceMs?: number): StoredFill[];
  /** Whether the fill (trade id, order id) is recorded (void ones included). */
  hasFill(tradeId: string, orderId: string): boolean;
  /**
   * Whether the fill (trade id, order id) is recorded in the CURRENT ledger epoch (with no epoch:
   * whether it is recorded): a fill an earlier epoch holds is not in this epoch's positions.
   */
  hasFillInEpoch(tradeId: string, orderId: string): boolean;
  /**
   * Match time (unix ms) of the newest stored fill of the CURRENT epoch (with no epoch: of the whole
   * store), or undefined when there is none (restart backfill: a fresh epoch, on another venue, world
   * or account, backfills as a first run does, not from another venue's last fill).
   */
  lastFillTime(): number | undefined;
  /**
   * Match time (unix ms) of the oldest stored fill of the CURRENT epoch (with no epoch: of the whole
   * store) whose trade status is not final (MATCHED, MINED or RETRYING: not CONFIRMED, not FAILED)
   * matched at or after `sinceMs` (default 0), or undefined when there is none (an earlier epoch's
   * venue is not the one asked). The restart backfill reaches back to it: the venue filters trades by match
   * time, so a status that changed while the daemon was down is only seen again that way. Cost: a
   * walk of the `fills_time` (`fills_epoch`) index from `sinceMs` up to the first unsettled fill (pass a bound so
   * that a long settled history is not read).
   */
  oldestUnsettledFillTime(sinceMs?: number): number | undefined;
  /**
   * Positions per token of the CURRENT epoch: its non-void fills (bot and external), adjustments
   * and operation legs, in time order, by the average-cost math of ./positions.ts (adjustments and
   * legs carry no fee). With no epoch (a backtest's store): every fill.
   */
  positions(): Position[];
  /** The money of `positions()` (same order) as the venue's 6-decimal strings, exact from the pip-micro amounts. */
  positionDecimals(): PositionDecimals[];
  /** Realized + unrealized PnL of the current epoch at the marks (pips per token). */
  pnl(marks: ReadonlyMap<TokenId, number>): PnlReport;
  /** The current epoch's position-moving entries, in the order `positions()` applies them. */
  ledgerEntries(): LedgerEntry[];

  /**
   * Continue the latest epoch when it has the same venue, world and address (address compared
   * lower-case); else start a new one at `now` (default: the clock), current from now on: positions
   * and PnL start at zero; the old epoch's rows stay.
   * @throws ValidationError on an empty venue, a world that is not a string or null, or a non-string address.
   */
  openEpoch(id: EpochIdentity, now?: number): EpochOpening;
  /** The current (latest) epoch; undefined when none was ever opened (and the store had no legacy rows). */
  currentEpoch(): LedgerEpoch | undefined;
  /** Every epoch, oldest first. */
  epochs(): LedgerEpoch[];
  /**
   * Record an adjustment in the current epoch (committed like a fill).
   * @throws ValidationError on a zero or non-integer size, a price outside 0..10,000, an unknown cause or price source.
   */
  recordAdjustment(a: AdjustmentInput): StoredAdjustment;
  /** Adjustments of an epoch (default: the current one; with none: those of no epoch) at or after `since` (unix ms), in order. */
  adjustments(opts?: { epoch?: number; since?: number }): StoredAdjustment[];
  /**
   * Record an operation in the current epoch; its legs move positions.
   * @throws ValidationError on an unknown kind, no legs, a bad amount / collateral / leg, or a leg of the wrong sign.
   */
  recordOperation(op: LedgerOperation): StoredOperation;
  /** Operations of an epoch (default: the current one), in order. */
  operations(opts?: { epoch?: number }): StoredOperation[];
  /** Begin a session (one daemon run) at `now` (default: the clock) in the current epoch; returns its id. */
  beginSession(now?: number): number;
  /** End a session at `now` (default: the clock). Returns false for an unknown or already ended id. */
  endSession(id: number, now?: number): boolean;
  /** The session this store began last (ended or not), else the newest session of the file; undefined: none. */
  currentSession(): LedgerSession | undefined;
  /**
   * Set the bot's estimate of a market's rewards of a UTC date in the current epoch (absolute
   * values; the row is created on first use). A paid row keeps its status.
   * @throws ValidationError on a bad market, date (`YYYY-MM-DD`), amount or counts (nothing written).
   */
  recordRewardEstimate(r: RewardEstimateInput): StoredReward;
  /**
   * Record what the venue paid for a market and date so far (its absolute figure): a change is one
   * credit of collateral with cause 'reward' (append-only, reward_credits) and the row's `paid`; a
   * row with something paid is 'paid'. The same figure again changes nothing. Committed like a fill.
   * @throws ValidationError on a bad market, date or amount (nothing written).
   */
  recordRewardPaid(r: RewardPaymentInput): RewardPaymentChange;
  /**
   * A fleet member (review-1 F9): the fleet booked the venue's payout of this market and date, maybe
   * all of it by another member. An 'estimated' row becomes 'paid' at what this store booked of it
   * (its `paid`, unchanged: no credit), so its estimate stops counting in the totals. Returns the
   * row settled; undefined when no row was estimated (none, or paid already): nothing written.
   * @throws ValidationError on a bad market or date.
   */
  settleReward(r: { market: ConditionId; date: string; at?: number }): StoredReward | undefined;
  /** A market's reward row of a date in the current epoch. */
  reward(market: string, date: string): StoredReward | undefined;
  /** Reward rows of an epoch (default: the current one), dates at or after `since` (`YYYY-MM-DD`), by date then market. */
  rewards(opts?: { epoch?: number; since?: string }): StoredReward[];
  /** Reward credits of an epoch (default: the current one) at or after `since` (unix ms), in order. */
  rewardCredits(opts?: { epoch?: number; since?: number }): StoredRewardCredit[];
  /** Reward totals of an epoch (default: the current one). */
  rewardTotals(opts?: { epoch?: number }): RewardTotals;
  /**
   * The current epoch's PnL at the open of the UTC day `date` (`YYYY-MM-DD`; risk.maxDailyLoss): the
   * first PnL given for the date is kept (`pnl`, µ, at the clock's now) and every later call answers it;
   * without `pnl`, only read (undefined: the day has not opened).
   * @throws ValidationError on a bad date or a PnL that is not a safe integer (nothing written).
   */
  dayOpen(date: string, pnl: number): number;
  dayOpen(date: string, pnl?: number): number | undefined;
  /** Append a decision to the audit log (kind: a short stable word; data: JSON-serialisable). */
  audit(kind: string, data: unknown): void;
  /** Read the audit log in order. */
  auditLog(opts?: { sinceSeq?: number; kind?: string; limit?: number }): AuditEntry[];
  /**
   * Totals of the current epoch (default) or session (see StoreSummary); with `realized`, also its
   * realized PnL (StoreSummary.realized).
   * @throws ValidationError on an unknown scope, or scope 'session' with no session.
   */
  summary(opts?: { scope?: SummaryScope; realized?: boolean }): StoreSummary;
  /** Commits what a 'batched' store wrote since the last flush (a no-op for 'each': already committed). */
  flush(): void;
  /**
   * Whether the store's path still names the file it opened (same device and inode): undefined when
   * it does (or the store is in memory); else what happened (deleted or moved away, or replaced by
   * another file). Writes then go to a file nobody will open again: the daemon stops (kernel's
   * store check). A stat of the path: cheap, but not for every write.
   */
  fileProblem(): string | undefined;
  /** Checkpoint the WAL and close (a 'batched' store commits first). Idempotent. */
  close(): void;
}
