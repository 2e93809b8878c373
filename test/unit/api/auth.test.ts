import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Wallet, encryptKeystoreJson } from 'ethers';
import { ConfigError } from '../../../src/core/errors.ts';
import { loadWallet } from '../../../src/api/auth.ts';

describe('loadWallet', () => {
  const w = Wallet.createRandom();

  it('reads the private key from MMKIT_PRIVATE_KEY (or the variable named)', async () => {
    expect((await loadWallet({ env: { MMKIT_PRIVATE_KEY: w.privateKey } })).address).toBe(w.address);
    expect((await loadWallet({ env: { MMKIT_PRIVATE_KEY: w.privateKey.slice(2) } })).address).toBe(w.address);
    expect((await loadWallet({ privateKeyEnv: 'K', env: { K: w.privateKey } })).address).toBe(w.address);
  });

  it('decrypts an encrypted keystore with the password from MMKIT_KEYSTORE_PASSWORD', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mmkit-ks-'));
    const file = join(dir, 'key.json');
    await writeFile(
      file,
      await encryptKeystoreJson({ address: w.address, privateKey: w.privateKey }, 'pw', { scrypt: { N: 1024 } }),
    );
    expect((await loadWallet({ keystoreFile: file, env: { MMKIT_KEYSTORE_PASSWORD: 'pw' } })).address).toBe(w.address);
    const wrong = await loadWallet({ keystoreFile: file, env: { MMKIT_KEYSTORE_PASSWORD: 'wrong-password' } }).then(
      () => new Error('expected a rejection'),
      (e: Error) => e,
    );
    expect(wrong).toBeInstanceOf(ConfigError);
    expect(wrong.message).toMatch(/MMKIT_KEYSTORE_PASSWORD/);
    expect(wrong.message).not.toContain('wrong-password');
    await expect(loadWallet({ keystoreFile: file, env: {} })).rejects.toThrow(/MMKIT_KEYSTORE_PASSWORD.*not set/);
    await expect(
      loadWallet({ keystoreFile: join(dir, 'missing.json'), env: { MMKIT_KEYSTORE_PASSWORD: 'pw' } }),
    ).rejects.toThrow(/cannot read the keystore file.*ENOENT/);
  });

  it('names what is missing and never echoes a key', async () => {
    const none = await loadWallet({ env: {} }).then(
      () => new Error('expected a rejection'),
      (e: Error) => e,
    );
    expect(none).toBeInstanceOf(ConfigError);
    expect(none.message).toMatch(/MMKIT_PRIVATE_KEY/);
    const bad = await loadWallet({ env: { MMKIT_PRIVATE_KEY: '0x1234secretish' } }).then(
      () => new Error('expected a rejection'),
      (e: Error) => e,
    );
    expect(bad).toBeInstanceOf(ConfigError);
    expect(bad.message).not.toContain('1234secretish');
    const zero = await loadWallet({ env: { MMKIT_PRIVATE_KEY: '0x' + '0'.repeat(64) } }).then(
      () => new Error('expected a rejection'),
      (e: Error) => e,
    );
    expect(zero).toBeInstanceOf(ConfigError);
    expect(zero.message).not.toContain('0'.repeat(64));
  });
});
