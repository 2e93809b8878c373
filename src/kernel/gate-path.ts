/**
 * The kernel's intent path (moved out of ./create-trader.ts; createTrader wires it): the risk gate
 * for the strategy's quote sets and immediate orders, with what it refuses or trims logged (at info
 * with the reason, rate-limited: src/core/rate-limited-log.ts) and counted by code (TraderCounters:
 * read by a backtest's result, the daemon's metrics, status and exit summary; the memoised gate tells
 * its answers' codes too), and the hand-over of what it
 * approved to the executor, identical quote sets coalesced when tuned (TraderTuning).
 *
 * The hot path of a backtest: `gateQuotes`, `repeatsLast` and `execute` run ~200,000 times in one.
 * They are closures made once per trader over locals (the parts are read once, here): a call
 * allocates nothing of its own beyond what the gate does (a refusal's log fields aside).
 */
import type { ConditionId } from '../core/ids.ts';
import { sameQuotes, type DesiredQuotes, type ImmediateIntent, type QuoteIntent } from '../core/intents.ts';
import { RateLimitedLog } from '../core/rate-limited-log.ts';
import { AMOUNT_SCALE, formatAmount, formatPrice, PRICE_SCALE, type Pips } from '../core/units.ts';
import type { Executor } from '../execution/executor.ts';
import type { OrderTracker } from '../execution/tracker.ts';
import { gate, gateOrder, orderRoom, type Approved, type Refusal, type RiskView, type Trim } from '../risk/gate.ts';
import { GateMemo } from '../risk/gate-memo.ts';
import type { TraderCounters, TraderFleet, TraderHooks, TraderLogger, TraderTuning } from './types.ts';

/** The halt of a market another fleet member holds (the risk view's `marketHalted`). */
export const FLEET_HELD = 'fleet: another member holds this market';
const HELD_REASON = `halted: ${FLEET_HELD}`;

/**
 * Counts refusals and trims by code, an increment per refused or cut quote; a quote of a market
 * another fleet member holds is that market's normal state in a fleet, not a risk refusal: not
 * counted (trial 14 F2: thousands of HALTED made the refusal metric and status line useless).
 */
export function tallyRefusals(
  counters: Pick<TraderCounters, 'quotesRefused' | 'quotesTrimmed'>,
  refusals: readonly Refusal[],
  trims: readonly Trim[],
): void {
  const { quotesRefused, quotesTrimmed } = counters;
  for (let i = 0; i < refusals.length; i++) {
    const r = refusals[i]!;
    if (r.code === 'HALTED' && r.reason === HELD_REASON) continue;
    quotesRefused[r.code] = (quotesRefused[r.code] ?? 0) + 1;
  }
  for (let i = 0; i < trims.length; i++) {
    const c = trims[i]!.code;
    quotesTrimmed[c] = (quotesTrimmed[c] ?? 0) + 1;
  }
}

/** The trader's parts the intent path uses (createTrader's). */
export interface GatePathParts {
  /** What the gate reads. */
  readonly riskView: RiskView;
  /** Where approved quote sets and immediate orders go. */
  readonly executor: Executor;
  /** Its order transitions tell whether a quote set repeated is still nothing to do. */
  readonly tracker: OrderTracker;
  /** Counted into: intents, coalesced, submits, ordersApproved, ordersRefused, quotesRefused, quotesTrimmed, ordersRefusedByCode. */
  readonly counters: TraderCounters;
  readonly hooks: TraderHooks;
  readonly tuning: TraderTuning;
  /** A fleet member's view (its `globalPressure` turns the gate memo off). */
  readonly fleet: TraderFleet | undefined;
  /** The logger of a component and market. */
  readonly marketLog: (component: string, market: string) => Pick<TraderLogger, 'debug' | 'info' | 'warn'>;
  /** A market's current tick (it changes with tick_size_change events). */
  readonly currentTick: (m: ConditionId) => Pips | undefined;
}

/** The intent path: the engine's gate, gateOrders, execute and executeOrders (EngineOptions). */
export interface GatePath {
  /** Gates a quote set (memoised when tuned); its refusals and trims logged. */
  readonly gateQuotes: (desired: DesiredQuotes) => Approved<DesiredQuotes>;
  /** Gates immediate orders on what the same output's approved quote sets leave: the approved ones; the refused ones logged. */
  readonly gateOrders: (
    orders: readonly ImmediateIntent[],
    replacing: readonly Approved<DesiredQuotes>[],
  ) => readonly Approved<ImmediateIntent>[];
  /** Hands an approved quote set to the executor, unless it is coalesced (tuning.coalesceIntents). */
  readonly execute: (d: Approved<DesiredQuotes>) => void;
  /** Logs and hands approved immediate orders to the executor. */
  readonly executeOrders: (orders: readonly Approved<ImmediateIntent>[]) => void;
}

/** Wires the intent path over the trader's parts (see the module comment). */
export function createGatePath(p: GatePathParts): GatePath {
  const { riskView, executor, tracker, counters, hooks, tuning, fleet, marketLog, currentTick } = p;
  // ---- the gate ------------------------------------------------------------------------------------
  const isGlobalRoom = (x: { readonly code: string }) =>
    x.code === 'NOTIONAL_GLOBAL' || x.code === 'OPEN_ORDERS_GLOBAL';
  const pressure = fleet?.globalPressure?.bind(fleet);
  // refusals and trims by code: an increment per refused or cut quote, nothing for an approved one
  const tally = (refusals: readonly Refusal[], trims: readonly Trim[]): void =>
    tallyRefusals(counters, refusals, trims);
  const memo = tuning.memoiseGate === true && pressure === undefined ? new GateMemo(tally) : undefined;
  // with coalescing too (and no hook that sees each set): a memoised answer that `execute` below
  // will coalesce (the same quotes as the set last submitted for its market, nothing of the market
  // having changed since: its very test) is handed on as approved then (with its earlier time),
  // not stamped anew; `execute` then coalesces that very approval without testing it again
  // (`repeated`: set here, taken by the execute that follows; any order transition or submit in
  // between clears it, and the tick changes only with an event, never inside the engine's hand-over)
  const coalesce = tuning.coalesceIntents === true;
  let repeated: Approved<DesiredQuotes> | undefined;
  const repeatsLast =
    coalesce && hooks.onQuoteSet === undefined
      ? (earlier: Approved<DesiredQuotes>): boolean => {
          const last = lastIntent.get(earlier.market);
          const same =
            last !== undefined &&
            last.seq === (marketSeq.get(earlier.market) ?? 0) &&
            last.tick === currentTick(earlier.market) &&
            sameQuotes(last.quotes, earlier.quotes);
          if (same) repeated = earlier;
          return same;
        }
      : undefined;
  // refusals and trims at info with their reason, the first 10 of a kind (message and code) then
  // every 1000th (with `occurrences`); the others at debug, so that every one is logged once
  const gateLog = new RateLimitedLog({ others: 'debug' });
  const gateQuotes = (desired: DesiredQuotes): Approved<DesiredQuotes> => {
    repeated = undefined;
    if (memo !== undefined && hooks.onGate === undefined) return memo.approve(desired, riskView, repeatsLast);
    const r = gate(desired, riskView);
    if (r.refusals.length > 0 || r.trims.length > 0) {
      tally(r.refusals, r.trims);
      const l = marketLog('risk', desired.market);
      for (const x of r.refusals) {
        gateLog.log(l, 'info', `refused.${x.code}`, quoteFields(x.quote, x.code, x.reason), 'quote refused');
      }
      for (const x of r.trims) {
        gateLog.log(
          l,
          'info',
          `trimmed.${x.code}`,
          { ...quoteFields(x.quote, x.code, x.reason), approvedSize: formatAmount(x.size) },
          'quote trimmed',
        );
      }
    }
    hooks.onGate?.(desired, r);
    if (pressure !== undefined && (r.refusals.some(isGlobalRoom) || r.trims.some(isGlobalRoom))) pressure();
    return r.approved;
  };
  const gateOrders = (
    orders: readonly ImmediateIntent[],
    replacing: readonly Approved<DesiredQuotes>[],
  ): readonly Approved<ImmediateIntent>[] => {
    const out: Approved<ImmediateIntent>[] = [];
    // the same output's quote sets replace their markets' live orders first; each approved order
    // spends its shares and collateral for the ones after it (src/risk/gate-orders.ts: OrderRoom)
    const room = orderRoom(replacing);
    for (const x of orders) {
      const r = gateOrder(x, riskView, room);
      if (r.approved !== null) {
        counters.ordersApproved++;
        out.push(r.approved);
        hooks.onGateOrder?.(x, true, null);
      } else {
        counters.ordersRefused++;
        counters.ordersRefusedByCode[r.refusal.code] = (counters.ordersRefusedByCode[r.refusal.code] ?? 0) + 1;
        gateLog.log(
          marketLog('risk', x.market),
          'info',
          `order.${r.refusal.code}`,
          { ...quoteFields(x, r.refusal.code, r.refusal.reason), type: x.type },
          'immediate order refused',
        );
        hooks.onGateOrder?.(x, false, r.refusal.code);
      }
    }
    return out;
  };

  // ---- execution: quote sets (coalesced when tuned) and immediate orders ----------------------------
  const lastIntent = new Map<ConditionId, { quotes: readonly QuoteIntent[]; tick: number | undefined; seq: number }>();
  const marketSeq = new Map<string, number>();
  if (coalesce)
    tracker.onTransition((t) => {
      repeated = undefined;
      marketSeq.set(t.order.market, (marketSeq.get(t.order.market) ?? 0) + 1);
    });
  const execute = (d: Approved<DesiredQuotes>): void => {
    counters.intents++;
    hooks.onQuoteSet?.(d);
    if (coalesce) {
      if (d === repeated) {
        // the gate's memo just found it to repeat the last set submitted (repeatsLast above)
        repeated = undefined;
        counters.coalesced++;
        return;
      }
      repeated = undefined;
      const seq = marketSeq.get(d.market) ?? 0;
      const tick = currentTick(d.market);
      const last = lastIntent.get(d.market);
      if (last !== undefined && last.seq === seq && last.tick === tick && sameQuotes(last.quotes, d.quotes)) {
        counters.coalesced++;
        return;
      }
      lastIntent.set(d.market, { quotes: d.quotes, tick, seq });
    }
    counters.submits++;
    executor.submit(d);
  };
  const executeOrders = (orders: readonly Approved<ImmediateIntent>[]): void => {
    for (const x of orders)
      marketLog('executor', x.market).info(
        { type: x.type, side: x.side, token: x.tokenId, price: formatPrice(x.price), size: formatAmount(x.size) },
        'immediate order',
      );
    executor.execute(orders);
  };

  return { gateQuotes, gateOrders, execute, executeOrders };
}

/**
 * The fields of a refused or trimmed quote (or immediate order) in a log line, amounts in decimals:
 * a price or size that is not a whole number of pips or micro-shares (what INVALID_SIZE and OFF_TICK
 * refuse) too, in decimal units as near as a float shows them (`size` 10.0000005, not 10000000.5).
 */
export function quoteFields(
  q: { readonly tokenId: string; readonly side: string; readonly price: number; readonly size: number },
  code: string,
  reason: string,
): Record<string, string> {
  return {
    code,
    reason,
    token: q.tokenId,
    side: q.side,
    price: Number.isSafeInteger(q.price) ? formatPrice(q.price) : looseDecimal(q.price, PRICE_SCALE),
    size: Number.isSafeInteger(q.size) ? formatAmount(q.size) : looseDecimal(q.size, AMOUNT_SCALE),
  };
}

/** A number that is not a whole count of its units, in decimal (a plugin's JavaScript may pass a non-number: as is). */
function looseDecimal(x: unknown, scale: number): string {
  return typeof x === 'number' ? String(x / scale) : String(x);
}
