import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, describeConfig } from '../../../src/cli/config.ts';
import { ConfigError } from '../../../src/core/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'mmkit-cfg-'));
const file = (name: string, body: unknown) => {
  const p = join(dir, name);
  writeFileSync(p, JSON.stringify(body));
  return p;
};

describe('config', () => {
  it('loads defaults, then a file, then env, then flags', () => {
    expect(loadConfig(undefined, {}, {}).exchange.port).toBe(8080);
    const f = file('a.json', { exchange: { port: 9001, seed: 5 } });
    expect(loadConfig(f, {}, {}).exchange).toMatchObject({ port: 9001, seed: 5 });
    expect(loadConfig(f, {}, { MMKIT_EXCHANGE_PORT: '9002' }).exchange.port).toBe(9002);
    expect(loadConfig(f, { 'exchange.port': 9003 }, { MMKIT_EXCHANGE_PORT: '9002' }).exchange.port).toBe(9003);
  });
  it('refuses bad values and unknown keys with an error naming the key', () => {
    const bad = [
      [{ exchange: { port: 70000 } }, 'exchange.port'],
      [{ exchange: { prot: 1 } }, 'exchange.prot'],
      [{ exchange: { startingBalance: '10.1234567' } }, 'exchange.startingBalance'],
      [{ exchange: { rateLimits: { scale: 0 } } }, 'exchange.rateLimits.scale'],
      [{ log: { level: 'loud' } }, 'log.level'],
    ] as const;
    for (const [body, key] of bad) {
      let err: unknown;
      try {
        loadConfig(file('bad.json', body), {}, {});
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).key).toBe(key);
    }
    expect(() => loadConfig(join(dir, 'missing.json'), {}, {})).toThrow(ConfigError);
  });
  it('never prints a secret default and documents every key with its env var', () => {
    const doc = describeConfig();
    expect(doc).toContain('MMKIT_ADMIN_TOKEN');
    for (const line of doc.split('\n').slice(2)) expect(line).toMatch(/^\| `[\w.]+` \| `MMKIT_\w+` \|/);
  });
});
