/**
 * A fleet member's venue and wallet (src/cli/run-fleet.ts checkFleetMemberSetup): the in-process
 * paper exchange and a data directory's own paper wallet would each make a fleet of one, so a member
 * (fleet.redisUrl set) is refused both, naming the keys; a lone daemon is not concerned.
 */
import { describe, expect, it } from 'vitest';
import { checkFleetMemberSetup } from '../../../src/cli/run-fleet.ts';
import { ConfigError } from '../../../src/core/errors.ts';

const KEY = `0x${'11'.repeat(32)}`;
const fleet = { redisUrl: 'redis://127.0.0.1:6390' };

function problemsOf(f: () => void): string[] {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems.map((p) => p.key);
  }
  return [];
}

describe('checkFleetMemberSetup', () => {
  it('refuses a member with the in-process exchange and the paper wallet, naming both keys', () => {
    const cfg = { fleet, exchangeUrl: '', keystoreFile: '' };
    expect(problemsOf(() => checkFleetMemberSetup(cfg, {}))).toEqual(['bot.exchangeUrl', 'bot.keystoreFile']);
    try {
      checkFleetMemberSetup(cfg, {});
    } catch (e) {
      expect((e as Error).message).toMatch(/MMKIT_EXCHANGE_URL/);
      expect((e as Error).message).toMatch(/MMKIT_PRIVATE_KEY/);
    }
  });

  it('refuses either alone', () => {
    expect(
      problemsOf(() => checkFleetMemberSetup({ fleet, exchangeUrl: '', keystoreFile: '' }, { MMKIT_PRIVATE_KEY: KEY })),
    ).toEqual(['bot.exchangeUrl']);
    expect(
      problemsOf(() => checkFleetMemberSetup({ fleet, exchangeUrl: 'http://127.0.0.1:9', keystoreFile: '' }, {})),
    ).toEqual(['bot.keystoreFile']);
  });

  it('takes a venue URL (or clob + ws URLs) with a keystore or MMKIT_PRIVATE_KEY; a lone daemon is never refused', () => {
    expect(
      problemsOf(() =>
        checkFleetMemberSetup(
          { fleet, exchangeUrl: 'http://127.0.0.1:9', keystoreFile: '' },
          { MMKIT_PRIVATE_KEY: KEY },
        ),
      ),
    ).toEqual([]);
    expect(
      problemsOf(() =>
        checkFleetMemberSetup(
          { fleet, exchangeUrl: '', urls: { clob: 'http://h/clob', ws: 'ws://h/ws' }, keystoreFile: '/k.json' },
          {},
        ),
      ),
    ).toEqual([]);
    expect(problemsOf(() => checkFleetMemberSetup({ exchangeUrl: '', keystoreFile: '' }, {}))).toEqual([]);
    expect(
      problemsOf(() => checkFleetMemberSetup({ fleet: { redisUrl: '' }, exchangeUrl: '', keystoreFile: '' }, {})),
    ).toEqual([]);
  });
});
