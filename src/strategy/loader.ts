/**
 * Loading strategy plugins. A bare name (`bands`) loads a shipped plugin from `strategies/<name>.ts`;
 * anything that looks like a path (starts with `.` or `/`, or ends in `.ts`, `.mts`, `.js`, `.mjs`)
 * is a user's module, resolved against the working directory. A `.ts` file loads without a build
 * step: the `mmkit` bin registers tsx, and vitest transforms TypeScript itself.
 *
 * The module's default export must look like a definition (`defineStrategy({ name, params, create })`);
 * anything else is a ConfigError that says what is missing, because "undefined is not a function"
 * at the first event is a poor way to learn that a plugin exports the wrong thing.
 *
 * This module does I/O (the file system, dynamic import): it is the edge, called once at start.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError } from '../core/errors.ts';
import { RUNNING_COMPILED } from '../core/package-root.ts';
import type { StrategyDefinition } from './api.ts';
import { validateSchema } from './params.ts';
import { registerPluginFormatHook } from './plugin-format.ts';
import { riskPriceBandProblems } from './price-band.ts';

/** The config key a loading error names. */
export const STRATEGY_KEY = 'strategy';

/** The shipped plugins' folder: `strategies/` at the project root (from src/ and from dist/). */
export const DEFAULT_STRATEGIES_DIR = fileURLToPath(new URL('../../strategies/', import.meta.url));

/** Where `loadStrategy` looks. */
export interface LoadStrategyOptions {
  /** Where shipped plugins live (default: the project's `strategies/`). */
  readonly strategiesDir?: string;
  /** What a relative path is resolved against (default: `process.cwd()`). */
  readonly cwd?: string;
}

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const MODULE_EXT_RE = /\.(?:ts|mts|js|mjs)$/;

/** True when `s` names a module by path rather than a shipped plugin by name. */
export function isStrategyPath(s: string): boolean {
  return s.startsWith('.') || s.startsWith('/') || isAbsolute(s) || MODULE_EXT_RE.test(s);
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  return typeof v;
}

/**
 * Checks that `mod` (an imported module namespace) default-exports a strategy definition and
 * returns it. `from` names the module in messages.
 * @throws ConfigError (key `strategy`, or `bot.params.<key>` for a bad param spec) saying what
 *   is wrong
 */
export function asStrategyDefinition(mod: unknown, from: string): StrategyDefinition {
  let def = typeof mod === 'object' && mod !== null ? (mod as { default?: unknown }).default : undefined;
  // a module compiled as CommonJS arrives as { default: module.exports } with the real default inside
  if (typeof def === 'object' && def !== null && !('create' in def) && 'default' in def)
    def = (def as { default?: unknown }).default;
  if (def === undefined) {
    throw new ConfigError(
      STRATEGY_KEY,
      `${from} has no default export; a plugin must \`export default defineStrategy({ name, description, params, create })\``,
    );
  }
  if (typeof def !== 'object' || def === null)
    throw new ConfigError(
      STRATEGY_KEY,
      `${from}: the default export must be a strategy definition object, got ${describe(def)}`,
    );
  const d = def as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof d['name'] !== 'string' || d['name'].trim() === '') problems.push('`name` must be a non-empty string');
  if (d['description'] !== undefined && typeof d['description'] !== 'string')
    problems.push('`description` must be a string');
  if (typeof d['params'] !== 'object' || d['params'] === null || Array.isArray(d['params']))
    problems.push('`params` must be an object of parameter specs (`{}` when there are none)');
  if (typeof d['create'] !== 'function')
    problems.push('`create(ctx, params)` must be a function returning `{ onEvent }`');
  if (d['selectMarkets'] !== undefined && typeof d['selectMarkets'] !== 'function')
    problems.push('`selectMarkets(markets, ctx)`, when given, must be a function returning condition ids');
  if (d['riskPriceBand'] !== undefined) problems.push(...riskPriceBandProblems(d['riskPriceBand']));
  if (problems.length > 0)
    throw new ConfigError(STRATEGY_KEY, `${from} is not a strategy definition: ${problems.join('; ')}`);
  validateSchema(d['params']);
  if (d['description'] === undefined) return { ...(d as unknown as StrategyDefinition), description: '' };
  return d as unknown as StrategyDefinition;
}

function moduleFileFor(nameOrPath: string, o: LoadStrategyOptions): string {
  if (isStrategyPath(nameOrPath)) {
    const file = resolve(o.cwd ?? process.cwd(), nameOrPath);
    if (!existsSync(file) || !statSync(file).isFile())
      throw new ConfigError(STRATEGY_KEY, `no strategy module at ${file}`);
    return file;
  }
  const dir = o.strategiesDir ?? DEFAULT_STRATEGIES_DIR;
  if (!NAME_RE.test(nameOrPath))
    throw new ConfigError(STRATEGY_KEY, `not a strategy name or path: ${JSON.stringify(nameOrPath.slice(0, 60))}`);
  for (const ext of ['.ts', '.js']) {
    const file = join(dir, `${nameOrPath}${ext}`);
    if (existsSync(file)) return file;
  }
  const known = listStrategies(dir);
  throw new ConfigError(
    STRATEGY_KEY,
    `unknown strategy ${JSON.stringify(nameOrPath)}${known.length ? ` (shipped: ${known.join(', ')})` : ''}; give a path (./my-strategy.ts) to load your own`,
  );
}

/**
 * Loads a strategy plugin by shipped name (`bands` → `<strategiesDir>/bands.ts`) or by path
 * (`./my-strategy.ts`, resolved against `cwd`), and checks its default export.
 * @throws ConfigError (key `strategy`) when the module does not exist, fails to import, or does not
 *   default-export a definition; (key `bot.params.<key>`) when a parameter spec is malformed
 */
export async function loadStrategy(nameOrPath: string, options: LoadStrategyOptions = {}): Promise<StrategyDefinition> {
  if (typeof nameOrPath !== 'string' || nameOrPath.trim() === '')
    throw new ConfigError(STRATEGY_KEY, 'a strategy name or path is required');
  const file = moduleFileFor(nameOrPath.trim(), options);
  const url = pathToFileURL(file).href;
  if (file.endsWith('.ts') || file.endsWith('.js')) registerPluginFormatHook();
  if (RUNNING_COMPILED && /\.m?ts$/.test(file)) await registerTsxOnce();
  let mod: unknown;
  try {
    mod = await import(url);
  } catch (e) {
    // Plain node (the compiled dist/) does not know .ts at all, and a CommonJS-style .ts file outside
    // a `"type": "module"` package can trip a globally registered tsx: load it through tsx's own API.
    if (!RETRY_WITH_TSX.has(String((e as { code?: unknown })?.code))) throw importError(file, e);
    try {
      const { tsImport } = await import('tsx/esm/api');
      mod = await tsImport(url, import.meta.url);
    } catch (e2) {
      throw importError(file, e2);
    }
  }
  return asStrategyDefinition(mod, file);
}

let tsxRegistered: Promise<void> | undefined;
/**
 * Compiled (dist/), plain node knows no `.ts`: tsx is registered for the whole process, once, before
 * the first `.ts` plugin is imported (a failed import is cached: it cannot be retried on the same
 * URL). Not `tsImport`: that loads the plugin and everything it imports in a namespace of its own,
 * so `mmkit/strategy` would be a second copy of mmkit's modules (its `ConfigError` another class
 * than the one the kernel recognises). From the sources, bin/source-mode.js has registered tsx.
 */
function registerTsxOnce(): Promise<void> {
  tsxRegistered ??= import('tsx/esm/api').then(({ register }) => {
    register();
  });
  return tsxRegistered;
}

const RETRY_WITH_TSX = new Set([
  'ERR_UNKNOWN_FILE_EXTENSION',
  'ERR_UNKNOWN_MODULE_FORMAT',
  'ERR_REQUIRE_CYCLE_MODULE',
  'ERR_REQUIRE_ESM',
  'ERR_REQUIRE_ASYNC_MODULE',
]);

function importError(file: string, e: unknown): ConfigError {
  return new ConfigError(STRATEGY_KEY, `could not load ${file}: ${(e as Error)?.message ?? String(e)}`, { cause: e });
}

/** Names of the shipped plugins in `strategiesDir` (the `.ts`/`.js` files), sorted. */
export function listStrategies(strategiesDir: string = DEFAULT_STRATEGIES_DIR): string[] {
  if (!existsSync(strategiesDir)) return [];
  const names = new Set<string>();
  for (const f of readdirSync(strategiesDir)) {
    if (f.endsWith('.d.ts')) continue;
    const m = /^(.+)\.(?:ts|js)$/.exec(f);
    if (m !== null && NAME_RE.test(m[1]!)) names.add(m[1]!);
  }
  return [...names].sort();
}
