/**
 * The daemon's status snapshot (`/api/status`, `mmkit status`): its shape, the daemon's state it is
 * built from (positions, book tops, markets), and the pure builders of its sections. The monitor
 * (src/ops/status.ts, DaemonMonitor) takes in the events, samples the daemon and assembles it.
 */
import type { LiveOrderView } from '../core/intents.ts';
import { formatAmount, formatPrice } from '../core/units.ts';
import type { HealthReport, Lifecycle, StreamHealthInput } from './health.ts';
import type { FleetStatusSection } from './status-fleet.ts';
import type { RoundTripStatus } from './round-trips.ts';
import type { SessionTradeStatus } from './session-trade-stats.ts';
import { marketRewardStatus, type MarketRewardStatus, type RewardsStatus, type RewardsView } from './status-rewards.ts';

/** A market as the monitor knows it (MarketInfo of the Venue port fits). */
export interface MonitoredMarket {
  readonly market: string;
  readonly question: string;
  readonly tokens: ReadonlyArray<{ readonly tokenId: string; readonly outcome: string }>;
}

/** A token's book top as the daemon sees it. */
export interface BookTop {
  readonly bestBid: number | null;
  readonly bestAsk: number | null;
  readonly stale: boolean;
}

/** A position as the store derives it (Position of src/store/positions.ts fits). */
export interface PositionLike {
  readonly market: string;
  readonly tokenId: string;
  readonly size: number;
  readonly avgPrice: number;
  /** The average price with the venue's 6 decimals, exact from the store's integers (PositionDecimals); absent: `avgPrice`'s pips. */
  readonly avgPriceDecimal?: string;
  readonly realized: number;
  readonly fees: number;
  /** Shares bought and sold (micro) and the number of fills, when known. */
  readonly bought?: number;
  readonly sold?: number;
  readonly fills?: number;
}

/** A position's average price as shown: the venue's 6 decimals when known (as `mmkit positions`), else its pips. */
export function avgPriceText(p: Pick<PositionLike, 'avgPrice' | 'avgPriceDecimal'>): string {
  return p.avgPriceDecimal ?? formatPrice(p.avgPrice);
}

/** The rejections not counted by the kill switch, from the executor's counters (`Executor.accountStats()`). */
export function rejectionsNotCountedOf(a: {
  readonly sellBalanceRaces: number;
  readonly postOnlyRejections: number;
  readonly fokNotFilled?: number;
}): RejectionsNotCountedStatus {
  return {
    sellBalanceRaces: a.sellBalanceRaces,
    postOnlyCrossings: a.postOnlyRejections,
    fokNotFilled: a.fokNotFilled ?? 0,
  };
}

/**
 * Rejections the kill switch does not count: asks refused for lack of tokens while selling into a
 * fill not seen yet (up to SELL_RACE_TOLERANCE in a row per token), post-only quotes refused as crossing.
 */
export interface RejectionsNotCountedStatus {
  readonly sellBalanceRaces: number;
  readonly postOnlyCrossings: number;
  /** FOK orders the book could not fill whole (absent from an older daemon's status). */
  readonly fokNotFilled?: number;
}

/**
 * What the risk gate refused (quotes and immediate orders: never sent) and cut (quotes approved
 * with a smaller size), by code, since the daemon started and over the last `windowSec` seconds.
 */
export interface GateStatus {
  readonly windowSec: number;
  readonly refused: Readonly<Record<string, number>>;
  readonly refusedRecent: Readonly<Record<string, number>>;
  readonly trimmed: Readonly<Record<string, number>>;
  readonly trimmedRecent: Readonly<Record<string, number>>;
}

/**
 * The errors the engine counted against the strategy (a handler that threw or returned an invalid output: its output dropped),
 * since the daemon started and over the gate's window, with the first one (message and `file:line:col`).
 */
export interface StrategyErrorsStatus {
  readonly count: number;
  readonly recent: number;
  readonly first: { readonly message: string; readonly at: string | null } | null;
}

/** One point of the PnL series: decimal strings, `t` unix ms. */
export interface PnlPoint {
  readonly t: number;
  readonly realized: string;
  readonly unrealized: string;
  /** Liquidity rewards, paid and estimated. */
  readonly rewards: string;
  readonly total: string;
}

/** A fill as the status shows it. */
export interface FillStatus {
  readonly time: string;
  readonly market: string;
  readonly question: string;
  readonly outcome: string;
  readonly side: string;
  readonly role: string;
  readonly price: string;
  readonly size: string;
  readonly status: string;
}

/** A quote (own resting order) as the status shows it. */
export interface QuoteStatus {
  readonly id: string;
  readonly tokenId: string;
  readonly outcome: string;
  readonly side: string;
  readonly price: string;
  readonly size: string;
  readonly matched: string;
}

export interface TokenStatus {
  readonly tokenId: string;
  readonly outcome: string;
  readonly bestBid: string | null;
  readonly bestAsk: string | null;
  readonly mid: string | null;
  readonly stale: boolean;
  readonly position: string;
  readonly avgPrice: string | null;
}

export interface MarketStatus {
  readonly market: string;
  readonly question: string;
  readonly quotable: boolean;
  readonly why: string | null;
  /** A fleet member: the other member that holds (quotes) this market; then `why` is `held by <it>`. */
  readonly heldBy?: string;
  readonly tokens: readonly TokenStatus[];
  readonly quotes: readonly QuoteStatus[];
  /** Null: the market has no reward config. */
  readonly rewards: MarketRewardStatus | null;
}

/** What /api/status answers (every money figure a decimal string). */
/** The ledger's figures on the status page, labelled by scope. */
export interface LedgerStatus {
  readonly session: {
    readonly since: string;
    readonly fills: number;
    readonly externalFills: number;
    readonly ordersPlaced: number;
  };
  readonly epoch: {
    readonly id: number;
    readonly venue: string;
    readonly world: string | null;
    readonly since: string;
    readonly fills: number;
    readonly externalFills: number;
    readonly adjustments: number;
    readonly operations: number;
  } | null;
}

export interface StatusSnapshot {
  readonly schema: 1;
  readonly version: string;
  /** 'shadow': simulated fills on live books, no order sent to the venue (`mmkit run --shadow`); absent from older daemons: live. */
  readonly mode?: 'live' | 'shadow';
  readonly pid: number;
  readonly now: number;
  readonly time: string;
  readonly startedAt: string;
  readonly uptimeSec: number;
  readonly lifecycle: Lifecycle;
  readonly strategy: { readonly name: string; readonly params: Record<string, unknown> };
  readonly account: { readonly address: string };
  /**
   * The venue: its base URL and whether it is a paper exchange (src/cli/venue-kind.ts; absent when the
   * daemon does not say, e.g. a shadow run, which sends nothing anywhere). `mode` says whether orders
   * are sent (`live`) or simulated (`shadow`); this says where a live run's orders go.
   */
  readonly venue: { readonly url: string; readonly paper?: boolean };
  readonly health: HealthReport;
  readonly markets: readonly MarketStatus[];
  readonly inventory: {
    readonly collateral: { readonly available: string; readonly reserved: string };
    readonly positions: ReadonlyArray<{
      readonly market: string;
      readonly question: string;
      readonly tokenId: string;
      readonly outcome: string;
      readonly size: string;
      readonly avgPrice: string | null;
      readonly mark: string | null;
    }>;
  };
  /**
   * PnL apart and together: trading (realized + unrealized, before fees), fees, liquidity rewards
   * (paid by the venue + the estimate of what it has not paid yet); total = trading - fees + rewards.
   */
  readonly pnl: {
    readonly realized: string;
    readonly unrealized: string;
    readonly trading: string;
    readonly fees: string;
    readonly rewards: RewardsStatus;
    readonly total: string;
    readonly unmarked: number;
    /**
     * The UTC day's PnL as risk.maxDailyLoss judges it (the loss limit's marks, net of fees: now less
     * the day's open; null: the limit off, or the day not opened yet).
     */
    readonly day: { readonly date: string; readonly pnl: string } | null;
    readonly series: readonly PnlPoint[];
  };
  readonly orders: {
    readonly open: number;
    readonly placed: number;
    readonly cancelled: number;
    readonly rejected: number;
    /** Of `rejected`, those the kill switch does not count, by cause (absent from an older daemon). */
    readonly notCounted?: RejectionsNotCountedStatus;
    /**
     * Order and cancel requests' round trips to the venue (src/ops/round-trips.ts): a backtest's
     * `--latency-ms` is about half the median. Absent from an older daemon.
     */
    readonly roundTrips?: RoundTripStatus;
  };
  /**
   * The session's markouts (+1 s, +10 s, +60 s), fill ratio and max drawdown, measured as a backtest
   * measures them (src/ops/session-trade-stats.ts). Absent from an older daemon.
   */
  readonly trading?: SessionTradeStatus;
  readonly fills: {
    /** The bot's own fills of this session. */
    readonly count: number;
    readonly volume: string;
    readonly notional: string;
    readonly recent: readonly FillStatus[];
  };
  /** This session's and the epoch's ledger figures (null without a ledger). */
  readonly ledger: LedgerStatus | null;
  readonly killSwitch: { readonly tripped: boolean; readonly trigger: string | null; readonly message: string | null };
  readonly execution: { readonly paused: boolean; readonly pauseReasons: readonly string[] };
  /** The risk gate's refusals and trims by code (absent from an older daemon). */
  readonly gate?: GateStatus;
  /** The strategy's errors (absent from an older daemon). */
  readonly strategyErrors?: StrategyErrorsStatus;
  readonly streams: { readonly market: StreamHealthInput; readonly user: StreamHealthInput };
  /** A fleet member's view of its fleet (issue 21); absent for a lone daemon. */
  readonly fleet?: FleetStatusSection;
}

// ---- building the sections (pure: DaemonMonitor.sample reads the daemon and passes what it read) -----

/** What the market statuses read of the daemon (DaemonView of ./status.ts fits). */
export interface MarketsView {
  book(tokenId: string): BookTop | undefined;
  whyNotQuotable(market: string): string | undefined;
}

/** A token's market and outcome, by token id (the monitor's, from its context). */
export type TokenInfo = ReadonlyMap<string, { readonly market: MonitoredMarket; readonly outcome: string }>;

/** The snapshot's `markets`: per market, quotability, the tokens' book tops and positions, own quotes, rewards. `view` undefined: the daemon is starting. */
export function marketStatuses(o: {
  readonly markets: readonly MonitoredMarket[];
  readonly view: MarketsView | undefined;
  readonly live: readonly LiveOrderView[];
  readonly positions: readonly PositionLike[];
  readonly rewards: RewardsView;
  readonly fleet: FleetStatusSection | undefined;
  readonly tokenInfo: TokenInfo;
}): MarketStatus[] {
  const byMarket = new Map<string, LiveOrderView[]>();
  for (const lo of o.live) {
    const l = byMarket.get(lo.market);
    if (l === undefined) byMarket.set(lo.market, [lo]);
    else l.push(lo);
  }
  const posOf = new Map(o.positions.map((p) => [p.tokenId, p]));
  const rewardOf = marketRewardStatus(o.rewards);
  return o.markets.map((mk) => {
    // a fleet market another member holds is not this member's to quote, whatever its engine says
    const holder = o.fleet?.holders?.[mk.market];
    const heldBy = holder !== undefined && holder !== o.fleet?.member ? holder : undefined;
    const why = heldBy !== undefined ? `held by ${heldBy}` : o.view?.whyNotQuotable(mk.market);
    return {
      market: mk.market,
      question: mk.question,
      quotable: o.view !== undefined && why === undefined,
      why: o.view === undefined ? 'starting' : (why ?? null),
      ...(heldBy !== undefined ? { heldBy } : {}),
      tokens: mk.tokens.map((t) => {
        const b = o.view?.book(t.tokenId);
        const p = posOf.get(t.tokenId);
        const mid = b && b.bestBid !== null && b.bestAsk !== null ? Math.round((b.bestBid + b.bestAsk) / 2) : null;
        return {
          tokenId: t.tokenId,
          outcome: t.outcome,
          bestBid: b?.bestBid != null ? formatPrice(b.bestBid) : null,
          bestAsk: b?.bestAsk != null ? formatPrice(b.bestAsk) : null,
          mid: mid !== null ? formatPrice(mid) : null,
          stale: b?.stale ?? true,
          position: formatAmount(p?.size ?? 0),
          avgPrice: p !== undefined && p.size !== 0 ? avgPriceText(p) : null,
        };
      }),
      quotes: (byMarket.get(mk.market) ?? [])
        .slice()
        .sort((a, b) => (a.tokenId === b.tokenId ? b.price - a.price : a.tokenId < b.tokenId ? -1 : 1))
        .map((q) => ({
          id: q.id,
          tokenId: q.tokenId,
          outcome: o.tokenInfo.get(q.tokenId)?.outcome ?? '',
          side: q.side,
          price: formatPrice(q.price),
          size: formatAmount(q.originalSize),
          matched: formatAmount(q.sizeMatched),
        })),
      rewards: rewardOf(mk.market),
    };
  });
}

/** The snapshot's `inventory`: the collateral and the non-zero positions at their marks. */
export function inventoryStatus(
  collateral: { readonly available: number; readonly reserved: number },
  positions: readonly PositionLike[],
  marks: ReadonlyMap<string, number>,
  tokenInfo: TokenInfo,
): StatusSnapshot['inventory'] {
  return {
    collateral: { available: formatAmount(collateral.available), reserved: formatAmount(collateral.reserved) },
    positions: positions
      .filter((p) => p.size !== 0)
      .map((p) => {
        const info = tokenInfo.get(p.tokenId);
        const mark = marks.get(p.tokenId);
        return {
          market: p.market,
          question: info?.market.question ?? '',
          tokenId: p.tokenId,
          outcome: info?.outcome ?? '',
          size: formatAmount(p.size),
          avgPrice: avgPriceText(p),
          mark: mark !== undefined ? formatPrice(mark) : null,
        };
      }),
  };
}
