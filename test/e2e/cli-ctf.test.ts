/**
 * `mmkit split | merge | redeem` against the paper exchange's relayer, recorded in the store's ledger.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.ts';
import { Admin, BotHarness } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';

const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit split, merge, redeem', () => {
  it('split then merge returns exactly the collateral spent; redeem pays exactly the winning tokens; each is in the ledger', async () => {
    const { ex, base } = await h.exchange(21, { adminToken: 'tok' });
    const { dir, address } = h.dataDir();
    const m = ex.exchange.listMarkets().find((x) => !x.meta.negRisk)!;
    const cid = m.meta.conditionId;
    const [yes, no] = m.meta.tokens;
    const common = ['--json', '--data-dir', dir, '--exchange-url', base];

    // a store whose current epoch is this venue's (as the daemon opens it)
    const world = ((await (await fetch(`${base}/clob/world`)).json()) as { world_id: string }).world_id;
    const store = openStore(join(dir, 'mmkit.db'));
    store.openEpoch({ venue: `${base}/clob#137`, world, address });
    store.close();

    const split = await runMmkit(['split', cid, '12.5', ...common]);
    expect(split.code, split.err).toBe(0);
    const before = ex.exchange.engine.balance(address);
    const s = JSON.parse(split.out) as {
      collateralDelta: string;
      tokens: { delta: string }[];
      recorded: string;
      transaction: string;
      transactionHash: string | null;
    };
    expect(s.collateralDelta).toBe('-12.5');
    expect(s.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(s.tokens.map((t) => t.delta)).toEqual(['12.5', '12.5']);
    expect(s.recorded).toBe('recorded');
    expect(before.tokens.get(yes)?.available).toBe(12_500_000);
    expect(before.tokens.get(no)?.available).toBe(12_500_000);

    const merge = await runMmkit(['merge', cid, 'all', ...common]);
    expect(merge.code, merge.err).toBe(0);
    const after = ex.exchange.engine.balance(address);
    expect(after.collateral - before.collateral).toBe(12_500_000);
    expect(after.tokens.get(yes)?.available ?? 0).toBe(0);

    // a bad amount changes nothing
    const bad = await runMmkit(['split', cid, '-3', ...common]);
    expect(bad.code).toBe(2);
    expect(ex.exchange.engine.balance(address).collateral).toBe(after.collateral);

    // redeem: split 4, resolve YES, redeem: +4 exactly
    expect((await runMmkit(['split', cid, '4', ...common])).code).toBe(0);
    await new Admin(base, 'tok').resolve(cid, yes);
    const c0 = ex.exchange.engine.balance(address).collateral;
    const redeem = await runMmkit(['redeem', cid, ...common]);
    expect(redeem.code, redeem.err).toBe(0);
    expect(ex.exchange.engine.balance(address).collateral - c0).toBe(4_000_000);

    // the ledger: four operations, positions flat, the redeem realised +0.5 x 4 on YES and -0.5 x 4 on NO
    const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
    const ops = db.prepare('SELECT kind, amount, collateral FROM operations ORDER BY seq').all();
    // the relayer's id and the on-chain hash, as the venue's account activity names the operation
    const first = db.prepare('SELECT tx, tx_hash FROM operations ORDER BY seq LIMIT 1').get();
    db.close();
    expect(first).toEqual({ tx: s.transaction, tx_hash: s.transactionHash });
    expect(ops).toEqual([
      { kind: 'split', amount: 12_500_000, collateral: -12_500_000 },
      { kind: 'merge', amount: 12_500_000, collateral: 12_500_000 },
      { kind: 'split', amount: 4_000_000, collateral: -4_000_000 },
      { kind: 'redeem', amount: expect.any(Number), collateral: 4_000_000 },
    ]);
    const st = openStore(join(dir, 'mmkit.db'), { checkpoint: 'auto' });
    const pos = st.positions();
    st.close();
    expect(pos.every((p) => p.size === 0)).toBe(true);
  });
});
