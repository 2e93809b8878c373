/**
 * What `mmkit config check` and `config print` do (src/cli/config-cmd.ts registers the commands and
 * loads this module only when one runs: it reaches the strategy kernel, the venue resolution and the
 * doctor's funder check, whose imports (rxjs, ethers, zod) `mmkit --help` must not pay for).
 */
import { existsSync, readFileSync } from 'node:fs';
import { isHex32 } from '../core/ids.ts';
import { VirtualClock } from '../core/clock.ts';
import { ConfigError, type ConfigProblem } from '../core/errors.ts';
import { createStrategy } from '../kernel/create-strategy.ts';
import { resolveRiskLimits } from '../risk/limits.ts';
import { loadStrategy } from '../strategy/loader.ts';
import type { StrategyContext } from '../strategy/api.ts';
import { resolveParams } from '../strategy/params.ts';
import { loadConfigDetailed, schemaLeaves, type MmkitConfig } from './config.ts';
import { printJson } from './common.ts';
import { ExitCode } from './exit-codes.ts';
import { funderProblem } from '../ops/doctor/funder-check.ts';
import { apiCredentialsOf, daemonVenue } from './venue.ts';
import { venueKindOf } from './venue-kind.ts';
import { unknownVariableWarnings } from './env-names.ts';

/** One problem `config check` found. */
export type { ConfigProblem };

/** What `config check` reports. */
export interface ConfigCheckReport {
  ok: boolean;
  files: readonly string[];
  problems: ConfigProblem[];
  /** What is likely wrong but may be meant (two wallet sources, a funder with eoa): said, not refused. */
  warnings: ConfigProblem[];
  /** `paper` and why (src/cli/venue-kind.ts). */
  venue: { inProcess: boolean; paper: boolean; why: string; urls: Record<string, string> };
  wallet: 'keystore' | 'private-key' | 'paper' | 'none';
  strategy: { name: string; params: Record<string, unknown> } | null;
}

/** Re-key errors of modules that name their own section ("risk.x", "strategy.params.x") to the config key. */
function rekey(e: ConfigError, from: string, to: string): ConfigProblem {
  const key = e.key === from || e.key.startsWith(`${from}.`) ? to + e.key.slice(from.length) : e.key;
  return { key, message: e.message.replace(/^config [^:]+: /, '') };
}

/** A context for `create` with no market and nothing that acts: a log that drops, a clock that stands still. */
const INERT_CONTEXT: StrategyContext = {
  clock: new VirtualClock(0),
  log: { debug: () => undefined, info: () => undefined, warn: () => undefined },
  markets: new Map(),
  random: () => 0.5,
};

/**
 * The strategy's `create(ctx, params)` as `mmkit run` calls it (src/kernel/create-strategy.ts), with
 * no market (config check never contacts the venue): its ConfigError (a cross-parameter check, a
 * bands file that cannot be read) is thrown; any other throw is not counted (it may need the markets
 * that only the venue lists: `mmkit strategy check` runs the strategy on them).
 * @throws ConfigError what `create` refused
 */
function createWithoutMarkets(def: Parameters<typeof createStrategy>[0], params: unknown): void {
  try {
    createStrategy(def, INERT_CONTEXT, params);
  } catch (e) {
    if (e instanceof ConfigError) throw e;
  }
}

/**
 * Everything that can be checked without the venue, beyond the schema: the risk limits, the
 * strategy (it loads, its params are valid, its create() accepts them: a bands file is read), the wallet source (keystore exists and its password
 * is set; a non-paper venue has a wallet), API credentials all-or-none, the funder of proxy
 * signature types, market ids. Never decrypts the keystore and never contacts the venue.
 */
export async function checkConfig(
  cfg: MmkitConfig,
  files: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<ConfigCheckReport> {
  const problems: ConfigProblem[] = [];
  const warnings: ConfigProblem[] = [];
  // a misspelt MMKIT_* variable leaves its key at the default (trial 13 F1)
  warnings.push(...unknownVariableWarnings(env));
  try {
    resolveRiskLimits(cfg.bot.risk);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    problems.push(rekey(e, 'risk', 'bot.risk'));
  }
  let strategy: ConfigCheckReport['strategy'] = null;
  try {
    const def = await loadStrategy(cfg.bot.strategy);
    try {
      const params = resolveParams(def.params, cfg.bot.params);
      strategy = { name: def.name, params: { ...params } };
      // what `mmkit run` does next, the same call: the strategy's create(), the documented place of a
      // cross-parameter check (bands reads its bandsFile there: trial 7 F11)
      createWithoutMarkets(def, params);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      problems.push(rekey(e, 'strategy.params', 'bot.params'));
    }
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    problems.push(
      e.key.startsWith('strategy.params')
        ? rekey(e, 'strategy.params', 'bot.params')
        : rekey(e, 'strategy', 'bot.strategy'),
    );
  }
  const v = daemonVenue(cfg);
  if (!v.inProcess) {
    for (const k of ['clob', 'ws'] as const)
      if (v.urls[k] === undefined)
        problems.push({ key: `venue.${k}Url`, message: 'required when venue.clobUrl is set without bot.exchangeUrl' });
  }
  const kind = venueKindOf(cfg, Object.values(v.urls), v.inProcess);
  const paper = kind.paper;
  let wallet: ConfigCheckReport['wallet'] = 'none';
  if (cfg.bot.keystoreFile !== '') {
    wallet = 'keystore';
    if (!existsSync(cfg.bot.keystoreFile))
      problems.push({ key: 'bot.keystoreFile', message: `no such file: ${cfg.bot.keystoreFile}` });
    else {
      try {
        const j = JSON.parse(readFileSync(cfg.bot.keystoreFile, 'utf8')) as Record<string, unknown>;
        if (typeof j !== 'object' || j === null || (!('crypto' in j) && !('Crypto' in j)))
          throw new Error('not a keystore');
      } catch {
        problems.push({
          key: 'bot.keystoreFile',
          message: `${cfg.bot.keystoreFile} is not an encrypted JSON keystore (write one with \`mmkit keys import\`)`,
        });
      }
    }
    if (cfg.secrets.keystorePassword === '')
      problems.push({
        key: 'secrets.keystorePassword',
        message: 'the keystore needs its password in the environment variable MMKIT_KEYSTORE_PASSWORD',
      });
    if (cfg.secrets.privateKey !== '')
      warnings.push({
        key: 'secrets.privateKey',
        message: `MMKIT_PRIVATE_KEY is set too and ignored: the keystore ${cfg.bot.keystoreFile} is the wallet used; unset one of them`,
      });
  } else if (cfg.secrets.privateKey !== '') wallet = 'private-key';
  else if (paper) wallet = 'paper';
  else
    problems.push({
      key: 'bot.keystoreFile',
      message:
        'the venue is not a paper exchange: set a wallet (bot.keystoreFile + MMKIT_KEYSTORE_PASSWORD, or MMKIT_PRIVATE_KEY)',
    });
  try {
    apiCredentialsOf(cfg);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    problems.push(rekey(e, e.key, e.key));
  }
  // a proxy type without a funder is refused; a funder with eoa is a warning: it is harmless when it
  // is the wallet itself, which only the decrypted keystore tells (`mmkit doctor` and `mmkit run` refuse otherwise)
  // real money without a loss limit: said (not refused: an operator may watch it by hand)
  if (!paper) {
    if (cfg.bot.risk.maxLoss === 0)
      warnings.push({
        key: 'bot.risk.maxLoss',
        message: 'is 0 (no loss limit) on a venue that is not a paper exchange: nothing stops the bot on a loss',
      });
    if (cfg.bot.risk.maxDailyLoss === 0)
      warnings.push({
        key: 'bot.risk.maxDailyLoss',
        message:
          'is 0 (no daily loss limit) on a venue that is not a paper exchange: a bad day may lose up to bot.risk.maxLoss; set one (config/polymarket.json has 5)',
      });
  }
  const fp = funderProblem(cfg.venue.signatureType, cfg.venue.funder);
  if (fp !== undefined) (fp.certain ? problems : warnings).push({ key: fp.key, message: fp.message });
  for (const m of cfg.bot.markets)
    if (!isHex32(m))
      problems.push({
        key: 'bot.markets',
        message: `${JSON.stringify(String(m).slice(0, 80))} is not a condition id (0x + 64 hex digits)`,
      });
  return {
    ok: problems.length === 0,
    files,
    problems,
    warnings,
    venue: {
      inProcess: v.inProcess,
      paper,
      why: kind.why,
      urls: Object.fromEntries(Object.entries(v.urls).filter(([, u]) => u !== undefined)) as Record<string, string>,
    },
    wallet,
    strategy,
  };
}

/** Flatten a nested object to dotted keys (schema leaves only: JSON-object values stay whole). */
export function flatValues(cfg: Record<string, unknown>): Array<[string, unknown]> {
  const get = (k: string) =>
    k
      .split('.')
      .reduce<unknown>(
        (o, p) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[p] : undefined),
        cfg,
      );
  return schemaLeaves().map((l) => [l.key, get(l.key)]);
}

export async function runCheck(
  o: { config?: string; json?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let loaded;
  try {
    loaded = loadConfigDetailed(o.config);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    // a misspelt MMKIT_* variable is said with the other problems, not only once they are mended (trial 25 F2)
    const warnings = unknownVariableWarnings(env);
    if (!o.json) {
      for (const w of warnings) process.stderr.write(`mmkit: warning: config ${w.key}: ${w.message}\n`);
      throw e;
    }
    printJson({ ok: false, problems: e.problems, warnings });
    return ExitCode.USAGE;
  }
  const report = await checkConfig(loaded.config, loaded.files, env);
  if (o.json) printJson(report);
  else if (report.ok) {
    for (const w of report.warnings) process.stderr.write(`mmkit: warning: config ${w.key}: ${w.message}\n`);
    const where = report.venue.inProcess ? 'paper exchange in-process' : (report.venue.urls['clob'] ?? '?');
    process.stdout.write(
      `config ok: ${loaded.files.join(' + ')}\n  venue     ${where}${report.venue.paper ? ' (paper)' : ` (live: ${report.venue.why})`}\n  wallet    ${report.wallet}\n  strategy  ${report.strategy?.name ?? '-'} ${JSON.stringify(report.strategy?.params ?? {})}\n`,
    );
  } else {
    for (const p of report.problems) process.stderr.write(`mmkit: config ${p.key}: ${p.message}\n`);
    for (const w of report.warnings) process.stderr.write(`mmkit: warning: config ${w.key}: ${w.message}\n`);
  }
  return report.ok ? ExitCode.OK : ExitCode.USAGE;
}
