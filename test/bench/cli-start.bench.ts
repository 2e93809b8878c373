/**
 * Start-up of the `mmkit` command: wall time of `node -e 0`, `node bin/mmkit.js --help` and
 * `node bin/mmkit.js status --help`, N runs each, interleaved (so load drifts hit all three alike);
 * medians and the ratio to bare node. The goal: --help within 10x of `node -e 0`. Builds dist/
 * first when it is stale (`MMKIT_BENCH_NO_BUILD=1` measures whatever the bin picks, and says which).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const N = Number(process.env.MMKIT_BENCH_RUNS ?? 15);
/** Whether bin/mmkit.js would run dist/ (`node bin/build-stamp.js` exits 0 when it is current). */
const distCurrent = (): boolean => spawnSync(process.execPath, ['bin/build-stamp.js'], { cwd: ROOT }).status === 0;

if (!distCurrent() && process.env.MMKIT_BENCH_NO_BUILD !== '1') {
  const b = spawnSync(process.execPath, ['bin/build-stamp.js', '--build'], { cwd: ROOT, stdio: 'inherit' });
  if (b.status !== 0) throw new Error('npm run build:dist failed');
}
const mode = distCurrent() ? 'dist' : 'source fallback (tsx)';
console.log(`# measuring the ${mode}`);

const cases: Record<string, string[]> = {
  node: ['-e', '0'],
  cli: ['bin/mmkit.js', '--help'],
  status: ['bin/mmkit.js', 'status', '--help'],
};
const times: Record<string, number[]> = { node: [], cli: [], status: [] };
const env = { ...process.env, MMKIT_DEBUG: '' };
for (let i = 0; i < N + 1; i++) {
  for (const [name, args] of Object.entries(cases)) {
    const t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    if (i > 0) times[name]!.push(ms); // the first round warms the file cache
  }
}
const median = (a: number[]): number => {
  const s = [...a].sort((x, y) => x - y);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const node = median(times.node!);
const cli = median(times.cli!);
const status = median(times.status!);
console.log(`figure: node_start_ms = ${node.toFixed(1)} ms`);
console.log(`figure: cli_start_ms = ${cli.toFixed(1)} ms`);
console.log(`figure: cli_start_ratio = ${(cli / node).toFixed(2)} x`);
console.log(`figure: cli_status_start_ms = ${status.toFixed(1)} ms`);
console.log(`figure: cli_status_start_ratio = ${(status / node).toFixed(2)} x`);
