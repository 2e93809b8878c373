/**
 * The approval brand of the risk gate: what execution accepts (`Approved<T>`), how an approval is
 * made (`approveQuotes`, `approveOrder`) and told from a look-alike (`isApproved`), and how an
 * immediate order's approval is spent (`spendApproval`). Only src/risk makes an approval (the quote
 * gate, gate.ts, and the immediate-order gate, gate-orders.ts): a dependency-cruiser rule keeps every
 * other folder from importing this module; they import the brand's public part from gate.ts.
 */
import type { ConditionId } from '../core/ids.ts';
import type { DesiredQuotes, ImmediateIntent, QuoteIntent } from '../core/intents.ts';

declare const APPROVED: unique symbol;
/**
 * What the gate approved. Execution accepts nothing else (`Executor.submit` and `Executor.execute`
 * take `Approved<...>` and check at run time that the gate made it), so an unchecked intent cannot
 * reach the venue: barter's `RiskApproved<T>`. Only src/risk makes one: `gate`, `gateOrder`,
 * `pullQuotes` (pulling is always allowed) and `restamped` (an approval seen again at a later time).
 */
export type Approved<T> = T & { readonly [APPROVED]: true };

/**
 * An approved quote set. Only this module constructs one (the class is not exported), so
 * `instanceof` tells an approval from a look-alike (a cast, a spread copy). A class instead of a
 * registry of approved objects: the gate approves ~100,000 sets per backtest, and a WeakSet entry
 * per set cost more than the rest of the approval (and weighs on every garbage collection).
 */
class ApprovedQuotes implements DesiredQuotes {
  constructor(
    readonly market: ConditionId,
    readonly quotes: readonly QuoteIntent[],
    readonly at: number,
  ) {}
}

/** The immediate orders approved and not yet spent (an immediate order is spent when executed). */
const orderApprovals = new WeakSet<object>();

/** Internal to src/risk: an approved quote set (the gate's, `pullQuotes`, `restamped`). */
export function approveQuotes(
  market: ConditionId,
  quotes: readonly QuoteIntent[],
  at: number,
): Approved<DesiredQuotes> {
  return new ApprovedQuotes(market, quotes, at) as unknown as Approved<DesiredQuotes>;
}

/** Internal to src/risk: an approved immediate order (gate-orders.ts), not yet spent. */
export function approveOrder(x: ImmediateIntent): Approved<ImmediateIntent> {
  orderApprovals.add(x);
  return x as Approved<ImmediateIntent>;
}

/** True when `x` is an approval made by this module (and, for an immediate order, not yet spent). */
export function isApproved(x: object): boolean {
  return x instanceof ApprovedQuotes || orderApprovals.has(x);
}

/**
 * Spends an immediate order's approval: true once for an approved order, false afterwards (an
 * approved FOK/FAK is executed at most once).
 */
export function spendApproval(x: object): boolean {
  return orderApprovals.delete(x);
}

/** An empty set for `market`: execution cancels its quotes. Pulling is always allowed. */
export function pullQuotes(market: ConditionId, at: number): Approved<DesiredQuotes> {
  return approveQuotes(market, [], at);
}

/**
 * The same approved quotes handed out again at a later time (a memo of the gate: src/risk/gate-memo.ts).
 * @throws Error when `prev` is not an approval of this module
 */
export function restamped(prev: Approved<DesiredQuotes>, at: number): Approved<DesiredQuotes> {
  if (!(prev instanceof ApprovedQuotes)) throw new Error('restamped: not an approval of the risk gate');
  return prev.at === at ? prev : approveQuotes(prev.market, prev.quotes, at);
}
