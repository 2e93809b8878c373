/** The emergency reserve's split of the rule table (src/fleet/reserve-gate.ts) and the requests it serves. */
import { describe, expect, it } from 'vitest';
import { budgetRules, isReserveRequest } from '../../../src/api/http/budgets.ts';
import { ConfigError } from '../../../src/core/errors.ts';
import { reserveRuleNames, splitReserve } from '../../../src/fleet/reserve-gate.ts';

describe('emergency reserve', () => {
  it('serves cancel-all, cancel-market-orders and heartbeats only', () => {
    expect(isReserveRequest('clob', 'DELETE', '/cancel-all')).toBe(true);
    expect(isReserveRequest('clob', 'DELETE', '/cancel-market-orders')).toBe(true);
    expect(isReserveRequest('clob', 'POST', '/v1/heartbeats')).toBe(true);
    expect(isReserveRequest('clob', 'POST', '/orders')).toBe(false);
    expect(isReserveRequest('clob', 'DELETE', '/orders')).toBe(true); // the executor pulls quotes by id
    expect(isReserveRequest('clob', 'DELETE', '/order')).toBe(false);
    expect(isReserveRequest('clob', 'GET', '/v1/heartbeats')).toBe(false);
    expect(isReserveRequest('data', 'DELETE', '/cancel-all')).toBe(false);
    expect([...reserveRuleNames()].sort()).toEqual(
      [
        'general',
        'clob',
        'DELETE /orders:burst',
        'DELETE /orders:sustained',
        'DELETE /cancel-all:burst',
        'DELETE /cancel-all:sustained',
        'DELETE /cancel-market-orders:burst',
        'DELETE /cancel-market-orders:sustained',
      ].sort(),
    );
  });

  it('lowers the shared limits of those rules by maxMembers × reserve and keeps the rest', () => {
    const rules = budgetRules();
    const { shared, reserve } = splitReserve(rules, { maxMembers: 8, reserve: 4 });
    const byName = new Map(shared.map((r) => [r.name, r]));
    expect(shared.map((r) => r.name)).toEqual(rules.map((r) => r.name));
    expect(byName.get('DELETE /cancel-all:burst')).toEqual({
      name: 'DELETE /cancel-all:burst',
      limit: 250 - 32,
      windowMs: 10_000,
    });
    expect(byName.get('general')?.limit).toBe(15_000 - 8 * 150);
    expect(byName.get('POST /orders:burst')?.limit).toBe(1000);
    expect(reserve).toHaveLength(8);
    // 4 per 10 s of each window, or 1 % of the limit when more: a sustained rule (10 min) keeps 60
    // times as many, the broad rules 150 (pulls and heartbeats all count in them); at most half a
    // limit for the fleet's reserves
    const kept = new Map(reserve.map((r) => [r.name, r.limit]));
    expect(kept.get('general')).toBe(150);
    expect(kept.get('clob')).toBe(150);
    expect(kept.get('DELETE /orders:burst')).toBe(10);
    expect(kept.get('DELETE /cancel-all:burst')).toBe(4);
    expect(kept.get('DELETE /orders:sustained')).toBe(240);
    expect(kept.get('DELETE /cancel-all:sustained')).toBe(240);
    expect(kept.get('DELETE /cancel-market-orders:sustained')).toBe(Math.floor(1500 / 16));
    expect(byName.get('DELETE /orders:sustained')?.limit).toBe(15_000 - 8 * 240);
    // sum over the fleet: never above the table
    for (const r of reserve)
      expect(byName.get(r.name)!.limit + 8 * r.limit).toBe(rules.find((x) => x.name === r.name)!.limit);
    expect(splitReserve(rules, { maxMembers: 8, reserve: 0 })).toEqual({ shared: rules, reserve: [] });
  });

  it('refuses a reserve the limits cannot hold, or bad numbers', () => {
    const tiny = budgetRules({ scale: 0.01 }); // cancel-all burst: 2
    expect(() => splitReserve(tiny, { maxMembers: 8, reserve: 4 })).toThrow(ConfigError);
    expect(() => splitReserve(tiny, { maxMembers: 8, reserve: 4 })).toThrow(/fleet\.reserve/);
    expect(() => splitReserve(budgetRules(), { maxMembers: 0, reserve: 1 })).toThrow(/fleet\.maxMembers/);
    expect(() => splitReserve(budgetRules(), { maxMembers: 2, reserve: -1 })).toThrow(/fleet\.reserve/);
  });
});
