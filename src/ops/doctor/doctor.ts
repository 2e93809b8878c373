/**
 * `mmkit doctor`: the pre-flight check of a venue configuration, as `mmkit run` would use it. Every
 * check runs whatever the others found (those that need an answer the venue did not give say so),
 * and the report (check.ts) says which failed and how to fix each. `mmkit run` against a real venue
 * runs the same before it trades and refuses to start on a failure (src/cli/doctor.ts).
 *
 * Requests go through the API clients and one transport, within the request budgets; nothing is
 * created or changed at the venue (the API key is derived, never created), nothing is signed but
 * the L1 and L2 authentication of read requests.
 */
import type { Wallet } from 'ethers';
import { ClobClient } from '../../api/clob.ts';
import { DataClient } from '../../api/data.ts';
import { GammaClient } from '../../api/gamma.ts';
import type { ApiCredentials } from '../../api/auth.ts';
import type { BudgetConfig } from '../../api/http/budgets.ts';
import { createTransport } from '../../api/http/transport.ts';
import type { Micro } from '../../core/units.ts';
import { balanceChecks, closedOnlyCheck, l1Check, l2Check } from './account-checks.ts';
import { budgetsCheck } from './budgets-check.ts';
import { fail, pass, report, warn, type Check, type DoctorReport } from './check.ts';
import { contractsCheck, signedContracts } from './contracts.ts';
import {
  FUNDER_CHECK_TITLE,
  derivedFunderOf,
  funderCheck,
  funderProblemCheck,
  type SignatureTypeName,
} from './funder-check.ts';
import { streamChecks } from './stream-checks.ts';
import { apiCheck, clockOf, geoblockOf, marketsOf, protocolOf } from './venue-checks.ts';
import { walletCheck, type WalletFacts } from './wallet-check.ts';

export interface DoctorInput {
  readonly urls: {
    readonly clob: string;
    readonly gamma: string;
    readonly data: string;
    readonly ws: string;
    readonly rtds?: string | undefined;
  };
  /** A paper exchange (src/cli/venue-kind.ts decides): some checks are lenient there. */
  readonly paper: boolean;
  /**
   * venue.signatureType and venue.funder ('' = not set), checked against the signer (funder-check.ts);
   * the balance and allowances are then the funder's. Absent: not checked (eoa without a funder).
   */
  readonly funder?: { readonly signatureType: SignatureTypeName; readonly address: string } | undefined;
  /** What `mmkit config check` found (its problems and warnings): the `config` check. Absent: not checked. */
  readonly config?:
    | {
        readonly problems: readonly { readonly key: string; readonly message: string }[];
        readonly warnings: readonly { readonly key: string; readonly message: string }[];
      }
    | undefined;
  readonly chainId: number;
  /** The wallet's source (wallet-check.ts) and, when it loaded, the wallet itself (L1 signatures). */
  readonly wallet: WalletFacts;
  readonly signer: Wallet | undefined;
  /** API credentials from the environment; absent: derived from the wallet (never created). */
  readonly credentials?: ApiCredentials | undefined;
  readonly apiNonce: number;
  /** venue.protocol. */
  readonly protocol: 'auto' | 1 | 2;
  /** venue.contracts.* ('' = not set). */
  readonly contracts: { readonly exchange: string; readonly negRiskExchange: string; readonly collateral: string };
  /** bot.markets. */
  readonly markets: readonly string[];
  /** The largest order the risk limits allow (bot.risk.maxOrderSizeShares), micro-shares. */
  readonly maxOrderSize?: Micro | undefined;
  /** budgets.* as the transport takes them, and as configured (headroom apart) for the report. */
  readonly budgets: BudgetConfig;
  readonly budgetFacts: {
    readonly enabled: boolean;
    readonly scale: number;
    readonly headroom: number;
    readonly signerTier: string;
  };
  /** doctor.maxClockSkewMs. */
  readonly maxClockSkewMs: number;
  /** doctor.geoblockUrl resolved ('' = none known). */
  readonly geoblockUrl: string;
  /** Per request and per stream probe, ms. */
  readonly timeoutMs: number;
  /** Our clock, ms (injected: tests). */
  readonly now?: () => number;
}

/** A check that could not run because another did not pass: the fix points to that one (a FAIL or a WARN). */
const notChecked = (id: string, title: string, why: string): Check =>
  warn(id, title, `not checked: ${why}`, 'fix what it depends on (named above), then run `mmkit doctor` again');

/** The `config` check: `mmkit config check`'s problems fail it, its warnings warn. */
function configCheck(c: NonNullable<DoctorInput['config']>): Check {
  const title = 'configuration (`mmkit config check`)';
  const list = (ps: readonly { key: string; message: string }[]) => ps.map((p) => `${p.key}: ${p.message}`).join('; ');
  if (c.problems.length > 0)
    return fail(
      'config',
      title,
      list(c.problems),
      'fix the keys named (`mmkit config check` lists them), then `mmkit doctor` again',
    );
  if (c.warnings.length > 0) return warn('config', title, list(c.warnings), 'see each key named');
  return pass('config', title, 'no problem found');
}

/** Run every check; never throws for what the venue answers (that is in the report). */
export async function runDoctor(input: DoctorInput): Promise<DoctorReport> {
  const now = input.now ?? Date.now;
  const transport = createTransport({
    urls: { clob: input.urls.clob, gamma: input.urls.gamma, data: input.urls.data },
    ...(input.signer !== undefined ? { signer: input.signer } : {}),
    chainId: input.chainId,
    timeoutMs: input.timeoutMs,
    budgets: input.budgets,
    // a check is a question: one retry, then say what was found
    retry: { maxAttempts: 2, baseMs: 200, capMs: 1000 },
  });
  const clob = new ClobClient(transport);
  const checks: Check[] = [];
  if (input.config !== undefined) checks.push(configCheck(input.config));
  try {
    const reach = await Promise.all([
      apiCheck('clob', input.urls.clob, () => clob.ok()),
      apiCheck('gamma', input.urls.gamma, () => new GammaClient(transport).health()),
      apiCheck('data', input.urls.data, () => new DataClient(transport).health()),
    ]);
    checks.push(...reach);
    const clobUp = reach[0]!.status === 'pass';
    const down = 'the CLOB API did not answer';
    let venueProtocol: 1 | 2 | undefined;
    let tokens: string[] = [];
    let creds: ApiCredentials | undefined;
    const address = 'error' in input.wallet ? undefined : input.wallet.address;
    if (clobUp) {
      checks.push(await clockOf(clob, now, input.maxClockSkewMs));
      const p = await protocolOf(clob, input.protocol);
      checks.push(p.check);
      venueProtocol = p.venue;
      const mk = await marketsOf(clob, input.markets, input.maxOrderSize);
      checks.push(mk.check);
      tokens = mk.tokens;
    } else {
      checks.push(
        notChecked('clock', 'clock skew (GET /time)', down),
        notChecked('protocol', 'protocol version (GET /version)', down),
        notChecked('markets', 'markets: tick and minimum sizes', down),
      );
    }
    checks.push(await geoblockOf(input.geoblockUrl, input.timeoutMs));
    const protocol = venueProtocol ?? (input.protocol === 'auto' ? 2 : input.protocol);
    checks.push(contractsCheck(input.contracts, protocol, input.chainId));
    // the account: L1 (the wallet), L2 (the key in use), closed-only, balance and allowances
    if (!clobUp || input.signer === undefined || address === undefined) {
      const why = !clobUp ? down : 'no wallet (see the wallet check)';
      checks.push(
        notChecked('auth.l1', 'L1 authentication (wallet signature)', why),
        notChecked('auth.l2', 'L2 authentication (API key, secret, passphrase)', why),
      );
    } else {
      const l1 = await l1Check(transport, {
        nonce: input.apiNonce,
        chainId: input.chainId,
        address,
        configured: input.credentials,
      });
      checks.push(l1.check);
      creds = input.credentials ?? l1.derived;
      if (creds === undefined)
        checks.push(notChecked('auth.l2', 'L2 authentication (API key, secret, passphrase)', 'no API key'));
      else {
        transport.setCredentials(creds);
        const l2 = await l2Check(clob, {
          source: input.credentials !== undefined ? 'environment' : 'derived',
          apiKey: creds.apiKey,
          address,
          // (l1 warns when the wallet has no key; a refused or unanswered l1 says nothing of it)
          ...(l1.derived !== undefined
            ? { walletHasKey: true }
            : l1.check.status === 'warn'
              ? { walletHasKey: false }
              : {}),
        });
        checks.push(l2);
        if (l2.status === 'pass') {
          checks.push(await closedOnlyCheck(transport));
          const f = input.funder;
          let funded: { signatureType: 1 | 2; account: string; makerAddress?: string } | undefined;
          if (f !== undefined) {
            const c = await funderCheck(transport, {
              signatureType: f.signatureType,
              funder: f.address,
              signer: address,
              paper: input.paper,
              today: new Date(now()).toISOString().slice(0, 10),
            });
            checks.push(c);
            if (f.signatureType !== 'eoa') {
              // the venue reports the signer's proxy wallet / Safe: the funder when it is that one
              const d = derivedFunderOf(f.signatureType, address);
              const name = f.signatureType === 'poly-proxy' ? 'proxy wallet' : 'Safe';
              const derived = d === f.address.toLowerCase();
              // a paper exchange names a funder registered to the signer by address (maker_address);
              // the public service knows only the derived one (the funder check fails any other)
              const registered = !derived && input.paper && f.address !== '';
              funded = {
                signatureType: f.signatureType === 'poly-proxy' ? 1 : 2,
                account: derived
                  ? `the funder ${f.address}, the signer's ${name}`
                  : registered
                    ? `the funder ${f.address}`
                    : `the signer's ${name} ${d}`,
                ...(registered ? { makerAddress: f.address.toLowerCase() } : {}),
              };
            }
          }
          checks.push(...(await balanceChecks(transport, signedContracts(protocol, input.chainId), funded)));
        }
      }
    }
    if (!checks.some((c) => c.id === 'closed-only')) {
      const why = 'L2 authentication did not pass';
      // what needs no venue is said even so: a funder missing or contradictory
      if (input.funder !== undefined)
        checks.push(
          funderProblemCheck(input.funder.signatureType, input.funder.address, address) ??
            notChecked('funder', FUNDER_CHECK_TITLE, why),
        );
      checks.push(
        notChecked('closed-only', 'closed-only status', why),
        notChecked('balance', 'collateral balance', why),
        // listed, not left out (trial 25 F3: the table dropped them and still ended "ready")
        notChecked('allowance.exchange', 'allowance to the CTF exchange', why),
        notChecked('allowance.negRiskExchange', 'allowance to the neg-risk CTF exchange', why),
      );
    }
    checks.push(...(await streamChecks(input.urls, { tokens, credentials: creds, timeoutMs: input.timeoutMs })));
    checks.push(walletCheck(input.wallet, input.paper));
    checks.push(budgetsCheck({ ...input.budgetFacts, rateLimited: transport.stats().statuses[429] ?? 0 }, input.paper));
  } finally {
    await transport.close();
  }
  return report(input.urls.clob, input.paper, checks);
}
