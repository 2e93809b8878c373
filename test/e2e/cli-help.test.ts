/**
 * Every command's `--help`, as a user reads it (README "The `mmkit` command": "Every command has
 * `--help` with examples"): walks the command tree from `mmkit --help` (groups such as `keys`,
 * `fleet` and `world` included, and their subcommands), and checks that each help has an
 * "Examples:" section and says "Exit codes" at most once (a command with codes of its own prints
 * those instead of the common table). Also checks that the README's command table names every
 * top-level command.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/mmkit.js');

function help(path: string[]): Promise<string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('MMKIT_') && !k.startsWith('VITEST') && v !== undefined) env[k] = v;
  const p = spawn(process.execPath, [BIN, ...path, '--help'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  p.stdout.on('data', (d) => (out += d));
  return new Promise((resolve, reject) => {
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`mmkit ${path.join(' ')} --help: ${code}`))));
  });
}

/** The subcommand names of a help text's "Commands:" section (without `help`). */
function subcommands(text: string): string[] {
  const section = /\nCommands:\n([\s\S]*?)(?:\n\n|$)/.exec(text)?.[1] ?? '';
  return section
    .split('\n')
    .map((l) => /^ {2}([a-z][a-z-]*)/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined && n !== 'help');
}

async function tree(): Promise<Map<string, string>> {
  const helps = new Map<string, string>();
  let level: string[][] = [[]];
  while (level.length > 0) {
    const texts = await Promise.all(level.map((p) => help(p)));
    const next: string[][] = [];
    level.forEach((p, i) => {
      const text = texts[i] as string;
      helps.set(p.join(' '), text);
      for (const s of subcommands(text)) next.push([...p, s]);
    });
    level = next;
  }
  return helps;
}

describe('mmkit --help of every command', () => {
  it('has examples, says "Exit codes" at most once, and the README table names every command', async () => {
    const helps = await tree();
    const top = subcommands(helps.get('') as string);
    expect(top).toEqual(expect.arrayContaining(['fleet', 'world', 'status', 'positions', 'strategy', 'doctor']));
    expect(helps.size).toBeGreaterThan(30);
    for (const [path, text] of helps) {
      if (path === '') continue;
      expect(text, `mmkit ${path} --help`).toMatch(/\nExamples:\n/);
      expect(text.match(/Exit codes/g)?.length ?? 0, `mmkit ${path} --help`).toBeLessThanOrEqual(1);
    }
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf('| command '), readme.indexOf('\n\n', readme.indexOf('| command ')));
    for (const name of top)
      expect(table, `README command table: ${name}`).toMatch(new RegExp(`\`mmkit [^\`]*\\b${name}\\b`));
  }, 120_000);
});
