/**
 * `mmkit doctor`: the pre-flight check of a venue configuration (src/ops/doctor/): the same config
 * files, environment and flags as `mmkit run`. A table of pass / warn / fail with the fix of each
 * (or `--json`); exit 0 when nothing fails, 1 when a check fails, 3 when an API or a stream of the
 * venue does not answer.
 *
 * `preflight` is what `mmkit run` calls before it trades on a live venue (src/cli/venue-kind.ts): the
 * same checks, and a refusal to start (exit 1 or 3) that names the failed checks and their fixes.
 */
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { Wallet } from 'ethers';
import type { Logger } from 'pino';
import type { ApiCredentials } from '../api/auth.ts';
import type { BudgetConfig } from '../api/http/budgets.ts';
import { ConfigError } from '../core/errors.ts';
import { parseAmount, type Micro } from '../core/units.ts';
import type { DoctorInput } from '../ops/doctor/doctor.ts';
import type { DoctorReport } from '../ops/doctor/check.ts';
import type { WalletFacts } from '../ops/doctor/wallet-check.ts';
import { action, addCommonOptions, configFrom, printJson, type CommonOptions } from './common.ts';
import type { MmkitConfig } from './config.ts';
import { CliError, ExitCode } from './exit-codes.ts';
import type { VenueUrls } from './venue.ts';
import type { VenueKindSetting } from './venue-kind.ts';
import { displayAddress } from '../ops/address-display.ts';
import { terminalSafe } from '../ops/terminal/safe-text.ts';

/** What the doctor reads of the configuration besides what `mmkit run` already takes (RunConfig.doctor). */
export interface DoctorSettings {
  /** doctor.beforeRun. */
  readonly beforeRun: boolean;
  readonly maxClockSkewMs: number;
  /** doctor.geoblockUrl as configured ('' = the paper exchange's, or none). */
  readonly geoblockUrl: string;
  readonly contracts: { readonly exchange: string; readonly negRiskExchange: string; readonly collateral: string };
  /** venue.kind: whether the venue is paper or live (src/cli/venue-kind.ts), hence whether the pre-flight runs. */
  readonly venueKind?: VenueKindSetting;
  readonly budgets: {
    readonly enabled: boolean;
    readonly scale: number;
    readonly headroom: number;
    readonly signerTier: string;
  };
}

/** The doctor's settings of a configuration (main.ts passes them to `mmkit run` as RunConfig.doctor). */
export function doctorSettingsOf(cfg: MmkitConfig): DoctorSettings {
  return {
    beforeRun: cfg.doctor.beforeRun,
    maxClockSkewMs: cfg.doctor.maxClockSkewMs,
    geoblockUrl: cfg.doctor.geoblockUrl,
    contracts: { ...cfg.venue.contracts },
    venueKind: cfg.venue.kind,
    budgets: {
      enabled: cfg.budgets.enabled,
      scale: cfg.budgets.scale,
      headroom: cfg.budgets.headroom,
      signerTier: cfg.budgets.signerTier,
    },
  };
}

/** The geoblock URL to ask: the configured one, else the paper exchange's own route (loopback only). */
export function geoblockUrlOf(configured: string, clobUrl: string, paper: boolean): string {
  if (configured !== '') return configured;
  return paper ? `${new URL(clobUrl).origin}/api/geoblock` : '';
}

/**
 * The wallet's source facts for the report (the key itself stays in `wallet`); `ignoredPrivateKey`:
 * MMKIT_PRIVATE_KEY is set while the keystore is used (a warn).
 */
export function walletFactsOf(
  wallet: Wallet,
  kind: 'keystore' | 'private-key' | 'paper',
  file?: string,
  ignoredPrivateKey = false,
): WalletFacts {
  let mode: number | undefined;
  if (file !== undefined)
    try {
      mode = statSync(file).mode & 0o777;
    } catch {
      mode = undefined;
    }
  return {
    kind,
    // as every command prints it (EIP-55); the checks compare addresses case-insensitively
    address: displayAddress(wallet.address),
    ...(file !== undefined ? { file } : {}),
    ...(mode !== undefined ? { mode } : {}),
    ...(ignoredPrivateKey && kind === 'keystore' ? { ignoredPrivateKey: true } : {}),
  };
}

/** bot.risk.maxOrderSizeShares as micro-shares (undefined when unset or 0). */
function maxOrderSizeOf(risk: Record<string, unknown>): Micro | undefined {
  const v = risk['maxOrderSizeShares'];
  if (typeof v !== 'number' && typeof v !== 'string') return undefined;
  const m = parseAmount(v, 'down');
  return m > 0 ? m : undefined;
}

/** What `preflight` reads of `mmkit run`'s configuration (a part of RunConfig, declared here: run.ts imports this module). */
export interface PreflightConfig {
  chainId: number;
  keystoreFile: string;
  markets: string[];
  risk: Record<string, unknown>;
  apiCredentials?: ApiCredentials;
  apiNonce?: number;
  protocol?: 1 | 2;
  budgets?: BudgetConfig;
  timeoutMs?: number;
  doctor?: DoctorSettings;
  /** venue.signatureType (0 EOA, 1 POLY_PROXY, 2 POLY_GNOSIS_SAFE) and venue.funder: the `funder` check. */
  signatureType?: 0 | 1 | 2;
  funder?: string;
}

/** venue.signatureType's name from the order builder's number. */
const SIGNATURE_TYPE_NAMES = ['eoa', 'poly-proxy', 'gnosis-safe'] as const;

/** The doctor's `funder` input: checked unless eoa without a funder. */
export function funderInputOf(
  signatureType: 'eoa' | 'poly-proxy' | 'gnosis-safe',
  funder: string,
): DoctorInput['funder'] {
  return signatureType === 'eoa' && funder === '' ? undefined : { signatureType, address: funder };
}

/**
 * The pre-flight refusal: one failed check per line, its fix on the next (as `mmkit doctor` prints
 * them), not every check and fix run together on one line. A detail may quote the venue's answer:
 * its control characters are spelt out (a newline too: one line per check).
 */
export function preflightRefusal(r: Pick<DoctorReport, 'checks'>): string {
  const lines = r.checks
    .filter((c) => c.status === 'fail')
    .flatMap((c) => [
      `  FAIL ${c.id}: ${terminalSafe(c.detail)}`,
      ...(c.fix !== undefined ? [`       fix: ${terminalSafe(c.fix)}`] : []),
    ]);
  return ['pre-flight checks failed, not starting (`mmkit doctor` shows them all):', ...lines].join('\n');
}

/**
 * `mmkit run`'s pre-flight on a live venue (src/cli/venue-kind.ts): every doctor check; warnings are
 * logged, a failure refuses the start.
 * @throws CliError exit 1 (a check failed) or 3 (the venue did not answer), naming the checks
 */
export async function preflight(cfg: PreflightConfig, urls: VenueUrls, wallet: Wallet, log: Logger): Promise<void> {
  const s = cfg.doctor;
  if (s !== undefined && !s.beforeRun) {
    log.warn({}, 'pre-flight checks skipped (doctor.beforeRun false)');
    return;
  }
  const { runDoctor } = await import('../ops/doctor/doctor.ts');
  const kind = cfg.keystoreFile !== '' ? 'keystore' : 'private-key';
  const r = await runDoctor({
    urls: { clob: urls.clob, gamma: urls.gamma, data: urls.data, ws: urls.ws, rtds: urls.rtds },
    paper: false,
    chainId: cfg.chainId,
    wallet: walletFactsOf(wallet, kind, kind === 'keystore' ? cfg.keystoreFile : undefined),
    signer: wallet,
    credentials: cfg.apiCredentials,
    apiNonce: cfg.apiNonce ?? 0,
    protocol: cfg.protocol ?? 'auto',
    contracts: s?.contracts ?? { exchange: '', negRiskExchange: '', collateral: '' },
    markets: cfg.markets,
    maxOrderSize: maxOrderSizeOf(cfg.risk),
    budgets: cfg.budgets ?? {},
    budgetFacts: s?.budgets ?? { enabled: true, scale: 1, headroom: 0, signerTier: 'auto' },
    maxClockSkewMs: s?.maxClockSkewMs ?? 5_000,
    funder: funderInputOf(SIGNATURE_TYPE_NAMES[cfg.signatureType ?? 0], cfg.funder ?? ''),
    geoblockUrl: geoblockUrlOf(s?.geoblockUrl ?? '', urls.clob, false),
    timeoutMs: Math.min(cfg.timeoutMs ?? 10_000, 10_000),
  });
  for (const c of r.checks)
    if (c.status === 'warn') log.warn({ check: c.id, detail: c.detail, fix: c.fix }, `pre-flight: ${c.title}`);
    else if (c.status === 'fail') log.error({ check: c.id, detail: c.detail, fix: c.fix }, `pre-flight: ${c.title}`);
  if (r.exitCode !== 0)
    throw new CliError(preflightRefusal(r), r.exitCode === 3 ? ExitCode.UNREACHABLE : ExitCode.FAILURE);
  log.info({ passed: r.summary.pass, warned: r.summary.warn }, 'pre-flight checks passed');
}

export function register(program: Command): void {
  const cmd = program
    .command('doctor')
    .description(
      'pre-flight check of a venue configuration: APIs and streams, clock, auth, balances and allowances, markets, limits, geoblock, wallet',
    );
  addCommonOptions(cmd, { wallet: true });
  cmd.option('--markets <ids>', 'comma-separated condition ids to check [bot.markets]');
  cmd.addHelpText(
    'after',
    `
Each check passes, warns or fails, with the fix. The same checks run before \`mmkit run\` on a
live venue (doctor.beforeRun; paper or live: venue.kind).

Examples:
  mmkit doctor --exchange-url http://127.0.0.1:8080
  MMKIT_KEYSTORE_PASSWORD=... mmkit doctor --config config/polymarket.json
  mmkit doctor --config config/polymarket.json --json | jq '.checks[] | select(.status != "pass")'

Exit codes: 0 nothing failed (warnings allowed), 1 a check failed, 2 a usage or configuration
error, 3 an API or a stream of the venue did not answer.
`,
  );
  cmd.action(
    action(async (o: CommonOptions & { markets?: string }) => {
      const cfg = configFrom(o, {
        'bot.markets':
          o.markets !== undefined
            ? o.markets
                .split(',')
                .map((x) => x.trim())
                .filter(Boolean)
            : undefined,
      });
      const [
        { resolveVenue, apiCredentialsOf, budgetsOf, explicitUrls },
        { venueKindOf },
        { resolveWallet, PAPER_WALLET_FILE },
        { runDoctor },
        { renderReport },
        { checkConfig },
      ] = await Promise.all([
        import('./venue.ts'),
        import('./venue-kind.ts'),
        import('./wallet.ts'),
        import('../ops/doctor/doctor.ts'),
        import('../ops/doctor/render.ts'),
        import('./config-check.ts'),
      ]);
      // per-API URLs (a real venue) as `mmkit run` takes them: the CLOB and the streams needed, the
      // others checked when set; else the paper exchange the operator commands find (venue.ts)
      const explicit = explicitUrls(cfg);
      const venue =
        cfg.bot.exchangeUrl === '' && explicit.clob !== undefined
          ? (() => {
              if (explicit.ws === undefined)
                throw new ConfigError('venue.wsUrl', 'not set: the streams need it (with venue.clobUrl)');
              const urls = { gamma: '', data: '', content: '', ...explicit, clob: explicit.clob, ws: explicit.ws };
              return { urls, paper: venueKindOf(cfg, Object.values(urls)).paper };
            })()
          : resolveVenue(cfg);
      let wallet: WalletFacts;
      let signer: Wallet | undefined;
      try {
        // never creates a paper wallet: `mmkit run` does, on its first start
        const w = await resolveWallet({
          keystoreFile: cfg.bot.keystoreFile,
          dataDir: cfg.bot.dataDir,
          allowPaper: venue.paper,
          createPaper: false,
        });
        signer = w.wallet;
        wallet = walletFactsOf(w.wallet, w.kind, w.file, Boolean(process.env['MMKIT_PRIVATE_KEY']));
      } catch (e) {
        const none = cfg.bot.keystoreFile === '' && !process.env['MMKIT_PRIVATE_KEY'];
        const file = join(cfg.bot.dataDir, PAPER_WALLET_FILE);
        wallet = {
          error: (e as Error).message,
          ...(venue.paper && none && !existsSync(file) ? { noPaperWallet: true } : {}),
        };
      }
      const { registerSecret } = await import('../core/secrets.ts');
      const creds = apiCredentialsOf(cfg);
      registerSecret(signer?.privateKey, creds?.apiKey, creds?.secret, creds?.passphrase);
      // what `mmkit config check` finds, but the funder (the `funder` check says it, with the signer)
      // and the wallet source (the `wallet` check)
      const checked = await checkConfig(cfg, []);
      const mine = (p: { key: string }) =>
        p.key !== 'venue.funder' &&
        p.key !== 'bot.keystoreFile' &&
        p.key !== 'secrets.keystorePassword' &&
        p.key !== 'secrets.privateKey';
      const input: DoctorInput = {
        urls: venue.urls,
        paper: venue.paper,
        config: { problems: checked.problems.filter(mine), warnings: checked.warnings.filter(mine) },
        funder: funderInputOf(cfg.venue.signatureType, cfg.venue.funder),
        chainId: cfg.bot.chainId,
        wallet,
        signer,
        credentials: creds,
        apiNonce: cfg.venue.apiNonce,
        protocol: cfg.venue.protocol === 'auto' ? 'auto' : cfg.venue.protocol === '2' ? 2 : 1,
        contracts: { ...cfg.venue.contracts },
        markets: cfg.bot.markets,
        maxOrderSize: maxOrderSizeOf(cfg.bot.risk as unknown as Record<string, unknown>),
        budgets: budgetsOf(cfg),
        budgetFacts: doctorSettingsOf(cfg).budgets,
        maxClockSkewMs: cfg.doctor.maxClockSkewMs,
        geoblockUrl: geoblockUrlOf(cfg.doctor.geoblockUrl, venue.urls.clob, venue.paper),
        timeoutMs: Math.min(cfg.venue.timeoutMs, 10_000),
      };
      let r = await runDoctor(input);
      // a fleet member's: its Redis, markets and name (./doctor-fleet.ts)
      if (cfg.fleet.redisUrl !== '') {
        const { fleetCheck } = await import('./doctor-fleet.ts');
        const { report } = await import('../ops/doctor/check.ts');
        const account = cfg.venue.funder !== '' ? cfg.venue.funder : 'error' in wallet ? undefined : wallet.address;
        if (account !== undefined) {
          const fc = await fleetCheck({
            redisUrl: cfg.fleet.redisUrl,
            member: cfg.fleet.member,
            account,
            markets: cfg.bot.markets,
            dataDir: cfg.bot.dataDir,
          });
          r = report(r.venue, r.paper, [...r.checks, fc]);
        }
      }
      if (o.json) printJson(r);
      else process.stdout.write(renderReport(r));
      return r.exitCode;
    }),
  );
}
