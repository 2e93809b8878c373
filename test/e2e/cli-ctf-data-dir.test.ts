/**
 * `mmkit split | merge --data-dir DIR` after its daemon stopped cleanly (no venue.json left) act on the
 * venue the data dir last traded on, named by the store's ledger epoch, as `mmkit orders` and
 * `positions` do (findings-8 F4): not the config's default paper exchange, which here is another
 * exchange (a decoy) that would answer. --exchange-url still picks another venue.
 * Real paper exchanges on loopback, a real daemon run, the real CLI and a real SQLite store.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startExchange } from '../../src/exchange/server.ts';
import { openStore } from '../../src/store/store.ts';
import { BotHarness } from './support/bot-harness.ts';
import { runMmkit } from './support/cli.ts';

const h = new BotHarness();
afterAll(() => h.close());

describe('mmkit split / merge with --data-dir after the daemon stopped', () => {
  it("ask the venue of the store's ledger epoch, say so, and record the operation there", async () => {
    const { ex, base } = await h.exchange(31);
    const decoy = await startExchange({ port: 0, seed: 32, world: { agents: 'none', lifecycle: false } });
    try {
      // the config's default paper exchange (exchange.host:exchange.port) is the decoy
      const env = { MMKIT_EXCHANGE_PORT: new URL(decoy.urls.clob_url).port };
      const { dir, address } = h.dataDir();
      const run = await runMmkit(
        ['run', '--exchange-url', base, '--data-dir', dir, '--http-port', '0', '--duration', '8s'],
        { env, timeoutMs: 120_000 },
      );
      expect(run.code, run.err.slice(-2000)).toBe(0);
      const m = ex.exchange.listMarkets().find((x) => !x.meta.negRisk)!;
      const cid = m.meta.conditionId;
      const [yes, no] = m.meta.tokens;
      const held = (id: string) => ex.exchange.engine.balance(address).tokens.get(id)?.available ?? 0;
      const yes0 = held(yes!);
      const no0 = held(no!);

      const split = await runMmkit(['split', cid, '3.25', '--json', '--data-dir', dir], { env });
      expect(split.code, split.err).toBe(0);
      expect(split.err).toContain(`asking the venue it last traded on, ${base}/clob (from the store's ledger epoch)`);
      expect(split.err).toContain('--exchange-url');
      expect(JSON.parse(split.out)).toMatchObject({ collateralDelta: '-3.25', recorded: 'recorded' });
      expect(held(yes!) - yes0).toBe(3_250_000);
      expect(held(no!) - no0).toBe(3_250_000);

      const merge = await runMmkit(['merge', cid, '3.25', '--json', '--data-dir', dir], { env });
      expect(merge.code, merge.err).toBe(0);
      expect(merge.err).toContain('asking the venue it last traded on');
      expect(JSON.parse(merge.out)).toMatchObject({ collateralDelta: '3.25', recorded: 'recorded' });
      expect(held(yes!)).toBe(yes0);

      const store = openStore(join(dir, 'mmkit.db'), { checkpoint: 'auto' });
      const ops = store.operations().map((x) => ({ kind: x.kind, amount: x.amount, market: x.market }));
      store.close();
      expect(ops.filter((x) => x.market === cid)).toEqual([
        { kind: 'split', amount: 3_250_000, market: cid },
        { kind: 'merge', amount: 3_250_000, market: cid },
      ]);

      // --exchange-url still wins: the decoy is asked, without the note, and nothing is recorded there
      const other = await runMmkit(
        ['split', cid, '1', '--json', '--data-dir', dir, '--exchange-url', decoy.urls.clob_url.replace(/\/clob$/, '')],
        { env },
      );
      expect(other.err).not.toContain('last traded on');
      expect(held(yes!)).toBe(yes0);
    } finally {
      await decoy.close();
    }
  }, 180_000);
});
