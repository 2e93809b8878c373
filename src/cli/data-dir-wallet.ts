/**
 * The account the recovery commands act as (`mmkit orders`, `orders cancel`, `cancel-all`,
 * `positions`) when they are given a data dir but no wallet.
 *
 * Why (findings-5 F3): after a crash the operator runs `mmkit orders --data-dir DIR`. Without the
 * daemon's --config the keystore it traded with is unknown, and on a loopback venue wallet.ts falls
 * back to the paper wallet of the data dir, creating one when there is none: a NEW account, whose
 * answer "0 open order(s)" is confident and wrong while the daemon's orders rest. So, when neither a
 * keystore nor MMKIT_PRIVATE_KEY is given, these commands first ask what the data dir records:
 *
 *   1. the config file and keystore its daemon was started with (<dataDir>/venue.json, written at
 *      start, left behind by a crash): without --config the recorded config is loaded (the venue's
 *      URLs, the funder and signature type with it), and the recorded keystore is used;
 *   2. the account of the store's current ledger epoch: the data dir's paper wallet when it is that
 *      account, else the data dir's keystore.json when it holds that address (its address is readable
 *      without the password);
 *   3. otherwise a paper wallet is used (and created) only when nothing says another account traded
 *      here: never in a data dir that holds a keystore, never for an epoch of another address. Then
 *      the command refuses (exit 2) naming what to pass: the daemon's --config, or its keystore.
 *
 * With a wallet given (--keystore, bot.keystoreFile, MMKIT_PRIVATE_KEY) nothing is replaced: the
 * command only says so when that account is not the one the store records (`otherAccountNote`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../core/errors.ts';
import { displayAddress } from '../ops/address-display.ts';
import { loadConfig, type MmkitConfig } from './config.ts';
import { storeCurrentEpoch, storeFileOf } from './data-dir-venue.ts';
import { DAEMON_VENUE_FILE, readDaemonVenue } from './venue.ts';
import { PAPER_WALLET_FILE } from './paper-wallet-file.ts';

/** The keystore file name `mmkit keys import` writes in the data dir by default. */
const DATA_DIR_KEYSTORE = 'keystore.json';

/** The account the data dir's store records (its current ledger epoch's), if any. */
export interface RecordedAccount {
  /** Lower case. */
  readonly address: string;
  /** Where it is recorded, for messages. */
  readonly from: string;
}

/** What a recovery command acts with (see `dataDirAccount`). */
export interface DataDirAccount {
  /** The configuration to act with (the recorded config or keystore applied when used). */
  readonly cfg: MmkitConfig;
  /** The account the data dir's store records, when it records one. */
  readonly recorded?: RecordedAccount;
}

/**
 * The address of the current ledger epoch of the data dir's store (bot.storeFile, else
 * <dataDir>/mmkit.db), lower case; undefined when there is no store, no epoch, or the legacy epoch
 * (no address). Never creates a store.
 */
export async function storeEpochAddress(cfg: MmkitConfig): Promise<RecordedAccount | undefined> {
  const a = (await storeCurrentEpoch(cfg))?.address;
  return a ? { address: a.toLowerCase(), from: `the ledger epoch of ${storeFileOf(cfg)}` } : undefined;
}

/** The address of a keystore file (stored in clear in its JSON), lower case with 0x; undefined when unreadable. */
function keystoreAddress(file: string): string | undefined {
  try {
    const a = (JSON.parse(readFileSync(file, 'utf8')) as { address?: unknown }).address;
    if (typeof a !== 'string' || !/^(0x)?[0-9a-fA-F]{40}$/.test(a)) return undefined;
    return (a.startsWith('0x') ? a : `0x${a}`).toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * The address of the data dir's paper wallet, lower case; undefined when there is none (or it is not a key).
 * ethers is imported here, when a command asks, not when the CLI starts.
 */
async function paperAddress(dataDir: string): Promise<string | undefined> {
  const file = join(dataDir, PAPER_WALLET_FILE);
  if (!existsSync(file)) return undefined;
  const { Wallet } = await import('ethers');
  try {
    return new Wallet(readFileSync(file, 'utf8').trim()).address.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * The configuration a recovery command acts with (see the module comment): the recorded config or
 * keystore of the data dir's daemon when no wallet is given, the data dir's paper wallet only when it
 * is the recorded account or none is recorded. Says on stderr (`note`) what it used and why.
 * @param o.configGiven whether --config was given (a recorded config is then not loaded)
 * @throws ConfigError (exit 2) when the paper wallet would act for another account than the one the
 *   data dir records, or would be created in a data dir that holds a keystore: naming what to pass
 */
export async function dataDirAccount(
  cfg: MmkitConfig,
  o: { configGiven: boolean; env?: NodeJS.ProcessEnv },
  note: (msg: string) => void,
): Promise<DataDirAccount> {
  const env = o.env ?? process.env;
  const dir = cfg.bot.dataDir;
  const venueFile = join(dir, DAEMON_VENUE_FILE);
  const rec = readDaemonVenue(dir, { checkAlive: false });
  const walletGiven = (c: MmkitConfig) => c.bot.keystoreFile !== '' || (env['MMKIT_PRIVATE_KEY'] ?? '') !== '';
  if (walletGiven(cfg)) {
    const recorded = await storeEpochAddress(cfg);
    return { cfg, ...(recorded !== undefined ? { recorded } : {}) };
  }
  // 1. the daemon's own config and keystore
  if (!o.configGiven && rec?.config !== undefined && existsSync(rec.config)) {
    try {
      cfg = loadConfig(
        rec.config,
        {
          'bot.dataDir': dir,
          'bot.exchangeUrl': cfg.bot.exchangeUrl || undefined,
          'bot.keystoreFile': rec.keystore,
        },
        env,
      );
      note(
        `using the config its daemon ran with, ${rec.config} (recorded in ${venueFile}); pass --config to use another`,
      );
    } catch {
      // a config that no longer loads: its keystore alone, below
    }
  }
  if (cfg.bot.keystoreFile === '' && rec?.keystore !== undefined && existsSync(rec.keystore)) {
    cfg = { ...cfg, bot: { ...cfg.bot, keystoreFile: rec.keystore } };
    note(
      `using the keystore its daemon traded with, ${rec.keystore} (recorded in ${venueFile}); pass --keystore to use another`,
    );
  }
  const recorded = await storeEpochAddress(cfg);
  const withRecorded = (c: MmkitConfig): DataDirAccount => ({
    cfg: c,
    ...(recorded !== undefined ? { recorded } : {}),
  });
  if (walletGiven(cfg)) return withRecorded(cfg);
  // 2. the account the store records: the paper wallet when it is that account, else the data dir's keystore
  const paper = await paperAddress(dir);
  const ksFile = join(dir, DATA_DIR_KEYSTORE);
  const ks = existsSync(ksFile) ? keystoreAddress(ksFile) : undefined;
  if (recorded !== undefined) {
    if (paper === recorded.address) return withRecorded(cfg);
    if (ks === recorded.address) {
      note(`using the keystore ${ksFile}: it holds ${displayAddress(ks)}, the account of ${recorded.from}`);
      return withRecorded({ ...cfg, bot: { ...cfg.bot, keystoreFile: ksFile } });
    }
  } else if (existsSync(ksFile) && paper === undefined && rec?.keystore === undefined) {
    throw new ConfigError(
      'bot.keystoreFile',
      `${dir} holds a keystore (${ksFile}) and no paper wallet: a paper wallet created here would be another ` +
        `account, whose "0 open" says nothing of the keystore's orders; pass --keystore ${ksFile} (with ` +
        'MMKIT_KEYSTORE_PASSWORD) or the --config its daemon ran with',
    );
  } else if (rec?.keystore === undefined) {
    // 3. nothing says another account traded here: the paper wallet (wallet.ts)
    return withRecorded(cfg);
  }
  const who =
    recorded !== undefined
      ? `its daemon traded as ${displayAddress(recorded.address)} (${recorded.from})`
      : `its daemon traded with the keystore ${rec?.keystore} (recorded in ${venueFile}), which is not there`;
  const paperSays =
    paper !== undefined
      ? `the paper wallet ${join(dir, PAPER_WALLET_FILE)} is another account (${displayAddress(paper)})`
      : 'a paper wallet created here would be another account';
  const pass =
    rec?.config !== undefined
      ? `pass --config ${rec.config} (the config its daemon ran with)`
      : 'pass the --config its daemon ran with';
  throw new ConfigError(
    'bot.keystoreFile',
    `no wallet given for the account of ${dir}: ${who}; ${paperSays}, whose orders are not its daemon's; ` +
      `${pass}, or its keystore with --keystore FILE and MMKIT_KEYSTORE_PASSWORD (or MMKIT_PRIVATE_KEY)`,
  );
}

/**
 * A note for a command that acts as another account than the one the data dir's store records
 * (a wallet given explicitly): its answer is about that account, not the daemon's. Undefined when they agree.
 */
export function otherAccountNote(
  dataDir: string,
  recorded: RecordedAccount | undefined,
  address: string,
): string | undefined {
  if (recorded === undefined || recorded.address === address.toLowerCase()) return undefined;
  return (
    `this is the account ${displayAddress(address)}, not ${displayAddress(recorded.address)}, the one the daemon of ` +
    `${dataDir} traded as (${recorded.from}): its orders and holdings are not listed here`
  );
}
