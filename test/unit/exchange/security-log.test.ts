/**
 * The security log never writes a whole API key (findings-5 F2): a path that hands it one (the
 * user channel did) gets it cut to its first 8 characters; keyTag is the form every path uses.
 */
import { describe, expect, it } from 'vitest';
import { createSecurityLog, keyTag } from '../../../src/exchange/security-log.ts';

const KEY = 'd7e419ed-b654-421f-9898-e3ec8bf5af3c';

describe('the security log and API keys', () => {
  it('tags a key as `key:` and its first 8 characters', () => {
    expect(keyTag(KEY)).toBe('key:d7e419ed…');
    expect(keyTag('short')).toBe('key:…(5)');
  });

  it('cuts a whole key id left in any field of an event', () => {
    const log = createSecurityLog();
    log.record({
      kind: 'auth_failed',
      identity: KEY,
      reason: `bad ${KEY.toUpperCase()}`,
      route: `/x/${KEY}`,
      detail: KEY,
    });
    const e = log.recent()[0]!;
    expect(e).toEqual({
      kind: 'auth_failed',
      identity: 'd7e419ed…',
      reason: `bad ${KEY.slice(0, 8).toUpperCase()}…`,
      route: '/x/d7e419ed…',
      detail: 'd7e419ed…',
    });
    expect(JSON.stringify(log.recent())).not.toMatch(/b654/i);
  });
});
