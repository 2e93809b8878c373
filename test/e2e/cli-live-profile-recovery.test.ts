/**
 * The shipped live profile (config/polymarket.json: per-API URLs, `venue.contentUrl` "", a keystore)
 * with its URLs pointed at a paper exchange on loopback, as an operator tries it before the real
 * venue (findings-5):
 *   F1: every venue command works with it (`keys address`, `markets`, `positions`, `orders`,
 *       `cancel-all`): the content API is optional;
 *   F3: after the daemon is killed (SIGKILL), `orders` / `cancel-all` / `positions` given only
 *       `--data-dir` act as the account it traded (its recorded config and keystore), never as a
 *       paper wallet minted in its data dir; without a key for that account they refuse (exit 2);
 *   F5: `mmkit status`'s crash message names the `--config` the daemon ran with, and that command works.
 * Real paper exchange on loopback, the real `mmkit` processes, a real SQLite store.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet, encryptKeystoreJson } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import { exited, waitUntil } from './support/bot-harness.ts';
import { ROOT, runMmkit } from './support/cli.ts';

const PASSWORD = 'e2e-keystore-password';
let ex: RunningExchange;
let dir: string;
let configFile: string;
let wallet: Wallet;

/** config/polymarket.json with every URL on the paper exchange, the keystore and the data dir in `dir`. */
function profileLike(base: string): Record<string, unknown> {
  const c = JSON.parse(readFileSync(join(ROOT, 'config/polymarket.json'), 'utf8')) as {
    venue: Record<string, unknown>;
    doctor: Record<string, unknown>;
    bot: Record<string, unknown>;
  };
  const ws = base.replace(/^http/, 'ws');
  Object.assign(c.venue, {
    clobUrl: `${base}/clob`,
    gammaUrl: `${base}/gamma`,
    dataUrl: `${base}/data`,
    relayerUrl: `${base}/relayer`,
    wsUrl: ws,
    rtdsUrl: `${ws}/rtds`,
  });
  expect(c.venue['contentUrl']).toBe('');
  c.doctor['geoblockUrl'] = `${base}/api/geoblock`;
  Object.assign(c.bot, { keystoreFile: join(dir, 'keystore.json'), dataDir: dir });
  return c;
}

beforeAll(async () => {
  // the venue's dead-man switch far away: the orders the daemon leaves rest while the commands look
  ex = await startExchange({
    port: 0,
    seed: 21,
    exchange: { heartbeatTimeoutMs: 600_000 },
    world: { agents: 'default', lifecycle: false, priceFeed: true },
  });
  dir = mkdtempSync(join(tmpdir(), 'mmkit-live-profile-'));
  wallet = new Wallet(Wallet.createRandom().privateKey);
  writeFileSync(
    join(dir, 'keystore.json'),
    await encryptKeystoreJson({ address: wallet.address, privateKey: wallet.privateKey }, PASSWORD, {
      scrypt: { N: 1024 },
    }),
    { mode: 0o600 },
  );
  configFile = join(dir, 'my-polymarket.json');
  writeFileSync(configFile, JSON.stringify(profileLike(ex.urls.clob_url.replace(/\/clob$/, '')), null, 2));
}, 60_000);

afterAll(async () => {
  await ex?.close();
});

const withPassword = { MMKIT_KEYSTORE_PASSWORD: PASSWORD };

describe('the live profile on a loopback venue', () => {
  it('F1: venue commands accept contentUrl ""; F3/F5: after a crash the recovery commands act as its account', async () => {
    // F1: the commands with the profile itself
    for (const args of [['keys', 'address'], ['markets', '--limit', '1'], ['positions'], ['orders'], ['cancel-all']]) {
      const r = await runMmkit([...args, '--config', configFile], { env: withPassword });
      expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(0);
      expect(r.err).not.toContain('contentUrl');
    }

    // the daemon with the profile, killed while its quotes rest
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (!k.startsWith('MMKIT_') && !k.startsWith('VITEST') && v !== undefined) env[k] = v;
    const p = spawn(process.execPath, [join(ROOT, 'bin/mmkit.js'), 'run', '--config', configFile, '--http-port', '0'], {
      cwd: ROOT,
      env: { ...env, ...withPassword },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    p.stderr!.on('data', (d) => (err += d));
    const address = wallet.address.toLowerCase();
    try {
      expect(await waitUntil(() => ex.exchange.openOrders(address).length > 0, 120_000, 200), err.slice(-2000)).toBe(
        true,
      );
    } finally {
      p.kill('SIGKILL');
      await exited(p);
    }
    // the world's agents may still fill some of them, never add one: what a command lists is among
    // these, and at least what rests after it answered
    const resting = new Set(ex.exchange.openOrders(address).map((o) => o.id));
    expect(resting.size).toBeGreaterThan(0);
    const expectListed = (out: string): void => {
      const r = JSON.parse(out) as { address: string; count: number; orders: Array<{ id: string }> };
      expect(r.address).toBe(wallet.address);
      for (const o of r.orders) expect(resting.has(o.id)).toBe(true);
      expect(r.count).toBeGreaterThanOrEqual(ex.exchange.openOrders(address).length);
    };
    const venueRecord = JSON.parse(readFileSync(join(dir, 'venue.json'), 'utf8')) as Record<string, unknown>;
    expect(venueRecord).toMatchObject({ config: configFile, keystore: join(dir, 'keystore.json') });

    // F5: the crash message names the commands with the daemon's --config
    const st = await runMmkit(['status', '--data-dir', dir, '--timeout', '3s']);
    expect(st.code, st.err).toBe(3);
    expect(st.err).toContain(`\`mmkit orders --config ${configFile} --data-dir ${dir}\``);
    expect(st.err).toContain(`\`mmkit cancel-all --config ${configFile} --data-dir ${dir}\``);
    expect(st.err).toContain('MMKIT_KEYSTORE_PASSWORD');
    // ...and the command as printed works
    const printed = await runMmkit(['orders', '--json', '--config', configFile, '--data-dir', dir], {
      env: withPassword,
    });
    expect(printed.code, printed.err).toBe(0);
    expectListed(printed.out);

    // F3: --data-dir alone acts as the daemon's account (its recorded config and keystore), no paper wallet
    const noPassword = await runMmkit(['orders', '--json', '--data-dir', dir]);
    expect(noPassword.code, noPassword.err).toBe(2);
    expect(noPassword.err).toContain('MMKIT_KEYSTORE_PASSWORD');
    const listed = await runMmkit(['orders', '--json', '--data-dir', dir], { env: withPassword });
    expect(listed.code, listed.err).toBe(0);
    expectListed(listed.out);
    expect(listed.err).toContain(`using the config its daemon ran with, ${configFile}`);
    const pos = await runMmkit(['positions', '--data-dir', dir], { env: withPassword });
    expect(pos.code, pos.err).toBe(0);
    expect(pos.err).toContain(`of ${wallet.address}`);
    expect(existsSync(join(dir, 'paper-wallet.key'))).toBe(false);

    // nothing recorded of the config (a clean stop removes venue.json) and the keystore elsewhere:
    // refused, naming what to pass; a paper wallet of another address in the data dir changes nothing
    rmSync(join(dir, 'venue.json'));
    const away = join(tmpdir(), `mmkit-ks-away-${process.pid}.json`);
    renameSync(join(dir, 'keystore.json'), away);
    const refused = await runMmkit(['orders', '--data-dir', dir], { env: withPassword });
    expect(refused.code, refused.err).toBe(2);
    expect(refused.err).toContain(`its daemon traded as ${wallet.address}`);
    expect(refused.err).toContain('--config');
    expect(refused.err).not.toMatch(/0 open order/);
    expect(existsSync(join(dir, 'paper-wallet.key'))).toBe(false);
    const other = new Wallet(Wallet.createRandom().privateKey);
    writeFileSync(join(dir, 'paper-wallet.key'), other.privateKey + '\n', { mode: 0o600 });
    const c0 = await runMmkit(['cancel-all', '--data-dir', dir], { env: withPassword });
    expect(c0.code, c0.err).toBe(2);
    expect(c0.err).toContain(`is another account (${other.address})`);
    expect(c0.out).not.toContain('canceled');
    // the keystore back in the data dir: it holds the recorded account, so it is used
    renameSync(away, join(dir, 'keystore.json'));
    const c = await runMmkit(['cancel-all', '--json', '--data-dir', dir], { env: withPassword });
    expect(c.code, c.err).toBe(0);
    expect(JSON.parse(c.out)).toMatchObject({ address: wallet.address, open: 0 });
    for (const id of JSON.parse(c.out).canceled as string[]) expect(resting.has(id)).toBe(true);
    expect(ex.exchange.openOrders(address)).toHaveLength(0);
  }, 300_000);
});
