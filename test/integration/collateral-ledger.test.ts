/**
 * The collateral keeper merges no more than the bot's LEDGER holds of both tokens, against the real
 * paper exchange on loopback, the live venue adapter and a real SQLite store (trial 8 F1). Before,
 * it merged what the venue held: holdings the ledger had not booked yet (a split made with
 * `mmkit split` beside the running daemon, booked by the next position audit) were merged at once,
 * the merge's legs booked against a ledger without them (a short of both tokens until the audit,
 * whose correction then named the wrong cause).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock } from '../../src/core/clock.ts';
import type { TokenId } from '../../src/core/ids.ts';
import { createTrader } from '../../src/kernel/create-trader.ts';
import { resolveRiskLimits } from '../../src/risk/limits.ts';
import { openStore, type StoredOperation } from '../../src/store/store.ts';
import { loadStrategy } from '../../src/strategy/loader.ts';
import { resolveParams } from '../../src/strategy/params.ts';
import { eventually, startVenue, type TestVenue, liveVenueFor } from './support/setup.ts';

const STRATEGY = new URL('../support/fixed-quotes-strategy.ts', import.meta.url).pathname;

let v: TestVenue;
let dir: string;
beforeAll(async () => {
  v = await startVenue();
  dir = mkdtempSync(join(tmpdir(), 'mmkit-collateral-ledger-'));
}, 60_000);
afterAll(async () => {
  await v?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A bot that merges (every 200 ms) on a fresh wallet holding 10 of both tokens the ledger does not know. */
async function run(
  name: string,
  audit: boolean,
  body: (ctx: { held: () => number[]; ledger: () => number[]; ops: () => StoredOperation[] }) => Promise<void>,
) {
  const wallet = new Wallet(Wallet.createRandom().privateKey);
  const clock = new LiveClock();
  const venue = await liveVenueFor(v, { wallet, clock, silenceMs: 0 }, 'content', 'relayer');
  const market = (await venue.markets()).find((m) => m.market === v.m1.condition_id)!;
  const tokens = v.m1.tokens.map((t) => t.token_id);
  // held at the venue, not in the ledger: as after a split made beside the daemon
  for (const t of tokens) v.running.exchange.setTokens(wallet.address, t, 10_000_000);
  const store = openStore(join(dir, `${name}.db`), { clock });
  const def = await loadStrategy(STRATEGY);
  const bot = createTrader({
    venue,
    clock,
    store,
    strategy: def,
    params: resolveParams(def.params, {}),
    markets: [market],
    limits: resolveRiskLimits({}),
    log: { debug() {}, info() {}, warn() {}, error() {} },
    tickMs: 200,
    collateral: { mergeMinSize: 1_000_000, redeem: false, everyMs: 200 },
    ...(audit ? { positionAudit: { everyMs: 0, opening: 'unknown' as const } } : {}),
  });
  const balance = () => v.running.exchange.engine.balance(wallet.address.toLowerCase()).tokens;
  const held = () => tokens.map((t) => (balance().get(t)?.available ?? 0) + (balance().get(t)?.reserved ?? 0));
  const ledger = () => tokens.map((t) => store.positions().find((p) => p.tokenId === (t as TokenId))?.size ?? 0);
  try {
    await bot.start();
    await body({ held, ledger, ops: () => store.operations() });
  } finally {
    await bot.stop();
    await bot.cancelAll('test end');
    await bot.close();
    store.close();
    await venue.close();
  }
}

describe('the collateral keeper merges what the ledger holds (trial 8 F1)', () => {
  it('holdings the ledger has not booked are not merged: no merge leg books a short', async () => {
    await run('unbooked', false, async ({ held, ledger }) => {
      // several keeper runs (every 200 ms)
      await new Promise((r) => setTimeout(r, 2_000));
      expect(held()).toEqual([10_000_000, 10_000_000]);
      expect(ledger()).toEqual([0, 0]);
    });
  }, 60_000);

  it('once the position audit booked them, they are merged, and the ledger ends flat, never short', async () => {
    await run('booked', true, async ({ held, ledger, ops }) => {
      expect(await eventually(() => held().every((x) => x === 0), 30_000), `venue holds ${held()}`).toBe(true);
      expect(await eventually(() => ledger().every((x) => x === 0), 10_000), `ledger ${ledger()}`).toBe(true);
      // the merge is kept with the relayer's id and its on-chain hash (the venue's activity names it by the hash)
      const merges = ops().filter((o) => o.kind === 'merge');
      expect(merges.length).toBeGreaterThan(0);
      for (const m of merges) expect(m.txHash, JSON.stringify(m)).toMatch(/^0x[0-9a-f]{64}$/);
    });
  }, 60_000);
});
