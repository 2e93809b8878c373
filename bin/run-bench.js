#!/usr/bin/env node
// Runs every benchmark in test/bench (files named *.bench.ts) one after another, each in its own
// process so they do not disturb each other. Each prints its figures as
//   figure: <name> = <value> <unit>
// Usage: npm run bench [-- <filter>]
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import os from 'node:os';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dir = join(root, 'test', 'bench');
const filter = process.argv[2] ?? '';
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts') && f.includes(filter))
  .sort();
console.log(`# machine: ${os.cpus()[0]?.model ?? 'unknown cpu'}, ${os.cpus().length} cores, node ${process.version}`);
// node flags a benchmark runs with: those of the command it measures (bin/mmkit.js runs backtests
// and sweeps with 64 MB semi-spaces)
const NODE_FLAGS = { 'backtest.bench.ts': ['--max-semi-space-size=64'] };
let failed = 0;
for (const f of files) {
  console.log(`# ${f}`);
  const r = spawnSync(process.execPath, [...(NODE_FLAGS[f] ?? []), '--import', 'tsx', join(dir, f)], {
    stdio: 'inherit',
    cwd: root,
  });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
