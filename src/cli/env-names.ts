/**
 * The `MMKIT_*` environment variables mmkit reads, and the ones set that it does not (trial 13 F1: a
 * typo of MMKIT_RISK_MAX_POSITION_SHARES (POSITON for POSITION) was ignored without a word and the limit stayed
 * 250). A configuration file's unknown key is refused (strict validation); an unknown variable is
 * warned of, naming the nearest known one, by `mmkit config check` and at the start of `mmkit run`
 * (the environment may hold variables of other tools or versions: a warning, not a refusal).
 */
import { schemaLeaves } from './config.ts';

/** The `MMKIT_*` variables read outside the configuration schema (README "Configuration" and tools). */
const OTHER_VARIABLES = [
  'MMKIT_CACHE_DIR',
  'MMKIT_CONTROL_TOKEN',
  'MMKIT_DEBUG',
  'MMKIT_FEED_CACHE_MAX_MB',
  'MMKIT_FROM',
  'MMKIT_PURE_JS_CRYPTO',
  'MMKIT_ROOT',
  'MMKIT_STATUS_URL',
  'MMKIT_YOUNG_GEN',
  // deploy/fleet's compose file, the benchmarks and the tests
  'MMKIT_FLEET_ACCOUNT',
  'MMKIT_BENCH_NO_BUILD',
  'MMKIT_BENCH_RUNS',
  'MMKIT_TEST_VERBOSE',
];

let known: ReadonlySet<string> | undefined;
/** Every `MMKIT_*` variable mmkit reads: the schema's and the others. */
export function knownVariables(): ReadonlySet<string> {
  known ??= new Set([...schemaLeaves().flatMap((l) => (l.env !== undefined ? [l.env] : [])), ...OTHER_VARIABLES]);
  return known;
}

/** Edit distance (insertions, deletions, substitutions), at most `max` + 1. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

/** One `MMKIT_*` variable set that mmkit does not read, and the known one nearest to it (a likely typo). */
export interface UnknownVariable {
  readonly name: string;
  readonly nearest?: string;
}

/** The `MMKIT_*` variables of `env` (set, even empty) that mmkit does not read, sorted by name. */
export function unknownVariables(env: NodeJS.ProcessEnv): UnknownVariable[] {
  const names = knownVariables();
  const out: UnknownVariable[] = [];
  for (const name of Object.keys(env).sort()) {
    if (!name.startsWith('MMKIT_') || env[name] === undefined || names.has(name)) continue;
    let nearest: string | undefined;
    let d = 4; // a typo: up to 3 edits
    for (const k of names) {
      const x = distance(name, k, d - 1);
      if (x < d) {
        d = x;
        nearest = k;
      }
    }
    out.push(nearest === undefined ? { name } : { name, nearest });
  }
  return out;
}

/**
 * The warning for one unknown variable, its name first unless `named` is false (its value is never
 * shown: it may be a secret).
 */
export function unknownVariableMessage(v: UnknownVariable, named = true): string {
  return `${named ? `${v.name} is ` : ''}set, but mmkit reads no such variable: ignored${v.nearest !== undefined ? ` (did you mean ${v.nearest}?)` : ''}`;
}

/** Each unknown variable of `env` as a config warning: `{key: its name, message}` (config check, run's start). */
export function unknownVariableWarnings(env: NodeJS.ProcessEnv): { key: string; message: string }[] {
  return unknownVariables(env).map((v) => ({ key: v.name, message: unknownVariableMessage(v, false) }));
}
