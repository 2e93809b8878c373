/**
 * The terminal summary of a backtest (pure: a string from a result and its metrics). Money is shown
 * in collateral units (USDC) with 2 decimals, sizes in shares, prices in price units; virtual
 * times as ISO UTC. Wall-clock figures (how long the run took) are the caller's to add: they are
 * not part of a result.
 */
import { codeCountsText, firstErrorText } from '../core/code-counts.ts';
import { shortQuestion } from '../core/labels.ts';
import { AMOUNT_SCALE, formatAmount, PRICE_SCALE } from '../core/units.ts';
import { GLOBAL_LIMITS_SCHEMA, MARKET_LIMITS_SCHEMA } from '../risk/limits.ts';
import { resolveValues } from '../strategy/params.ts';
import { type Metrics, SHARPE_MIN_PERIODS } from './metrics.ts';
import type { BacktestResult, EffectiveRiskLimits } from './types.ts';

/** Micro-collateral as "12.34" (signed when `signed`). */
export function usd(micro: number, signed = false): string {
  const neg = micro < 0;
  const cents = Math.round(Math.abs(micro) / (AMOUNT_SCALE / 100));
  const s = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
  return neg && cents > 0 ? `-${s}` : signed ? `+${s}` : s;
}

/**
 * A reward amount: as `usd`, but a non-zero amount that would show as 0.00 is given to the micro
 * (`+0.004213`), as the daemon prints rewards: a short run's rewards are sub-cent (trial 16 F11).
 */
export function rewardUsd(micro: number, signed = false): string {
  if (micro === 0 || Math.abs(micro) >= AMOUNT_SCALE / 200) return usd(micro, signed);
  const s = formatAmount(micro); // exact, to the micro (trailing zeros dropped, as the daemon prints it)
  return signed && micro > 0 ? `+${s}` : s;
}

/** Micro-shares as shares with up to 2 decimals. */
export function shares(micro: number): string {
  const v = Math.round(micro / (AMOUNT_SCALE / 100)) / 100;
  return v.toFixed(2).replace(/\.?0+$/, '') || '0';
}

/** A duration in ms as "6h 0m", "4m 30s", "850 ms". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${sec}s`;
  return `${sec}s`;
}

/**
 * The budgets a report shows: the endpoints' own (burst and sustained), not the umbrella `general` and `clob`
 * windows every request also counts in (a bot never comes near those; trial 23 F9: the text and HTML agree).
 */
export function endpointBudgets(m: Metrics): Metrics['budgets'] {
  return m.budgets.filter((b) => b.rule !== 'general' && b.rule !== 'clob');
}

/**
 * The inventory limit the "time at limit" figure counts against, e.g. "limit 20 shares,
 * risk.maxPositionShares", then each market whose own risk limits bind at another size
 * ("; 10 shares for "Will the Fed…" (risk.markets)").
 */
export function inventoryLimitText(r: BacktestResult, m: Metrics): string {
  const own = Object.entries(m.inventory.markets ?? {}).map(([id, l]) => {
    const mk = r.markets.find((x) => x.market === id);
    return `; ${shares(l.limit)} shares for "${mk === undefined ? id : shortQuestion(mk.question, 40)}" (${l.source})`;
  });
  return `limit ${shares(m.inventory.limit)} shares, ${m.inventory.source}${own.join('')}`;
}

/**
 * `: N cancelled, M too late`: what the simulated venue of a feed backtest made of our cancels (its
 * counters `ordersCancelled`, `cancelsTooLate`: a cancel that arrived after the order filled or
 * ended), so the count comparable with a live run's cancelled orders is in the summary (trial 11
 * F3); "" for a venue that does not count them.
 */
function cancelOutcomesText(venue: unknown): string {
  const v = venue as { ordersCancelled?: unknown; cancelsTooLate?: unknown } | null | undefined;
  if (typeof v?.ordersCancelled !== 'number' || typeof v.cancelsTooLate !== 'number') return '';
  return `: ${v.ordersCancelled} cancelled, ${v.cancelsTooLate} too late (the order had filled or ended)`;
}

/**
 * The cancel requests: by id (`DELETE /orders`) and, when the bot sent any, the cancel-alls, which
 * name no id, so the orders cancelled may outnumber the ids (trial 12 F12: "151 ids: 167 cancelled"
 * read as a contradiction; the final cancel-all had cancelled the other 16).
 */
function cancelRequestsText(r: BacktestResult, m: Metrics): string {
  const all = r.orders.cancelAllRequests ?? 0;
  if (all === 0)
    return `${m.orders.cancelRequests} cancel requests (${m.orders.idsCancelled} ids${cancelOutcomesText(r.venue)})`;
  return `${m.orders.cancelRequests} cancel requests of ${m.orders.idsCancelled} ids and ${all} cancel-all${all === 1 ? '' : 's'} (of every open order)${cancelOutcomesText(r.venue)}`;
}

/** The venue's codes of the rejected orders, as ": INVALID_ORDER_NOT_ENOUGH_BALANCE x1, ..." ("" when none). */
function rejectCodesText(r: BacktestResult): string {
  const codes = codeCountsText(r.orders.rejectCodes);
  return codes === '' ? '' : `: ${codes}`;
}

function pct(x: number | null, digits = 1): string {
  return x === null ? 'n/a' : `${(x * 100).toFixed(digits)} %`;
}

function price(x: number | null): string {
  if (x === null) return 'n/a';
  return `${x >= 0 ? '+' : ''}${x.toFixed(4)}`;
}

const iso = (t: number): string => new Date(Math.floor(t)).toISOString().replace('.000Z', 'Z');

/**
 * The risk limits a run uses, in config units: every limit of the `risk` section (`risk`: as given,
 * numbers may be strings) with its default applied, in schema order; `markets`, when given, with
 * each market's limits in full (the section's per-market limits, then the market's own on top, as
 * the risk gate resolves them).
 * @throws ConfigError naming the key on a bad value (the runner has checked them before)
 */
export function effectiveRiskLimits(risk: Readonly<Record<string, unknown>> = {}): EffectiveRiskLimits {
  const market: Record<string, unknown> = {};
  const global: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(risk)) {
    if (Object.hasOwn(MARKET_LIMITS_SCHEMA, k)) market[k] = v;
    else if (Object.hasOwn(GLOBAL_LIMITS_SCHEMA, k)) global[k] = v;
  }
  const out: Record<string, EffectiveRiskLimits[string]> = {
    ...resolveValues(MARKET_LIMITS_SCHEMA, market, 'risk'),
    ...resolveValues(GLOBAL_LIMITS_SCHEMA, global, 'risk'),
  };
  const own = risk['markets'];
  if (typeof own === 'object' && own !== null && Object.keys(own).length > 0) {
    const markets: Record<string, Record<string, number>> = {};
    for (const [id, mo] of Object.entries(own as Record<string, Record<string, unknown>>))
      markets[id] = { ...resolveValues(MARKET_LIMITS_SCHEMA, { ...market, ...mo }, `risk.markets.${id}`) };
    out['markets'] = markets;
  }
  return out;
}

/**
 * The risk limits that differ from the defaults, as "maxPositionShares 50, maxLoss 20" (then "own
 * limits for N market(s)" when some market has its own), or "default" when none does. Nothing is
 * said for a result without its limits (written before they were said): "".
 */
export function riskLimitsText(risk: EffectiveRiskLimits | undefined): string {
  if (risk === undefined) return '';
  const schema: Record<string, { default: number }> = { ...MARKET_LIMITS_SCHEMA, ...GLOBAL_LIMITS_SCHEMA };
  const changed = Object.entries(risk)
    .filter(([k, v]) => typeof v === 'number' && schema[k] !== undefined && schema[k].default !== v)
    .map(([k, v]) => `${k} ${String(v)}`);
  const markets = risk['markets'];
  const n = typeof markets === 'object' ? Object.keys(markets).length : 0;
  if (n > 0) changed.push(`own limits for ${n} market${n === 1 ? '' : 's'}`);
  return changed.length === 0 ? 'default' : changed.join(', ');
}

/**
 * `, post-only on|off, risk limits default|<the non-default ones>`: the run's order rule and risk
 * limits, for the summary's first line and the report's header (the limits only when the result
 * says them).
 */
export function runRulesText(r: Pick<BacktestResult, 'postOnly' | 'risk'>): string {
  const risk = riskLimitsText(r.risk);
  return `, post-only ${r.postOnly === true ? 'on' : 'off'}${risk === '' ? '' : `, risk limits ${risk}`}`;
}

/** The human description of what was run. */
export function describeSource(r: BacktestResult): string {
  if (r.mode === 'world' && r.source.world !== undefined)
    return `synthetic world ${r.source.world.seed} (${r.source.world.profile}), ${duration(r.source.world.durationMs)}`;
  const feeds = r.source.feeds ?? [];
  return `feed ${feeds.length === 1 ? feeds[0] : `(${feeds.length} files)`}, queue ${r.queue ?? '-'}`;
}

/**
 * The rewards line: earned (how), and PnL with them. E.g. "+3.21 USDC estimated (412 of 480
 * samples scored; 2 markets); PnL with rewards +1.05 USDC". In world mode it says how much of the
 * exchange's figure was credited and how much was not (below the minimum payout, which is never
 * paid, or the standing of the epoch still running at the end).
 */
export function rewardsLine(rw: NonNullable<BacktestResult['rewards']>, m: Metrics): string {
  const samples = rw.byMarket.reduce((a, x) => a + x.samples, 0);
  const scored = rw.byMarket.reduce((a, x) => a + x.scoredSamples, 0);
  const n = rw.byMarket.length;
  const paid = rw.byMarket.reduce((a, x) => a + (x.paid ?? 0), 0);
  const estimated = rw.byMarket.reduce((a, x) => a + (x.estimated ?? 0), 0);
  // world mode: what was earned but not credited is below the minimum payout (never paid) or the running epoch's
  const unpaid = rw.total - paid;
  const notPaid =
    unpaid > 0 ? `, ${rewardUsd(unpaid)} not paid: below the minimum payout, or in the epoch running at the end` : '';
  const how =
    rw.source === 'estimate'
      ? `estimated against the recorded book (${scored} of ${samples} samples scored`
      : `earned at the exchange (${rewardUsd(paid)} credited at epoch ends${notPaid}; the bot estimated ${rewardUsd(estimated)}`;
  return `${rewardUsd(rw.total, true)} USDC ${how}; ${n} market${n === 1 ? '' : 's'}); PnL with rewards ${usd(m.pnlWithRewards ?? m.pnl + rw.total, true)} USDC`;
}

/**
 * The Sharpe line: the ratio and how many daily or hourly PnL changes it is over, e.g.
 * "0.84 (47 hourly PnL changes, annualised ×√8766)", or "n/a (2 hourly PnL changes: 10 needed)".
 */
export function sharpeLine(s: Metrics['sharpe']): string {
  const what = `${s.periods} ${s.period === 'day' ? 'daily' : 'hourly'} PnL change${s.periods === 1 ? '' : 's'}`;
  if (s.value === null)
    return `n/a (${what}${s.periods < SHARPE_MIN_PERIODS ? `: ${SHARPE_MIN_PERIODS} needed` : ', no variation'})`;
  return `${s.value.toFixed(2)} (${what}, annualised ×√${Math.round(s.periodsPerYear)})`;
}

/**
 * Counts by code as "OFF_TICK x21612, NO_INVENTORY x1" (most first, then by code); "" for none.
 * For the gate's refusals and trims (BacktestResult.counts.quotesRefused, quotesTrimmed): the one
 * text form of ../core/code-counts.ts, re-exported here where the backtest's callers import it.
 */
export { codeCountsText };

/** The strategy's first error as " (first: MESSAGE at FILE:LINE:COL)", or "" when none was kept. */
function firstErrorNote(r: BacktestResult): string {
  const first = firstErrorText(r.engine.firstStrategyError);
  return first === '' ? '' : ` (first: ${first})`;
}

/**
 * Why the run says nothing about the strategy, or undefined when it does: every order it sent was
 * rejected by the venue (none rested or filled); or it sent no order while it erred (threw or returned an invalid output, at least once; e.g. it throws on every event), or while it asked for
 * quotes or immediate orders the risk gate refused (e.g. every price off the tick). `mmkit
 * backtest` exits 1 then (README, Backtest), whatever the output format; a sweep ranks such a
 * point after the clean ones. The text follows "FAILED: ".
 */
export function strategyFailure(r: BacktestResult, m: Metrics): string | undefined {
  if (m.orders.sent > 0) {
    // sent, and the venue rejected or killed every one (every FOK unfilled): `strategy check` fails
    // such a strategy too (trial 23 F7: the backtest passed it)
    // (every one answered and refused: one unanswered (the run ended first, UNKNOWN) proves nothing)
    if (r.orders.ordersAccepted > 0 || m.fills > 0 || r.orders.ordersRejected < m.orders.sent) return undefined;
    const codes = codeCountsText(r.orders.rejectCodes);
    return `no order rested or filled: the venue rejected every order sent (${m.orders.sent}${codes !== '' ? `: ${codes}` : ''})`;
  }
  if (r.engine.errors.strategy > 0)
    return `the strategy erred ${r.engine.errors.strategy} time(s) (threw or returned an invalid output) and placed no order${firstErrorNote(r)}`;
  const quotes = codeCountsText(r.counts.quotesRefused);
  const orders = r.counts.ordersRefused ?? 0;
  if (quotes === '' && orders === 0) return undefined;
  const what = [
    ...(quotes !== '' ? [`quotes: ${quotes}`] : []),
    ...(orders > 0 ? [`${orders} immediate order(s)`] : []),
  ].join('; ');
  return `the strategy placed no order: the risk gate refused everything it asked for (${what})`;
}

/**
 * `, fee protocol N`: the order protocol whose taker fee the venue charged (BacktestResult.feeProtocol;
 * nothing for a result written before it was said).
 */
function feeProtocolText(r: Pick<BacktestResult, 'feeProtocol'>): string {
  return r.feeProtocol === undefined ? '' : `, fee protocol ${r.feeProtocol}`;
}

/** The terminal summary (see the module comment). Lines end with "\n". */
export function formatSummary(r: BacktestResult, m: Metrics): string {
  const lines: string[] = [];
  const row = (k: string, v: string): void => {
    lines.push(`  ${k.padEnd(16)}${v}`);
  };
  lines.push(
    `mmkit backtest: ${r.strategy.name} on ${r.markets.length} market${r.markets.length === 1 ? '' : 's'}, ${describeSource(r)}, seed ${r.seed}, latency ${r.latencyMs} ms${feeProtocolText(r)}${runRulesText(r)}`,
  );
  row('period', `${iso(r.startMs)} → ${iso(r.endMs)} (${duration(m.durationMs)} virtual)`);
  if (r.gaps !== undefined && r.gaps.length > 0) {
    // (trial 23 F2: feeds of two sessions merged with nothing said of the hours between them)
    const first = r.gaps[0]!;
    const total = r.gaps.reduce((a, g) => a + g.toMs - g.fromMs, 0);
    row(
      'gaps',
      `${r.gaps.length} with no data for an hour or more, ${duration(total)} in all (the first ${iso(first.fromMs)} → ${iso(first.toMs)}); per-period figures (Sharpe) leave them out`,
    );
  }
  row('stopped', r.stopReason);
  row(
    'fills',
    `${m.fills} (${m.makerFills} maker, ${m.takerFills} taker); volume ${shares(m.volume)} shares, notional ${usd(m.notional)} USDC`,
  );
  row(
    'PnL',
    // fees exact, as the venue charges them (to 0.00001 USDC under V2): a taker fee on small fills is
    // cents or less (trial 12 F10: 0.10637 showed as 0.11)
    `${usd(m.pnl, true)} USDC (realized ${usd(m.realized, true)}, unrealized ${usd(m.unrealized, true)}, fees ${formatAmount(m.fees)})`,
  );
  if (r.rewards !== undefined) row('rewards', rewardsLine(r.rewards, m));
  row('Sharpe', sharpeLine(m.sharpe));
  row('max drawdown', `${usd(m.maxDrawdown.value)} USDC`);
  row(
    'orders',
    `${m.orders.placed} placed (${m.orders.sent} sent, ${m.orders.rejected} rejected${rejectCodesText(r)}), ${cancelRequestsText(r, m)}`,
  );
  row(
    'fill ratio',
    `${pct(m.fillRatio)} of orders placed got a fill; ${m.fillsPerOrder === null ? 'n/a' : m.fillsPerOrder.toFixed(3)} fills per order`,
  );
  row(
    'markouts',
    m.markouts.map((x) => `+${x.horizonMs / 1000}s ${price(x.avg)}`).join('   ') +
      `   (price units, size-weighted, over ${m.markouts.map((x) => x.fills).join('/')} fills)`,
  );
  row(
    'at inv. limit',
    `${pct(m.inventory.maxFraction)} of the time, for the token longest there (${inventoryLimitText(r, m)})`,
  );
  const budgets = endpointBudgets(m);
  for (const b of budgets) {
    row(
      b === budgets[0] ? 'budgets' : '',
      `${b.rule.padEnd(30)} ${String(b.requests).padStart(7)} requests, peak ${b.peak}/${b.limit} per ${duration(b.windowMs)} (${pct(b.utilisation)})${b.over > 0 ? `, ${b.over} waited for room` : ''}`,
    );
  }
  // a strategy that fills the venue's request windows churns: said, not only in the figures (trial 23 F6)
  // (its orders' and cancels' endpoints, each once: the most that waited of its burst and sustained windows)
  const waited = new Map<string, number>();
  for (const b of m.budgets) {
    const endpoint = b.rule.split(':')[0]!;
    if ((endpoint === 'POST /orders' || endpoint === 'DELETE /orders') && b.over > 0)
      waited.set(endpoint, Math.max(waited.get(endpoint) ?? 0, b.over));
  }
  if (waited.size > 0)
    row(
      'warning',
      `the strategy filled the venue's request budgets (${[...waited].map(([e, n]) => `${e} ${n} waited`).join(', ')}): it re-quotes faster than the venue allows, and live those waits delay its quotes (a fair value that moves with its own orders? see othersLevels and marketTop's excludeOwn in mmkit/strategy)`,
    );
  row(
    'events',
    `${r.counts.feedItems} ${r.mode === 'feed' ? 'feed items' : 'clock steps'}, ${r.counts.marketEvents} market events, ${r.counts.userEvents} user events, ${r.counts.intents} intents (${r.counts.intentsCoalesced} coalesced)${r.counts.malformed > 0 ? `, ${r.counts.malformed} malformed lines skipped` : ''}`,
  );
  for (const p of r.positions) {
    if (p.size === 0) continue;
    const mk = r.markets.find((x) => x.tokens.some((t) => t.tokenId === p.tokenId));
    const outcome = mk?.tokens.find((t) => t.tokenId === p.tokenId)?.outcome ?? '?';
    row(
      'position',
      `${shares(p.size)} ${outcome} of "${mk === undefined ? p.tokenId : shortQuestion(mk.question, 60)}" at avg ${(p.avgPrice / PRICE_SCALE).toFixed(4)}, mark ${p.mark === null ? 'n/a' : (p.mark / PRICE_SCALE).toFixed(4)}`,
    );
  }
  const refused = r.counts.ordersRefused ?? 0;
  if (refused > 0) {
    const codes = codeCountsText(r.counts.ordersRefusedByCode);
    row(
      'refused',
      `${refused} immediate order(s) (FOK/FAK) refused by the risk gate, never sent${codes !== '' ? `: ${codes}` : ''}`,
    );
  }
  // the gate's refusals and cuts of quotes, each time the strategy asked (its log lines are muted)
  const quotesRefused = codeCountsText(r.counts.quotesRefused);
  if (quotesRefused !== '') row('quotes refused', `${quotesRefused} (by the risk gate, never sent)`);
  const quotesTrimmed = codeCountsText(r.counts.quotesTrimmed);
  if (quotesTrimmed !== '') row('quotes trimmed', `${quotesTrimmed} (sent smaller by the risk gate)`);
  const thrown = r.engine.errors.strategy;
  if (thrown > 0) {
    const first = firstErrorText(r.engine.firstStrategyError);
    row(
      'strategy errors',
      `${thrown} (the strategy erred: threw or returned an invalid output; its output was dropped)${first === '' ? '' : `; first: ${first}`}`,
    );
  }
  if (r.openOrdersAtEnd !== 0) row('open orders', `${r.openOrdersAtEnd} left at the venue after the final cancel-all`);
  return lines.join('\n') + '\n';
}
