/**
 * Which wallet a command trades or queries as, shared by `mmkit run` and the operator commands
 * (`orders`, `cancel-all`, `keys`, ...), so a second terminal acts as the daemon's account:
 *
 *   1. bot.keystoreFile (env MMKIT_KEYSTORE_FILE, flag --keystore), decrypted with MMKIT_KEYSTORE_PASSWORD;
 *   2. else the private key in MMKIT_PRIVATE_KEY;
 *   3. else, only against a paper venue (in-process or on loopback), the paper wallet kept in
 *      <dataDir>/paper-wallet.key (mode 0600), created on first use.
 *
 * A real venue never gets a throwaway wallet by accident: without 1 or 2 it is a ConfigError.
 * Keys are never taken from argv (visible in `ps`) and never printed.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { loadWallet } from '../api/auth.ts';
import { ConfigError } from '../core/errors.ts';
import { ensureDataDir } from './data-dir-create.ts';
import { PAPER_WALLET_FILE } from './paper-wallet-file.ts';

export { PAPER_WALLET_FILE } from './paper-wallet-file.ts';

export type WalletKind = 'keystore' | 'private-key' | 'paper';

export interface ResolvedWallet {
  readonly wallet: Wallet;
  readonly kind: WalletKind;
  /** The keystore or paper-wallet file, when the key came from one. */
  readonly file?: string;
  /** True when the paper wallet was created just now. */
  readonly created: boolean;
}

export interface WalletOptions {
  /** bot.keystoreFile ('' when unset). */
  keystoreFile: string;
  /** bot.dataDir: where the paper wallet lives. */
  dataDir: string;
  /** Whether a paper wallet may be used (the venue is the paper exchange). */
  allowPaper: boolean;
  /** Create the paper wallet when it does not exist yet (default true). */
  createPaper?: boolean;
  /** The environment (default process.env). */
  env?: Record<string, string | undefined>;
}

/**
 * Resolve the wallet.
 * @throws ConfigError naming MMKIT_KEYSTORE_PASSWORD / keystoreFile / MMKIT_PRIVATE_KEY when the
 *   configured source is unusable (never echoing a key or password), or `bot.keystoreFile` when no
 *   wallet is configured for a non-paper venue
 */
export async function resolveWallet(o: WalletOptions): Promise<ResolvedWallet> {
  const env = o.env ?? process.env;
  if (o.keystoreFile !== '') {
    const wallet = await loadWallet({ keystoreFile: o.keystoreFile, env });
    return { wallet, kind: 'keystore', file: o.keystoreFile, created: false };
  }
  if (env['MMKIT_PRIVATE_KEY']) return { wallet: await loadWallet({ env }), kind: 'private-key', created: false };
  if (!o.allowPaper) {
    throw new ConfigError(
      'bot.keystoreFile',
      'this venue is not a paper exchange, so it needs a wallet: set bot.keystoreFile (or MMKIT_KEYSTORE_FILE, or --keystore) with MMKIT_KEYSTORE_PASSWORD, or MMKIT_PRIVATE_KEY',
    );
  }
  const file = join(o.dataDir, PAPER_WALLET_FILE);
  if (existsSync(file)) {
    const key = readFileSync(file, 'utf8').trim();
    try {
      return { wallet: new Wallet(key), kind: 'paper', file, created: false };
    } catch {
      throw new ConfigError('bot.dataDir', `${file} does not hold a private key (0x + 64 hex digits)`);
    }
  }
  if (o.createPaper === false)
    throw new ConfigError('bot.dataDir', `no paper wallet at ${file} (a daemon creates it on its first start)`);
  // (a path that cannot be a directory, a file or under /proc, is refused first: ./data-dir-create.ts)
  ensureDataDir(o.dataDir);
  const w = Wallet.createRandom();
  writeFileSync(file, w.privateKey + '\n', { mode: 0o600 });
  chmodSync(file, 0o600);
  return { wallet: new Wallet(w.privateKey), kind: 'paper', file, created: true };
}
