/**
 * `mmkit --help` (and every command's start) loads src/cli/main.ts and, through it, every command's
 * registration. What those import statically is paid at every start: rxjs, ethers, zod and prom-client
 * once crept in through registration modules (config check's strategy kernel, the data dir's wallet,
 * the exit summary's gate counts) and doubled the start (220 -> 410 ms). This walks the static imports
 * of the sources from main.ts and names the chain to any heavy package: the work that needs one
 * imports it when its command runs (`await import(...)`, or createRequire for a CommonJS package).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MAIN = resolve(ROOT, 'src/cli/main.ts');
/** What a command's registration may load: the CLI parser and the config schema's library. */
const ALLOWED = new Set(['commander', 'convict']);

/**
 * The modules a file loads when it is imported: its static import and export-from statements, not
 * `import type` / `export type` (erased), not `await import()`; with verbatimModuleSyntax an import
 * whose names are all `type` ones still loads its module. Template literals are blanked first (the
 * strategy scaffold holds a plugin's source text).
 */
function staticImports(source: string): string[] {
  const code = source.replace(/`(?:\\[\s\S]|[^`\\])*`/g, '``');
  const out: string[] = [];
  for (const m of code.matchAll(/^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm))
    if (m[2] === undefined) out.push(m[3]!);
  return out;
}

function graph(): { files: Map<string, string | undefined>; packages: Map<string, string> } {
  const files = new Map<string, string | undefined>();
  const packages = new Map<string, string>();
  const walk = (file: string, from: string | undefined): void => {
    if (files.has(file)) return;
    files.set(file, from);
    for (const spec of staticImports(readFileSync(file, 'utf8'))) {
      if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec);
        if (existsSync(target)) walk(target, file);
      } else if (!spec.startsWith('node:')) {
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!;
        if (!packages.has(name)) packages.set(name, file);
      }
    }
  };
  walk(MAIN, undefined);
  return { files, packages };
}

describe('what `mmkit --help` loads', () => {
  it('reads imports as the compiler keeps them', () => {
    expect(
      staticImports(
        [
          "import { a } from './a.ts';",
          "import type { B } from './b.ts';",
          "import { type C } from './c.ts';",
          "export { d } from './d.ts';",
          "export type { E } from './e.ts';",
          "import './f.ts';",
          "const g = await import('./g.ts');",
          'const text = `',
          "import { h } from 'vitest';",
          '`;',
        ].join('\n'),
      ),
    ).toEqual(['./a.ts', './c.ts', './d.ts', './f.ts']);
  });

  it('no heavy package is on the static path of the command registrations', () => {
    const { files, packages } = graph();
    const chain = (file: string): string => {
      const names: string[] = [];
      for (let f: string | undefined = file; f !== undefined; f = files.get(f)) names.unshift(relative(ROOT, f));
      return names.join(' > ');
    };
    const heavy = [...packages].filter(([name]) => !ALLOWED.has(name)).map(([name, f]) => `${name}: ${chain(f)}`);
    expect(heavy).toEqual([]);
    // the walk did read the registrations (a broken walk would pass the check above)
    expect(files.size).toBeGreaterThan(30);
    expect(packages.has('commander')).toBe(true);
  });
});
