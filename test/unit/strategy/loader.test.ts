import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import { DEFAULT_STRATEGIES_DIR, isStrategyPath, listStrategies, loadStrategy } from '../../../src/strategy/loader.ts';

const API = pathToFileURL(fileURLToPath(new URL('../../../src/strategy/api.ts', import.meta.url))).href;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-strategies-'));
  writeFileSync(
    join(dir, 'mine.ts'),
    `import { defineStrategy } from ${JSON.stringify(API)};
const size: number = 3;
export default defineStrategy({
  name: 'mine',
  description: 'a test plugin',
  params: { size: { type: 'number', default: size, min: 1, doc: 'shares' } },
  create() { return { onEvent() { return undefined; } }; },
});
`,
  );
  writeFileSync(
    join(dir, 'plain.js'),
    `export default { name: 'plain', params: {}, create() { return { onEvent() {} }; } };\n`,
  );
  writeFileSync(join(dir, 'nodefault.ts'), `export const x = 1;\n`);
  writeFileSync(join(dir, 'nocreate.ts'), `export default { name: 'x', params: {} };\n`);
  writeFileSync(join(dir, 'noname.ts'), `export default { params: [], create: 1 };\n`);
  writeFileSync(join(dir, 'fn.ts'), `export default function () {}\n`);
  writeFileSync(
    join(dir, 'badselect.ts'),
    `export default { name: 's', params: {}, create() { return { onEvent() {} }; }, selectMarkets: ['0x1'] };\n`,
  );
  writeFileSync(
    join(dir, 'badparam.ts'),
    `export default { name: 'b', params: { size: { type: 'number', default: 50, max: 10, doc: 'x' } }, create() { return { onEvent() {} }; } };\n`,
  );
  writeFileSync(join(dir, 'syntax.ts'), `export default {{{ ;\n`);
  writeFileSync(join(dir, 'throws.ts'), `throw new Error('boom at import');\n`);
  mkdirSync(join(dir, 'sub'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function loadError(nameOrPath: string, o = {}): Promise<ConfigError> {
  try {
    await loadStrategy(nameOrPath, o);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('isStrategyPath', () => {
  it('tells names from paths', () => {
    expect(isStrategyPath('bands')).toBe(false);
    expect(isStrategyPath('my-strat')).toBe(false);
    for (const p of ['./a', '../a.ts', '/abs/a', 'a.ts', 'x/a.js', 'a.mjs']) expect(isStrategyPath(p)).toBe(true);
  });
});

describe('loadStrategy', () => {
  it('loads the shipped bands and template by name', async () => {
    const bands = await loadStrategy('bands');
    expect(bands.name).toBe('bands');
    expect(Object.keys(bands.params)).toContain('tokens');
    expect(typeof bands.create).toBe('function');
    const t = await loadStrategy('template', { strategiesDir: DEFAULT_STRATEGIES_DIR });
    expect(t.name).toBe('template');
  });
  it('loads a name from another strategies dir', async () => {
    const d = await loadStrategy('mine', { strategiesDir: dir });
    expect(d.name).toBe('mine');
    expect(d.params['size']?.default).toBe(3);
  });
  it('loads a .ts file by absolute and relative path (against cwd), no build step', async () => {
    const abs = await loadStrategy(join(dir, 'mine.ts'));
    expect(abs.description).toBe('a test plugin');
    const rel = relative(process.cwd(), join(dir, 'mine.ts'));
    const r1 = await loadStrategy(rel.startsWith('.') ? rel : `./${rel}`);
    expect(r1.name).toBe('mine');
    const r2 = await loadStrategy('./mine.ts', { cwd: dir });
    expect(r2.name).toBe('mine');
  });
  it('fills a missing description and accepts a .js module', async () => {
    const d = await loadStrategy('./plain.js', { cwd: dir });
    expect(d.name).toBe('plain');
    expect(d.description).toBe('');
  });
  it('says what is wrong with a bad module', async () => {
    expect((await loadError('./nodefault.ts', { cwd: dir })).message).toMatch(/no default export/);
    expect((await loadError('./nocreate.ts', { cwd: dir })).message).toMatch(
      /`create\(ctx, params\)` must be a function/,
    );
    const e = await loadError('./noname.ts', { cwd: dir });
    expect(e.message).toMatch(/`name` must be/);
    expect(e.message).toMatch(/`params` must be an object/);
    expect(e.message).toMatch(/`create/);
    expect((await loadError('./fn.ts', { cwd: dir })).message).toMatch(
      /must be a strategy definition object, got function/,
    );
    expect((await loadError('./badselect.ts', { cwd: dir })).message).toMatch(
      /`selectMarkets\(markets, ctx\)`, when given, must be a function/,
    );
    const p = await loadError('./badparam.ts', { cwd: dir });
    expect(p.key).toBe('bot.params.size');
    expect(p.message).toMatch(/default is invalid/);
  });
  it('wraps import failures', async () => {
    const e = await loadError('./syntax.ts', { cwd: dir });
    expect(e.key).toBe('strategy');
    expect(e.message).toMatch(/could not load/);
    expect((await loadError('./throws.ts', { cwd: dir })).message).toMatch(/boom at import/);
  });
  it('refuses missing files, directories, unknown names and junk', async () => {
    expect((await loadError('./nope.ts', { cwd: dir })).message).toMatch(/no strategy module at/);
    expect((await loadError('./sub', { cwd: dir })).message).toMatch(/no strategy module at/);
    const u = await loadError('nosuch');
    expect(u.message).toMatch(/unknown strategy "nosuch" \(shipped: .*bands.*\)/);
    expect((await loadError('bad name!')).message).toMatch(/not a strategy name or path/);
    expect((await loadError('  ')).message).toMatch(/required/);
  });
});

describe('listStrategies', () => {
  it('lists the shipped plugins', () => {
    const names = listStrategies();
    expect(names).toContain('bands');
    expect(names).toContain('template');
  });
  it('lists a directory sorted, and nothing for a missing one', () => {
    expect(listStrategies(dir)).toEqual([
      'badparam',
      'badselect',
      'fn',
      'mine',
      'nocreate',
      'nodefault',
      'noname',
      'plain',
      'syntax',
      'throws',
    ]);
    expect(listStrategies(join(dir, 'missing'))).toEqual([]);
  });
});
