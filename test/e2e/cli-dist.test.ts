/**
 * The compiled CLI: `node bin/mmkit.js` runs dist/ when its build stamp matches the sources, and
 * the sources through tsx when a source is newer; both answer. A .ts plugin importing
 * 'mmkit/strategy' loads, as the same module the CLI uses, from dist/ and from the sources.
 * Runs on a copy of the project (bin, src, strategies, config, package and tsconfig files, with a
 * link to node_modules) built afresh in a temporary folder: the test changes a source's time and
 * builds dist/, which must never disturb the other tests running the project's own CLI meanwhile.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PROJECT = fileURLToPath(new URL('../../', import.meta.url));
/** The copy of the project the tests run (see the module comment). */
const ROOT = mkdtempSync(join(tmpdir(), 'mmkit-dist-project-'));
for (const f of ['bin', 'src', 'strategies', 'config', 'package.json', 'tsconfig.json', 'tsconfig.build.json'])
  cpSync(join(PROJECT, f), join(ROOT, f), { recursive: true });
symlinkSync(join(PROJECT, 'node_modules'), join(ROOT, 'node_modules'), 'dir');
const BIN = join(ROOT, 'bin', 'mmkit.js');
const STAMP = join(ROOT, 'bin', 'build-stamp.js');
const current = () => spawnSync(process.execPath, [STAMP], { cwd: ROOT }).status === 0;
const mmkit = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, MMKIT_FROM: '', ...env },
  });

let dir: string;
beforeAll(() => {
  execFileSync(process.execPath, [STAMP, '--build'], { cwd: ROOT, stdio: 'inherit' });
  dir = mkdtempSync(join(tmpdir(), 'mmkit-dist-'));
  // a user's project with mmkit installed (linked) and a plugin importing only 'mmkit/strategy'
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(ROOT, join(dir, 'node_modules', 'mmkit'), 'dir');
  writeFileSync(
    join(dir, 'mine.ts'),
    `import { ConfigError, defineStrategy } from 'mmkit/strategy';
const size: number = 2;
export default defineStrategy({
  name: 'mine',
  description: 'a plugin in a user project',
  params: { size: { type: 'number', default: size, min: 1, doc: 'shares' } },
  // (hands out the ConfigError it imported: the test compares it with the kernel's)
  create() { return { onEvent() { return undefined; }, ConfigError } as never; },
});
`,
  );
}, 300_000);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(ROOT, { recursive: true, force: true });
});

describe('bin/mmkit.js', () => {
  it('runs dist/ when it is current, quietly; MMKIT_DEBUG says so', () => {
    expect(current()).toBe(true);
    const r = mmkit(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Usage: mmkit/);
    expect(r.stderr).toBe('');
    expect(mmkit(['--help'], { MMKIT_DEBUG: '1' }).stderr).toMatch(/running dist\//);
  });

  it('falls back to the sources when a source is newer than the build, and both work', () => {
    const file = join(ROOT, 'src', 'cli', 'exit-codes.ts');
    const { atime, mtime } = statSync(file);
    try {
      utimesSync(file, atime, new Date(mtime.getTime() + 5000));
      expect(current()).toBe(false);
      const r = mmkit(['--help'], { MMKIT_DEBUG: '1' });
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/Usage: mmkit/);
      expect(r.stderr).toMatch(/running the TypeScript sources.*sources changed/);
      expect(mmkit(['status', '--help']).stderr).toBe('');
    } finally {
      // the copy is thrown away afterwards; the tests after this one load dist/ directly
      utimesSync(file, atime, mtime);
    }
  }, 60_000);
});

describe("a .ts plugin importing 'mmkit/strategy'", () => {
  // loads the plugin with the CLI's own loader and compares its defineStrategy with the CLI's
  const script = (base: string, ext: string) => `
const { loadStrategy } = await import(${JSON.stringify(pathToFileURL(join(base, 'strategy', `loader${ext}`)).href)});
const api = await import(${JSON.stringify(pathToFileURL(join(base, 'strategy', `api${ext}`)).href)});
const d = await loadStrategy('./mine.ts', { cwd: ${JSON.stringify(dir)} });
const b = await loadStrategy('bands');
const pkg = await import('mmkit/strategy');
const errors = await import(${JSON.stringify(pathToFileURL(join(base, 'core', `errors${ext}`)).href)});
// the plugin's own import of mmkit/strategy is the kernel's copy (instanceof ConfigError holds)
const own = d.create({}, {}).ConfigError === errors.ConfigError;
console.log(JSON.stringify([d.name, b.name, pkg.defineStrategy === api.defineStrategy, own]));`;
  const run = (prelude: string, base: string, ext: string) => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', prelude + script(base, ext)], {
      cwd: dir,
      encoding: 'utf8',
    });
    return JSON.parse(out.trim().split('\n').pop()!) as unknown;
  };
  it("loads from dist/ (tsx registered only for the plugin), one copy of the API, the plugin's too", () => {
    expect(run('', join(ROOT, 'dist', 'src'), '.js')).toEqual(['mine', 'bands', true, true]);
  });
  it('loads from the sources (the fallback: tsx and the mmkit-src condition), one copy of the API', () => {
    const prelude = `await (await import(${JSON.stringify(pathToFileURL(join(ROOT, 'bin', 'source-mode.js')).href)})).registerSourceMode();`;
    expect(run(prelude, join(ROOT, 'src'), '.ts')).toEqual(['mine', 'bands', true, true]);
  });
});
