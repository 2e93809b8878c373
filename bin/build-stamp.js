// The build stamp: whether dist/ was compiled from the sources as they are now.
//
// `npm run build` (and `npm ci`, through `prepare`) compiles src/ and strategies/ into dist/src/
// and dist/strategies/, then writes dist/.build-stamp. The stamp is a hash of the path, size and
// mtime of every file under src/ and strategies/ and of package.json and tsconfig*.json: a walk
// of ~160 stats, a few milliseconds, cheap enough for every start of the `mmkit` bin (hashing the
// contents would cost more than the start itself). Touching a source makes the stamp stale, and
// the bin then runs the sources through tsx until the next build.
//
//   node bin/build-stamp.js --build   compiles dist/ afresh and stamps it (`npm run build:dist`)
//   node bin/build-stamp.js --prepare the same, when src/ exists (`prepare`, run by `npm ci`)
//   node bin/build-stamp.js           prints whether dist/ is current, exit 0 when it is
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const STAMP_FILE = join(ROOT, 'dist', '.build-stamp');
const TREES = ['src', 'strategies'];
const FILES = ['package.json', 'tsconfig.json', 'tsconfig.build.json'];

function walk(rel, out) {
  let entries;
  try {
    entries = readdirSync(join(ROOT, rel), { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    const r = `${rel}/${e.name}`;
    if (e.isDirectory()) walk(r, out);
    else out.push(r);
  }
}

/** The stamp of the sources as they are now (a hex string). */
export function sourceStamp() {
  const files = [];
  for (const t of TREES) walk(t, files);
  files.sort();
  const h = createHash('sha1');
  for (const f of [...FILES, ...files]) {
    const s = statSync(join(ROOT, f), { throwIfNoEntry: false });
    h.update(s === undefined ? `${f}:-\n` : `${f}:${s.size}:${Math.floor(s.mtimeMs)}\n`);
  }
  return `v2 ${files.length} ${h.digest('hex')}`;
}

/**
 * Whether the bin should run dist/: `{ current: true }` when dist/ holds the CLI and either its
 * stamp matches the sources or there are no sources (an install or image that ships dist/ alone);
 * otherwise `{ current: false, reason }`.
 */
export function distState() {
  if (!existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'))) return { current: false, reason: 'no dist/ build' };
  if (!existsSync(join(ROOT, 'src'))) return { current: true };
  let stamp;
  try {
    stamp = readFileSync(STAMP_FILE, 'utf8').trim();
  } catch {
    return { current: false, reason: 'dist/ has no build stamp' };
  }
  return stamp === sourceStamp() ? { current: true } : { current: false, reason: 'sources changed since the build' };
}

/** Compiles dist/ afresh (`tsc -p tsconfig.build.json`) and stamps it with the sources as they were before. */
export function build() {
  const stamp = sourceStamp();
  rmSync(join(ROOT, 'dist'), { recursive: true, force: true });
  const local = join(ROOT, 'node_modules', '.bin', 'tsc');
  const r = spawnSync(existsSync(local) ? local : 'tsc', ['-p', join(ROOT, 'tsconfig.build.json')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (r.status !== 0) return r.status ?? 1;
  writeFileSync(STAMP_FILE, `${stamp}\n`);
  return 0;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--build')) process.exitCode = build();
  // npm ci runs `prepare`; without sources (a Docker layer of the dependencies alone) nothing to build
  else if (process.argv.includes('--prepare')) process.exitCode = existsSync(join(ROOT, 'src')) ? build() : 0;
  else {
    const s = distState();
    process.stdout.write(s.current ? 'dist/ is current\n' : `dist/ is stale: ${s.reason}\n`);
    process.exitCode = s.current ? 0 : 1;
  }
}
