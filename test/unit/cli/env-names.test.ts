/**
 * MMKIT_* variables mmkit does not read are warned of, with the nearest known name (trial 13 F1: a
 * typo left a risk limit at its default without a word).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/cli/config.ts';
import { checkConfig } from '../../../src/cli/config-check.ts';
import { knownVariables, unknownVariableMessage, unknownVariables } from '../../../src/cli/env-names.ts';

const ROOT = new URL('../../../', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') || p.endsWith('.js') ? [p] : [];
  });
}

describe('unknown MMKIT_* variables', () => {
  it('names a misspelt one with the nearest known name, and one far from all without', () => {
    const env = {
      MMKIT_RISK_MAX_POSITON_SHARES: '5',
      MMKIT_RISK_MAX_POSITION_SHARES: '7',
      MMKIT_SOMETHING_ELSE_ENTIRELY: '1',
      MMKIT_DEBUG: '1',
      PATH: '/bin',
    };
    expect(unknownVariables(env)).toEqual([
      { name: 'MMKIT_RISK_MAX_POSITON_SHARES', nearest: 'MMKIT_RISK_MAX_POSITION_SHARES' },
      { name: 'MMKIT_SOMETHING_ELSE_ENTIRELY' },
    ]);
    expect(unknownVariableMessage(unknownVariables(env)[0]!)).toBe(
      'MMKIT_RISK_MAX_POSITON_SHARES is set, but mmkit reads no such variable: ignored (did you mean MMKIT_RISK_MAX_POSITION_SHARES?)',
    );
  });
  it('mmkit config check warns of it (a warning: the check still passes), never showing the value', async () => {
    const env = { MMKIT_PRIVAT_KEY: '0xsecret' };
    const r = await checkConfig(loadConfig(undefined, {}, {}), ['config/default.json'], env);
    expect(r.warnings).toContainEqual({
      key: 'MMKIT_PRIVAT_KEY',
      message: 'set, but mmkit reads no such variable: ignored (did you mean MMKIT_PRIVATE_KEY?)',
    });
    expect(JSON.stringify(r)).not.toContain('0xsecret');
  });
  it('knows every MMKIT_* variable the code reads (a new one must be listed, or it is warned of)', () => {
    const names = new Set<string>();
    for (const f of [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'bin'))])
      for (const m of readFileSync(f, 'utf8').matchAll(/\bMMKIT_[A-Z0-9_]*[A-Z0-9]\b/g)) names.add(m[0]);
    names.delete('MMKIT_VERSION'); // a constant's name, not a variable
    const known = knownVariables();
    expect([...names].filter((n) => !known.has(n))).toEqual([]);
  });
});
