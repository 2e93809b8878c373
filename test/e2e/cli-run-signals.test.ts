/**
 * How the daemon is stopped by signals, the way operators and supervisors send them:
 *
 *  - under `npm start` (package.json: `exec node bin/mmkit.js run`): SIGTERM to the npm process
 *    alone, SIGINT to the npm process alone, and Ctrl-C (SIGINT to the whole process group: npm and
 *    the daemon, which then gets it twice: the terminal's and the one npm forwards). Each time the
 *    daemon stops in order (cancel all, zero open orders at the venue, summary), npm exits 0 with it,
 *    and no process is left. Before, npm's `sh -c` (dash) took the signal: SIGTERM left the daemon
 *    trading without a parent, SIGINT was swallowed; and the daemon's one-shot handlers let the
 *    second SIGINT of a Ctrl-C kill it in the middle of its shutdown;
 *  - node as PID 1 (the Docker image's `ENTRYPOINT ["node", ...]`; here a new PID namespace by
 *    `unshare`, skipped where that is not permitted): PID 1 ignores any signal it has no handler
 *    for, so the handlers must be there from the start: SIGTERM while quoting stops it flat, and a
 *    SIGTERM sent while it is still starting is kept (it stops once started) instead of being lost;
 *  - SIGHUP (a terminal or SSH session closed): the same orderly stop, also with the daemon's stdio
 *    on a terminal that hung up (a pty by util-linux's `script`, skipped where it is missing).
 *
 * Every daemon here runs with an in-process paper exchange and a data dir in a temp folder.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { exited, logLines, waitUntil } from './support/bot-harness.ts';
import { ROOT } from './support/cli.ts';
import { childrenOf, daemonStatus, lockOf, pidAlive, processesMentioning } from './support/processes.ts';

const BIN = join(ROOT, 'bin/mmkit.js');
const started: ChildProcess[] = [];
const configs: string[] = [];
afterAll(() => {
  for (const p of started) if (p.exitCode === null && p.signalCode === null && p.pid) killTree(p.pid);
  // and a daemon left without a parent (what these tests catch): found by its config's path
  for (const c of configs) for (const { pid } of processesMentioning(c)) killTree(pid);
});

function killTree(pid: number): void {
  for (const c of childrenOf(pid)) killTree(c);
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* gone */
  }
}

/** The user's environment: none of the test process's MMKIT_, VITEST or npm_ variables. */
function userEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (!/^(MMKIT_|VITEST|npm_)/i.test(k) && v !== undefined) env[k] = v;
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', NO_COLOR: '1' };
}

/** A temp folder with the daemon's data dir and a short config: in-process exchange, random status port, JSON logs. */
function setup(): { folder: string; dir: string; config: string } {
  const folder = mkdtempSync(join(tmpdir(), 'mmkit-signals-'));
  const dir = join(folder, 'data');
  const config = join(folder, 'mmkit.json');
  configs.push(config);
  writeFileSync(
    config,
    JSON.stringify({
      bot: { dataDir: dir, duration: '600s', statusIntervalMs: 2000 },
      ops: { httpPort: 0 },
      log: { level: 'info', pretty: 'false' },
    }),
  );
  return { folder, dir, config };
}

interface Proc {
  p: ChildProcess;
  out(): string;
  err(): string;
}

function start(cmd: string, args: string[]): Proc {
  // detached: a process group of its own (npm's, for the Ctrl-C case), as a terminal would give it
  const p = spawn(cmd, args, { cwd: ROOT, env: userEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  started.push(p);
  let out = '';
  let err = '';
  p.stdout!.on('data', (d) => (out += d));
  p.stderr!.on('data', (d) => (err += d));
  return { p, out: () => out, err: () => err };
}

/** Waits until the daemon holding `dir` answers on its status server and has orders resting; returns its pid. */
async function waitQuoting(dir: string, proc: Proc): Promise<number> {
  const gone = () => proc.p.exitCode !== null || proc.p.signalCode !== null;
  await waitUntil(() => lockOf(dir)?.statusUrl !== undefined || gone(), 120_000, 100);
  expect(gone(), `exited before quoting:\n${proc.out()}\n${proc.err().slice(-3000)}`).toBe(false);
  expect(lockOf(dir)?.statusUrl, `no daemon lock with a status URL:\n${proc.err().slice(-3000)}`).toBeDefined();
  const url = lockOf(dir)!.statusUrl!;
  let quoting = false;
  const end = Date.now() + 120_000;
  while (!quoting && !gone() && Date.now() < end) {
    const s = await daemonStatus(url);
    quoting = s !== undefined && s.lifecycle === 'running' && s.orders.open > 0;
    if (!quoting) await new Promise((r) => setTimeout(r, 250));
  }
  expect(quoting, `the daemon did not quote:\n${proc.err().slice(-3000)}`).toBe(true);
  return (await daemonStatus(url))!.pid;
}

/** The process (and so its daemon) ended within `ms`; returns its exit code. */
async function ends(proc: Proc, ms: number): Promise<number | null> {
  const done = await waitUntil(() => proc.p.exitCode !== null || proc.p.signalCode !== null, ms, 100);
  expect(done, `still running ${ms / 1000} s after the signal:\n${proc.err().slice(-3000)}`).toBe(true);
  return exited(proc.p);
}

/** The daemon stopped in order on `signal`: summary, zero open orders, its files removed, nothing left running. */
async function stoppedFlat(proc: Proc, s: { dir: string; config: string }, daemonPid: number, signal: string) {
  expect(await waitUntil(() => !pidAlive(daemonPid), 30_000)).toBe(true);
  expect(processesMentioning(s.config)).toEqual([]);
  expect(proc.out()).toContain(`mmkit run stopped (${signal})`);
  expect(proc.out()).toContain('open orders left  0');
  const lines = logLines(proc.err());
  expect(lines.find((l) => l.msg === 'stopping: cancelling all orders')?.['reason']).toBe(signal);
  expect(lines.find((l) => l.msg === 'summary')).toMatchObject({
    openOrdersAtExit: 0,
    stop: { kind: 'signal', signal },
  });
  for (const f of ['daemon.lock', 'daemon.json', 'venue.json']) expect(existsSync(join(s.dir, f)), f).toBe(false);
}

const npmStart = (config: string) => start('npm', ['start', '--', '--config', config]);

describe('npm start: signals reach the daemon', () => {
  it('SIGTERM to the npm process alone stops the daemon flat, and npm exits 0 with it', async () => {
    const s = setup();
    const npm = npmStart(s.config);
    const daemonPid = await waitQuoting(s.dir, npm);
    expect(daemonPid).not.toBe(npm.p.pid);
    process.kill(npm.p.pid!, 'SIGTERM');
    expect(await ends(npm, 120_000), npm.err().slice(-3000)).toBe(0);
    await stoppedFlat(npm, s, daemonPid, 'SIGTERM');
  }, 300_000);

  it('SIGINT to the npm process alone stops the daemon flat', async () => {
    const s = setup();
    const npm = npmStart(s.config);
    const daemonPid = await waitQuoting(s.dir, npm);
    process.kill(npm.p.pid!, 'SIGINT');
    expect(await ends(npm, 120_000), npm.err().slice(-3000)).toBe(0);
    await stoppedFlat(npm, s, daemonPid, 'SIGINT');
  }, 300_000);

  it('Ctrl-C (SIGINT to the process group: the daemon gets it twice) stops the daemon flat', async () => {
    const s = setup();
    const npm = npmStart(s.config);
    const daemonPid = await waitQuoting(s.dir, npm);
    process.kill(-npm.p.pid!, 'SIGINT');
    expect(await ends(npm, 120_000), npm.err().slice(-3000)).toBe(0);
    await stoppedFlat(npm, s, daemonPid, 'SIGINT');
  }, 300_000);
});

describe('SIGKILL, then a start on the same data dir (an in-process paper exchange: its world went with the daemon)', () => {
  // the store's open orders were the gone world's: the reconciliation counts them as an earlier ledger
  // epoch's (`previousEpoch`), not as orders the venue `neverReceived` (trial 10 F9: the kernel passes
  // the store's current epoch to it)
  it("the restart reconciles the killed run's orders as an earlier epoch's, and it quotes again", async () => {
    const s = setup();
    const first = start(process.execPath, [BIN, 'run', '--config', s.config]);
    const pid = await waitQuoting(s.dir, first);
    process.kill(pid, 'SIGKILL');
    await ends(first, 30_000);
    const second = start(process.execPath, [BIN, 'run', '--config', s.config]);
    // the killed daemon's lock stays until the new one takes it over
    const tookOver = await waitUntil(() => (lockOf(s.dir)?.pid ?? pid) !== pid || second.p.exitCode !== null, 120_000);
    expect(tookOver, second.err().slice(-3000)).toBe(true);
    const pid2 = await waitQuoting(s.dir, second);
    const done = logLines(second.err()).find((l) => l.msg === 'restart reconciliation done');
    expect(done, second.err().slice(-3000)).toBeDefined();
    expect(done!['previousEpoch'] as number).toBeGreaterThan(0);
    expect(done!['neverReceived']).toBe(0);
    process.kill(pid2, 'SIGINT');
    expect(await ends(second, 120_000), second.err().slice(-3000)).toBe(0);
    await stoppedFlat(second, s, pid2, 'SIGINT');
  }, 300_000);
});

describe('SIGHUP (a closed terminal or SSH session): the same orderly stop', () => {
  // before: Node's default action ended the daemon at once, its orders left resting, no summary, its
  // lock left behind (trial 6 F6)
  it('SIGHUP stops the daemon flat and it exits 0', async () => {
    const s = setup();
    const d = start(process.execPath, [BIN, 'run', '--config', s.config]);
    const pid = await waitQuoting(s.dir, d);
    expect(pid).toBe(d.p.pid);
    process.kill(pid, 'SIGHUP');
    expect(await ends(d, 120_000), d.err().slice(-3000)).toBe(0);
    await stoppedFlat(d, s, pid, 'SIGHUP');
  }, 300_000);

  /** True when util-linux's `script` is there to give the daemon a terminal (a pty). */
  const hasScript = (() => {
    try {
      return spawnSync('script', ['--version'], { timeout: 10_000 }).status === 0;
    } catch {
      return false;
    }
  })();

  // its stdin and stdout on a terminal that hangs up (the pty's master closed, as a terminal window
  // or an SSH session closing): the shell's SIGHUP, forwarded to its job, as bash does. Before, the
  // orderly stop ran but Node 20 aborted at exit on the gone terminal (SIGABRT, exit 134, a core)
  it.skipIf(!hasScript)(
    'on a terminal that hung up: the orderly stop, exit 0, no abort at exit',
    async () => {
      const s = setup();
      const errFile = join(s.folder, 'stderr.log');
      const rcFile = join(s.folder, 'rc');
      // (the shell ignores the hang-up so it lives on to write the daemon's exit code)
      const q = (x: string) => `'${x}'`;
      const sh = `trap '' HUP; ${q(process.execPath)} ${q(BIN)} run --config ${q(s.config)} 2>${q(errFile)}; echo $? >${q(rcFile)}`;
      const term = start('script', ['-qfc', sh, '/dev/null']);
      const gone = () => term.p.exitCode !== null || term.p.signalCode !== null;
      expect(await waitUntil(() => lockOf(s.dir)?.statusUrl !== undefined || gone(), 120_000, 100)).toBe(true);
      const url = lockOf(s.dir)!.statusUrl!;
      expect(await quotingAt(url), readIf(errFile).slice(-3000)).toBe(true);
      const pid = lockOf(s.dir)!.pid;
      // the terminal goes away: its master side closed (the tty hangs up), then the shell's SIGHUP
      process.kill(term.p.pid!, 'SIGKILL');
      await ends(term, 30_000);
      process.kill(pid, 'SIGHUP');
      expect(await waitUntil(() => existsSync(rcFile) && readIf(rcFile).trim() !== '', 120_000, 100)).toBe(true);
      const err = readIf(errFile);
      expect(readIf(rcFile).trim(), err.slice(-3000)).toBe('0');
      expect(err).not.toContain('Assertion failed');
      expect(logLines(err).find((l) => l.msg === 'summary')).toMatchObject({
        openOrdersAtExit: 0,
        stop: { kind: 'signal', signal: 'SIGHUP' },
      });
      for (const f of ['daemon.lock', 'daemon.json', 'venue.json']) expect(existsSync(join(s.dir, f)), f).toBe(false);
    },
    300_000,
  );
});

/** A file's text, '' when it is not there (yet). */
function readIf(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Waits (up to 120 s) until the daemon at `url` runs with orders resting. */
async function quotingAt(url: string): Promise<boolean> {
  const end = Date.now() + 120_000;
  while (Date.now() < end) {
    const st = await daemonStatus(url);
    if (st !== undefined && st.lifecycle === 'running' && st.orders.open > 0) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

/** True when this machine lets us run a command as PID 1 of a new PID namespace. */
const canUnshare = (() => {
  try {
    return spawnSync('unshare', ['--pid', '--fork', '--mount-proc', 'true'], { timeout: 10_000 }).status === 0;
  } catch {
    return false;
  }
})();

describe.skipIf(!canUnshare)('node as PID 1 (the Docker image)', () => {
  const asPid1 = (config: string) =>
    start('unshare', ['--pid', '--fork', '--mount-proc', process.execPath, BIN, 'run', '--config', config]);
  /** The daemon (PID 1 inside), as this namespace sees it: unshare's child. */
  async function nodePid(u: Proc): Promise<number> {
    expect(await waitUntil(() => childrenOf(u.p.pid!).length > 0, 30_000)).toBe(true);
    return childrenOf(u.p.pid!)[0]!;
  }

  it('SIGTERM stops it flat', async () => {
    const s = setup();
    const u = asPid1(s.config);
    const pid = await nodePid(u);
    await waitQuoting(s.dir, u);
    expect(lockOf(s.dir)!.pid).toBe(1);
    process.kill(pid, 'SIGTERM');
    expect(await ends(u, 120_000), u.err().slice(-3000)).toBe(0);
    await stoppedFlat(u, s, pid, 'SIGTERM');
  }, 300_000);

  it('a SIGTERM sent while it is still starting is not lost: it stops once started', async () => {
    const s = setup();
    const u = asPid1(s.config);
    const pid = await nodePid(u);
    // the daemon has taken its lock (the first step of its start) and is starting its exchange, venue, markets
    expect(await waitUntil(() => lockOf(s.dir) !== undefined, 120_000, 20), u.err().slice(-3000)).toBe(true);
    expect(logLines(u.err()).some((l) => l.msg === 'stopping: cancelling all orders')).toBe(false);
    process.kill(pid, 'SIGTERM');
    expect(await ends(u, 180_000), u.err().slice(-3000)).toBe(0);
    await stoppedFlat(u, s, pid, 'SIGTERM');
  }, 300_000);
});
