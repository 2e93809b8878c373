/**
 * The account's side: L1 authentication (the wallet signs; the API key derived), L2 authentication
 * (the API key, secret and passphrase in use; whose key it is), the closed-only status, and the
 * collateral balance and allowances to each exchange contract.
 */
import { z } from 'zod';
import { deriveApiKey, type ApiCredentials } from '../../api/auth.ts';
import type { ClobClient } from '../../api/clob.ts';
import type { HttpTransport } from '../../api/http/transport.ts';
import { balanceAllowanceSchema } from '../../api/schemas/clob.ts';
import { parseRawAmount } from '../../core/units.ts';
import { allowanceChecks } from './allowance-check.ts';
import { fail, pass, warn, type Check } from './check.ts';
import type { ExchangeContracts } from './contracts.ts';
import { isAuth, isUnreachable, messageOf, routeMessage } from './errors.ts';

/** The key id shown: its first 8 characters (never the secret or passphrase). */
const maskKey = (k: string) => `${k.slice(0, 8)}…`;

/**
 * `auth.l1`: GET /auth/derive-api-key signed by the wallet (EIP-712 ClobAuth over bot.chainId).
 * Returns the derived credentials for the L2 check when none were configured.
 */
export async function l1Check(
  transport: HttpTransport,
  o: { nonce: number; chainId: number; address: string; configured: ApiCredentials | undefined },
): Promise<{ check: Check; derived: ApiCredentials | undefined }> {
  const id = 'auth.l1';
  const title = 'L1 authentication (wallet signature)';
  try {
    const d = await deriveApiKey(transport, { nonce: o.nonce });
    const same = o.configured === undefined || o.configured.apiKey === d.apiKey;
    return {
      check: same
        ? pass(id, title, `${o.address} signed; API key ${maskKey(d.apiKey)} derived (nonce ${o.nonce})`)
        : warn(
            id,
            title,
            `${o.address} signed, but MMKIT_API_KEY is not its nonce-${o.nonce} key ${maskKey(d.apiKey)} (a key created with another nonce?)`,
            'set venue.apiNonce to the nonce the key was created with, or unset MMKIT_API_* to use the derived key',
          ),
      derived: d,
    };
  } catch (e) {
    if (isAuth(e))
      return {
        check: fail(
          id,
          title,
          `the venue refused the wallet's L1 signature: ${messageOf(e)}`,
          `check bot.chainId (${o.chainId}; the public service: 137) and this machine's clock`,
        ),
        derived: undefined,
      };
    return {
      check: (isUnreachable(e) ? fail : warn)(
        id,
        title,
        routeMessage('GET /auth/derive-api-key', e),
        isUnreachable(e)
          ? 'retry when the venue answers'
          : o.configured !== undefined
            ? // (trial 15 F11: creating a key here would make one for the wrong wallet when MMKIT_API_* are another's)
              `MMKIT_API_* are set, but ${o.address} has no nonce-${o.nonce} API key: if they are another wallet's, check the wallet (MMKIT_PRIVATE_KEY or bot.keystoreFile); else create this wallet's once: \`mmkit keys create\``
            : `no API key for nonce ${o.nonce} yet? Create it once: \`mmkit keys create\``,
        ...(isUnreachable(e) ? [true] : []),
      ),
      derived: undefined,
    };
  }
}

/** `auth.l2`: GET /auth/api-key with the credentials in use; the key must be the wallet's. */
export async function l2Check(
  clob: ClobClient,
  o: {
    source: 'environment' | 'derived';
    apiKey: string;
    address: string;
    /** Whether auth.l1 derived a key of this wallet (false: it has none yet). */
    walletHasKey?: boolean;
  },
): Promise<Check> {
  const id = 'auth.l2';
  const title = 'L2 authentication (API key, secret, passphrase)';
  try {
    const info = await clob.getApiKey();
    if (info.address !== undefined && info.address.toLowerCase() !== o.address.toLowerCase())
      return fail(
        id,
        title,
        `API key ${maskKey(o.apiKey)} belongs to ${info.address}, not to the wallet ${o.address}`,
        'use the API key of this wallet: unset MMKIT_API_* (derived from the wallet) or `mmkit keys derive --show-secret`',
      );
    return pass(id, title, `API key ${maskKey(o.apiKey)} (${o.source}) of ${o.address} accepted`);
  } catch (e) {
    if (isAuth(e))
      return fail(
        id,
        title,
        `the venue refused API key ${maskKey(o.apiKey)} (${o.source}): ${messageOf(e)}`,
        o.source !== 'environment'
          ? "the derived key was refused: check the wallet and this machine's clock"
          : /does not own|not the owner|another (wallet|address)/i.test(messageOf(e))
            ? // (trial 15 F11: the fix spoke of a wrong passphrase when the key set was another wallet's)
              `the API key set is another wallet's, not ${o.address}'s: check the wallet (MMKIT_PRIVATE_KEY or bot.keystoreFile), or set this wallet's key set (\`mmkit keys derive --show-secret\` prints it)`
            : o.walletHasKey === false
              ? `${o.address} has no API key at the venue yet (auth.l1): create it once (\`mmkit keys create\`), then \`mmkit keys derive --show-secret\` prints its key set for MMKIT_API_*`
              : 'MMKIT_API_KEY, MMKIT_API_SECRET and MMKIT_API_PASSPHRASE must be one key set of this wallet (a wrong passphrase or secret is refused): `mmkit keys derive --show-secret` prints them',
      );
    return fail(id, title, routeMessage('GET /auth/api-key', e), 'retry when the venue answers', isUnreachable(e));
  }
}

const closedOnlySchema = z.object({ closed_only: z.boolean() });

/** `closed-only`: GET /auth/ban-status/closed-only: a restricted account may only close positions. */
export async function closedOnlyCheck(transport: HttpTransport): Promise<Check> {
  const id = 'closed-only';
  const title = 'closed-only status';
  try {
    const r = await transport.request(
      { api: 'clob', method: 'GET', path: '/auth/ban-status/closed-only', auth: 'l2', idempotent: true },
      closedOnlySchema,
    );
    return r.closed_only
      ? fail(
          id,
          title,
          'the account is in closed-only mode: the venue refuses orders that open positions',
          'the venue restricted the account: see its support; a market maker cannot run so',
        )
      : pass(id, title, 'the account may open positions');
  } catch (e) {
    return (isUnreachable(e) ? fail : warn)(
      id,
      title,
      routeMessage('GET /auth/ban-status/closed-only', e),
      'retry when the venue answers',
      ...(isUnreachable(e) ? [true] : []),
    );
  }
}

/**
 * `balance`, `allowance.exchange`, `allowance.negRiskExchange`: GET /balance-allowance (COLLATERAL),
 * of the signer's proxy wallet or Safe (`signature_type` 1 or 2: the venue derives it) when one holds
 * the funds, not of the signer; `account` names it in the details.
 */
export async function balanceChecks(
  transport: HttpTransport,
  contracts: ExchangeContracts,
  funder?: {
    readonly signatureType: 1 | 2;
    readonly account: string;
    /** The funder by address (a paper exchange's maker_address): one registered to the signer, not derived. */
    readonly makerAddress?: string;
  },
): Promise<Check[]> {
  try {
    const r = await transport.request(
      {
        api: 'clob',
        method: 'GET',
        path: '/balance-allowance',
        auth: 'l2',
        idempotent: true,
        // a proxy or Safe holds the funds: the venue reports that account's (signature_type)
        query: {
          asset_type: 'COLLATERAL',
          ...(funder !== undefined ? { signature_type: funder.signatureType } : {}),
          ...(funder?.makerAddress !== undefined ? { maker_address: funder.makerAddress } : {}),
        },
      },
      balanceAllowanceSchema,
    );
    return allowanceChecks(
      {
        balance: parseRawAmount(r.balance),
        allowance: r.allowance,
        allowances: r.allowances,
        ...(funder !== undefined ? { account: funder.account } : {}),
      },
      contracts,
    );
  } catch (e) {
    return [
      fail(
        'allowance.exchange',
        'balances and allowances',
        routeMessage('GET /balance-allowance', e),
        isUnreachable(e) ? 'retry when the venue answers' : 'the L2 check above says why',
        isUnreachable(e),
      ),
    ];
  }
}
