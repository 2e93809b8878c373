import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/cli/config.ts';
import {
  ignoredInProcessKeys,
  inProcessIgnoredMessage,
  unusedInProcessSettings,
} from '../../../src/cli/run-inprocess.ts';
import { warnInProcessFlags } from '../../../src/cli/run-checks.ts';

describe("ignoredInProcessKeys (exchange.* keys mmkit run's in-process exchange does not apply)", () => {
  it('names the set keys it ignores, not the defaults nor the ones it applies', () => {
    expect(ignoredInProcessKeys(loadConfig(undefined, {}, {}))).toEqual([]);
    const cfg = loadConfig(
      undefined,
      {},
      {
        MMKIT_EXCHANGE_DB: '/tmp/x.db',
        MMKIT_EXCHANGE_STARTING_BALANCE: '500',
        MMKIT_EXCHANGE_AGENTS: 'none',
        MMKIT_EXCHANGE_WORLD_PROFILE: 'calm',
        MMKIT_EXCHANGE_PROTOCOL: '1',
        MMKIT_EXCHANGE_PORT: '9000',
      },
    );
    expect(ignoredInProcessKeys(cfg)).toEqual(['exchange.startingBalance', 'exchange.db', 'exchange.agents']);
    const m = inProcessIgnoredMessage(ignoredInProcessKeys(cfg));
    expect(m).toContain('exchange.startingBalance, exchange.db, exchange.agents are ignored by the in-process');
    expect(m).toContain('mmkit exchange --db');
    expect(m).toContain('--exchange-url');
  });
  it('exchange.seed only when it is not bot.seed (the seed of the in-process world)', () => {
    expect(ignoredInProcessKeys(loadConfig('config/paper.json', {}, {}))).toEqual([]);
    const cfg = loadConfig(undefined, {}, { MMKIT_EXCHANGE_SEED: '9' });
    expect(ignoredInProcessKeys(cfg)).toEqual(['exchange.seed']);
    expect(inProcessIgnoredMessage(['exchange.seed'])).toContain('exchange.seed is ignored');
    expect(inProcessIgnoredMessage(['exchange.seed'])).toContain('bot.seed');
  });
});

describe('unusedInProcessSettings (what has no effect with --exchange-url; trial 12 F8)', () => {
  it('names the flags given, then the in-process keys set by the environment or a config file', () => {
    expect(unusedInProcessSettings(loadConfig(undefined, {}, {}), [])).toEqual([]);
    const env = { MMKIT_EXCHANGE_FEE_RATE_BPS: '200', MMKIT_EXCHANGE_PROTOCOL: '1', MMKIT_EXCHANGE_DB: '/tmp/x.db' };
    expect(unusedInProcessSettings(loadConfig(undefined, {}, env), [])).toEqual([
      'exchange.feeRateBps',
      'exchange.protocol',
    ]);
    // a key its flag set is named once, by the flag
    const flagged = loadConfig(undefined, { 'exchange.feeRateBps': 300 }, env);
    expect(unusedInProcessSettings(flagged, ['--fee-rate-bps'])).toEqual(['--fee-rate-bps', 'exchange.protocol']);
    // a config file's
    expect(unusedInProcessSettings(loadConfig('config/paper.json', {}, {}), [])).toEqual([]);
  });
  it('says "set it" for one, "set them" for several', () => {
    const said: string[] = [];
    const log = { warn: (_: object, m: string) => void said.push(m) } as unknown as Parameters<
      typeof warnInProcessFlags
    >[0];
    warnInProcessFlags(log, ['exchange.feeRateBps']);
    warnInProcessFlags(log, ['--world-profile', 'exchange.feeRateBps']);
    expect(said[0]).toMatch(
      /^exchange\.feeRateBps: no effect here: it applies only .*; set it on `mmkit exchange` instead$/,
    );
    expect(said[1]).toMatch(/they apply only .*; set them on/);
  });
});
