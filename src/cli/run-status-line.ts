/**
 * The status line of `mmkit run`, every `bot.statusIntervalMs`: open orders, fills, positions, PnL
 * (realized, unrealized, fees, their total; the reward total when a market is rewarded); and the
 * loss limits (bot.risk.maxLoss, maxDailyLoss), checked at start, every second and after every fill,
 * not at the status line's pace (trial 19 F1). The loss limit's marks are the books' mids, and for a
 * position whose book has no mid (one side gone: a collapsing market) a conservative mark
 * (src/risk/marks.ts), so it sees every position held on a market the run follows; a position on a
 * market it does not follow is marked at the venue's mark (trial 19 F4). Kept apart from the wiring
 * (src/cli/run.ts) as its own concept.
 */
import type { Logger } from 'pino';
import type { ConditionId, TokenId } from '../core/ids.ts';
import { formatAmount } from '../core/units.ts';
import type { MarketInfo } from '../core/venue.ts';
import type { Trader } from '../kernel/create-trader.ts';
import { prettyOnly } from '../ops/logger.ts';
import { utcDate } from '../risk/kill-switch.ts';
import { followedMarks, riskMark } from '../risk/marks.ts';
import type { Store } from '../store/store.ts';
import { statusPositions } from './run-summary.ts';

/** How often the loss limit is checked besides after every fill, ms (not the status line's period: trial 19 F1). */
export const LOSS_CHECK_MS = 1000;

/** What the status line and the loss limit read: the engine's books, the venue's marks, the store's PnL. */
interface PnlSources {
  readonly trader: Pick<Trader, 'engine' | 'tracker' | 'kill' | 'rewards' | 'venueMarks'>;
  readonly store: Pick<Store, 'pnl' | 'positions' | 'rewardTotals'>;
  readonly markets: readonly MarketInfo[];
}

/**
 * The run's PnL as the status line shows it (the books' mids) and as the loss limit judges it: also
 * a position whose book has no mid (one side gone: a collapsing market) is marked, conservatively
 * (src/risk/marks.ts), so the loss limit sees every position held on a market the run follows. A
 * position on a market the run does not follow is marked at the venue's mark (its current price, read
 * with the holdings at each position audit: Trader.venueMarks), in both, when the venue reports one.
 */
class RunPnl {
  readonly #lastMid = new Map<TokenId, number>();
  /**
   * The start has reconciled (set by `started()`, the trader's `beforeQuoting`: missed fills booked,
   * the start audit's adjustments and the venue's marks read): before it no reading opens a UTC day.
   */
  started = false;
  /** The UTC date the daily loss limit waits for a complete reading on, since when (unix ms), and whether it was said. */
  #pending: { date: string; since: number; warned: boolean } | undefined;
  constructor(private readonly o: PnlSources & LossLimitExtras) {}

  /**
   * The PnL at the books' mids (and the venue's marks off the followed markets), and the loss
   * limit's; `unmarked`: the positions held on a followed market that `risk` could not mark (a day's
   * open needs none).
   */
  now(): { shown: ReturnType<Store['pnl']>; risk: ReturnType<Store['pnl']>; unmarked: TokenId[] } {
    const { engine } = this.o.trader;
    const venueMarks = this.o.trader.venueMarks();
    const { marks, followed } = followedMarks(
      this.o.markets,
      (m) => engine.state.winner(m as ConditionId),
      (t) => {
        const b = engine.state.book(t);
        if (b?.mid == null) return undefined;
        const mid = Math.round(b.mid);
        this.#lastMid.set(t, mid);
        return mid;
      },
      venueMarks,
    );
    const positions = this.o.store.positions();
    for (const p of positions) {
      if (p.size === 0 || followed.has(p.tokenId)) continue;
      const vm = venueMarks.get(p.tokenId);
      if (vm !== undefined) marks.set(p.tokenId, vm);
    }
    const shown = this.o.store.pnl(marks);
    const riskMarks = new Map(marks);
    const unmarked: TokenId[] = [];
    for (const p of positions) {
      if (p.size === 0 || riskMarks.has(p.tokenId)) continue;
      const b = engine.state.book(p.tokenId);
      const mk =
        (b == null ? undefined : riskMark(p.size, b, this.#lastMid.get(p.tokenId))) ?? venueMarks.get(p.tokenId);
      if (mk !== undefined) riskMarks.set(p.tokenId, mk);
      // a followed market's position without a mark (its book not in yet, or empty)
      else if (followed.has(p.tokenId)) unmarked.push(p.tokenId);
    }
    return { shown, risk: riskMarks.size === marks.size ? shown : this.o.store.pnl(riskMarks), unmarked };
  }

  /** Feeds the kill switch the loss limit's PnL (net of fees); returns whether it is tripped. */
  checkLoss(): boolean {
    const { risk, unmarked } = this.now();
    const { kill } = this.o.trader;
    const complete = this.started && unmarked.length === 0;
    const tripped = kill.recordPnl(risk.realized - risk.fees, risk.unrealized, risk.fees, complete);
    if (this.started && !tripped && kill.maxDailyLoss > 0) this.#dayPending(kill.dailyPnl === undefined, unmarked);
    return tripped;
  }

  /**
   * The daily loss limit not in force (the UTC day not opened: a followed position without a mark):
   * said once a day, at warn, when it lasts DAY_PENDING_WARN_MS.
   */
  #dayPending(pending: boolean, unmarked: readonly TokenId[]): void {
    if (!pending) {
      this.#pending = undefined;
      return;
    }
    const now = (this.o.now ?? Date.now)();
    const date = utcDate(now);
    if (this.#pending?.date !== date) this.#pending = { date, since: now, warned: false };
    if (this.#pending.warned || now - this.#pending.since < DAY_PENDING_WARN_MS) return;
    this.#pending.warned = true;
    this.o.log?.warn(
      { date, unmarked: unmarked.slice(0, 10), count: unmarked.length },
      `the daily loss limit is not in force yet for UTC ${date}: ${unmarked.length} held position(s) of followed markets have no mark (the day opens at the first reading with every one marked)`,
    );
  }
}

/** How long the start waits for the books of the followed markets where a position is held, ms. */
export const START_MARKS_WAIT_MS = 5_000;

/** How long the UTC day may wait for a complete reading before the daemon says so, ms. */
export const DAY_PENDING_WARN_MS = 10_000;

/** What the loss limit takes besides the PnL sources: a logger for its warnings, the clock's now. */
interface LossLimitExtras {
  readonly log?: Pick<Logger, 'warn'>;
  readonly now?: () => number;
}

/**
 * The loss limits (bot.risk.maxLoss, maxDailyLoss) of `mmkit run`: checked once now, every
 * LOSS_CHECK_MS, and soon after every fill (`afterFill`, coalesced). `started()` once the start has
 * reconciled, before the strategy gets any event (the trader's `beforeQuoting`): it waits up to
 * `waitMs` for the books of the followed markets where a position is held, then checks, so a daemon
 * restarted past its limit trips before it trades; and only from then may a reading open the UTC day
 * (before it, missed fills, the start audit's adjustments and the venue's marks are not in yet: a day
 * opened then would count their PnL as the day's). Stopped by `stop()`.
 */
export function startLossLimit(
  o: PnlSources & LossLimitExtras,
  everyMs = LOSS_CHECK_MS,
): { check(): boolean; started(waitMs?: number): Promise<boolean>; afterFill(): void; stop(): void } {
  const pnl = new RunPnl(o);
  pnl.checkLoss();
  const timer = setInterval(() => pnl.checkLoss(), everyMs);
  timer.unref();
  let pending: ReturnType<typeof setImmediate> | undefined;
  return {
    check: () => pnl.checkLoss(),
    async started(waitMs = START_MARKS_WAIT_MS) {
      pnl.started = true;
      // the books of what is held come in with the streams (they run meanwhile): wait for them, bounded
      const until = Date.now() + waitMs;
      while (pnl.now().unmarked.length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      return pnl.checkLoss();
    },
    afterFill() {
      pending ??= setImmediate(() => {
        pending = undefined;
        pnl.checkLoss();
      });
    },
    stop() {
      clearInterval(timer);
      if (pending !== undefined) clearImmediate(pending);
      pending = undefined;
    },
  };
}

/**
 * Starts the status line's timer (unref'd: it holds no exit); returns it (cleared by the shutdown).
 * @param o.log the root logger (the terminal view's fields), `o.dlog` the daemon's, which logs the line
 * @param o.fills the daemon's fill count now
 * @param everyMs the period (bot.statusIntervalMs)
 */
export function startStatusLine(
  o: PnlSources & {
    readonly log: Logger;
    readonly dlog: Logger;
    readonly outcomes: ReadonlyMap<string, string>;
    readonly fills: () => number;
    /** The clock's now (the UTC day of the `day` figure; default Date.now). */
    readonly now?: () => number;
  },
  everyMs: number,
): ReturnType<typeof setInterval> {
  const { log, dlog, trader, store, markets, outcomes } = o;
  const { tracker } = trader;
  const pnl = new RunPnl(o);
  const status = setInterval(() => {
    // (the loss limit is checked on its own cadence: startLossLimit)
    const { shown, risk } = pnl.now();
    // the UTC day's PnL the daily loss limit judges (bot.risk.maxDailyLoss on), from this same reading:
    // the loss limit's marks net of fees, less the day's open
    const open = trader.kill.dailyPnl;
    const day =
      open !== undefined && open.date === utcDate((o.now ?? Date.now)())
        ? Math.round(risk.realized - risk.fees + risk.unrealized - open.open)
        : undefined;
    dlog.info(
      {
        open: tracker.liveOrders().length,
        fills: o.fills(),
        positions: statusPositions(store.positions(), outcomes),
        realized: formatAmount(shown.realized),
        unrealized: formatAmount(shown.unrealized),
        fees: formatAmount(shown.fees),
        total: formatAmount(shown.realized + shown.unrealized - shown.fees),
        // the UTC day's PnL the daily loss limit judges (risk.maxDailyLoss on)
        ...(day !== undefined ? { day: formatAmount(day) } : {}),
        ...(trader.rewards.active ? { rewards: formatAmount(store.rewardTotals().total) } : {}),
        // the terminal view's one status line (src/ops/terminal): the JSON line stays as it was
        ...prettyOnly(log, { markets: markets.length }),
      },
      'status',
    );
  }, everyMs);
  status.unref();
  return status;
}
