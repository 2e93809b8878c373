/**
 * Credentials: the wallet (from a private key in the environment or an encrypted keystore file) and
 * the API key (created or derived with an L1 wallet signature).
 *
 * Secrets never leave these functions in a message: a bad key or password is reported by naming
 * the environment variable or file, never by echoing its value.
 */
import { readFile } from 'node:fs/promises';
import { Wallet } from 'ethers';
import { ConfigError, ValidationError } from '../core/errors.ts';
import { registerSecret } from '../core/secrets.ts';
import type { ApiCredentials } from './http/transport.ts';
import type { Transport } from './http/types.ts';
import { apiCredsSchema } from './schemas/clob.ts';

export type { ApiCredentials } from './http/transport.ts';

/** Where the wallet comes from. */
export interface WalletSource {
  /** Environment variable holding a 0x-prefixed 32-byte hex private key (default MMKIT_PRIVATE_KEY). */
  privateKeyEnv?: string;
  /** An encrypted JSON keystore (ethers/geth format); when set, it is used instead of the key variable. */
  keystoreFile?: string;
  /** Environment variable holding the keystore's password (default MMKIT_KEYSTORE_PASSWORD). */
  keystorePasswordEnv?: string;
  /** The environment to read (default process.env). */
  env?: Record<string, string | undefined>;
}

const HEX_KEY = /^(0x)?[0-9a-fA-F]{64}$/;

/**
 * Load the trading wallet: from `keystoreFile` (decrypted with the password in
 * `keystorePasswordEnv`) when given, else from the private key in `privateKeyEnv`.
 * @throws ConfigError naming the missing or malformed variable or file (never its content).
 */
export async function loadWallet(src: WalletSource = {}): Promise<Wallet> {
  const env = src.env ?? process.env;
  const keyEnv = src.privateKeyEnv ?? 'MMKIT_PRIVATE_KEY';
  const passEnv = src.keystorePasswordEnv ?? 'MMKIT_KEYSTORE_PASSWORD';
  if (src.keystoreFile !== undefined && src.keystoreFile !== '') {
    const password = env[passEnv];
    if (password === undefined || password === '') {
      throw new ConfigError(
        passEnv,
        `the keystore ${src.keystoreFile} needs its password in the environment variable ${passEnv}, which is not set`,
      );
    }
    let json: string;
    try {
      json = await readFile(src.keystoreFile, 'utf8');
    } catch (err) {
      throw new ConfigError(
        'keystoreFile',
        `cannot read the keystore file ${src.keystoreFile}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
    try {
      const w = await Wallet.fromEncryptedJson(json, password);
      return new Wallet(w.privateKey);
    } catch {
      throw new ConfigError(
        'keystoreFile',
        `cannot decrypt the keystore file ${src.keystoreFile}: wrong password in ${passEnv}, or not a keystore`,
      );
    }
  }
  const key = env[keyEnv]?.trim();
  if (key === undefined || key === '') {
    throw new ConfigError(
      keyEnv,
      `no wallet: set the environment variable ${keyEnv} to the private key (0x + 64 hex), or configure a keystore file and ${passEnv}`,
    );
  }
  if (!HEX_KEY.test(key))
    throw new ConfigError(
      keyEnv,
      `the environment variable ${keyEnv} is not a private key (expected 0x + 64 hex digits)`,
    );
  try {
    return new Wallet(key.startsWith('0x') ? key : `0x${key}`);
  } catch {
    throw new ConfigError(keyEnv, `the environment variable ${keyEnv} is not a valid secp256k1 private key`);
  }
}

/** Options of the L1 key calls. */
export interface ApiKeyOptions {
  /** The L1 nonce: the same nonce derives the same key (default 0). */
  nonce?: number;
  signal?: AbortSignal;
}

/**
 * Create an API key (POST /auth/api-key, L1-signed by the transport's wallet).
 * @throws ValidationError when a key already exists for this nonce (derive it instead); AuthError
 *   when the wallet signature is refused; NetworkError / RateLimitError as the transport.
 */
export function createApiKey(transport: Transport, o: ApiKeyOptions = {}): Promise<ApiCredentials> {
  return transport.request(
    {
      api: 'clob',
      method: 'POST',
      path: '/auth/api-key',
      auth: 'l1',
      nonce: o.nonce ?? 0,
      idempotent: true,
      ...(o.signal ? { signal: o.signal } : {}),
    },
    apiCredsSchema,
  );
}

/**
 * Derive the API key of a nonce (GET /auth/derive-api-key, L1): the same credentials every time.
 * @throws AuthError when the wallet signature is refused; NotFoundError when no key exists for the
 *   nonce at a venue that does not derive on demand; NetworkError / RateLimitError as the transport.
 */
export function deriveApiKey(transport: Transport, o: ApiKeyOptions = {}): Promise<ApiCredentials> {
  return transport.request(
    {
      api: 'clob',
      method: 'GET',
      path: '/auth/derive-api-key',
      auth: 'l1',
      nonce: o.nonce ?? 0,
      idempotent: true,
      ...(o.signal ? { signal: o.signal } : {}),
    },
    apiCredsSchema,
  );
}

/**
 * Create the API key, or derive it when one already exists for the nonce (the venue answers the
 * creation with 400): what a bot calls at start. Set the result on the transport
 * (`setCredentials`) before L2 calls.
 * @throws AuthError, NetworkError, RateLimitError as the underlying calls.
 */
export async function createOrDeriveApiKey(transport: Transport, o: ApiKeyOptions = {}): Promise<ApiCredentials> {
  let creds: ApiCredentials;
  try {
    creds = await createApiKey(transport, o);
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    // the address holds as many keys as the venue allows: deriving would fail saying "create it" (review 49b F5)
    if (err.details?.['code'] === 'API_KEY_LIMIT') throw err;
    creds = await deriveApiKey(transport, o);
  }
  // from now on every log line and error message of this process is scrubbed of them (src/core/secrets.ts)
  registerSecret(creds.apiKey, creds.secret, creds.passphrase);
  return creds;
}
