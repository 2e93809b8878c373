/**
 * What `mmkit run`'s in-process paper exchange does with the `exchange.*` keys.
 *
 * Why: `mmkit run` without a venue starts a paper exchange in its own process on a free loopback
 * port, in memory, with its world seeded by `bot.seed`; of the `exchange.*` keys it applies only
 * `exchange.worldProfile`, `exchange.feeRateBps`, `exchange.protocol` and `exchange.rewards.*`. The others (`exchange.db`,
 * `exchange.startingBalance`, `exchange.agents`, the limits...) configure `mmkit exchange`. An
 * operator who sets them for `mmkit run` (MMKIT_EXCHANGE_DB to keep the world across restarts, a
 * smaller starting balance) would otherwise see them accepted by `config check` and silently
 * ignored; the daemon warns at start instead, naming the keys and the way to get them: a separate
 * `mmkit exchange` with those keys and `mmkit run --exchange-url`. (Applying them in-process would
 * not make a restart continue the ledger either: the in-process exchange's URL, with its random
 * port, is part of the ledger epoch's identity.)
 */
import { schemaLeaves, type MmkitConfig } from './config.ts';

/** The `exchange.*` keys the in-process paper exchange applies (the host and port do not matter to it). */
const APPLIED = /^exchange\.(worldProfile|feeRateBps|protocol|rewards\..+|host|port)$/;

/** The value at a dotted key of the resolved configuration. */
function valueAt(cfg: MmkitConfig, key: string): unknown {
  let v: unknown = cfg;
  for (const p of key.split('.'))
    v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined;
  return v;
}

/**
 * The `exchange.*` keys set to something else than their default that `mmkit run`'s in-process
 * paper exchange ignores (`exchange.seed` only when it differs from `bot.seed`, the seed it uses).
 */
export function ignoredInProcessKeys(cfg: MmkitConfig): string[] {
  const out: string[] = [];
  for (const l of schemaLeaves()) {
    if (!l.key.startsWith('exchange.') || APPLIED.test(l.key)) continue;
    const v = valueAt(cfg, l.key);
    if (JSON.stringify(v) === JSON.stringify(l.default)) continue;
    if (l.key === 'exchange.seed' && v === cfg.bot.seed) continue;
    out.push(l.key);
  }
  return out;
}

/** The warning `mmkit run` logs when it starts the in-process paper exchange with ignored `exchange.*` keys. */
export function inProcessIgnoredMessage(keys: readonly string[]): string {
  const seed = keys.includes('exchange.seed') ? ' (its world is seeded by bot.seed)' : '';
  return (
    `${keys.join(', ')} ${keys.length === 1 ? 'is' : 'are'} ignored by the in-process paper exchange of \`mmkit run\`${seed}: ` +
    'it is in memory on a free port and applies only exchange.worldProfile, exchange.feeRateBps, exchange.protocol and exchange.rewards.*, ' +
    'so a restart is a new world and a new ledger epoch; for these keys run `mmkit exchange` with them ' +
    '(e.g. `mmkit exchange --db data/exchange.db`) and `mmkit run --exchange-url http://127.0.0.1:8080`'
  );
}

/** The `exchange.*` keys only the in-process paper exchange applies, and the `mmkit run` flag of each. */
const IN_PROCESS_ONLY: ReadonlyArray<readonly [string, string | undefined]> = [
  ['exchange.worldProfile', '--world-profile'],
  ['exchange.feeRateBps', '--fee-rate-bps'],
  ['exchange.protocol', undefined],
  ['exchange.rewards.epochMs', '--rewards-epoch'],
  ['exchange.rewards.sampleMs', '--rewards-sample'],
  ['exchange.rewards.minPayout', '--rewards-min-payout'],
];

/**
 * What configures the in-process paper exchange only, as the daemon names it when it trades on a
 * venue given by URL (`--exchange-url`, `venue.*Url`, shadow mode) and it has no effect: the flags
 * given (`flags`, from inProcessOnlyFlags), and the keys set otherwise to something else than their
 * default (an `MMKIT_EXCHANGE_*` variable, a config file), by key. Trial 12 F8: a desk that set
 * `exchange.feeRateBps` in its config file believed it traded with fees; only the flag was said.
 */
export function unusedInProcessSettings(cfg: MmkitConfig, flags: readonly string[]): string[] {
  const defaults = new Map(schemaLeaves().map((l) => [l.key, l.default] as const));
  const out = [...flags];
  for (const [key, flag] of IN_PROCESS_ONLY) {
    if (flag !== undefined && flags.includes(flag)) continue;
    if (JSON.stringify(valueAt(cfg, key)) === JSON.stringify(defaults.get(key))) continue;
    out.push(key);
  }
  return out;
}
