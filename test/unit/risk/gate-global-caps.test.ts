/**
 * A fleet member's global caps are its grant (TraderFleet.globalCaps, src/fleet/risk-reserve.ts):
 * the gate cuts to the grant, and the memoised gate follows a new grant (a new limits object) both
 * ways. `globalUsage` counts open orders as the gate does.
 */
import { describe, expect, it } from 'vitest';
import type { ConditionId, OrderId, TokenId } from '../../../src/core/ids.ts';
import type { LiveOrderView, QuoteIntent } from '../../../src/core/intents.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';
import { gate, globalUsage, type RiskView } from '../../../src/risk/gate.ts';
import { GateMemo } from '../../../src/risk/gate-memo.ts';
import { type RiskLimits, resolveRiskLimits } from '../../../src/risk/limits.ts';
import type { BookView } from '../../../src/strategy/api.ts';
import { bookView, M1, M2, marketInfo, NO1, NO2, SH, YES1, YES2 } from '../strategy/fixtures.ts';

const configured = resolveRiskLimits({});
const withGrant = (notional: number, orders: number): RiskLimits =>
  Object.freeze({ ...configured, global: Object.freeze({ maxNotional: notional as Micro, maxOpenOrders: orders }) });
const books = new Map<TokenId, BookView>(
  [YES1, YES2].map((t) => [t, bookView(t, [[4900, 100 * SH]], [[5100, 100 * SH]], false)]),
);
const markets = new Map<string, MarketInfo>(
  [marketInfo(M1, YES1, NO1), marketInfo(M2, YES2, NO2)].map((m) => [m.market, m]),
);
const resting: LiveOrderView = {
  id: 'o1' as OrderId,
  market: M2,
  tokenId: YES2,
  side: 'BUY',
  price: 4800 as Pips,
  originalSize: (10 * SH) as Micro,
  sizeMatched: (2 * SH) as Micro,
};
let limits = withGrant(0, 0);
const view: RiskView = {
  get limits() {
    return limits;
  },
  market: (id) => markets.get(id),
  book: (t) => books.get(t),
  position: () => 0 as Micro,
  openOrders: () => [resting],
  availableCollateral: (10_000 * SH) as Micro,
};
const quote = (size: number): QuoteIntent => ({
  tokenId: YES1,
  side: 'BUY',
  price: 5000 as Pips,
  size: (size * SH) as Micro,
});
const desired = (market: ConditionId, size: number) => ({ market, quotes: [quote(size)], at: 1 });

describe('global caps from a grant', () => {
  it('globalUsage counts the remaining size at its price, rounded up, and skips filled orders', () => {
    expect(globalUsage([resting])).toEqual({ notional: 3_840_000, orders: 1 });
    expect(globalUsage([{ ...resting, sizeMatched: resting.originalSize }])).toEqual({ notional: 0, orders: 0 });
  });

  it('the gate cuts to the grant net of the other markets, and refuses on no room', () => {
    limits = withGrant(3_840_000 + 5 * 500_000, 2); // room for 5 shares at 0.50 beside the resting order
    expect(gate(desired(M1, 20), view).approved.quotes.map((q) => q.size)).toEqual([5 * SH]);
    limits = withGrant(3_840_000 + 5 * 500_000, 1); // no order left
    const r = gate(desired(M1, 20), view);
    expect(r.approved.quotes).toEqual([]);
    expect(r.refusals.map((x) => x.code)).toEqual(['OPEN_ORDERS_GLOBAL']);
  });

  it("a refusal names the fleet grant and the account's cap, not the account cap alone", () => {
    const account = { maxNotional: (600 * SH) as Micro, maxOpenOrders: 24 };
    limits = Object.freeze({
      ...configured,
      global: Object.freeze({ maxNotional: 1_000_000_000 as Micro, maxOpenOrders: 1, account }),
    });
    const r = gate(desired(M1, 20), view);
    expect(r.refusals.map((x) => x.code)).toEqual(['OPEN_ORDERS_GLOBAL']);
    expect(r.refusals[0]!.reason).toMatch(/^fleet grant: 1 of 24 open orders/);
    limits = Object.freeze({
      ...configured,
      global: Object.freeze({ maxNotional: 3_840_000 as Micro, maxOpenOrders: 10, account }),
    });
    const n = gate(desired(M1, 20), view);
    expect(n.refusals.map((x) => x.code)).toEqual(['NOTIONAL_GLOBAL']);
    expect(n.refusals[0]!.reason).toMatch(/^fleet grant: global notional would exceed 3\.84 of 600 USDC/);
    // a lone daemon: the account's cap
    limits = withGrant(1_000_000_000, 1);
    expect(gate(desired(M1, 20), view).refusals[0]!.reason).toBe('more than 1 open orders in all');
  });

  it('the memoised gate follows a new grant both ways', () => {
    const memo = new GateMemo();
    const d = desired(M1, 20);
    limits = withGrant(1_000_000_000, 10);
    expect(memo.approve(d, view).quotes.map((q) => q.size)).toEqual([20 * SH]);
    expect(memo.approve(d, view).quotes.map((q) => q.size)).toEqual([20 * SH]);
    limits = withGrant(3_840_000 + 5 * 500_000, 10);
    expect(memo.approve(d, view).quotes.map((q) => q.size)).toEqual([5 * SH]);
    limits = withGrant(1_000_000_000, 10);
    expect(memo.approve(d, view).quotes.map((q) => q.size)).toEqual([20 * SH]);
  });
});
