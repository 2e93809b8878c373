#!/usr/bin/env node
// The `mmkit` command. Runs the compiled JavaScript of dist/ when dist/ was built from the sources
// as they are now (bin/build-stamp.js: `npm ci` and `npm run build` build it), and otherwise the
// TypeScript sources through tsx (bin/source-mode.js), so an edit works before any rebuild, only
// slower to start. MMKIT_DEBUG=1 says on stderr which one runs and why; MMKIT_FROM=src or
// MMKIT_FROM=dist forces one. A user's plugin in .ts loads through tsx either way, registered only
// when one is given (src/strategy/loader.ts).
//
// Backtests and sweeps make a short-lived object or two per feed event: with 64 MB semi-spaces
// (V8's default is 16) the young-generation collector spends far less time (~13% less CPU end to
// end on the benchmark feed). V8 sizes the heap at start-up only, so these two commands run in a
// child node with the flag (MMKIT_YOUNG_GEN=0 turns this off; a flag given already is kept).
import { spawn } from 'node:child_process';

const YOUNG_GEN_FLAG = '--max-semi-space-size=64';
const command = process.argv[2];
const tuned = process.execArgv.some((a) => a.startsWith('--max-semi-space-size'));
if ((command === 'backtest' || command === 'sweep') && !tuned && process.env.MMKIT_YOUNG_GEN !== '0') {
  const child = spawn(process.execPath, [YOUNG_GEN_FLAG, ...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
  });
  // Ctrl-C reaches the child too (same process group): the child decides; a signal sent to this
  // process alone is passed on
  const forward = (sig) => () => child.kill(sig);
  const handlers = { SIGINT: forward('SIGINT'), SIGTERM: forward('SIGTERM'), SIGHUP: forward('SIGHUP') };
  for (const [sig, h] of Object.entries(handlers)) process.on(sig, h);
  child.on('error', (err) => {
    process.stderr.write(`mmkit: cannot start node: ${err.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => {
    for (const [sig, h] of Object.entries(handlers)) process.off(sig, h);
    if (signal !== null) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
} else {
  const { distState } = await import('./build-stamp.js');
  const from = process.env.MMKIT_FROM;
  const dist =
    from === 'dist'
      ? { current: true, reason: 'MMKIT_FROM=dist' }
      : from === 'src'
        ? { current: false, reason: 'MMKIT_FROM=src' }
        : distState();
  const debug =
    process.env.MMKIT_DEBUG !== undefined && process.env.MMKIT_DEBUG !== '' && process.env.MMKIT_DEBUG !== '0';
  if (dist.current) {
    if (debug) process.stderr.write(`mmkit: running dist/ (${dist.reason ?? 'current build'})\n`);
    await import('../dist/src/cli/main.js');
  } else {
    if (debug)
      process.stderr.write(`mmkit: running the TypeScript sources through tsx (${dist.reason}; npm run build)\n`);
    const { registerSourceMode } = await import('./source-mode.js');
    await registerSourceMode();
    await import('../src/cli/main.ts');
  }
}
