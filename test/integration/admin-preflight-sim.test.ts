/**
 * The paper exchange's admin routes that simulate what `mmkit doctor` checks on a real venue: an
 * account's zero allowance to an exchange contract (reported by GET /balance-allowance, and its
 * BUY orders there refused) and a venue clock that is off (GET /time and the L2 timestamp check).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CTF_EXCHANGE_V2, NEG_RISK_CTF_EXCHANGE_V2 } from '../../src/api/signing/order-v2.ts';
import { ADMIN, no, startVenue, yes, type TestVenue } from './support/setup.ts';
import type { Trader } from './support/trader.ts';

let v: TestVenue;
let t: Trader;
const base = () => v.clob.replace(/\/clob$/, '');
const del = (path: string) =>
  fetch(`${base()}/admin${path}`, { method: 'DELETE', headers: { 'x-admin-token': ADMIN } });

beforeAll(async () => {
  v = await startVenue();
  t = await v.trader();
});
afterAll(async () => v?.close());

describe('POST /admin/allowances', () => {
  it('a zero allowance to one contract is reported and refuses BUYs on its markets only; DELETE restores', async () => {
    const set = await v.admin('/allowances', { address: t.address, allowance: '0', spender: CTF_EXCHANGE_V2 });
    expect(set.status).toBe(200);
    const r = await t.l2('GET', '/balance-allowance', undefined, '?asset_type=COLLATERAL');
    expect(r.body.allowances[CTF_EXCHANGE_V2]).toBe('0');
    expect(BigInt(r.body.allowances[NEG_RISK_CTF_EXCHANGE_V2])).toBeGreaterThan(0n);
    const refused = await t.place(yes(v.m1), 'BUY', '0.40', '10');
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/allowance/);
    expect((await t.l2('GET', '/data/orders')).body.data).toEqual([]);
    // the neg-risk exchange still may spend it
    const other = await t.place(no(v.negRisk), 'BUY', '0.10', '10', { negRisk: true });
    expect(other.status, JSON.stringify(other.body)).toBe(200);
    expect((await del('/allowances')).status).toBe(200);
    expect((await t.place(yes(v.m1), 'BUY', '0.40', '10')).status).toBe(200);
  });

  it('refuses a malformed allowance and changes nothing', async () => {
    const bad = await v.admin('/allowances', { address: t.address, allowance: '-1' });
    expect(bad.status).toBe(400);
    const r = await t.l2('GET', '/balance-allowance', undefined, '?asset_type=COLLATERAL');
    expect(r.body.allowance).not.toBe('0');
  });
});

describe('POST /admin/clock', () => {
  it('offsets GET /time; beyond the auth skew limit the L2 timestamp is refused; 0 puts it back', async () => {
    const before = (await (await fetch(`${v.clob}/time`)).json()) as number;
    expect((await v.admin('/clock', { offset_ms: 120_000 })).status).toBe(200);
    const after = (await (await fetch(`${v.clob}/time`)).json()) as number;
    expect(after - before).toBeGreaterThanOrEqual(119);
    expect(after - before).toBeLessThanOrEqual(122);
    expect((await t.l2('GET', '/balances')).status).toBe(200);
    // the default auth skew limit is 300 s
    await v.admin('/clock', { offset_ms: 400_000 });
    expect((await t.l2('GET', '/balances')).status).toBe(401);
    await v.admin('/clock', { offset_ms: 0 });
    expect((await t.l2('GET', '/balances')).status).toBe(200);
    expect((await v.admin('/clock', { offset_ms: 1.5 })).status).toBe(400);
  });
});

describe('GET /api/geoblock', () => {
  it('answers the public shape: never blocked on paper', async () => {
    const g = (await (await fetch(`${base()}/api/geoblock`)).json()) as Record<string, unknown>;
    expect(g).toMatchObject({ blocked: false, country: '', region: '' });
    expect(typeof g['ip']).toBe('string');
  });
});
