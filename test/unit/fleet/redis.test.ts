/** The fleet's Redis connection helpers (src/fleet/redis.ts): URL checks, redaction, member names. */
import { describe, expect, it } from 'vitest';
import { checkRedisUrl, memberName, redactRedisUrl } from '../../../src/fleet/redis.ts';

describe('fleet redis helpers', () => {
  it('redacts credentials', () => {
    expect(redactRedisUrl('redis://user:s3cret@10.0.0.5:6380/2')).toBe('redis://***@10.0.0.5:6380/2');
    expect(redactRedisUrl('redis://:s3cret@h:1')).not.toContain('s3cret');
    expect(redactRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(redactRedisUrl('::nope::')).toBe('(unparseable redis url)');
  });

  it('accepts redis:// and rediss:// with a host; refuses the rest without echoing a password', () => {
    expect(checkRedisUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(checkRedisUrl('rediss://a:b@host:6380/1')).toBe('rediss://a:b@host:6380/1');
    expect(() => checkRedisUrl('http://h:1')).toThrow(/fleet\.redisUrl.*redis:\/\//);
    expect(() => checkRedisUrl('not a url :pw')).toThrow(/fleet\.redisUrl/);
    try {
      checkRedisUrl('http://u:topsecret@h:1');
    } catch (e) {
      expect(String(e)).not.toContain('topsecret');
    }
  });

  it('member names: the configured one when valid, else <host>-<pid>', () => {
    expect(memberName('east-1')).toBe('east-1');
    expect(memberName('', 42, 'box.local')).toBe('box.local-42');
    expect(memberName('', 7, 'weird host/name')).toBe('weird-host-name-7');
    expect(() => memberName('bad name')).toThrow(/fleet\.member/);
    expect(() => memberName('x'.repeat(65))).toThrow(/fleet\.member/);
  });
});
