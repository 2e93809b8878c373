/**
 * The matching engine's operations outside the book: split, merge, redeem and the neg-risk convert.
 * Exact micro-units, available balances only, all or nothing, and the supply invariant.
 */
import { describe, expect, it } from 'vitest';
import { MatchingEngine, NEG_RISK_ADAPTER_ACCOUNT } from '../../../src/exchange/matching/engine.ts';
import type { MarketDef, NewOrder } from '../../../src/exchange/matching/types.ts';

const SH = 1_000_000;
const u = (x: number): number => Math.round(x * 1_000_000);

const market = (i: number, negRisk: boolean): MarketDef => ({
  conditionId: `c${i}`,
  yesToken: `Y${i}`,
  noToken: `N${i}`,
  tickPips: 100,
  minSizeMicro: SH,
  negRisk,
  feeRateBps: 0,
});

/** c1 plain; c2, c3, c4 one neg-risk event; alice and bob with 1000 each. */
function setup(): MatchingEngine {
  const e = new MatchingEngine();
  e.addMarket(market(1, false));
  for (const i of [2, 3, 4]) e.addMarket(market(i, true));
  e.credit('alice', u(1000));
  e.credit('bob', u(1000));
  e.drainEvents();
  return e;
}

const EVENT = ['c2', 'c3', 'c4'];

function snapshot(e: MatchingEngine) {
  return ['alice', 'bob', NEG_RISK_ADAPTER_ACCOUNT].map((a) => {
    const b = e.balance(a);
    return [a, b.collateral, b.collateralReserved, [...b.tokens.entries()].sort()];
  });
}
const tokAvail = (e: MatchingEngine, a: string, t: string) => e.balance(a).tokens.get(t)?.available ?? 0;

/** Collateral + pairs of unresolved markets + winning tokens of resolved ones - minted: what was funded. */
function backing(e: MatchingEngine): number {
  const t = e.totals();
  let sum = t.collateral;
  for (let i = 1; i <= 4; i++) {
    const m = e.getMarket(`c${i}`)!;
    if (m.status === 'resolved') sum += t.tokenSupply.get(m.winningToken!)!;
    else {
      expect(t.tokenSupply.get(m.yesToken)).toBe(t.tokenSupply.get(m.noToken));
      sum += t.tokenSupply.get(m.yesToken)!;
    }
  }
  return sum - t.minted;
}

describe('split and merge', () => {
  it('split then merge gives back exactly the collateral, to the micro-unit', () => {
    const e = setup();
    const amt = 12_345_678; // 12.345678: not a whole lot
    expect(e.split('alice', 'c1', amt, 1)).toEqual({
      ok: true,
      collateral: -amt,
      tokens: [
        { tokenId: 'Y1', delta: amt },
        { tokenId: 'N1', delta: amt },
      ],
    });
    expect(e.balance('alice').collateral).toBe(u(1000) - amt);
    expect(tokAvail(e, 'alice', 'Y1')).toBe(amt);
    expect(tokAvail(e, 'alice', 'N1')).toBe(amt);
    expect(e.drainEvents()).toEqual([{ type: 'balance', account: 'alice', at: 1 }]);
    expect(e.merge('alice', 'c1', amt, 2)).toMatchObject({ ok: true, collateral: amt });
    expect(e.balance('alice').collateral).toBe(u(1000));
    expect(tokAvail(e, 'alice', 'Y1')).toBe(0);
    expect(backing(e)).toBe(u(2000));
  });

  it('uses available balances only: what orders reserve is locked; a refusal changes nothing', () => {
    const e = setup();
    const order: NewOrder = {
      id: 'o1',
      account: 'alice',
      owner: 'k',
      tokenId: 'Y1',
      side: 'BUY',
      price: 5000,
      size: 1000 * SH,
      type: 'GTC',
      postOnly: false,
      expiresAt: 0,
      feeRateBps: 0,
    };
    expect(e.place(order, 1).ok).toBe(true); // reserves 500
    const before = snapshot(e);
    expect(e.split('alice', 'c1', u(500) + 1, 2)).toMatchObject({ ok: false, code: 'NOT_ENOUGH_BALANCE' });
    expect(e.split('alice', 'c9', u(1), 2)).toMatchObject({ ok: false, code: 'MARKET_NOT_FOUND' });
    for (const bad of [0, -1, 1.5, Number.NaN, 2 ** 60])
      expect(e.split('alice', 'c1', bad, 2)).toMatchObject({ ok: false, code: 'INVALID_AMOUNT' });
    expect(e.merge('bob', 'c1', 1, 2)).toMatchObject({ ok: false, code: 'NOT_ENOUGH_BALANCE' });
    expect(snapshot(e)).toEqual(before);
    expect(e.split('alice', 'c1', u(500), 2).ok).toBe(true);
    // a SELL order reserves YES: merge needs both available
    expect(e.place({ ...order, id: 'o2', side: 'SELL', price: 9000, size: 300 * SH }, 3).ok).toBe(true);
    expect(e.merge('alice', 'c1', u(201), 4)).toMatchObject({ ok: false, code: 'NOT_ENOUGH_BALANCE' });
    expect(e.merge('alice', 'c1', u(200), 4)).toMatchObject({ ok: true, collateral: u(200) });
    expect(backing(e)).toBe(u(2000));
  });
});

describe('redeem', () => {
  it('pays 1 per winning share and 0 per losing one, only once the market is resolved', () => {
    const e = setup();
    e.split('alice', 'c1', u(10), 1);
    expect(e.redeem('alice', 'c1', undefined, 2)).toMatchObject({ ok: false, code: 'MARKET_NOT_RESOLVED' });
    e.closeMarket('c1', 3);
    expect(e.redeem('alice', 'c1', undefined, 3)).toMatchObject({ ok: false, code: 'MARKET_NOT_RESOLVED' });
    e.resolveMarket('c1', 'N1', 4);
    const before = snapshot(e);
    expect(e.redeem('alice', 'c1', u(11), 5)).toMatchObject({ ok: false, code: 'NOT_ENOUGH_BALANCE' });
    expect(e.redeem('bob', 'c1', undefined, 5)).toMatchObject({ ok: false, code: 'NOTHING_TO_REDEEM' });
    expect(snapshot(e)).toEqual(before);
    // a part of the winning side first, then everything else
    expect(e.redeem('alice', 'c1', u(4), 6)).toEqual({
      ok: true,
      collateral: u(4),
      tokens: [{ tokenId: 'N1', delta: -u(4) }],
    });
    expect(e.redeem('alice', 'c1', undefined, 7)).toEqual({
      ok: true,
      collateral: u(6),
      tokens: [
        { tokenId: 'N1', delta: -u(6) },
        { tokenId: 'Y1', delta: -u(10) },
      ],
    });
    expect(e.balance('alice').collateral).toBe(u(1000));
    expect(e.redeem('alice', 'c1', undefined, 8)).toMatchObject({ ok: false, code: 'NOTHING_TO_REDEEM' });
    expect(backing(e)).toBe(u(2000));
  });
});

describe('convert (neg-risk)', () => {
  it('NO of one market of n becomes YES of the n - 1 others, no collateral', () => {
    const e = setup();
    e.split('alice', 'c2', u(10), 1); // 10 YES2 + 10 NO2
    const r = e.convert('alice', ['c2'], EVENT, u(4), 2);
    expect(r).toEqual({
      ok: true,
      collateral: 0,
      tokens: [
        { tokenId: 'N2', delta: -u(4) },
        { tokenId: 'Y3', delta: u(4) },
        { tokenId: 'Y4', delta: u(4) },
      ],
    });
    expect(tokAvail(e, 'alice', 'N2')).toBe(u(6));
    expect(tokAvail(e, 'alice', 'Y3')).toBe(u(4));
    expect(tokAvail(e, 'alice', 'Y4')).toBe(u(4));
    expect(e.balance('alice').collateral).toBe(u(990));
    // the adapter holds a complete set of NO: worth (n - 1) x amount whoever wins, what it minted
    for (const t of ['N2', 'N3', 'N4']) expect(tokAvail(e, NEG_RISK_ADAPTER_ACCOUNT, t)).toBe(u(4));
    expect(e.totals().minted).toBe(u(8));
    expect(backing(e)).toBe(u(2000));
  });

  it('NO of k markets gives (k - 1) x amount collateral; every NO of the event: (n - 1) x amount', () => {
    const e = setup();
    for (const c of EVENT) e.split('alice', c, u(5), 1);
    expect(e.convert('alice', ['c2', 'c3'], EVENT, u(5), 2)).toMatchObject({ ok: true, collateral: u(5) });
    expect(tokAvail(e, 'alice', 'Y4')).toBe(u(10));
    expect(e.convert('bob', ['c2'], EVENT, u(1), 2)).toMatchObject({ ok: false, code: 'NOT_ENOUGH_BALANCE' });
    const e2 = setup();
    for (const c of EVENT) e2.split('alice', c, u(5), 1);
    expect(e2.convert('alice', EVENT, EVENT, u(5), 2)).toMatchObject({
      ok: true,
      collateral: u(10),
      tokens: [
        { tokenId: 'N2', delta: -u(5) },
        { tokenId: 'N3', delta: -u(5) },
        { tokenId: 'N4', delta: -u(5) },
      ],
    });
    // 15 spent on three splits; 10 back + 5 YES of each market (exactly one pays 1): 15 at resolution
    expect(e2.balance('alice').collateral).toBe(u(995));
    expect(backing(e2)).toBe(u(2000));
  });

  it('refuses a market that is not neg-risk or not in the event, a resolved event, and changes nothing', () => {
    const e = setup();
    e.split('alice', 'c1', u(5), 1);
    e.split('alice', 'c2', u(5), 1);
    const before = snapshot(e);
    expect(e.convert('alice', ['c1'], ['c1'], u(1), 2)).toMatchObject({ ok: false, code: 'NOT_NEG_RISK' });
    expect(e.convert('alice', ['c2'], ['c3', 'c4'], u(1), 2)).toMatchObject({ ok: false, code: 'NOT_NEG_RISK' });
    expect(e.convert('alice', ['c2'], ['c2'], u(1), 2)).toMatchObject({ ok: false, code: 'NOT_NEG_RISK' });
    expect(e.convert('alice', ['c2', 'c2'], EVENT, u(1), 2)).toMatchObject({ ok: false, code: 'INVALID_AMOUNT' });
    expect(e.convert('alice', ['c2'], EVENT, 0, 2)).toMatchObject({ ok: false, code: 'INVALID_AMOUNT' });
    expect(e.convert('alice', ['c2'], [...EVENT, 'c9'], u(1), 2)).toMatchObject({
      ok: false,
      code: 'MARKET_NOT_FOUND',
    });
    e.resolveMarket('c4', 'Y4', 3);
    const resolved = snapshot(e);
    expect(e.convert('alice', ['c2'], EVENT, u(1), 4)).toMatchObject({ ok: false, code: 'MARKET_RESOLVED' });
    expect(snapshot(e)).toEqual(resolved);
    expect(before).toEqual(resolved); // the resolution itself moved no balance
  });
});
