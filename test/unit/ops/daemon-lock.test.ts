/**
 * The data dir's lock (src/ops/daemon-lock.ts), with the machine injected: which holder is alive,
 * which host this is, which process a pid is now. The real processes (a second daemon, a lock left
 * by `kill -9`) are in test/e2e/cli-run-lock.test.ts.
 */
import { mkdtempSync, readFileSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  acquireDaemonLock,
  DAEMON_LOCK_FILE,
  DaemonLockedError,
  inspectDaemonLock,
  SYSTEM_LOCK_ENV,
  type LockEnv,
} from '../../../src/ops/daemon-lock.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'mmkit-lock-'));
const lockOf = (d: string) => JSON.parse(readFileSync(join(d, DAEMON_LOCK_FILE), 'utf8')) as Record<string, unknown>;

/** A machine: `host`, this process is `pid`, the processes in `alive` exist (with their identities). */
function env(pid: number, o: { host?: string; alive?: Record<number, string>; pidns?: string } = {}): LockEnv {
  const alive = o.alive ?? {};
  return {
    pid,
    host: o.host ?? 'box-a',
    isAlive: (p) => p === pid || p in alive,
    procId: (p) => (p === pid ? `boot:${pid}` : alive[p]),
    pidNs: () => o.pidns ?? 'pid:[1]',
  };
}

function plant(d: string, holder: Record<string, unknown>): string {
  const raw = JSON.stringify({ startedAt: '2026-01-02T03:04:05.000Z', nonce: 'n0', ...holder }) + '\n';
  writeFileSync(join(d, DAEMON_LOCK_FILE), raw);
  return raw;
}

describe('daemon lock', () => {
  it('is created with pid, host, start time; a second taker is refused naming the holder; release removes it', async () => {
    const d = dir();
    const a = await acquireDaemonLock(d, {
      env: env(100, { alive: { 200: 'boot:200' } }),
      now: () => Date.UTC(2026, 0, 1),
    });
    expect(lockOf(d)).toMatchObject({ pid: 100, host: 'box-a', startedAt: '2026-01-01T00:00:00.000Z' });
    a.setStatusUrl('http://127.0.0.1:9100');
    expect(lockOf(d)['statusUrl']).toBe('http://127.0.0.1:9100');

    // another process of this host, while the holder lives
    const err = await acquireDaemonLock(d, { env: env(200, { alive: { 100: 'boot:100' } }) }).catch((e) => e);
    expect(err).toBeInstanceOf(DaemonLockedError);
    expect(err.lock.state).toBe('live');
    for (const w of ['pid 100', 'host box-a', 'since 2026-01-01T00:00:00.000Z', 'http://127.0.0.1:9100'])
      expect(err.message).toContain(w);
    expect(lockOf(d)['pid']).toBe(100); // untouched

    expect(a.release()).toBe(true);
    expect(existsSync(join(d, DAEMON_LOCK_FILE))).toBe(false);
    expect(a.release()).toBe(false);
    expect(inspectDaemonLock(d)).toEqual({ state: 'free' });
  });

  it('a second taker in the same process is refused too (the lock names this pid and is held here)', async () => {
    const d = dir();
    const a = await acquireDaemonLock(d);
    expect(inspectDaemonLock(d).state).toBe('live');
    await expect(acquireDaemonLock(d)).rejects.toBeInstanceOf(DaemonLockedError);
    a.release();
    const b = await acquireDaemonLock(d);
    b.release();
  });

  it('takes over a lock whose pid is gone, with a warning naming the old holder', async () => {
    const d = dir();
    plant(d, { pid: 4242, host: 'box-a' });
    const warned: Array<{ fields: Record<string, unknown>; msg: string }> = [];
    const l = await acquireDaemonLock(d, { env: env(100), warn: (fields, msg) => warned.push({ fields, msg }) });
    expect(lockOf(d)['pid']).toBe(100);
    expect(warned).toHaveLength(1);
    expect(warned[0]!.msg).toContain('pid 4242 on host box-a, since 2026-01-02T03:04:05.000Z');
    expect(warned[0]!.msg).toContain('pid 4242 is gone');
    expect(warned[0]!.fields['holder']).toMatchObject({ pid: 4242, host: 'box-a' });
    // nothing left aside
    expect(readdirSync(d)).toEqual([DAEMON_LOCK_FILE]);
    l.release();
  });

  it('takes over a lock whose pid now belongs to another process (pid reused)', async () => {
    const d = dir();
    plant(d, { pid: 300, host: 'box-a', proc: 'boot:300-old' });
    const l = await acquireDaemonLock(d, { env: env(100, { alive: { 300: 'boot:300-new' } }) });
    expect(lockOf(d)['pid']).toBe(100);
    l.release();
    // same identity: alive, refused
    plant(d, { pid: 300, host: 'box-a', proc: 'boot:300' });
    await expect(acquireDaemonLock(d, { env: env(100, { alive: { 300: 'boot:300' } }) })).rejects.toThrow(/pid 300/);
  });

  it("takes over a lock naming this very pid from an earlier life (a restarted container's PID 1)", async () => {
    const d = dir();
    plant(d, { pid: 1, host: 'box-a' });
    const l = await acquireDaemonLock(d, { env: env(1) });
    expect(lockOf(d)['nonce']).not.toBe('n0');
    l.release();
  });

  it('never takes over a lock of another host, and says so', async () => {
    const d = dir();
    const raw = plant(d, { pid: 100, host: 'box-b', statusUrl: 'http://127.0.0.1:8787' });
    const err = await acquireDaemonLock(d, { env: env(100) }).catch((e) => e);
    expect(err).toBeInstanceOf(DaemonLockedError);
    expect(err.lock).toMatchObject({ state: 'foreign', where: 'host' });
    expect(err.message).toMatch(/another host.*box-b.*never taken over automatically.*remove/s);
    expect(readFileSync(join(d, DAEMON_LOCK_FILE), 'utf8')).toBe(raw);
  });

  it('never takes over a lock of another PID namespace of this host (another container), unless it names this pid', async () => {
    const d = dir();
    const raw = plant(d, { pid: 4242, host: 'box-a', pidns: 'pid:[2]' });
    // pid 4242 does not exist here: but here is not where it ran
    const err = await acquireDaemonLock(d, { env: env(100, { pidns: 'pid:[1]' }) }).catch((e) => e);
    expect(err).toBeInstanceOf(DaemonLockedError);
    expect(err.message).toMatch(/another PID namespace.*pid 4242.*never taken over automatically/s);
    expect(readFileSync(join(d, DAEMON_LOCK_FILE), 'utf8')).toBe(raw);
    // the same namespace: stale, taken over
    const l = await acquireDaemonLock(d, { env: env(100, { pidns: 'pid:[2]' }) });
    expect(lockOf(d)).toMatchObject({ pid: 100, pidns: 'pid:[2]' });
    l.release();
    // this container restarted: PID 1 again, in a new namespace: its own earlier life
    plant(d, { pid: 1, host: 'box-a', pidns: 'pid:[2]' });
    (await acquireDaemonLock(d, { env: env(1, { pidns: 'pid:[3]' }) })).release();
  });

  it('refuses an unreadable lock (after letting a writer finish) and leaves it', async () => {
    const d = dir();
    writeFileSync(join(d, DAEMON_LOCK_FILE), '');
    const err = await acquireDaemonLock(d, { env: env(100), settleMs: 100 }).catch((e) => e);
    expect(err).toBeInstanceOf(DaemonLockedError);
    expect(err.message).toContain('the file is empty');
    expect(readFileSync(join(d, DAEMON_LOCK_FILE), 'utf8')).toBe('');
  });

  it('a takeover racing another takeover never removes the fresh lock', async () => {
    const d = dir();
    const stale = plant(d, { pid: 4242, host: 'box-a' });
    // process 200 takes the stale lock over between process 100's read and its removal: simulated in
    // the liveness check 100 makes of the stale pid
    let raced = false;
    const e100: LockEnv = {
      ...env(100, { alive: { 200: 'boot:200' } }),
      isAlive: (p) => {
        if (p === 4242 && !raced) {
          raced = true;
          writeFileSync(
            join(d, DAEMON_LOCK_FILE),
            JSON.stringify({
              pid: 200,
              host: 'box-a',
              startedAt: '2026-01-03T00:00:00.000Z',
              nonce: 'n200',
              proc: 'boot:200',
            }),
          );
          return false;
        }
        return p === 100 || p === 200;
      },
    };
    const err = await acquireDaemonLock(d, { env: e100 }).catch((e) => e);
    expect(raced).toBe(true);
    expect(stale).not.toBe(readFileSync(join(d, DAEMON_LOCK_FILE), 'utf8'));
    expect(err).toBeInstanceOf(DaemonLockedError);
    expect(err.message).toContain('pid 200');
    expect(lockOf(d)).toMatchObject({ pid: 200, nonce: 'n200' });
    expect(readdirSync(d)).toEqual([DAEMON_LOCK_FILE]);
  });

  it("release leaves a lock that is no longer this acquisition's", async () => {
    const d = dir();
    const l = await acquireDaemonLock(d, { env: env(100) });
    plant(d, { pid: 200, host: 'box-a', nonce: 'other' });
    expect(l.release()).toBe(false);
    expect(lockOf(d)['nonce']).toBe('other');
    // and does not write its status URL over it
    l.setStatusUrl('http://127.0.0.1:1');
    expect(lockOf(d)['statusUrl']).toBeUndefined();
  });

  it('the system environment: this process is alive with a stable identity', () => {
    expect(SYSTEM_LOCK_ENV.pid).toBe(process.pid);
    expect(SYSTEM_LOCK_ENV.isAlive(process.pid)).toBe(true);
    if (process.platform === 'linux') {
      expect(SYSTEM_LOCK_ENV.procId(process.pid)).toMatch(/^[0-9a-f-]+:\d+$/);
      expect(SYSTEM_LOCK_ENV.procId(process.pid)).toBe(SYSTEM_LOCK_ENV.procId(process.pid));
      expect(SYSTEM_LOCK_ENV.pidNs()).toMatch(/^pid:\[\d+\]$/);
    }
  });
});
