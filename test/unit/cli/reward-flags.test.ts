import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import { parseRewardInterval, rewardOptionsOf } from '../../../src/cli/reward-flags.ts';

describe('the reward flags of mmkit exchange and mmkit run', () => {
  it('read ms or a duration with a unit', () => {
    expect(parseRewardInterval('120000')).toBe(120_000);
    expect(parseRewardInterval('250ms')).toBe(250);
    expect(parseRewardInterval('10s')).toBe(10_000);
    expect(parseRewardInterval('2m')).toBe(120_000);
    expect(parseRewardInterval('1.5h')).toBe(5_400_000);
    expect(parseRewardInterval('1d')).toBe(86_400_000);
    for (const bad of ['', 'abc', '2 minutes', '-1s', '1w', '0.5ms', '1e3'])
      expect(parseRewardInterval(bad)).toBeUndefined();
  });

  it('turn the config into exchange options, naming the key of a value out of range', () => {
    expect(rewardOptionsOf({ epochMs: 120_000, sampleMs: 10_000, minPayout: '0.5' })).toEqual({
      epochMs: 120_000,
      sampleMs: 10_000,
      minPayout: 500_000,
    });
    const err = (r: { epochMs: number; sampleMs: number; minPayout: string }) => {
      try {
        rewardOptionsOf(r);
      } catch (e) {
        return e;
      }
      return undefined;
    };
    const e1 = err({ epochMs: 10, sampleMs: 10, minPayout: '1' });
    expect(e1).toBeInstanceOf(ConfigError);
    expect((e1 as ConfigError).message).toContain('exchange.rewards.epochMs');
    expect((err({ epochMs: 60_000, sampleMs: 120_000, minPayout: '1' }) as Error).message).toContain(
      'exchange.rewards.sampleMs',
    );
  });
});
