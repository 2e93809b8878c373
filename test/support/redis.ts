/**
 * A real Redis for tests (issue 21: the fleet's shared state): `startRedis()` runs Debian's
 * `redis-server` (installed by .ci/run when missing) on a free loopback port, without persistence,
 * and answers once it accepts commands. `stop()` ends it; `kill()` kills it at once (a crash: the
 * fleet must fail closed) and `restart()` brings it back on the same port, empty (as a Redis
 * without persistence comes back); `pause()`/`resume()` freeze it (SIGSTOP/SIGCONT: a hung Redis).
 * Never the system's Redis on 6379: each test gets its own.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer, Socket } from 'node:net';

export interface TestRedis {
  readonly port: number;
  /** redis://127.0.0.1:PORT */
  readonly url: string;
  stop(): Promise<void>;
  kill(): Promise<void>;
  restart(): Promise<void>;
  pause(): void;
  resume(): void;
}

/** Whether `redis-server` can be run here. */
export function haveRedis(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a !== null ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** PING over a raw socket until it answers PONG (or the deadline passes). */
async function waitPong(port: number, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const sock = new Socket();
      const done = (v: boolean) => {
        sock.destroy();
        resolve(v);
      };
      sock.setTimeout(500, () => done(false));
      sock.once('error', () => done(false));
      sock.connect(port, '127.0.0.1', () => sock.write('PING\r\n'));
      sock.once('data', (d) => done(d.toString().startsWith('+PONG')));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`redis-server on port ${port} did not answer within ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function launch(port: number): ChildProcess {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  child.stderr?.resume();
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Starts a private redis-server on a free loopback port (see the module comment). */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child = launch(port);
  await waitPong(port, 10_000);
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      await exited(child);
    },
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
    async restart() {
      child.kill('SIGKILL');
      await exited(child);
      child = launch(port);
      await waitPong(port, 10_000);
    },
    pause() {
      child.kill('SIGSTOP');
    },
    resume() {
      child.kill('SIGCONT');
    },
  };
}
