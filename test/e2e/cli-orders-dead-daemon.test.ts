/**
 * After a daemon crash (SIGKILL: its lock and venue.json stay behind), the recovery commands the
 * crash message names (`mmkit orders`, `mmkit cancel-all`, and `mmkit positions`) given only
 * `--data-dir` must ask the venue that daemon traded on, not the config's default paper exchange:
 * here a second exchange answers on the default address and would report a confident "0 open
 * order(s)". After a clean stop (no venue.json) the store's ledger epoch names the venue. A daemon
 * that ran the in-process paper exchange took it with it (clean stop or crash): nothing is asked, its
 * random port least of all; orders and cancel-all say nothing rests, positions points to the store.
 * Real paper exchanges on loopback, the real clients and a real SQLite store.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrDeriveApiKey } from '../../src/api/auth.ts';
import { ClobClient } from '../../src/api/clob.ts';
import { createTransport, type HttpTransport } from '../../src/api/http/transport.ts';
import { OrderBuilder } from '../../src/api/orders.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { openStore } from '../../src/store/store.ts';
import { runMmkit } from './support/cli.ts';

let venue: RunningExchange;
let decoy: RunningExchange;
let base: string;
let env: Record<string, string>;
let transport: HttpTransport;
let clob: ClobClient;
let wallet: Wallet;

beforeAll(async () => {
  venue = await startExchange({ port: 0, seed: 7, world: { agents: 'none', lifecycle: false } });
  decoy = await startExchange({ port: 0, seed: 8, world: { agents: 'none', lifecycle: false } });
  base = venue.urls.clob_url.replace(/\/clob$/, '');
  // the config's default paper exchange (exchange.host:exchange.port) is the decoy
  env = { MMKIT_EXCHANGE_PORT: new URL(decoy.urls.clob_url).port };
  wallet = new Wallet(Wallet.createRandom().privateKey);
  transport = createTransport({ urls: { clob: venue.urls.clob_url }, signer: wallet, chainId: 137 });
  transport.setCredentials(await createOrDeriveApiKey(transport));
  clob = new ClobClient(transport);
});

afterAll(async () => {
  await transport?.close();
  await venue?.close();
  await decoy?.close();
});

/** A data dir holding the wallet as its paper wallet, with `n` resting BUY orders of it at the venue. */
async function dataDirWithOrders(n: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'mmkit-crash-'));
  writeFileSync(join(dir, 'paper-wallet.key'), wallet.privateKey + '\n', { mode: 0o600 });
  const m = (await clob.markets()).data.find((x) => x.active && x.acceptingOrders)!;
  const builder = new OrderBuilder({ wallet, chainId: 137 });
  for (let i = 0; i < n; i++)
    await clob.postOrder(
      builder.buildLimit({
        tokenId: m.tokens[0]!.tokenId,
        side: 'BUY',
        price: m.tickSize,
        size: '10',
        tick: m.tickSize,
        negRisk: m.negRisk,
      }),
    );
  return dir;
}

describe('venue commands with --data-dir after the daemon is gone', () => {
  it("a crashed daemon's venue.json: orders, positions and cancel-all ask its venue, and say so", async () => {
    const dir = await dataDirWithOrders(3);
    const pid = 2 ** 22 + 4321;
    // what a daemon killed with SIGKILL leaves behind
    writeFileSync(join(dir, 'venue.json'), JSON.stringify({ pid, url: base }) + '\n');
    writeFileSync(
      join(dir, 'daemon.lock'),
      JSON.stringify({ pid, host: hostname(), startedAt: '2026-11-27T15:00:00.000Z', nonce: 'x' }),
    );
    const listed = await runMmkit(['orders', '--json', '--data-dir', dir], { env });
    expect(listed.code, listed.err).toBe(0);
    expect(JSON.parse(listed.out).count).toBe(3);
    expect(listed.err).toContain(`asking the venue it last traded on, ${base}/clob (from ${join(dir, 'venue.json')}`);
    expect(listed.err).toContain('--exchange-url');
    const text = await runMmkit(['orders', '--data-dir', dir], { env });
    expect(text.err).toContain(`3 open order(s) of ${wallet.address} at ${base}`);
    const pos = await runMmkit(['positions', '--data-dir', dir], { env });
    expect(pos.code, pos.err).toBe(0);
    expect(pos.err).toContain(`at ${base}`);
    const c = await runMmkit(['cancel-all', '--json', '--data-dir', dir], { env });
    expect(c.code, c.err).toBe(0);
    expect(JSON.parse(c.out)).toMatchObject({ open: 0 });
    expect(JSON.parse(c.out).canceled).toHaveLength(3);
    // --exchange-url still picks another venue, without the note
    const other = await runMmkit(['orders', '--json', '--data-dir', dir, '--exchange-url', decoy.urls.clob_url], {
      env,
    });
    expect(other.code, other.err).toBe(0);
    expect(other.err).not.toContain('last traded on');
  }, 120_000);

  it("after a clean stop (no venue.json) the store's ledger epoch names the venue", async () => {
    const dir = await dataDirWithOrders(2);
    const store = openStore(join(dir, 'mmkit.db'));
    store.openEpoch({ venue: `${base}/clob#137`, world: null, address: wallet.address.toLowerCase() });
    store.close();
    const listed = await runMmkit(['orders', '--json', '--data-dir', dir], { env });
    expect(listed.code, listed.err).toBe(0);
    expect(JSON.parse(listed.out).count).toBe(2);
    expect(listed.err).toContain("(from the store's ledger epoch)");
    await runMmkit(['cancel-all', '--data-dir', dir], { env });
    // nothing recorded: the default paper exchange, as before
    rmSync(join(dir, 'mmkit.db'));
    const d = await runMmkit(['orders', '--json', '--data-dir', dir], { env });
    expect(d.code, d.err).toBe(0);
    expect(JSON.parse(d.out).count).toBe(0);
    expect(d.err).not.toContain('last traded on');
  }, 120_000);

  it('after a run on the in-process paper exchange (clean stop, then a crash): nothing asked, nothing rests', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-inproc-gone-'));
    const run = await runMmkit(['run', '--data-dir', dir, '--http-port', '0', '--duration', '8s'], {
      env,
      timeoutMs: 120_000,
    });
    expect(run.code, run.err.slice(-2000)).toBe(0);
    const checkAll = async (from: string) => {
      const listed = await runMmkit(['orders', '--json', '--data-dir', dir], { env });
      expect(listed.code, listed.err).toBe(0);
      expect(JSON.parse(listed.out)).toEqual({ count: 0, orders: [] });
      expect(listed.err).toContain(`(from ${from}), was its daemon's paper exchange in-process, which ended with it`);
      expect(listed.err).not.toMatch(/asking the venue|unreachable/);
      const text = await runMmkit(['orders', '--data-dir', dir], { env });
      expect(text.code, text.err).toBe(0);
      expect(text.err).toContain('no order of it rests anywhere');
      const c = await runMmkit(['cancel-all', '--json', '--data-dir', dir], { env });
      expect(c.code, c.err).toBe(0);
      expect(JSON.parse(c.out)).toEqual({ canceled: [], notCanceled: {}, open: 0, openOrders: [] });
      const pos = await runMmkit(['positions', '--data-dir', dir], { env });
      expect(pos.code, pos.err).toBe(1);
      expect(pos.err).toContain(`mmkit positions --source store --data-dir ${dir}`);
      expect(pos.err).not.toContain('unreachable');
    };
    // a clean stop removed venue.json: the store's epoch says the venue was in-process
    await checkAll("the store's ledger epoch");
    const store = openStore(join(dir, 'mmkit.db'));
    expect(store.currentEpoch()?.venue).toMatch(/^inprocess:http:\/\/127\.0\.0\.1:\d+\/clob#137$/);
    store.close();
    // a crash leaves venue.json with inProcess (and, here, a store epoch of an external venue: venue.json wins)
    const pid = 2 ** 22 + 4322;
    writeFileSync(join(dir, 'venue.json'), JSON.stringify({ pid, url: base, inProcess: true }) + '\n');
    writeFileSync(
      join(dir, 'daemon.lock'),
      JSON.stringify({ pid, host: hostname(), startedAt: '2026-11-27T15:00:00.000Z', nonce: 'x' }),
    );
    await checkAll(`${join(dir, 'venue.json')} (its daemon is gone)`);
    // --exchange-url still asks that venue
    const other = await runMmkit(['orders', '--json', '--data-dir', dir, '--exchange-url', base], { env });
    expect(other.code, other.err).toBe(0);
    expect(other.err).not.toContain('in-process');
  }, 180_000);
});
