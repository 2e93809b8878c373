/**
 * The status line of `mmkit run`, every `bot.statusIntervalMs`: open orders, fills, positions, PnL
 * (and the reward total when a market is rewarded). The same tick feeds the kill switch its PnL: the
 * loss limit's marks are the books' mids, and for a position whose book has no mid (one side gone: a
 * collapsing market) a conservative mark (src/risk/marks.ts), so the loss limit sees every position
 * held on a market the run follows. Kept apart from the wiring (src/cli/run.ts) as its own concept.
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

/**
 * Starts the status line's timer (unref'd: it holds no exit); returns it (cleared by the shutdown).
 * @param o.log the root logger (the terminal view's fields), `o.dlog` the daemon's, which logs the line
 * @param o.fills the daemon's fill count now
 * @param everyMs the period (bot.statusIntervalMs)
 */
export function startStatusLine(
  o: {
    readonly log: Logger;
    readonly dlog: Logger;
    readonly trader: Pick<Trader, 'engine' | 'tracker' | 'kill' | 'rewards'>;
    readonly store: Pick<Store, 'pnl' | 'positions' | 'rewardTotals'>;
    readonly markets: readonly MarketInfo[];
    readonly outcomes: ReadonlyMap<string, string>;
    readonly fills: () => number;
  },
  everyMs: number,
): ReturnType<typeof setInterval> {
  const { log, dlog, trader, store, markets, outcomes } = o;
  const { engine, tracker, kill } = trader;
  const lastMid = new Map<TokenId, number>();
  const status = setInterval(() => {
    const marks = new Map<TokenId, number>();
    for (const m of markets)
      for (const t of m.tokens) {
        const b = engine.state.book(t.tokenId);
        if (b?.mid != null) {
          marks.set(t.tokenId, Math.round(b.mid));
          lastMid.set(t.tokenId, Math.round(b.mid));
        }
      }
    const pnl = store.pnl(marks);
    // the loss limit, net of fees, marks every position held on a market it follows, also where the
    // book has no mid (one side gone: a collapsing market), conservatively (src/risk/marks.ts)
    const riskMarks = new Map(marks);
    for (const p of store.positions()) {
      if (p.size === 0 || riskMarks.has(p.tokenId)) continue;
      const b = engine.state.book(p.tokenId);
      if (b === undefined || b === null) continue; // not a market of this run
      const mk = riskMark(p.size, b, lastMid.get(p.tokenId));
      if (mk !== undefined) riskMarks.set(p.tokenId, mk);
    }
    const risk = riskMarks.size === marks.size ? pnl : store.pnl(riskMarks);
    kill.recordPnl(risk.realized - risk.fees, risk.unrealized);
    dlog.info(
      {
        open: tracker.liveOrders().length,
        fills: o.fills(),
        positions: statusPositions(store.positions(), outcomes),
        realized: formatAmount(pnl.realized),
        unrealized: formatAmount(pnl.unrealized),
        ...(trader.rewards.active ? { rewards: formatAmount(store.rewardTotals().total) } : {}),
        // the terminal view's one status line (src/ops/terminal): the JSON line stays as it was
        ...prettyOnly(log, { markets: markets.length, fees: formatAmount(pnl.fees) }),
      },
      'status',
    );
  }, everyMs);
  status.unref();
  return status;
}
