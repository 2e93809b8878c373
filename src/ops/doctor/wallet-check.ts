/**
 * The wallet check: where the signing key comes from (an encrypted keystore, the environment, the
 * paper wallet of the data dir) and whether its file is readable by others.
 */
import { fail, pass, warn, type Check } from './check.ts';

/** Where the wallet came from (src/cli/wallet.ts resolves it), or why it could not be loaded. */
export type WalletFacts =
  | {
      readonly kind: 'keystore' | 'private-key' | 'paper';
      readonly address: string;
      readonly file?: string;
      /** The file's permission bits (stat mode & 0o777), when it has a file. */
      readonly mode?: number;
      /** A keystore is used while MMKIT_PRIVATE_KEY is set too (and ignored): two sources are a warn. */
      readonly ignoredPrivateKey?: boolean;
    }
  /** `noPaperWallet`: a paper venue whose data dir has no paper wallet yet (`mmkit run` creates it). */
  | { readonly error: string; readonly noPaperWallet?: boolean };

const ID = 'wallet';
const TITLE = 'wallet source and key file';

/**
 * The fix of an unloadable wallet, by what failed: a wrong or missing password or key in the
 * environment is checked first (re-importing the key does not mend a mistyped password).
 */
function unloadableFix(error: string): string {
  // no source at all (its message names both ways, the password's variable too: trial 20 F6)
  if (/^no wallet:|so it needs a wallet/.test(error))
    return 'import the key once with `mmkit keys import` (an encrypted keystore), then set bot.keystoreFile and MMKIT_KEYSTORE_PASSWORD (or set MMKIT_PRIVATE_KEY)';
  if (/MMKIT_KEYSTORE_PASSWORD/.test(error))
    return 'check MMKIT_KEYSTORE_PASSWORD: it must be the password the keystore was written with (`mmkit keys import`); only if it is lost, import the key again with `mmkit keys import --force`';
  if (/MMKIT_PRIVATE_KEY/.test(error))
    return 'check MMKIT_PRIVATE_KEY (0x + 64 hex digits), or prefer an encrypted keystore: `mmkit keys import`, then bot.keystoreFile and MMKIT_KEYSTORE_PASSWORD';
  return 'import the key once with `mmkit keys import` (an encrypted keystore), then set bot.keystoreFile and MMKIT_KEYSTORE_PASSWORD';
}

/**
 * Judge the wallet: unloadable is a fail; a key file that group or others can read is a warn (the
 * keystore is encrypted, the paper key is play money), as is a key in the environment of a real
 * venue's process (any process of the user may read it: prefer the keystore), as are two sources
 * at once (a keystore and MMKIT_PRIVATE_KEY: the keystore is used, the key ignored).
 */
export function walletCheck(w: WalletFacts, paper: boolean): Check {
  if ('error' in w && w.noPaperWallet === true)
    return warn(
      ID,
      TITLE,
      `no paper wallet yet: ${w.error}`,
      '`mmkit run` creates one on its first start (or pass --data-dir)',
    );
  if ('error' in w) return fail(ID, TITLE, `no usable wallet: ${w.error}`, unloadableFix(w.error));
  const mode = w.mode === undefined ? '' : ` (mode ${(w.mode & 0o777).toString(8).padStart(3, '0')})`;
  if (w.file !== undefined && w.mode !== undefined && (w.mode & 0o077) !== 0)
    return warn(
      ID,
      TITLE,
      `${w.kind} ${w.file} of ${w.address} is readable by group or others${mode}`,
      `chmod 600 ${w.file}`,
    );
  if (w.ignoredPrivateKey === true)
    return warn(
      ID,
      TITLE,
      `${w.address} from the keystore ${w.file ?? ''}; MMKIT_PRIVATE_KEY is set too and ignored (the keystore wins)`,
      'unset MMKIT_PRIVATE_KEY, or clear bot.keystoreFile (MMKIT_KEYSTORE_FILE, --keystore) to trade with that key',
    );
  if (w.kind === 'private-key' && !paper)
    return warn(
      ID,
      TITLE,
      `the private key of ${w.address} comes from MMKIT_PRIVATE_KEY (the environment)`,
      'prefer an encrypted keystore: `mmkit keys import`, then bot.keystoreFile with MMKIT_KEYSTORE_PASSWORD',
    );
  const where = w.kind === 'private-key' ? 'MMKIT_PRIVATE_KEY' : `${w.kind} ${w.file ?? ''}`.trim();
  return pass(ID, TITLE, `${w.address} from ${where}${mode}`);
}
