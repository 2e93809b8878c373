/**
 * The account a fleet operator command acts on (src/cli/fleet-account.ts): with venue.funder set
 * the fleet is the funder's (its members join as their venue's account, the funder: findings-5 F7),
 * not the signing wallet's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import { fleetAccount } from '../../../src/cli/fleet-account.ts';
import { ConfigError } from '../../../src/core/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'mmkit-fleet-account-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const FUNDER = '0xAbCdEf0123456789aBcDeF0123456789AbCdEf01';

describe('fleetAccount', () => {
  it('--account first, then venue.funder (lower case), then the wallet', async () => {
    const w = new Wallet(Wallet.createRandom().privateKey);
    writeFileSync(join(dir, 'paper-wallet.key'), `${w.privateKey}\n`, { mode: 0o600 });
    const cfg = { keystoreFile: '', dataDir: dir };
    expect(await fleetAccount('0x1111111111111111111111111111111111111111', cfg, {}, FUNDER)).toBe(
      '0x1111111111111111111111111111111111111111',
    );
    expect(await fleetAccount(undefined, cfg, {}, FUNDER)).toBe(FUNDER.toLowerCase());
    expect((await fleetAccount(undefined, cfg, {})).toLowerCase()).toBe(w.address.toLowerCase());
  });

  it('no wallet and no funder: a ConfigError naming --account', async () => {
    const empty = mkdtempSync(join(dir, 'empty-'));
    await expect(fleetAccount(undefined, { keystoreFile: '', dataDir: empty }, {})).rejects.toThrow(ConfigError);
    await expect(fleetAccount(undefined, { keystoreFile: '', dataDir: empty }, {})).rejects.toThrow(/--account/);
    // a funder needs no wallet on the operator's machine
    expect(await fleetAccount(undefined, { keystoreFile: '', dataDir: empty }, {}, FUNDER)).toBe(FUNDER.toLowerCase());
  });
});
