/**
 * A redeem made outside the daemon (`mmkit redeem` from another data dir of the same wallet) in a
 * resolved market the daemon does not follow: its start audit books it at the payout (1 for the
 * winning token, 0 for the losing one), not at the resolved market's stale mid (findings-5 F9).
 */
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/store.ts';
import { Admin, BotHarness, exited, logLines } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';

const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit run: a redeem found by the position audit', () => {
  it('in a resolved market the daemon does not follow is booked at the payout, realized PnL exact', async () => {
    const { ex, base } = await h.exchange(23, { adminToken: 'tok' });
    const { dir, address } = h.dataDir();
    const [m1, m0, m2] = ex.exchange
      .listMarkets()
      .filter((x) => !x.meta.negRisk)
      .map((x) => x.meta);
    const [yes, no] = m1!.tokens;

    // the daemon's data dir holds both tokens of m1 (a split it recorded), in the epoch the daemon opens
    const world = ((await (await fetch(`${base}/clob/world`)).json()) as { world_id: string }).world_id;
    const store = openStore(join(dir, 'mmkit.db'));
    store.openEpoch({ venue: `${base}/clob#137`, world, address });
    store.close();
    const split = await runMmkit(['split', m1!.conditionId, '20', '--json', '--data-dir', dir, '--exchange-url', base]);
    expect(split.code, split.err).toBe(0);
    const db0 = new Database(join(dir, 'mmkit.db'), { readonly: true });
    const legs = JSON.parse(
      (db0.prepare("SELECT legs FROM operations WHERE kind = 'split'").get() as { legs: string }).legs,
    ) as { tokenId: string; price: number }[];
    db0.close();
    const entry = (t: string) => legs.find((l) => l.tokenId === t)!.price;

    // and both tokens of m2, an open market, which the other data dir merges
    const split2 = await runMmkit([
      'split',
      m2!.conditionId,
      '10',
      '--json',
      '--data-dir',
      dir,
      '--exchange-url',
      base,
    ]);
    expect(split2.code, split2.err).toBe(0);

    // m1 resolves YES; another data dir of the same wallet redeems (the daemon's store does not see it)
    await new Admin(base, 'tok').resolve(m1!.conditionId, yes);
    const other = mkdtempSync(join(tmpdir(), 'mmkit-e2e-'));
    copyFileSync(join(dir, 'paper-wallet.key'), join(other, 'paper-wallet.key'));
    const redeem = await runMmkit(['redeem', m1!.conditionId, '--json', '--data-dir', other, '--exchange-url', base]);
    expect(redeem.code, redeem.err).toBe(0);

    const merge = await runMmkit([
      'merge',
      m2!.conditionId,
      'all',
      '--json',
      '--data-dir',
      other,
      '--exchange-url',
      base,
    ]);
    expect(merge.code, merge.err).toBe(0);

    // a daemon trading another market starts: its audit finds the two tokens gone
    const bot = h.startBot(base, dir, ['--markets', m0!.conditionId, '--duration', '6s']);
    expect(await exited(bot.p), bot.err().slice(-3000)).toBe(0);
    const adjusted = logLines(bot.err()).filter((l) => l.msg === "position adjusted to the venue's holdings");
    expect(adjusted.length, bot.err().slice(-3000)).toBe(4);

    const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
    const rows = db
      .prepare('SELECT token, size, price, price_source AS source, cause FROM adjustments ORDER BY token')
      .all() as { token: string; size: number; price: number; source: string; cause: string }[];
    db.close();
    const row = (t: string) => rows.find((r) => r.token === t);
    expect(row(yes)).toEqual({ token: yes, size: -20_000_000, price: 10_000, source: 'venue', cause: 'redeem' });
    expect(row(no)).toEqual({ token: no, size: -20_000_000, price: 0, source: 'venue', cause: 'redeem' });
    // the open market's merge: both tokens, at their mids (a pair of complementary books: they sum to 1)
    for (const t of m2!.tokens) expect(row(t)).toMatchObject({ size: -10_000_000, source: 'mid', cause: 'merge' });

    // realized PnL: 20 x (1 - entry) on the winner, 20 x (0 - entry) on the loser, to the micro-unit
    const st = openStore(join(dir, 'mmkit.db'), { checkpoint: 'auto' });
    const pos = st.positions();
    st.close();
    const realized = (t: string) => pos.find((p) => p.tokenId === t)!.realized;
    expect(pos.find((p) => p.tokenId === yes)!.size).toBe(0);
    expect(realized(yes)).toBe((20_000_000 * (10_000 - entry(yes))) / 10_000);
    expect(realized(no)).toBe((20_000_000 * (0 - entry(no))) / 10_000);
  }, 180_000);
});
