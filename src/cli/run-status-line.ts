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
import type { TokenId } from '../core/ids.ts';
import { formatAmount } from '../core/units.ts';
import type { MarketInfo } from '../core/venue.ts';
import type { Trader } from '../kernel/create-trader.ts';
import { prettyOnly } from '../ops/logger.ts';
import { riskMark } from '../risk/marks.ts';
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
  constructor(private readonly o: PnlSources) {}

  /**
   * The PnL at the books' mids (and the venue's marks off the followed markets), and the loss
   * limit's; `complete`: every position held on a followed market is marked in `risk` (a day's open
   * needs it).
   */
  now(): { shown: ReturnType<Store['pnl']>; risk: ReturnType<Store['pnl']>; complete: boolean } {
    const { engine } = this.o.trader;
    const venueMarks = this.o.trader.venueMarks();
    const followed = new Set<TokenId>();
    const marks = new Map<TokenId, number>();
    for (const m of this.o.markets)
      for (const t of m.tokens) {
        followed.add(t.tokenId);
        const b = engine.state.book(t.tokenId);
        if (b?.mid != null) {
          marks.set(t.tokenId, Math.round(b.mid));
          this.#lastMid.set(t.tokenId, Math.round(b.mid));
        }
      }
    const positions = this.o.store.positions();
    for (const p of positions) {
      if (p.size === 0 || followed.has(p.tokenId)) continue;
      const vm = venueMarks.get(p.tokenId);
      if (vm !== undefined) marks.set(p.tokenId, vm);
    }
    const shown = this.o.store.pnl(marks);
    const riskMarks = new Map(marks);
    let complete = true;
    for (const p of positions) {
      if (p.size === 0 || riskMarks.has(p.tokenId)) continue;
      const b = engine.state.book(p.tokenId);
      const mk =
        (b == null ? undefined : riskMark(p.size, b, this.#lastMid.get(p.tokenId))) ?? venueMarks.get(p.tokenId);
      if (mk !== undefined) riskMarks.set(p.tokenId, mk);
      // a followed market's position without a mark (its book not in yet, or empty)
      else if (followed.has(p.tokenId)) complete = false;
    }
    return { shown, risk: riskMarks.size === marks.size ? shown : this.o.store.pnl(riskMarks), complete };
  }

  /** Feeds the kill switch the loss limit's PnL (net of fees); returns whether it is tripped. */
  checkLoss(): boolean {
    const { risk, complete } = this.now();
    return this.o.trader.kill.recordPnl(risk.realized - risk.fees, risk.unrealized, risk.fees, complete);
  }
}

/**
 * The loss limit (bot.risk.maxLoss) of `mmkit run`: checked once now (call it before the strategy
 * quotes: a daemon restarted past its limit trips before it trades), every LOSS_CHECK_MS, and soon
 * after every fill (`afterFill`, coalesced). Stopped by `stop()`.
 */
export function startLossLimit(
  o: PnlSources,
  everyMs = LOSS_CHECK_MS,
): { check(): boolean; afterFill(): void; stop(): void } {
  const pnl = new RunPnl(o);
  pnl.checkLoss();
  const timer = setInterval(() => pnl.checkLoss(), everyMs);
  timer.unref();
  let pending: ReturnType<typeof setImmediate> | undefined;
  return {
    check: () => pnl.checkLoss(),
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
  },
  everyMs: number,
): ReturnType<typeof setInterval> {
  const { log, dlog, trader, store, markets, outcomes } = o;
  const { tracker } = trader;
  const pnl = new RunPnl(o);
  const status = setInterval(() => {
    // (the loss limit is checked on its own cadence: startLossLimit)
    const { shown } = pnl.now();
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
        ...(trader.kill.dailyPnl !== undefined ? { day: formatAmount(Math.round(trader.kill.dailyPnl.pnl)) } : {}),
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
