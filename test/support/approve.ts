/**
 * Approvals for tests of execution and of the engine loop, made by the REAL risk gate
 * (src/risk/gate.ts) with a permissive view: every limit wide open, a wide two-sided book on every
 * token, inventory and collateral plenty. There is no other way to make an `Approved<...>`: the
 * executor refuses anything the gate did not approve. A set the permissive gate would still refuse
 * or cut (a price off the 1-pip tick, outside (0, 1), a size below the 0.01 lot, two quotes that
 * cross each other) throws, so a test never runs on something other than what it wrote.
 */
import type { ConditionId, TokenId } from '../../src/core/ids.ts';
import type { DesiredQuotes, ImmediateIntent, QuoteIntent } from '../../src/core/intents.ts';
import type { Micro, Pips, TickSize } from '../../src/core/units.ts';
import type { MarketInfo } from '../../src/core/venue.ts';
import type { BookView } from '../../src/core/views.ts';
import { gate, gateOrder, type Approved, type RiskView } from '../../src/risk/gate.ts';
import type { RiskLimits } from '../../src/risk/limits.ts';

const BIG = 1e12;
const LIMITS: RiskLimits = {
  defaults: {
    maxPosition: (1000 * BIG) as Micro,
    maxOrderSize: BIG as Micro,
    maxNotional: BIG as Micro,
    maxOpenOrders: 1_000_000,
    maxMidDistance: 10_000,
    minPrice: 1 as Pips,
    maxPrice: 9999 as Pips,
  },
  markets: {},
  global: { maxNotional: BIG as Micro, maxOpenOrders: 1_000_000 },
  killSwitch: { maxLoss: 0 as Micro, maxRejections: 0, rejectionWindowMs: 1, maxHeartbeatFailures: 0 },
} as unknown as RiskLimits;

/** A book with a bid at 1 pip and an ask at 9999 pips: nothing of a test crosses it. */
const wideBook = (tokenId: TokenId): BookView => ({
  tokenId,
  bestBid: 1 as Pips,
  bestAsk: 9999 as Pips,
  mid: 5000,
  stale: false,
  levels: () => [],
});

function permissiveView(market: ConditionId, tokens: readonly TokenId[]): RiskView {
  const a = tokens[0] ?? ('0' as TokenId);
  const b = tokens.find((t) => t !== a) ?? (`${a}-other` as TokenId);
  const info: MarketInfo = {
    market,
    question: 'test',
    tokens: [
      { tokenId: a, outcome: 'Yes' },
      { tokenId: b, outcome: 'No' },
    ],
    tick: '0.0001' as TickSize,
    minOrderSize: 0 as Micro,
    negRisk: false,
    feeRateBps: 0,
    active: true,
    endDate: '2100-01-01T00:00:00Z',
  };
  return {
    limits: LIMITS,
    market: (id) => (id === market ? info : undefined),
    tick: () => 1 as Pips,
    book: (t) => wideBook(t),
    position: () => BIG as Micro,
    openOrders: () => [],
    availableCollateral: BIG as Micro,
  };
}

const tokensOf = (quotes: readonly QuoteIntent[]): TokenId[] => [...new Set(quotes.map((q) => q.tokenId))];

/**
 * `desired`, approved by the real gate under a permissive view.
 * @throws Error when even that gate refuses or cuts a quote
 */
export function approved(desired: DesiredQuotes): Approved<DesiredQuotes> {
  const r = gate(desired, permissiveView(desired.market, tokensOf(desired.quotes)));
  if (r.refusals.length > 0 || r.trims.length > 0)
    throw new Error(`test quotes refused by the permissive gate: ${JSON.stringify([...r.refusals, ...r.trims])}`);
  return r.approved;
}

/**
 * An immediate order approved by the real gate under a permissive view.
 * @throws Error when even that gate refuses it
 */
export function approvedOrder(order: ImmediateIntent): Approved<ImmediateIntent> {
  const r = gateOrder(order, permissiveView(order.market, [order.tokenId]));
  if (r.approved === null) throw new Error(`test order refused by the permissive gate: ${r.refusal.reason}`);
  return r.approved;
}

/** Gates for `createEngine` in tests of the loop: everything passes through the permissive gate. */
export const passGates = {
  gate: (d: DesiredQuotes): Approved<DesiredQuotes> => approved(d),
  gateOrders: (orders: readonly ImmediateIntent[]): readonly Approved<ImmediateIntent>[] => orders.map(approvedOrder),
};
