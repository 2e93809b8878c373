/**
 * The paper exchange's liquidity reward flags, shared by `mmkit exchange` and `mmkit run` (its
 * in-process exchange): `--rewards-epoch`, `--rewards-sample` (ms, or 2m / 1h / 1d) and
 * `--rewards-min-payout` (USDC), over the config keys `exchange.rewards.*`. Light: loaded with the
 * command definitions.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { ConfigError } from '../core/errors.ts';
import { parseAmount } from '../core/units.ts';
import { rewardOptions, type RewardOptions } from '../exchange/rewards/ledger.ts';

/**
 * A reward epoch or sampling interval: a whole number of ms, or a number with a unit (ms, s, m, h,
 * d: `2m`, `1h`, `1d`); undefined when malformed or not a whole number of ms.
 */
export function parseRewardInterval(s: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(s.trim());
  if (!m) return undefined;
  const unit = (m[2] ?? 'ms') as 'ms' | 's' | 'm' | 'h' | 'd';
  const ms = Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit];
  return Number.isSafeInteger(ms) ? ms : undefined;
}

const intervalArg =
  (name: string) =>
  (v: string): number => {
    const ms = parseRewardInterval(v);
    if (ms === undefined) throw new InvalidArgumentError(`${name} takes ms or a duration like 10s, 2m, 1h, 1d`);
    return ms;
  };

/** Add the three flags to a command. */
export function addRewardOptions(cmd: Command, what: string): Command {
  return cmd
    .option(
      '--rewards-epoch <d>',
      `${what}liquidity reward epoch: 2m, 1h, 1d, or a bare number of ms, as exchange.rewards.epochMs (default 1d: paid at midnight UTC) [exchange.rewards.epochMs]`,
      intervalArg('--rewards-epoch'),
    )
    .option(
      '--rewards-sample <d>',
      `${what}how often resting orders are sampled for rewards: 10s, 1m, or a bare number of ms (default 1m) [exchange.rewards.sampleMs]`,
      intervalArg('--rewards-sample'),
    )
    .option(
      '--rewards-min-payout <usdc>',
      `${what}smallest reward paid per market and epoch, USDC (default 1) [exchange.rewards.minPayout]`,
    );
}

/** The config overrides of the flags (undefined: not given). */
export function rewardFlagOverrides(o: {
  rewardsEpoch?: number;
  rewardsSample?: number;
  rewardsMinPayout?: string;
}): Record<string, unknown> {
  return {
    'exchange.rewards.epochMs': o.rewardsEpoch,
    'exchange.rewards.sampleMs': o.rewardsSample,
    'exchange.rewards.minPayout': o.rewardsMinPayout,
  };
}

/**
 * The flags of `mmkit run` given on the command line that apply only to its in-process paper
 * exchange (`--world-profile`, `--fee-rate-bps`, `--rewards-*`): the daemon warns that they have no effect when it
 * trades on a venue given by URL (`--exchange-url`, `venue.*Url`, shadow mode).
 */
export function inProcessOnlyFlags(o: {
  worldProfile?: string;
  feeRateBps?: number;
  rewardsEpoch?: number;
  rewardsSample?: number;
  rewardsMinPayout?: string;
}): string[] {
  return [
    ...(o.worldProfile !== undefined ? ['--world-profile'] : []),
    ...(o.feeRateBps !== undefined ? ['--fee-rate-bps'] : []),
    ...(o.rewardsEpoch !== undefined ? ['--rewards-epoch'] : []),
    ...(o.rewardsSample !== undefined ? ['--rewards-sample'] : []),
    ...(o.rewardsMinPayout !== undefined ? ['--rewards-min-payout'] : []),
  ];
}

/**
 * The exchange's reward options of the config's `exchange.rewards`.
 * @throws ConfigError naming the key when a value is out of range.
 */
export function rewardOptionsOf(r: { epochMs: number; sampleMs: number; minPayout: string }): RewardOptions {
  const o = { epochMs: r.epochMs, sampleMs: r.sampleMs, minPayout: parseAmount(r.minPayout) };
  try {
    return rewardOptions(o);
  } catch (e) {
    const msg = (e as Error).message;
    const key = /sampleMs/.test(msg) ? 'sampleMs' : /minPayout/.test(msg) ? 'minPayout' : 'epochMs';
    throw new ConfigError(`exchange.rewards.${key}`, msg);
  }
}
