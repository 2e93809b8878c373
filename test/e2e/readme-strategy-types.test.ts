/**
 * The README's strategy examples type-check with the command the README gives for a plugin outside
 * `strategies/` ("Type-check a plugin"). A plugin runs through tsx, which strips types without
 * checking them, so an example that stopped compiling (a plain number where a `Pips` or `Micro` is
 * expected, arithmetic on the string `m.tick`) would still run in the e2e tests and mislead only the
 * reader's editor: this test is what catches it. Every TypeScript block marked
 * `<!-- readme-example:NAME.ts -->` is saved as NAME.ts in a scratch folder inside the project (so
 * `mmkit/strategy` resolves) and the README's command runs on them as written, with its file name
 * replaced by theirs. A plugin with the trial's mistake (arithmetic on `m.tick`) must fail the same
 * command, so a command that checks nothing cannot pass. One tsc process each, a few seconds.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './support/cli.ts';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The TypeScript examples marked `<!-- readme-example:NAME.ts -->`: name and code. */
function tsExamples(): Array<{ name: string; code: string }> {
  const out: Array<{ name: string; code: string }> = [];
  for (const m of README.matchAll(/<!-- readme-example:([\w.-]+\.ts) -->\n```ts\n([\s\S]*?)\n```/g))
    out.push({ name: m[1] as string, code: m[2] as string });
  return out;
}

/** The README's type-check command, as argv. */
function typecheckCommand(): string[] {
  const at = README.indexOf('<!-- readme-example:typecheck -->');
  if (at < 0) throw new Error('README has no example marked typecheck');
  const m = /```sh\n([\s\S]*?)\n```/.exec(README.slice(at));
  if (!m) throw new Error('README example typecheck has no code block');
  const lines = (m[1] as string).split('\n').filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  expect(lines).toHaveLength(1);
  return (lines[0] as string).trim().split(/\s+/);
}

/** Scratch space inside the project (so 'mmkit/strategy' resolves), outside tsconfig's and vitest's includes. */
mkdirSync(join(ROOT, '.tmp'), { recursive: true });
const scratch = mkdtempSync(join(ROOT, '.tmp', 'readme-types-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  try {
    rmdirSync(join(ROOT, '.tmp'));
  } catch {
    /* another run uses it */
  }
});

/** Runs the README's command (its `npx tsc` as this project's tsc) on these files, in the scratch folder. */
function tsc(files: readonly string[]) {
  const argv = typecheckCommand();
  expect(argv.slice(0, 2)).toEqual(['npx', 'tsc']);
  expect(argv.at(-1)).toBe('./my-quoter.ts');
  const args = [...argv.slice(2, -1), ...files.map((f) => `./${f}`)];
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), ...args], {
    cwd: scratch,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, out: r.stdout + r.stderr };
}

describe("README: the strategy examples type-check with the README's command", () => {
  it('every marked TypeScript example compiles', () => {
    const examples = tsExamples();
    const names = examples.map((e) => e.name);
    expect(names).toEqual(expect.arrayContaining(['my-quoter.ts', 'raw-quoter.ts', 'one-fak.ts']));
    expect(new Set(names).size).toBe(names.length);
    for (const e of examples) writeFileSync(join(scratch, e.name), `${e.code}\n`);
    const r = tsc(names);
    expect(r.out, 'tsc').toBe('');
    expect(r.status).toBe(0);
  }, 180_000);

  it('the command fails on a plugin that does arithmetic on the tick string', () => {
    writeFileSync(
      join(scratch, 'tick-string.ts'),
      `import { defineStrategy, type StrategyOutput } from 'mmkit/strategy';

export default defineStrategy({
  name: 'tick-string',
  description: 'rounds with the tick string (wrong: use tickPips)',
  params: {},
  create(ctx) {
    return {
      onEvent(_event, state): StrategyOutput | undefined {
        for (const m of ctx.markets.values()) {
          const book = state.book(m.tokens[0].tokenId);
          if (book === undefined || book.mid === null) continue;
          const bid = Math.floor(book.mid / m.tick) * m.tick;
          return { quotes: [{ market: m.market, at: state.now, quotes: [{ tokenId: m.tokens[0].tokenId, side: 'BUY', price: bid, size: 5 }] }] };
        }
        return undefined;
      },
    };
  },
});
`,
    );
    const r = tsc(['tick-string.ts']);
    expect(r.status).not.toBe(0);
    expect(r.out).toContain('TS2363'); // the right-hand side of an arithmetic operation must be a number
    expect(r.out).toMatch(/not assignable to type 'Pips'/);
    expect(r.out).toMatch(/not assignable to type 'Micro'/);
  }, 180_000);

  it("in a folder of one's own with the checkout linked: the README's flags with its compiler and --typeRoots (trial 23 F4)", () => {
    const own = mkdtempSync(join(tmpdir(), 'mmkit-own-plugins-'));
    try {
      mkdirSync(join(own, 'node_modules'));
      symlinkSync(ROOT, join(own, 'node_modules', 'mmkit'));
      const ex = tsExamples().find((e) => e.name === 'my-quoter.ts')!;
      writeFileSync(join(own, 'my-quoter.ts'), `${ex.code}\n`);
      expect(README).toContain('`node_modules/mmkit/node_modules/.bin/tsc` with the same flags and `--typeRoots');
      const argv = typecheckCommand();
      const args = [...argv.slice(2), '--typeRoots', 'node_modules/mmkit/node_modules/@types'];
      const r = spawnSync(join(own, 'node_modules/mmkit/node_modules/.bin/tsc'), args, {
        cwd: own,
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(r.stdout + r.stderr, 'tsc').toBe('');
      expect(r.status).toBe(0);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  }, 180_000);

  it('a string param with choices is typed as the union of its choices (trial 10 F11)', () => {
    writeFileSync(
      join(scratch, 'modes.ts'),
      `import { defineStrategy } from 'mmkit/strategy';

export default defineStrategy({
  name: 'modes',
  description: 'switches on a mode',
  params: {
    mode: { type: 'string', default: 'a', choices: ['a', 'b'], doc: 'the mode' },
    label: { type: 'string', default: 'x', doc: 'any text' },
  },
  create(_ctx, p) {
    const m: 'a' | 'b' = p.mode;
    const l: string = p.label;
    const never = (x: never): never => x;
    const width = m === 'a' ? 1 : m === 'b' ? 2 : never(m);
    return { onEvent: () => (width > 0 && l !== '' ? undefined : undefined) };
  },
});
`,
    );
    const ok = tsc(['modes.ts']);
    expect(ok.out, 'tsc').toBe('');
    expect(ok.status).toBe(0);
    // and a value outside the choices does not type-check
    writeFileSync(
      join(scratch, 'modes-bad.ts'),
      `import { defineStrategy } from 'mmkit/strategy';

export default defineStrategy({
  name: 'modes-bad',
  description: 'compares with a mode it does not have',
  params: { mode: { type: 'string', default: 'a', choices: ['a', 'b'], doc: 'the mode' } },
  create(_ctx, p) {
    const c: 'c' = p.mode;
    return { onEvent: () => (c === 'c' ? undefined : undefined) };
  },
});
`,
    );
    const bad = tsc(['modes-bad.ts']);
    expect(bad.status).not.toBe(0);
    expect(bad.out).toMatch(/Type '"a" \| "b"' is not assignable to type '"c"'/);
  }, 180_000);
});
