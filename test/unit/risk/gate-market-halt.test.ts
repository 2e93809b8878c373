/**
 * A market's own halt (RiskView.marketHalted: a fleet member that does not hold the market's lease)
 * refuses that market's quotes and no other's, and the memoised gate never hands out an approval
 * made before the market was halted (nor keeps refusing after it is lifted).
 */
import { describe, expect, it } from 'vitest';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { QuoteIntent } from '../../../src/core/intents.ts';
import type { Micro, Pips } from '../../../src/core/units.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';
import { gate, type RiskView } from '../../../src/risk/gate.ts';
import { GateMemo } from '../../../src/risk/gate-memo.ts';
import { resolveRiskLimits } from '../../../src/risk/limits.ts';
import type { BookView } from '../../../src/strategy/api.ts';
import { bookView, M1, M2, marketInfo, NO1, NO2, SH, YES1, YES2 } from '../strategy/fixtures.ts';

const limits = resolveRiskLimits({});
const books = new Map<TokenId, BookView>(
  [YES1, YES2].map((t) => [t, bookView(t, [[4900, 100 * SH]], [[5100, 100 * SH]], false)]),
);
const markets = new Map<string, MarketInfo>(
  [marketInfo(M1, YES1, NO1), marketInfo(M2, YES2, NO2)].map((m) => [m.market, m]),
);
const halted = new Set<string>();
const view: RiskView = {
  limits,
  market: (id) => markets.get(id),
  marketHalted: (m) => (halted.has(m) ? 'fleet: another member holds this market' : null),
  book: (t) => books.get(t),
  position: () => 0 as Micro,
  openOrders: () => [],
  availableCollateral: (10_000 * SH) as Micro,
};
const quote = (tokenId: TokenId): QuoteIntent => ({
  tokenId,
  side: 'BUY',
  price: 4800 as Pips,
  size: (10 * SH) as Micro,
});
const desired = (market: ConditionId, t: TokenId) => ({ market, quotes: [quote(t)], at: 1 });

describe('a halted market', () => {
  it('refuses that market only, with HALTED and the reason', () => {
    halted.clear();
    halted.add(M1);
    const r = gate(desired(M1, YES1), view);
    expect(r.approved.quotes).toEqual([]);
    expect(r.refusals.map((x) => [x.code, x.reason])).toEqual([
      ['HALTED', 'halted: fleet: another member holds this market'],
    ]);
    expect(gate(desired(M2, YES2), view).approved.quotes).toHaveLength(1);
  });

  it('the memoised gate follows the halt both ways', () => {
    halted.clear();
    const memo = new GateMemo();
    const d = desired(M1, YES1);
    expect(memo.approve(d, view).quotes).toHaveLength(1);
    expect(memo.approve(d, view).quotes).toHaveLength(1);
    halted.add(M1);
    expect(memo.approve(d, view).quotes).toEqual([]);
    halted.delete(M1);
    expect(memo.approve(d, view).quotes).toHaveLength(1);
  });
});
