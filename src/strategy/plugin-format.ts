/**
 * Loading a user's `.ts` plugin as the ES module it is, wherever it lives. Node (20.19 and later) has
 * `require(esm)`, and tsx then compiles a `.ts` file whose package is not `"type": "module"` (a plugin
 * in its own folder or repository, the normal case) as CommonJS: imported through a globally
 * registered tsx it fails (ERR_REQUIRE_CYCLE_MODULE), and through `tsImport` it runs from a
 * `data:text/javascript,...` URL holding the whole compiled plugin, without a source map. Every stack
 * frame of the plugin then names that URL (kilobytes of URL-encoded source) instead of its file, and
 * that is what a strategy error's `at` showed. A plugin inside this project is in a `"type": "module"`
 * package and never had the problem.
 *
 * The hook below, registered once before the first `.ts` plugin is imported, tells the loader chain
 * that such a file is TypeScript in ES-module form (`module-typescript`), and tsx compiles it as an
 * ES module from its real `file:` URL with a source map: frames read `/path/plugin.ts:line:column`.
 * It touches only `.ts` files outside `node_modules`, in a package scope that is not
 * `"type": "module"`, whose source has an `import` or `export` statement; a CommonJS-style `.ts`
 * file keeps loading as CommonJS. A `.js` plugin of that kind (ES-module syntax in a scope that is
 * not `"type": "module"`) is loaded as an ES module from its file the same way (format `module`):
 * with tsx registered (running from the sources) it was compiled to CommonJS in memory too, and its
 * errors, a stack overflow among them, pointed into the compiled code (trial 10 F20); plain Node
 * (the compiled `dist/`) detects its syntax and loads it so anyway. From the compiled `dist/`, src/strategy/loader.ts registers tsx
 * for the process before the first `.ts` plugin (and retries a CommonJS-style one through
 * `tsImport`, which honours the hook too).
 *
 * The hook runs on Node's loader thread, so it is source text (a `data:` URL, as bin/source-mode.js
 * registers its own); it reads files, which is why it stays here at the edge with the loader.
 */
import { register } from 'node:module';

const HOOK = String.raw`import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ESM_SYNTAX = /^[ \t]*(?:import[ \t]*[\w{*'"]|export[ \t{*])/m;
const scopeIsModule = new Map();

function packageScopeIsModule(dir) {
  const known = scopeIsModule.get(dir);
  if (known !== undefined) return known;
  let isModule = false;
  const pkg = join(dir, 'package.json');
  const parent = dirname(dir);
  if (existsSync(pkg)) {
    try {
      isModule = JSON.parse(readFileSync(pkg, 'utf8')).type === 'module';
    } catch {
      isModule = false;
    }
  } else if (parent !== dir) isModule = packageScopeIsModule(parent);
  scopeIsModule.set(dir, isModule);
  return isModule;
}

// the format to load an ES-module file of a scope that is not "type": "module" in (undefined: leave it)
function esmFormatOf(file) {
  const ts = file.endsWith('.ts') && !file.endsWith('.d.ts');
  if ((!ts && !file.endsWith('.js')) || file.includes('/node_modules/')) return undefined;
  try {
    if (packageScopeIsModule(dirname(file)) || !ESM_SYNTAX.test(readFileSync(file, 'utf8'))) return undefined;
  } catch {
    return undefined;
  }
  return ts ? 'module-typescript' : 'module';
}

// A path specifier is resolved here, before tsx's own resolve, which would mark it as CommonJS (a
// query on the URL); a bare one (a package) is never touched.
export async function resolve(specifier, context, next) {
  if (/^(?:\.{1,2}\/|\/|file:)[^?#]*\.[jt]s$/.test(specifier) && context.parentURL !== undefined) {
    let url;
    try {
      url = new URL(specifier, context.parentURL);
    } catch {
      return next(specifier, context);
    }
    if (url.protocol === 'file:') {
      let file = fileURLToPath(url);
      // TypeScript's ESM convention: './helper.js' names ./helper.ts
      if (file.endsWith('.js') && !existsSync(file)) file = file.slice(0, -3) + '.ts';
      const format = existsSync(file) ? esmFormatOf(file) : undefined;
      if (format !== undefined) return { url: pathToFileURL(file).href, format, shortCircuit: true };
    }
  }
  return next(specifier, context);
}
`;

let registered = false;

/** Registers the hook (once per process) that loads ES-module `.ts` and `.js` plugins outside `"type": "module"` packages as ES modules. */
export function registerPluginFormatHook(): void {
  if (registered) return;
  registered = true;
  register(`data:text/javascript,${encodeURIComponent(HOOK)}`);
}
