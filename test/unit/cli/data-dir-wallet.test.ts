/**
 * dataDirAccount (src/cli/data-dir-wallet.ts): a recovery command given no wallet acts as the account
 * its data dir records, and never mints or uses a paper wallet of another account (findings-5 F3).
 * Real files and a real SQLite store.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/cli/config.ts';
import { dataDirAccount, otherAccountNote } from '../../../src/cli/data-dir-wallet.ts';
import { ConfigError } from '../../../src/core/errors.ts';
import { openStore } from '../../../src/store/store.ts';

const rnd = () => new Wallet(Wallet.createRandom().privateKey);
const fresh = () => mkdtempSync(join(tmpdir(), 'mmkit-ddw-'));
const cfgOf = (dir: string) => loadConfig(undefined, { 'bot.dataDir': dir }, {});
const keystoreOf = (w: Wallet) => JSON.stringify({ address: w.address.slice(2).toLowerCase(), version: 3 });
const epoch = (dir: string, address: string) => {
  const s = openStore(join(dir, 'mmkit.db'));
  s.openEpoch({ venue: 'http://127.0.0.1:1/clob#137', world: null, address: address.toLowerCase() });
  s.close();
};

async function refusal(p: Promise<unknown>): Promise<ConfigError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ConfigError);
  return e as ConfigError;
}

describe('dataDirAccount', () => {
  const notes: string[] = [];
  const note = (m: string) => notes.push(m);

  it('nothing recorded: the paper wallet as before', async () => {
    const dir = fresh();
    const r = await dataDirAccount(cfgOf(dir), { configGiven: false, env: {} }, note);
    expect(r.cfg.bot.keystoreFile).toBe('');
    expect(r.recorded).toBeUndefined();
  });

  it('a data dir holding a keystore and no paper wallet: refused, naming --keystore', async () => {
    const dir = fresh();
    writeFileSync(join(dir, 'keystore.json'), keystoreOf(rnd()));
    const e = await refusal(dataDirAccount(cfgOf(dir), { configGiven: false, env: {} }, note));
    expect(e.message).toContain(`--keystore ${join(dir, 'keystore.json')}`);
  });

  it("the keystore its daemon recorded in venue.json is used; the store's account decides otherwise", async () => {
    const dir = fresh();
    const ks = join(fresh(), 'ks.json');
    writeFileSync(ks, keystoreOf(rnd()));
    writeFileSync(
      join(dir, 'venue.json'),
      JSON.stringify({ pid: 2 ** 22 + 1, url: 'http://127.0.0.1:1', keystore: ks }),
    );
    const r = await dataDirAccount(cfgOf(dir), { configGiven: false, env: {} }, note);
    expect(r.cfg.bot.keystoreFile).toBe(ks);
    expect(notes.at(-1)).toContain(`using the keystore its daemon traded with, ${ks}`);

    const d2 = fresh();
    const a = rnd();
    const b = rnd();
    epoch(d2, a.address);
    // the paper wallet is the recorded account: used
    writeFileSync(join(d2, 'paper-wallet.key'), a.privateKey + '\n');
    expect((await dataDirAccount(cfgOf(d2), { configGiven: false, env: {} }, note)).recorded?.address).toBe(
      a.address.toLowerCase(),
    );
    // another account's paper wallet: refused, naming the recorded account
    writeFileSync(join(d2, 'paper-wallet.key'), b.privateKey + '\n');
    const e = await refusal(dataDirAccount(cfgOf(d2), { configGiven: false, env: {} }, note));
    expect(e.message).toContain(`its daemon traded as ${a.address}`);
    expect(e.message).toContain(`is another account (${b.address})`);
    // the data dir's keystore holds the recorded account: used
    writeFileSync(join(d2, 'keystore.json'), keystoreOf(a));
    const r2 = await dataDirAccount(cfgOf(d2), { configGiven: false, env: {} }, note);
    expect(r2.cfg.bot.keystoreFile).toBe(join(d2, 'keystore.json'));
    // a wallet given explicitly is kept; the command says it is another account
    const r3 = await dataDirAccount(cfgOf(d2), { configGiven: false, env: { MMKIT_PRIVATE_KEY: b.privateKey } }, note);
    expect(r3.cfg.bot.keystoreFile).toBe('');
    expect(otherAccountNote(d2, r3.recorded, b.address)).toContain(`not ${a.address}`);
    expect(otherAccountNote(d2, r3.recorded, a.address)).toBeUndefined();
  });
});
