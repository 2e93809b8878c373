/**
 * Docker cannot build on these machines, so the Dockerfile's structure is checked here: two stages
 * (a build stage with the compilers native modules need and `npm ci`, a slim runtime with only
 * production dependencies), a non-root user, a node-based HEALTHCHECK on /healthz, a volume for
 * the SQLite data that the daemon's data directory points at, port 8787, `run` by default, and a
 * .dockerignore that keeps local data and secrets out of the build context.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;

interface Instruction {
  op: string;
  args: string;
  line: number;
}
interface Stage {
  image: string;
  name: string | undefined;
  instructions: Instruction[];
}

/** Parse a Dockerfile: comments dropped, `\` continuations joined, instructions grouped by stage. */
function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  let buf = '';
  let start = 0;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (buf === '' && /^\s*(#|$)/.test(raw)) continue;
    if (buf !== '' && /^\s*#/.test(raw)) continue;
    if (buf === '') start = i + 1;
    const cont = /\\\s*$/.test(raw);
    buf += (buf ? ' ' : '') + raw.replace(/\\\s*$/, '').trim();
    if (cont) continue;
    const m = /^(\w+)\s+(.*)$/.exec(buf);
    buf = '';
    if (!m) throw new Error(`line ${start}: not an instruction`);
    const op = m[1]!.toUpperCase();
    const args = m[2]!.trim();
    if (op === 'FROM') {
      const f = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!f) throw new Error(`line ${start}: bad FROM`);
      stages.push({ image: f[1]!, name: f[2], instructions: [] });
      continue;
    }
    if (stages.length === 0) {
      if (op === 'ARG') continue;
      throw new Error(`line ${start}: ${op} before FROM`);
    }
    stages[stages.length - 1]!.instructions.push({ op, args, line: start });
  }
  return stages;
}

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const stages = parseDockerfile(dockerfile);
const final = stages[stages.length - 1]!;
const build = stages[0]!;
const ops = (s: Stage, op: string) => s.instructions.filter((i) => i.op === op);
const runs = (s: Stage) =>
  ops(s, 'RUN')
    .map((i) => i.args)
    .join('\n');
const execForm = (args: string): string[] => JSON.parse(args) as string[];

describe('Dockerfile', () => {
  it('has a build stage and a slim runtime stage of the same Node major', () => {
    expect(stages.length).toBe(2);
    expect(build.name).toBe('build');
    expect(build.image).toMatch(/^node:20[-.]/);
    expect(final.image).toMatch(/^node:20.*slim$/);
  });

  it('builds native modules in the build stage: compilers, npm ci from the lockfile, then prune to production', () => {
    const r = runs(build);
    for (const tool of ['python3', 'make', 'g++']) expect(r).toContain(tool);
    expect(r).toMatch(/\bnpm ci\b(?! --ignore-scripts)/);
    expect(r).toMatch(/npm prune --omit=dev/);
    const copies = ops(build, 'COPY').map((c) => c.args);
    // the lockfile comes in before `npm ci` (a cached dependency layer), the sources after
    const lockCopy = build.instructions.findIndex((i) => i.op === 'COPY' && i.args.includes('package-lock.json'));
    const ci = build.instructions.findIndex((i) => i.op === 'RUN' && /\bnpm ci\b/.test(i.args));
    const src = build.instructions.findIndex((i) => i.op === 'COPY' && /^src\b/.test(i.args));
    expect(lockCopy).toBeGreaterThanOrEqual(0);
    expect(lockCopy).toBeLessThan(ci);
    expect(ci).toBeLessThan(src);
    for (const dir of ['bin', 'src', 'strategies', 'config'])
      expect(
        copies.some((c) => c.startsWith(`${dir} `)),
        dir,
      ).toBe(true);
    // every source copied exists in the repository
    for (const c of copies)
      for (const p of c.split(/\s+/).slice(0, -1)) expect(existsSync(join(ROOT, p)), p).toBe(true);
  });

  it('compiles dist/ after the sources are in, before pruning the dev dependencies', () => {
    const r = runs(build);
    expect(r).toMatch(/node bin\/build-stamp\.js --build[\s\S]*npm prune --omit=dev/);
    const src = build.instructions.findIndex((i) => i.op === 'COPY' && /^src\b/.test(i.args));
    const compile = build.instructions.findIndex((i) => i.op === 'RUN' && /build-stamp\.js --build/.test(i.args));
    expect(src).toBeGreaterThanOrEqual(0);
    expect(compile).toBeGreaterThan(src);
  });

  it('runtime: no compilers, copies production node_modules and the compiled dist/ from the build stage', () => {
    expect(runs(final)).not.toMatch(/apt-get install|g\+\+|python3|npm (ci|install)/);
    const copies = ops(final, 'COPY').map((c) => c.args);
    expect(copies.every((c) => c.startsWith('--from=build '))).toBe(true);
    for (const p of [
      '/app/node_modules',
      '/app/bin',
      '/app/dist',
      '/app/strategies',
      '/app/config',
      '/app/package.json',
    ])
      expect(
        copies.some((c) => c.includes(p)),
        p,
      ).toBe(true);
    // no sources: bin/mmkit.js runs dist/ as it is (no build stamp to compare)
    expect(copies.some((c) => c.includes('/app/src'))).toBe(false);
    expect(
      ops(final, 'ENV')
        .map((e) => e.args)
        .join(' '),
    ).toMatch(/NODE_ENV=production/);
  });

  it('runs as a non-root user from before the entrypoint on', () => {
    const users = ops(final, 'USER');
    expect(users.length).toBeGreaterThan(0);
    const user = users[users.length - 1]!.args.split(':')[0]!;
    expect(['root', '0']).not.toContain(user);
    const userAt = final.instructions.indexOf(users[users.length - 1]!);
    for (const op of ['ENTRYPOINT', 'CMD', 'HEALTHCHECK'])
      expect(final.instructions.findIndex((i) => i.op === op)).toBeGreaterThan(userAt);
  });

  it('has a HEALTHCHECK on /healthz with node (no curl in slim images)', () => {
    const hc = ops(final, 'HEALTHCHECK');
    expect(hc).toHaveLength(1);
    const m = /^(.*?)\bCMD\s+(\[.*\])$/.exec(hc[0]!.args)!;
    expect(m).not.toBeNull();
    expect(m[1]).toMatch(/--interval=\d+s/);
    expect(m[1]).toMatch(/--start-period=\d+s/);
    const cmd = execForm(m[2]!);
    expect(cmd[0]).toBe('node');
    expect(cmd[1]).toBe('-e');
    expect(cmd[2]).toContain("fetch('http://127.0.0.1:'");
    expect(cmd[2]).toContain('8787');
    expect(cmd[2]).toContain('/healthz');
    expect(hc[0]!.args).not.toMatch(/curl|wget/);
    // the one-liner is valid JavaScript
    expect(() => new Function(cmd[2]!)).not.toThrow();
  });

  it('keeps the SQLite data in a volume the daemon uses, exposes 8787 on all interfaces, runs `run` by default', () => {
    const env = ops(final, 'ENV')
      .map((e) => e.args)
      .join(' ');
    const dataDir = /MMKIT_DATA_DIR=(\S+)/.exec(env)?.[1];
    expect(dataDir).toBe('/data');
    const volumes = ops(final, 'VOLUME').flatMap((v) =>
      v.args.startsWith('[') ? execForm(v.args) : v.args.split(/\s+/),
    );
    expect(volumes).toContain(dataDir);
    expect(runs(final)).toMatch(/chown node:node \/data/);
    expect(ops(final, 'EXPOSE').map((e) => e.args)).toContain('8787');
    expect(env).toMatch(/MMKIT_HTTP_HOST=0\.0\.0\.0/);
    // JSON log lines through the documented key, not the deprecated alias log.pretty
    expect(env).toMatch(/MMKIT_LOG_FORMAT=json/);
    expect(env).not.toMatch(/MMKIT_LOG_PRETTY/);
    expect(env).toMatch(/MMKIT_HTTP_PORT=8787/);
    expect(execForm(ops(final, 'ENTRYPOINT')[0]!.args)).toEqual(['node', 'bin/mmkit.js']);
    expect(execForm(ops(final, 'CMD')[0]!.args)).toEqual(['run']);
  });
});

describe('.dockerignore', () => {
  const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  it('keeps local data, dependencies and secrets out of the build context', () => {
    for (const p of ['node_modules', 'data', '.git', '*.db', '*.key', '.env', '**/keystore*.json'])
      expect(ignore, p).toContain(p);
  });
  it('does not exclude what the build copies', () => {
    for (const p of [
      'src',
      'bin',
      'config',
      'strategies',
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
    ])
      expect(ignore).not.toContain(p);
  });
});
