/**
 * The flag parsers of `mmkit backtest` and `mmkit sweep` (commander argument functions): each
 * returns the parsed value or throws InvalidArgumentError naming the flag, so commander exits 2.
 */
import { InvalidArgumentError } from 'commander';
import { ConfigError } from '../core/errors.ts';
import type { FeeProtocol } from '../core/fees.ts';
import { parseDuration } from './config.ts';
import { parseRewardInterval } from './reward-flags.ts';
import { usageError } from './exit-codes.ts';

export const intIn =
  (name: string, min: number, max: number) =>
  (v: string): number => {
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max)
      throw new InvalidArgumentError(`${name} must be an integer in [${min}, ${max}]`);
    return Number(v);
  };
/**
 * A time flag: an ISO 8601 time with its zone (`2026-11-28T21:58:00Z`, `…+01:00`) or unix ms (with
 * decimals, as a feed's receive times and a backtest's `startMs` have them).
 */
export const timeArg =
  (name: string) =>
  (v: string): number => {
    const ms = /^\d+(\.\d+)?$/.test(v)
      ? Number(v)
      : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(v)
        ? Date.parse(v)
        : Number.NaN;
    if (!Number.isFinite(ms) || ms > Number.MAX_SAFE_INTEGER)
      throw new InvalidArgumentError(
        `${name} must be an ISO 8601 time with its zone (e.g. 2026-11-28T21:58:00Z) or unix ms, got ${v}`,
      );
    return ms;
  };
export const nonNegative =
  (name: string) =>
  (v: string): number => {
    if (!/^\d+(\.\d+)?$/.test(v) || !Number.isFinite(Number(v)))
      throw new InvalidArgumentError(`${name} must be a number >= 0`);
    return Number(v);
  };
export const jsonObject =
  (name: string) =>
  (v: string): Record<string, unknown> => {
    let o: unknown;
    try {
      o = JSON.parse(v);
    } catch (e) {
      throw new InvalidArgumentError(`${name} must be a JSON object: ${(e as Error).message}`);
    }
    if (typeof o !== 'object' || o === null || Array.isArray(o))
      throw new InvalidArgumentError(`${name} must be a JSON object, e.g. '{"margin": 0.02}'`);
    return o as Record<string, unknown>;
  };
/**
 * A `--param key=value` flag (repeatable) into a record.
 * @throws InvalidArgumentError (usage) on a missing `=` or a key given twice
 */
export function paramPairArg(v: string, prev: Record<string, string> = {}): Record<string, string> {
  const i = v.indexOf('=');
  if (i <= 0) throw new InvalidArgumentError('--param takes key=value, e.g. --param margin=0.02');
  const k = v.slice(0, i);
  if (Object.hasOwn(prev, k)) throw new InvalidArgumentError(`--param: "${k}" given twice`);
  return { ...prev, [k]: v.slice(i + 1) };
}

export const durationArg =
  (name: string) =>
  (v: string): string => {
    const ms = parseDuration(v);
    if (ms === undefined || ms <= 0)
      throw new InvalidArgumentError(`${name} must be a duration like 90s, 30m, 6h or 1500ms`);
    return v;
  };

export const rewardInterval =
  (name: string) =>
  (v: string): number => {
    const ms = parseRewardInterval(v);
    if (ms === undefined || ms <= 0)
      throw new InvalidArgumentError(`${name} takes ms or a duration like 10s, 2m, 1h, 1d`);
    return ms;
  };

/** `--fee-protocol`: 1 or 2. @throws InvalidArgumentError (usage) on anything else */
export function feeProtocolArg(v: string): FeeProtocol {
  if (v !== '1' && v !== '2') throw new InvalidArgumentError('--fee-protocol must be 1 or 2');
  return Number(v) as FeeProtocol;
}

/** The backtest's window keys and the flag that sets each. */
const WINDOW_FLAGS: Readonly<Record<string, string>> = {
  'backtest.from': '--from',
  'backtest.fromMs': '--from',
  'backtest.to': '--to',
  'backtest.toMs': '--to',
};

/**
 * A refusal of the `--from`/`--to` window named by its flag, not as a configuration key (trial 12:
 * "config backtest.from: ..." for a flag no configuration file has); other errors as they are.
 */
export function windowFlagError(e: unknown): unknown {
  if (!(e instanceof ConfigError)) return e;
  const flag = WINDOW_FLAGS[e.key];
  return flag === undefined ? e : usageError(`${flag}: ${e.problems[0]?.message ?? e.message}`);
}
