/**
 * `mmkit keys`: credentials.
 *
 *  - `keys create` / `keys derive`: the wallet's API key at the venue (L1-signed POST
 *    /auth/api-key, falling back to derive when one exists; or GET /auth/derive-api-key). The
 *    secret and passphrase are printed only with --show-secret, and the key id is masked without
 *    it (under the spec's Bearer auth the key id alone authenticates).
 *  - `keys import`: write an encrypted JSON keystore (ethers v6, scrypt) from a private key read
 *    from stdin (a hidden prompt on a terminal) or from MMKIT_PRIVATE_KEY with --from-env, never
 *    from argv (visible in `ps`). The password comes from MMKIT_KEYSTORE_PASSWORD (or a hidden
 *    prompt on a terminal). `mmkit run --keystore FILE` loads it with the same variable.
 *  - `keys address`: the address of the configured wallet, and where it comes from.
 */
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import type { Wallet } from 'ethers';
import { displayAddress } from '../ops/address-display.ts';
import type { ApiCredentials } from '../api/http/transport.ts';
import { ConfigError } from '../core/errors.ts';
import { action, addCommonOptions, configFrom, printJson, withSession, type CommonOptions } from './common.ts';
import { CliError, EXIT_CODES_HELP, ExitCode, usageError } from './exit-codes.ts';
import { resolveVenue } from './venue.ts';

/** Minimum keystore password length. */
export const MIN_PASSWORD_LENGTH = 8;

interface KeyOptions extends CommonOptions {
  nonce: number;
  showSecret?: boolean;
}

/** The key id with its middle hidden: enough to recognise it, not to use it. */
export function maskKey(k: string): string {
  return k.length <= 8 ? '********' : `${k.slice(0, 8)}…`;
}

function printCreds(
  c: ApiCredentials,
  address: string,
  nonce: number,
  o: KeyOptions,
  how: 'created-or-derived' | 'derived',
): void {
  if (o.json) {
    printJson({
      address,
      nonce,
      how,
      apiKey: o.showSecret ? c.apiKey : maskKey(c.apiKey),
      ...(o.showSecret ? { secret: c.secret, passphrase: c.passphrase } : {}),
      secretShown: o.showSecret === true,
    });
    return;
  }
  process.stderr.write(`mmkit: API key of ${address} (nonce ${nonce})\n`);
  if (o.showSecret) {
    // ready for an env file: mmkit keys derive --show-secret > .env.mmkit (chmod 600)
    process.stdout.write(
      `MMKIT_API_KEY=${c.apiKey}\nMMKIT_API_SECRET=${c.secret}\nMMKIT_API_PASSPHRASE=${c.passphrase}\n`,
    );
  } else {
    process.stdout.write(
      `apiKey      ${maskKey(c.apiKey)}\nsecret      (hidden: --show-secret prints it)\npassphrase  (hidden)\n`,
    );
  }
}

const nonceArg = (v: string) => {
  if (!/^\d{1,15}$/.test(v)) throw new InvalidArgumentError('--nonce takes a non-negative integer');
  return Number(v);
};

/** Read all of stdin as text. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Prompt on the terminal without echoing what is typed. */
async function promptHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((res, rej) => {
    let buf = '';
    const onData = (ch: string) => {
      for (const c of ch) {
        if (c === '\r' || c === '\n' || c === '\u0004') {
          stdin.setRawMode(false);
          stdin.pause();
          stdin.off('data', onData);
          process.stderr.write('\n');
          res(buf);
          return;
        }
        if (c === '\u0003') {
          stdin.setRawMode(false);
          stdin.off('data', onData);
          process.stderr.write('\n');
          rej(new CliError('interrupted', ExitCode.FAILURE));
          return;
        }
        if (c === '\u007f' || c === '\b') buf = buf.slice(0, -1);
        else buf += c;
      }
    };
    stdin.on('data', onData);
  });
}

interface ImportOptions {
  config?: string;
  dataDir?: string;
  out?: string;
  fromEnv?: boolean;
  force?: boolean;
  json?: boolean;
}

export function register(program: Command): void {
  const keys = program
    .command('keys')
    .description('API keys (create, derive) and the encrypted wallet keystore (import, address)');
  keys.addHelpText(
    'after',
    `
Examples:
  mmkit keys derive                                     # the API key id (masked)
  mmkit keys derive --show-secret > .env.mmkit          # MMKIT_API_KEY/SECRET/PASSPHRASE lines
  MMKIT_KEYSTORE_PASSWORD=... mmkit keys import < key.txt
  MMKIT_KEYSTORE_PASSWORD=... mmkit run --keystore data/keystore.json
${EXIT_CODES_HELP}`,
  );

  for (const [name, how] of [
    ['create', 'created-or-derived'],
    ['derive', 'derived'],
  ] as const) {
    const c = keys
      .command(name)
      .description(
        name === 'create'
          ? "create the wallet's API key at the venue (L1-signed); derives it when it exists already"
          : "derive the wallet's existing API key for a nonce (L1-signed; same key every time)",
      )
      .option('--nonce <n>', 'L1 nonce of the key [venue.apiNonce]', nonceArg)
      .option('--show-secret', 'also print the secret and passphrase (and the full key id)');
    addCommonOptions(c, { wallet: true });
    c.addHelpText(
      'after',
      `
The secret is never printed without --show-secret. With it, the human output is three
MMKIT_API_* lines for an env file; --json adds "secret" and "passphrase" fields.

Examples:
  mmkit keys ${name}
  mmkit keys ${name} --nonce 1 --json
  mmkit keys ${name} --show-secret > .env.mmkit && chmod 600 .env.mmkit
${EXIT_CODES_HELP}`,
    );
    c.action(
      action(async (o: KeyOptions) => {
        const cfg = configFrom(o);
        const nonce = o.nonce ?? cfg.venue.apiNonce;
        return withSession(cfg, { auth: false, wallet: true, json: o.json }, async (s) => {
          const creds =
            how === 'derived'
              ? await (await import('../api/auth.ts')).deriveApiKey(s.transport, { nonce })
              : await (await import('../api/auth.ts')).createOrDeriveApiKey(s.transport, { nonce });
          printCreds(creds, displayAddress(s.wallet!.wallet.address), nonce, o, how);
        });
      }),
    );
  }

  const imp = keys
    .command('import')
    .description(
      'write an encrypted keystore from a private key read from stdin (or MMKIT_PRIVATE_KEY with --from-env)',
    )
    .option('--out <file>', 'keystore file to write (default <dataDir>/keystore.json)')
    .option('--from-env', 'read the private key from MMKIT_PRIVATE_KEY instead of stdin')
    .option('--force', 'overwrite an existing file')
    .option('--config <file>', 'JSON config file merged over config/default.json')
    .option('--data-dir <dir>', 'data directory [bot.dataDir]')
    .option('--json', 'print {address, file} as JSON');
  imp.addHelpText(
    'after',
    `
The private key is never taken from the command line (argv is visible to every user in \`ps\`).
The password comes from MMKIT_KEYSTORE_PASSWORD (at least ${MIN_PASSWORD_LENGTH} characters), or a hidden prompt on a
terminal. The file is written with mode 0600 (scrypt-encrypted JSON, ethers/geth format).

Examples:
  MMKIT_KEYSTORE_PASSWORD=... mmkit keys import < key.txt
  read -s K && printf %s "$K" | MMKIT_KEYSTORE_PASSWORD=... mmkit keys import --out /secure/wallet.json
  MMKIT_PRIVATE_KEY=0x... MMKIT_KEYSTORE_PASSWORD=... mmkit keys import --from-env --json
  MMKIT_KEYSTORE_PASSWORD=... mmkit run --keystore data/keystore.json
${EXIT_CODES_HELP}`,
  );
  imp.action(
    action(async (o: ImportOptions) => {
      const cfg = configFrom({
        ...(o.config ? { config: o.config } : {}),
        ...(o.dataDir ? { dataDir: o.dataDir } : {}),
      });
      const out = resolve(o.out ?? join(cfg.bot.dataDir, 'keystore.json'));
      if (existsSync(out) && !o.force)
        throw usageError(`${out} exists: pass --force to overwrite it, or --out elsewhere`);
      let key: string;
      if (o.fromEnv) {
        key = (process.env['MMKIT_PRIVATE_KEY'] ?? '').trim();
        if (key === '')
          throw new ConfigError(
            'MMKIT_PRIVATE_KEY',
            '--from-env reads the private key from MMKIT_PRIVATE_KEY, which is not set',
          );
      } else key = (process.stdin.isTTY ? await promptHidden('private key (hidden): ') : await readStdin()).trim();
      if (!/^(0x)?[0-9a-fA-F]{64}$/.test(key))
        throw usageError(`the private key from ${o.fromEnv ? 'MMKIT_PRIVATE_KEY' : 'stdin'} is not 0x + 64 hex digits`);
      let wallet: Wallet;
      const { Wallet } = await import('ethers');
      try {
        wallet = new Wallet(key.startsWith('0x') ? key : `0x${key}`);
      } catch {
        throw usageError(
          `the private key from ${o.fromEnv ? 'MMKIT_PRIVATE_KEY' : 'stdin'} is not a valid secp256k1 key`,
        );
      }
      key = '';
      let password = process.env['MMKIT_KEYSTORE_PASSWORD'] ?? '';
      if (password === '' && process.stdin.isTTY && !o.fromEnv) {
        password = await promptHidden('keystore password (hidden): ');
        if ((await promptHidden('again: ')) !== password) throw usageError('the passwords differ');
      }
      if (password === '')
        throw new ConfigError(
          'MMKIT_KEYSTORE_PASSWORD',
          'set the keystore password in the environment variable MMKIT_KEYSTORE_PASSWORD',
        );
      if (password.length < MIN_PASSWORD_LENGTH)
        throw new ConfigError(
          'MMKIT_KEYSTORE_PASSWORD',
          `the password must have at least ${MIN_PASSWORD_LENGTH} characters`,
        );
      const json = await wallet.encrypt(password);
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, json + '\n', { mode: 0o600 });
      chmodSync(out, 0o600);
      const address = displayAddress(wallet.address);
      if (o.json) printJson({ address, file: out });
      else
        process.stdout.write(
          `wrote ${out} (address ${address})\nuse it: MMKIT_KEYSTORE_PASSWORD=... mmkit run --keystore ${out}\n`,
        );
    }),
  );

  const addr = keys
    .command('address')
    .description(
      "print the address of the configured wallet and where the key comes from (keystore, env, paper wallet; with none configured, the data dir's paper wallet, else its keystore.json)",
    );
  addCommonOptions(addr, { wallet: true });
  addr.addHelpText(
    'after',
    `
Examples:
  mmkit keys address
  MMKIT_KEYSTORE_PASSWORD=... mmkit keys address --keystore data/keystore.json --json
${EXIT_CODES_HELP}`,
  );
  addr.action(
    action(async (o: CommonOptions) => {
      const cfg = configFrom(o);
      const { resolveWallet, PAPER_WALLET_FILE } = await import('./wallet.ts');
      // no wallet configured and no paper wallet, but the keystore `keys import` writes by default is
      // in the data dir: that one (the address asked of the folder a newcomer just imported into)
      const dirKeystore = join(cfg.bot.dataDir, 'keystore.json');
      const keystoreFile =
        cfg.bot.keystoreFile === '' &&
        !process.env['MMKIT_PRIVATE_KEY'] &&
        !existsSync(join(cfg.bot.dataDir, PAPER_WALLET_FILE)) &&
        existsSync(dirKeystore)
          ? dirKeystore
          : cfg.bot.keystoreFile;
      const w = await resolveWallet({
        keystoreFile,
        dataDir: cfg.bot.dataDir,
        allowPaper: resolveVenue(cfg).paper,
        createPaper: false,
      });
      const r = {
        address: displayAddress(w.wallet.address),
        source: w.kind,
        file: w.file ?? null,
        funder: cfg.venue.funder || null,
      };
      if (o.json) printJson(r);
      else
        process.stdout.write(
          `${r.address}  (${r.source}${r.file ? `: ${r.file}` : ''})${r.funder ? `  funder ${r.funder}` : ''}\n`,
        );
    }),
  );
}
