/**
 * `mmkit positions --source store` shows the store's current ledger epoch: which one (venue,
 * world), and its positions only, sizes as the venue source's decimal strings.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/core/clock.ts';
import type { ConditionId, OrderId, TokenId } from '../../src/core/ids.ts';
import type { Micro, Pips } from '../../src/core/units.ts';
import { startExchange } from '../../src/exchange/server.ts';
import { openStore, type FillRecord } from '../../src/store/store.ts';
import { runMmkit } from './support/cli.ts';

const M = '0xmarket' as ConditionId;
const YES = '111' as TokenId;
const NO = '222' as TokenId;
const fill = (tradeId: string, over: Partial<FillRecord> = {}): FillRecord => ({
  tradeId,
  orderId: '0xo' as OrderId,
  market: M,
  tokenId: YES,
  side: 'BUY',
  price: 4000 as Pips,
  size: 10_000_000 as Micro,
  fee: 0 as Micro,
  role: 'MAKER',
  status: 'CONFIRMED',
  matchTime: 1_700_000_000_000,
  ...over,
});

const TODAY_UTC = {
  today: new Date().toISOString().slice(0, 10),
  yesterday: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
};
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-positions-store-'));
  const s = openStore(join(dir, 'mmkit.db'), { clock: new VirtualClock(1_700_000_000_000), checkpoint: 'auto' });
  // an old world: a position that must not show
  s.openEpoch({ venue: 'paper', world: 'old-world', address: '0xAB' });
  s.recordFill(fill('old', { tokenId: NO, size: 99_000_000 as Micro }));
  // the current world: a bot fill, an external one, an adjustment
  s.openEpoch({ venue: 'paper', world: 'new-world', address: '0xAB' }, 1_700_000_100_000);
  s.recordFill(fill('1', { matchTime: 1_700_000_100_001 }));
  s.recordFill(fill('2', { matchTime: 1_700_000_100_002, source: 'external', size: 2_500_000 as Micro }));
  s.recordAdjustment({
    market: M,
    tokenId: NO,
    size: 1_000_001,
    price: 5000,
    priceSource: 'mid',
    cause: 'external_trade',
    at: 1_700_000_100_003,
  });
  // liquidity rewards: a date the venue paid, a date only estimated, a market of the old world (not shown)
  s.recordRewardEstimate({ market: M, date: '2023-11-14', estimated: 1_100_000, samples: 10, scoredSamples: 9 });
  s.recordRewardPaid({ market: M, date: '2023-11-14', paid: 1_000_001 });
  s.recordRewardEstimate({ market: M, date: '2023-11-15', estimated: 250_000, samples: 3, scoredSamples: 3 });
  // the daily loss limit's opens: yesterday's (not shown) and today's (UTC)
  s.dayOpen(TODAY_UTC.yesterday, 7_000_000);
  s.dayOpen(TODAY_UTC.today, -1_250_000);
  s.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('mmkit positions --source store', () => {
  it('--json: the current epoch and its positions, sizes as decimal strings', async () => {
    const r = await runMmkit(['positions', '--source', 'store', '--json', '--data-dir', dir]);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({
      source: 'store',
      epoch: { id: 2, venue: 'paper', world: 'new-world', address: '0xab', startedAt: '2023-11-14T22:15:00.000Z' },
      count: 2,
    });
    expect(j.positions.map((p: { tokenId: string; size: string }) => [p.tokenId, p.size])).toEqual([
      [YES, '12.5'],
      [NO, '1.000001'],
    ]);
    expect(j.positions[0]).toMatchObject({ avgPrice: '0.4', cost: '5', fills: 2 });
  });

  it('--json: PnL apart and together (trading, fees, rewards paid and estimated) and the reward rows', async () => {
    const j = JSON.parse((await runMmkit(['positions', '--source', 'store', '--json', '--data-dir', dir])).out);
    // no marks: trading is the realized part (0 here: nothing sold)
    expect(j.pnl).toEqual({
      trading: '0',
      fees: '0',
      rewards: { paid: '1.000001', estimated: '0.25', total: '1.250001' },
      total: '1.250001',
    });
    expect(j.rewards).toEqual([
      { market: M, date: '2023-11-14', status: 'paid', estimated: '1.1', paid: '1.000001' },
      { market: M, date: '2023-11-15', status: 'estimated', estimated: '0.25', paid: '0' },
    ]);
  });

  it("shows the UTC day's open the daily loss limit keeps (trial 20 F6), today's only", async () => {
    const j = JSON.parse((await runMmkit(['positions', '--source', 'store', '--json', '--data-dir', dir])).out);
    const r = await runMmkit(['positions', '--source', 'store', '--data-dir', dir]);
    // (a run across 00:00 UTC finds the next day not opened)
    if (new Date().toISOString().slice(0, 10) !== TODAY_UTC.today) return;
    expect(j.dayOpen).toEqual({ date: TODAY_UTC.today, pnl: '-1.25' });
    expect(r.err).toContain(`the UTC day ${TODAY_UTC.today} opened at PnL -1.25 (the daily loss limit's reference`);
  });

  it('says which epoch, venue and world it shows', async () => {
    const r = await runMmkit(['positions', '--source', 'store', '--data-dir', dir]);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('epoch 2 (venue paper, world new-world, since 2023-11-14T22:15:00.000Z)');
    expect(r.out).toContain('12.5');
    expect(r.out).not.toContain('99');
    expect(r.err).toContain('trading 0 - fees 0 + rewards 1.250001 (paid 1.000001, estimated 0.25) = 1.250001');
  });

  it("compares token by token with --source venue: the listing's title and outcome, the venue's columns and 6 decimals", async () => {
    const ex = await startExchange({ port: 0, seed: 7, world: { agents: 'none', lifecycle: false } });
    const d = mkdtempSync(join(tmpdir(), 'mmkit-positions-titles-'));
    try {
      const base = ex.urls.clob_url.replace(/\/clob$/, '');
      const listing = (await (await fetch(`${ex.urls.clob_url}/markets`)).json()) as {
        data: Array<{ condition_id: string; question: string; tokens: Array<{ token_id: string; outcome: string }> }>;
      };
      const m = listing.data[0]!;
      const yes = m.tokens[0]!;
      const s = openStore(join(d, 'mmkit.db'), { checkpoint: 'auto' });
      const at = { market: m.condition_id as ConditionId, tokenId: yes.token_id as TokenId };
      s.recordFill(fill('a', { ...at, price: 3876 as Pips, size: 4_000_000 as Micro }));
      s.recordFill(fill('b', { ...at, price: 3880 as Pips, size: 1_000_000 as Micro, matchTime: 1_700_000_000_001 }));
      s.recordFill(
        fill('c', { ...at, side: 'SELL', price: 4000 as Pips, size: 1_333_333 as Micro, matchTime: 1_700_000_000_002 }),
      );
      s.recordFill(fill('d', { tokenId: '333' as TokenId, matchTime: 1_700_000_000_003 }));
      s.close();
      const args = ['positions', '--source', 'store', '--data-dir', d, '--exchange-url', base];
      const j = await runMmkit([...args, '--json']);
      expect(j.code, j.err).toBe(0);
      const rows = JSON.parse(j.out).positions;
      expect(rows[0]).toMatchObject({
        tokenId: yes.token_id,
        title: m.question,
        outcome: yes.outcome,
        size: '3.666667',
        // exact from the integers at the venue's 6 decimals (pips would say 0.3877, a floor 0.016426)
        avgPrice: '0.38768',
        realizedPnl: '0.016427',
      });
      // a market the listing does not know: by token id
      expect(rows[1]).toMatchObject({ tokenId: '333', title: null, outcome: null });
      const h = await runMmkit(args);
      expect(h.code, h.err).toBe(0);
      const [header, first, second] = h.out.split('\n');
      expect(header!.split(/\s+/)).toEqual([
        'TITLE',
        'OUTCOME',
        'SIZE',
        'AVGPRICE',
        'INITIALVALUE',
        'CURPRICE',
        'CURRENTVALUE',
        'CASHPNL',
        'REALIZEDPNL',
        'FEES',
        'FILLS',
      ]);
      expect(first).toContain(m.question.slice(0, 30));
      expect(first).toMatch(new RegExp(`${yes.outcome}\\s+3\\.666667\\s+0\\.38768\\s`));
      expect(second).toMatch(/^333\s/);
    } finally {
      rmSync(d, { recursive: true, force: true });
      await ex.close();
    }
  });

  it('a store with no epoch (every fill) says so, epoch null in JSON', async () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-positions-noepoch-'));
    try {
      const s = openStore(join(d, 'mmkit.db'), { checkpoint: 'auto' });
      s.recordFill(fill('1'));
      s.close();
      const j = await runMmkit(['positions', '--source', 'store', '--json', '--data-dir', d]);
      expect(j.code, j.err).toBe(0);
      expect(JSON.parse(j.out)).toMatchObject({ epoch: null, count: 1, positions: [{ size: '10' }] });
      const h = await runMmkit(['positions', '--source', 'store', '--data-dir', d]);
      expect(h.err).toContain('no ledger epoch');
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });

  it("asks the venue of the store's epoch, and says an unreachable venue did not answer (not 'not in the listing')", async () => {
    const d = mkdtempSync(join(tmpdir(), 'mmkit-positions-novenue-'));
    try {
      // a port nobody listens on: the venue the data dir traded on is down
      const srv = createServer();
      await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
      const port = (srv.address() as AddressInfo).port;
      await new Promise((r) => srv.close(r));
      const s = openStore(join(d, 'mmkit.db'), { checkpoint: 'auto' });
      s.openEpoch({ venue: `http://127.0.0.1:${port}/clob#137`, world: 'w', address: '0xAB' });
      s.recordFill(fill('1'));
      s.recordFill(fill('2', { market: '0xother' as ConditionId, tokenId: NO }));
      s.close();
      const h = await runMmkit(['positions', '--source', 'store', '--data-dir', d]);
      expect(h.code, h.err).toBe(0);
      expect(h.err).toContain(
        `the venue at http://127.0.0.1:${port}/clob (from the store's ledger epoch) did not answer`,
      );
      expect(h.err).toContain('2 market(s) shown by token id');
      expect(h.err).not.toContain('not in the');
      expect(h.err).not.toContain('127.0.0.1:8080');
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});
