import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/core/errors.ts';
import {
  fleetBudgetUse,
  type MemberStatusRecord,
  memberPnl,
  parseMemberStatus,
  totalPnl,
} from '../../../src/fleet/member-status.ts';

const rec = (o: Partial<MemberStatusRecord> = {}): MemberStatusRecord => ({
  member: 'a',
  markets: ['0x1'],
  openOrders: 1,
  fills: 0,
  pnl: memberPnl({ realized: 100_000, unrealized: 0, fees: 0, rewards: 0 }),
  budgets: {},
  heartbeat: false,
  at: 1,
  ...o,
});

describe('member status records', () => {
  it('carry PnL as decimal strings, total = realized + unrealized - fees + rewards', () => {
    expect(memberPnl({ realized: 1_000_000, unrealized: -300_000, fees: 1, rewards: 20_000 })).toEqual({
      realized: '1',
      unrealized: '-0.3',
      fees: '0.000001',
      rewards: '0.02',
      total: '0.719999',
    });
  });

  it('round-trip through JSON and refuse what is not one', () => {
    const r = rec({ budgets: { post_order: { used: 3, limit: 10 } } });
    expect(parseMemberStatus(JSON.stringify(r))).toEqual(r);
    expect(() => parseMemberStatus('nope')).toThrow(ValidationError);
    expect(() => parseMemberStatus(JSON.stringify({ ...r, member: 'a b' }))).toThrow(/member name/);
    expect(() => parseMemberStatus(JSON.stringify({ ...r, openOrders: -1 }))).toThrow(/openOrders/);
    expect(() => parseMemberStatus(JSON.stringify({ ...r, pnl: { ...r.pnl, total: 1.5 } }))).toThrow(/pnl.total/);
    expect(() => parseMemberStatus(JSON.stringify({ ...r, budgets: { x: { used: 1 } } }))).toThrow(/budgets.x.limit/);
    // the daemon's machine and pid (mmkit kill --fleet waits for its exit there)
    const d = rec({ host: 'box-1', pid: 4242, ledger: 'L1' });
    expect(parseMemberStatus(JSON.stringify(d))).toEqual(d);
    expect(() => parseMemberStatus(JSON.stringify({ ...d, pid: 0 }))).toThrow(/pid/);
    expect(() => parseMemberStatus(JSON.stringify({ ...d, pid: '4242' }))).toThrow(/pid/);
    expect(() => parseMemberStatus(JSON.stringify({ ...d, host: '' }))).toThrow(/host/);
  });

  it('add up exactly (0.1 + 0.2 is 0.3) and take the freshest budget figures', () => {
    const a = rec({ member: 'a', at: 5, budgets: { r: { used: 1, limit: 9 } } });
    const b = rec({
      member: 'b',
      at: 9,
      pnl: memberPnl({ realized: 200_000, unrealized: 0, fees: 0, rewards: 0 }),
      budgets: { r: { used: 4, limit: 9 } },
    });
    expect(totalPnl([a, b]).realized).toBe('0.3');
    const neg = rec({ pnl: memberPnl({ realized: -1_500_000, unrealized: 0, fees: 0, rewards: 0 }) });
    expect(totalPnl([a, neg]).realized).toBe('-1.4');
    expect(totalPnl([])).toEqual({ realized: '0', unrealized: '0', fees: '0', rewards: '0', total: '0' });
    expect(fleetBudgetUse([b, a])).toEqual({ r: { used: 4, limit: 9 } });
  });
});
