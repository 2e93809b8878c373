/** The `secrets.*` section of the configuration: wallet and API credentials (environment only, sensitive). */
export const secretsSchema = {
  privateKey: {
    doc: 'Wallet private key (0x + 64 hex). Environment only; prefer bot.keystoreFile. Unset: the keystore, else the paper wallet in <dataDir>/paper-wallet.key.',
    format: 'private-key-or-empty',
    default: '',
    env: 'MMKIT_PRIVATE_KEY',
    sensitive: true,
  },
  keystorePassword: {
    doc: 'Password of bot.keystoreFile. Environment only.',
    format: 'secret-string',
    default: '',
    env: 'MMKIT_KEYSTORE_PASSWORD',
    sensitive: true,
  },
  apiKey: {
    doc: 'API key id (with apiSecret and apiPassphrase); unset: created or derived from the wallet (L1). Environment only.',
    format: 'secret-string',
    default: '',
    env: 'MMKIT_API_KEY',
    sensitive: true,
  },
  apiSecret: {
    doc: 'API secret (base64). Environment only.',
    format: 'base64-secret-or-empty',
    default: '',
    env: 'MMKIT_API_SECRET',
    sensitive: true,
  },
  apiPassphrase: {
    doc: 'API passphrase. Environment only.',
    format: 'secret-string',
    default: '',
    env: 'MMKIT_API_PASSPHRASE',
    sensitive: true,
  },
};

export type SecretsConfig = {
  privateKey: string;
  keystorePassword: string;
  apiKey: string;
  apiSecret: string;
  apiPassphrase: string;
};
