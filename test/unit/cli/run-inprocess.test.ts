import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/cli/config.ts';
import { ignoredInProcessKeys, inProcessIgnoredMessage } from '../../../src/cli/run-inprocess.ts';

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
