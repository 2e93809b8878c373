/**
 * The text `mmkit run` prints on stdout at exit: the session's figures (its orders, fills, PnL and
 * trading figures), the ledger epoch's, and the round trips to the venue. The JSON `summary` log
 * line carries the same RunSummary (src/cli/run-summary.ts).
 */
import { roundTripsText } from '../ops/round-trips.ts';
import { sessionTradeLines } from '../ops/session-trade-stats.ts';
import {
  describeCounts,
  describeRejections,
  describeStrategyErrors,
  strategyFailureLine,
  type RunSummary,
} from './run-summary.ts';

/** The session's lines of markouts, fill ratio and max drawdown. */
function tradingLines(l: { markouts: string; fillRatio: string; maxDrawdown: string }): string[] {
  return [
    `  markouts          ${l.markouts}`,
    `  fill ratio        ${l.fillRatio}`,
    `  max drawdown      ${l.maxDrawdown}`,
  ];
}

/**
 * The exit summary's text, `banner` first (a shadow run's). The session's header gives its start
 * and stop in the form `mmkit backtest --from/--to` take (trial 12 F5: the README says to backtest a
 * run's window, and the stop was nowhere); its block gives its fees beside its realized PnL, and
 * says where the PnL with positions held, merges and rewards is: the epoch's `total PnL` (F9).
 */
export function exitSummaryText(summary: RunSummary, banner?: string): string {
  const s = summary.session;
  const e = summary.epoch;
  const failed = strategyFailureLine(summary);
  return `${[
    ...(banner !== undefined ? [banner] : []),
    `mmkit run stopped (${summary.reason})`,
    `this session (since ${s.since} until ${s.until}):`,
    `  orders placed     ${summary.ordersPlaced}`,
    `  orders cancelled  ${summary.ordersCancelled}`,
    `  orders rejected   ${describeRejections(summary.ordersRejected, summary.rejectionsNotCounted)}`,
    `  risk refusals     ${describeCounts(summary.riskRefusals)}${Object.keys(summary.riskTrims).length > 0 ? `; trims ${describeCounts(summary.riskTrims)}` : ''}`,
    `  strategy errors   ${describeStrategyErrors(summary.strategyErrors, summary.firstStrategyError)}`,
    `  fills             ${summary.fills}${s.externalFills > 0 ? ` (and ${s.externalFills} of orders the bot did not place)` : ''}`,
    `  volume            ${summary.volume} shares (${summary.notional} USDC)`,
    `  realized PnL      ${s.realizedPnl} USDC (of its fills, before fees)`,
    `  fees              ${s.fees} USDC`,
    ...(summary.trading !== undefined ? tradingLines(sessionTradeLines(summary.trading)) : []),
    `  (with positions held, merges and rewards: the total PnL of the ledger epoch below)`,
    `ledger epoch ${e.id} (${e.venue}${e.world !== null ? `, world ${e.world}` : ''}, since ${e.since}):`,
    `  fills             ${e.fills}${e.externalFills > 0 ? ` (and ${e.externalFills} external)` : ''}; adjustments ${e.adjustments}; split/merge/redeem ${e.operations}`,
    `  realized PnL      ${e.realizedPnl} USDC`,
    `  unrealized PnL    ${e.unrealizedPnl} USDC${e.unmarked > 0 ? ` (${e.unmarked} position(s) without a mark not counted)` : ''}`,
    `  fees              ${e.fees} USDC`,
    `  rewards           ${e.rewards.total} USDC (paid ${e.rewards.paid}, estimated ${e.rewards.estimated}; this session paid ${s.rewards.paid})`,
    `  total PnL         ${e.totalPnl} USDC (trading ${e.tradingPnl} - fees ${e.fees} + rewards ${e.rewards.total})`,
    ...(summary.dayPnl !== undefined
      ? [
          `  today             ${summary.dayPnl.pnl} USDC (UTC ${summary.dayPnl.date}: the daily loss limit's PnL, net of fees)`,
        ]
      : []),
    `  positions held    ${summary.positionsAtExit.length === 0 ? 'none' : summary.positionsAtExit.map((p) => `${p.size} ${summary.tokenLabels?.[p.tokenId] ?? `of ${p.tokenId}`} @ ${p.avgPrice}${p.mark !== null ? ` (mark ${p.mark})` : ''}`).join('; ')}`,
    `  open orders left  ${summary.openOrdersAtExit ?? 'unknown (the venue could not be checked: see the log)'}`,
    ...(summary.orderRoundTrips !== undefined
      ? [
          `round trips to the venue (a backtest's --latency-ms: about half the median):`,
          `  ${roundTripsText(summary.orderRoundTrips)}`,
        ]
      : []),
    ...(failed !== undefined ? [failed] : []),
  ].join('\n')}\n`;
}
