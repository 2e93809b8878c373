/**
 * mmkit's configuration: one convict schema, every key documented with its default, unit and
 * environment variable. Precedence: defaults < config/default.json < the file given with --config <
 * environment (MMKIT_...) < command-line flags. Validation is strict: an unknown key or a bad value
 * stops the start with a ConfigError that names the key and says what is allowed.
 *
 * Files are plain JSON. JSON has no comments, so a key that starts with `//` or `_comment` (at any
 * depth) is a comment: the loader drops it before validation (config/live.example.json uses them).
 *
 * Secrets (`sensitive` keys: the private key, the keystore password, API secret and passphrase, the
 * admin token) come from the environment only: a file that sets one is refused, `config print`
 * shows them as "[redacted]", and no error message ever carries their value.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import convict from 'convict';
import { ConfigError, type ConfigProblem } from '../core/errors.ts';
import { PACKAGE_ROOT_URL } from '../core/package-root.ts';
import { resolveRiskLimits } from '../risk/limits.ts';
import { BOUNDED_DOCS, schema, type MmkitConfig } from './config-schema.ts';
import { feedSilenceProblems } from './config/venue.ts';

export { parseDuration, schema, type MmkitConfig, type RiskConfig } from './config-schema.ts';

const DEFAULT_FILE = fileURLToPath(new URL('config/default.json', PACKAGE_ROOT_URL));

/** Where a resolved value came from: the schema default, a file (as given), the environment, or a flag. */
export type ConfigSource = 'default' | 'env' | 'flag' | `file:${string}`;

/** A configuration with the origin of every key (for `mmkit config print`). */
export interface LoadedConfig {
  readonly config: MmkitConfig;
  /** Dotted key → where its value came from. */
  readonly sources: Readonly<Record<string, ConfigSource>>;
  /** The files read, in order (config/default.json first). */
  readonly files: readonly string[];
}

/** One documented key of the schema. */
export interface SchemaLeaf {
  readonly key: string;
  readonly env: string | undefined;
  readonly doc: string;
  readonly default: unknown;
  readonly format: unknown;
  readonly sensitive: boolean;
}

/** Every key of the schema, in schema order. */
export function schemaLeaves(): SchemaLeaf[] {
  const out: SchemaLeaf[] = [];
  const walk = (node: Record<string, unknown>, path: string[]) => {
    for (const [k, v] of Object.entries(node)) {
      if (v !== null && typeof v === 'object' && 'doc' in v) {
        const l = v as { doc: string; env?: string; default: unknown; format: unknown; sensitive?: boolean };
        out.push({
          key: [...path, k].join('.'),
          env: l.env,
          doc: l.doc,
          default: l.default,
          format: l.format,
          sensitive: l.sensitive === true,
        });
      } else if (v !== null && typeof v === 'object') walk(v as Record<string, unknown>, [...path, k]);
    }
  };
  walk(schema as unknown as Record<string, unknown>, []);
  return out;
}

/** True when `key` (or a key above it) holds a secret. */
export function isSensitiveKey(key: string): boolean {
  return schemaLeaves().some((l) => l.sensitive && (l.key === key || key.startsWith(`${l.key}.`)));
}

/** Keys that start with `//` or `_comment` are comments in config files. */
export function isCommentKey(k: string): boolean {
  return k.startsWith('//') || k.startsWith('_comment');
}

function stripComments(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripComments);
  if (v === null || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (!isCommentKey(k)) out[k] = stripComments(x);
  return out;
}

function getPath(obj: unknown, key: string): unknown {
  let cur = obj;
  for (const part of key.split('.')) {
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/**
 * Read one config file: JSON, comments (`//...`, `_comment...` keys) dropped, no secrets allowed.
 * @throws ConfigError ('--config') when missing or not a JSON object; (each key) when it sets secrets
 */
export function readConfigFile(file: string): Record<string, unknown> {
  if (!existsSync(file)) throw new ConfigError('--config', `no such file: ${file}`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new ConfigError('--config', `${file} is not valid JSON: ${(e as Error).message}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new ConfigError('--config', `${file} must hold a JSON object`);
  const obj = stripComments(raw) as Record<string, unknown>;
  const secrets: ConfigProblem[] = [];
  for (const l of schemaLeaves()) {
    if (!l.sensitive) continue;
    const v = getPath(obj, l.key);
    if (v !== undefined && v !== '')
      secrets.push({
        key: l.key,
        message: `is a secret: set it in the environment (${l.env}), never in a file (${basename(file)})`,
      });
  }
  if (secrets.length) throw ConfigError.of(secrets as [ConfigProblem, ...ConfigProblem[]]);
  return obj;
}

/**
 * A convict error as a ConfigError naming the key, with the allowed keys for an unknown one;
 * convict's validation lists every bad key (one per line): each becomes one of the error's problems
 * (one per key and message: a scalar given for a section is one problem, not one per missing child).
 * @param loadedAt the loaded value at a key, for messages that convict gives without it
 */
function asConfigError(e: unknown, loadedAt: (key: string) => unknown = () => undefined): ConfigError {
  if (e instanceof ConfigError) return e;
  const lines = (e as Error).message.split('\n').filter((l) => l.trim() !== '');
  const seen = new Set<string>();
  const problems = (lines.length ? lines : ['invalid configuration'])
    .map((l) => lineAsProblem(l, loadedAt))
    .filter((p) => {
      const id = `${p.key}\n${p.message}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
  return ConfigError.of(problems as [ConfigProblem, ...ConfigProblem[]]);
}

/**
 * The cross-key checks of the risk limits (minPrice <= maxPrice...), added to a schema error so every
 * bad key is reported in one run; not when a problem already names a key under bot.risk (the limits
 * would report the same key again) or when they pass.
 */
function withRiskProblems(err: ConfigError, risk: unknown): ConfigError {
  if (err.problems.some((p) => p.key === 'bot.risk' || p.key.startsWith('bot.risk.'))) return err;
  try {
    resolveRiskLimits(risk as Record<string, unknown>);
    return err;
  } catch (e) {
    if (!(e instanceof ConfigError)) return err;
    const more = e.problems.map((p) => ({
      key: p.key === 'risk' || p.key.startsWith('risk.') ? `bot.${p.key}` : p.key,
      message: p.message,
    }));
    return ConfigError.of([...err.problems, ...more] as [ConfigProblem, ...ConfigProblem[]]);
  }
}

/** The keys directly under a section of the schema (`bot.tolerance` → priceTicks, sizeFraction); none for a leaf. */
function childrenOf(section: string): string[] {
  const out = new Set<string>();
  for (const l of schemaLeaves())
    if (l.key.startsWith(`${section}.`)) out.add(l.key.slice(section.length + 1).split('.')[0]!);
  return [...out];
}

/**
 * What is wrong with a value given where the schema has a section (an object of keys). The message names
 * the value's type, never the value: a scalar in place of a section is often what belongs in one of its
 * keys (`"secrets": "0x<private key>"`, `"fleet": "redis://:password@host"`), and this runs before the
 * log scrubber knows any secret.
 */
function notAnObject(key: string, loadedAt: (key: string) => unknown): ConfigProblem {
  const v = loadedAt(key);
  const shown = v === undefined ? '' : `: value was ${typeName(v)}`;
  return { key, message: `must be an object {${childrenOf(key).join(', ')}}${shown}` };
}

/** A value's JSON type with its article ("a string", "an array", "null"), for messages that must not show it. */
function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  const t = typeof v;
  return t === 'object' ? 'an object' : `a ${t}`;
}

/** One line of a convict error as the key it names and what is wrong. */
function lineAsProblem(msg: string, loadedAt: (key: string) => unknown): ConfigProblem {
  // a scalar where a section is: convict says its children are missing ("did you override its parent?")
  const missing = /configuration param '([^']+)' missing from config/.exec(msg)?.[1];
  if (missing?.includes('.')) return notAnObject(missing.slice(0, missing.lastIndexOf('.')), loadedAt);
  let undeclared = /configuration param '([^']+)' not declared in the schema/.exec(msg)?.[1];
  if (undeclared !== undefined) {
    // name the first segment that is unknown: `foo.bar.baz` under no known section is `foo`
    const parts = undeclared.split('.');
    let depth = parts.length - 1;
    while (depth > 0 && !schemaLeaves().some((l) => l.key.startsWith(`${parts.slice(0, depth).join('.')}.`))) depth--;
    const parent = parts.slice(0, depth).join('.');
    undeclared = parts.slice(0, depth + 1).join('.');
    // ... and that the scalar is not declared: it is a known section, not an unknown key
    if (childrenOf(undeclared).length > 0 && undeclared === parts.join('.')) return notAnObject(undeclared, loadedAt);
    const known = new Set<string>();
    for (const l of schemaLeaves()) {
      if (parent === '' || l.key.startsWith(`${parent}.`))
        known.add(l.key.slice(parent === '' ? 0 : parent.length + 1).split('.')[0]!);
    }
    const where = parent === '' ? 'at the top level' : `under ${parent}`;
    return {
      key: undeclared,
      message: known.size ? `unknown key; allowed ${where}: ${[...known].join(', ')}` : 'unknown key',
    };
  }
  const key = /^([\w.-]+):/.exec(msg)?.[1] ?? 'config';
  let message = msg.startsWith(`${key}: `) ? msg.slice(key.length + 2) : msg;
  // convict names no value that is falsy (0, "", false): name it, unless it is a secret
  if (!/: value was /.test(message) && schemaLeaves().some((l) => l.key === key) && !isSensitiveKey(key)) {
    const v = loadedAt(key);
    if (v !== undefined && !(typeof v === 'number' && Number.isNaN(v))) message += `: value was ${JSON.stringify(v)}`;
  }
  return { key, message };
}

/**
 * Load and validate the configuration, and say where each value came from.
 * @param file an extra JSON file (e.g. config/paper.json) merged over config/default.json
 * @param overrides values from command-line flags, as dotted keys ("exchange.port"); undefined ones are ignored
 * @param env the environment (MMKIT_* variables)
 * @throws ConfigError naming every bad key (its `problems`) and what is allowed
 */
export function loadConfigDetailed(
  file?: string,
  overrides: Record<string, unknown> = {},
  env: NodeJS.ProcessEnv = process.env,
): LoadedConfig {
  const files: Array<[string, Record<string, unknown>]> = [];
  // a JSON value in the environment that is not JSON: named by its key and variable (convict's coerce
  // error names neither: trial 13 F12, "config config: must be a JSON object")
  const badJson: ConfigProblem[] = [];
  for (const l of schemaLeaves()) {
    const raw = l.env === undefined ? undefined : env[l.env];
    if (raw === undefined || (l.format !== 'json-object' && l.format !== 'json-array')) continue;
    try {
      JSON.parse(raw);
    } catch (e) {
      // (V8 may quote the input in its message: never shown, it may hold a secret)
      const why = l.sensitive ? '' : `: ${(e as Error).message.replace(/,? ?"[\s\S]*" is not valid JSON/, '')}`;
      badJson.push({ key: l.key, message: `${l.env} is not valid JSON${why}` });
    }
  }
  if (badJson.length > 0) throw ConfigError.of(badJson as [ConfigProblem, ...ConfigProblem[]]);
  let c: ReturnType<typeof convict>;
  try {
    c = convict(schema as never, { env, args: [] });
    if (existsSync(DEFAULT_FILE)) files.push(['config/default.json', readConfigFile(DEFAULT_FILE)]);
    if (file !== undefined) files.push([file, readConfigFile(file)]);
    // convict's loader cannot descend into a JSON-object value nested two levels deep (e.g.
    // bot.risk.markets.<id>.<limit>): such values are lifted out of the files, merged one level
    // deep (later files win per top-level entry, as convict merges), and set after the files,
    // unless the environment sets the key (env beats files)
    const lifted = new Map<string, unknown>();
    for (const [, obj] of files) {
      const rest = JSON.parse(JSON.stringify(obj)) as Record<string, unknown>;
      for (const l of schemaLeaves()) {
        if (l.format !== 'json-object') continue;
        const parts = l.key.split('.');
        const parent = getPath(rest, parts.slice(0, -1).join('.'));
        if (parent === null || typeof parent !== 'object' || Array.isArray(parent)) continue;
        const last = parts[parts.length - 1]!;
        const v = (parent as Record<string, unknown>)[last];
        if (v === undefined) continue;
        delete (parent as Record<string, unknown>)[last];
        const prev = lifted.get(l.key);
        const isObj = (x: unknown): x is Record<string, unknown> =>
          x !== null && typeof x === 'object' && !Array.isArray(x);
        lifted.set(l.key, isObj(prev) && isObj(v) ? { ...prev, ...v } : v);
      }
      c.load(rest);
    }
    for (const [k, v] of lifted) {
      const envName = schemaLeaves().find((l) => l.key === k)?.env;
      if (envName === undefined || env[envName] === undefined) c.set(k, v);
    }
    for (const [k, v] of Object.entries(overrides)) if (v !== undefined) c.set(k, v);
    c.validate({ allowed: 'strict' });
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    const loadedAt = (k: string): unknown => {
      try {
        return c.get(k as never);
      } catch {
        return undefined;
      }
    };
    throw withRiskProblems(asConfigError(e, loadedAt), loadedAt('bot.risk'));
  }
  const sources: Record<string, ConfigSource> = {};
  for (const l of schemaLeaves()) {
    let src: ConfigSource = 'default';
    for (const [name, obj] of files) if (getPath(obj, l.key) !== undefined) src = `file:${name}`;
    if (l.env !== undefined && env[l.env] !== undefined) src = 'env';
    if (overrides[l.key] !== undefined) src = 'flag';
    sources[l.key] = src;
  }
  const config = c.getProperties() as unknown as MmkitConfig;
  // cross-key: quoting stops on a silent feed no later than /healthz calls it stale
  const cross = feedSilenceProblems(config.venue.marketSilenceMs, config.ops.feedStaleMs);
  if (cross.length > 0) throw ConfigError.of(cross as [ConfigProblem, ...ConfigProblem[]]);
  return { config, sources, files: files.map(([n]) => n) };
}

/**
 * Load and validate the configuration.
 * @param file an extra JSON file (e.g. config/paper.json) merged over config/default.json
 * @param overrides values from command-line flags, as dotted keys ("exchange.port")
 * @throws ConfigError naming every bad key (its `problems`)
 */
export function loadConfig(
  file?: string,
  overrides: Record<string, unknown> = {},
  env: NodeJS.ProcessEnv = process.env,
): MmkitConfig {
  return loadConfigDetailed(file, overrides, env).config;
}

/** What `config print` shows for a secret that is set. */
export const REDACTED = '[redacted]';

/**
 * A deep copy of the configuration safe to print: every secret that is set becomes "[redacted]"
 * (an unset one stays "", so the operator sees what is missing), and a password inside a URL is masked.
 */
export function redactConfig(cfg: MmkitConfig): Record<string, unknown> {
  const copy = JSON.parse(JSON.stringify(cfg)) as Record<string, unknown>;
  for (const l of schemaLeaves()) {
    if (!l.sensitive) continue;
    const parts = l.key.split('.');
    const parent = getPath(copy, parts.slice(0, -1).join('.')) as Record<string, unknown> | undefined;
    const last = parts[parts.length - 1]!;
    if (parent && parent[last] !== undefined && parent[last] !== '') parent[last] = REDACTED;
  }
  const maskUrls = (v: unknown): unknown => {
    if (typeof v === 'string' && /^[a-z]+:\/\/[^/]*@/i.test(v)) {
      try {
        const u = new URL(v);
        if (u.password) u.password = '***';
        return u.toString();
      } catch {
        return v;
      }
    }
    if (Array.isArray(v)) return v.map(maskUrls);
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, maskUrls(x)]));
    return v;
  };
  return maskUrls(copy) as Record<string, unknown>;
}

/** What values a key accepts, in words (the `allowed` column of the docs). */
export function allowedValues(format: unknown): string {
  if (Array.isArray(format)) return format.map((x) => `\`${String(x)}\``).join(', ');
  if (format === String) return 'string';
  if (format === Number) return 'number';
  if (format === Boolean || format === 'bool') return '`true`, `false`';
  if (typeof format === 'string') return FORMAT_DOCS[format] ?? BOUNDED_DOCS.get(format) ?? format;
  return '';
}

const FORMAT_DOCS: Record<string, string> = {
  nat: 'integer >= 0',
  port: 'integer 0 to 65535',
  'positive-number': 'number > 0',
  'decimal-amount': 'decimal string, <= 6 decimals',
  'clob-protocol': '`1`, `2`',
  'json-array': 'JSON array',
  'json-object': 'JSON object',
  'string-list': 'list of strings (JSON array or comma list)',
  'host-list': 'host[:port] list (JSON array or comma list)',
  'duration-string': 'duration (30s, 5m, 2h, 1500ms) or empty',
  'http-url-or-empty': 'http(s) URL or empty',
  'ws-url-or-empty': 'ws(s) URL or empty',
  'address-or-empty': '0x address or empty',
  'private-key-or-empty': '0x + 64 hex, or empty',
  'secret-string': 'string (env only)',
  'base64-secret-or-empty': 'base64 string (env only)',
};

/**
 * Markdown table of every key (for the README; `mmkit config docs`). Secrets show no default, and
 * their allowed values say "(env only)": a config file that sets one is refused (readConfigFile).
 */
export function describeConfig(): string {
  const cell = (x: string) => x.replace(/\|/g, '\\|');
  const rows: string[] = ['| key | env | default | allowed | meaning |', '|---|---|---|---|---|'];
  for (const l of schemaLeaves()) {
    const allowed = allowedValues(l.format);
    const shown = l.sensitive && !allowed.endsWith('(env only)') ? `${allowed} (env only)` : allowed;
    rows.push(
      `| \`${l.key}\` | \`${l.env ?? ''}\` | \`${JSON.stringify(l.sensitive ? '' : l.default)}\` | ${cell(shown)} | ${cell(l.doc)} |`,
    );
  }
  return rows.join('\n');
}
