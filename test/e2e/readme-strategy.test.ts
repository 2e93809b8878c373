/**
 * The README's "Write a strategy" example, exactly as written: the TypeScript block is saved as the
 * README says (my-quoter.ts in the project root; here under a unique name so parallel runs do not
 * collide), then each command of the README's command block runs as written (only the file name is
 * substituted and the 30 s run shortened). The strategy must type-check, quote on the paper
 * exchange, stop flat, and backtest the sample feed.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

function block(marker: string): string {
  const at = README.indexOf(`<!-- readme-example:${marker} -->`);
  if (at < 0) throw new Error(`README has no example marked ${marker}`);
  const m = /```[a-z]*\n([\s\S]*?)\n```/.exec(README.slice(at));
  if (!m) throw new Error(`README example ${marker} has no code block`);
  return m[1] as string;
}

const name = `my-quoter-readme-${process.pid}.ts`;
const file = join(ROOT, name);
afterAll(() => rmSync(file, { force: true }));

function run(cmdline: string, timeoutMs: number) {
  const args = cmdline.trim().split(/\s+/);
  expect(args.slice(0, 2)).toEqual(['npx', 'mmkit']);
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'mmkit.js'), ...args.slice(2)], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: timeoutMs,
    env: { ...process.env, MMKIT_HTTP_PORT: '0', MMKIT_DATA_DIR: join(ROOT, '.tmp', `readme-${process.pid}`) },
  });
  return r;
}

describe('README: Write a strategy', () => {
  it('the example type-checks, quotes on the paper exchange, runs as a daemon and backtests', () => {
    writeFileSync(file, block('my-quoter.ts') + '\n');
    // type-check the file as a user's editor would (the project's tsconfig, this one file)
    mkdirSync(join(ROOT, '.tmp'), { recursive: true }); // not in a fresh clone (.gitignore'd)
    const cfg = join(ROOT, '.tmp', `tsconfig.readme-${process.pid}.json`);
    writeFileSync(
      cfg,
      JSON.stringify({ extends: '../tsconfig.json', include: [`../${name}`], compilerOptions: { rootDir: '..' } }),
    );
    const tsc = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', cfg, '--noEmit'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    rmSync(cfg, { force: true });
    expect(tsc.stdout + tsc.stderr, 'tsc').toBe('');
    expect(tsc.status).toBe(0);

    const commands = block('commands')
      .split('\n')
      .filter((l) => l.trim() !== '' && !l.trim().startsWith('#'))
      .map((l) => l.replaceAll('./my-quoter.ts', `./${name}`).replace('--duration 30s', '--duration 10s'));
    expect(commands).toHaveLength(3);

    const check = run(commands[0] as string, 120_000);
    expect(check.status, check.stderr.slice(-2000)).toBe(0);
    expect(check.stdout).toMatch(/strategy my-quoter: [1-9]\d* order\(s\) placed/);
    expect(check.stdout).toContain('check ok');

    const daemon = run(commands[1] as string, 120_000);
    expect(daemon.status, daemon.stderr.slice(-2000)).toBe(0);
    expect(daemon.stdout).toContain('open orders left  0');

    const bt = run(commands[2] as string, 300_000);
    expect(bt.status, bt.stderr.slice(-2000)).toBe(0);
    expect(bt.stdout).toMatch(/fills/i);
  }, 600_000);

  it('the backtest quickstart runs as written: a summary, and a self-contained report.html', () => {
    const lines = block('backtest-quickstart')
      .split('\n')
      .filter((l) => l.trim() !== '');
    expect(lines).toHaveLength(1);
    const report = join(ROOT, 'report.html');
    rmSync(report, { force: true });
    try {
      const r = run(lines[0] as string, 300_000);
      expect(r.status, r.stderr.slice(-2000)).toBe(0);
      expect(r.stdout).toMatch(/fills\s+[1-9]\d*/);
      const html = readFileSync(report, 'utf8');
      expect(html).toContain('<svg');
      expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\//);
    } finally {
      rmSync(report, { force: true });
    }
  }, 600_000);
});
