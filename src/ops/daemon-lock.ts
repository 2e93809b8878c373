/**
 * One daemon per data dir: `<dataDir>/daemon.lock`, held by `mmkit run` for its whole life.
 *
 * Two daemons on one data dir trade the same wallet into the same SQLite store: the second cancels
 * the first's orders at its start and removes its daemon.json at exit. So `mmkit run` takes this
 * lock before anything that trades or binds the venue starts, and a second daemon stops at once
 * naming the holder.
 *
 * The file is JSON `{pid, host, startedAt, statusUrl?, proc?, pidns?, nonce}`, created with O_EXCL (`wx`):
 * of two daemons starting together exactly one creates it. A lock whose holder is gone is stale and
 * is taken over with a warning naming the old holder:
 *  - on this host (same `os.hostname()`): its pid no longer exists (or is a zombie), or the pid was
 *    reused by another process (Linux: `proc`, the boot id and the process's start time, differs),
 *    or it names this very process from an earlier life (a container restarted: node is pid 1 again);
 *  - a lock taken on another host (a data dir on a shared volume, or a replaced container with a new
 *    hostname) cannot be checked from here and is never taken over: the operator removes it. Nor is
 *    one taken in another PID namespace of this host (a container sharing the host's network, so its
 *    hostname, and the volume), unless it names this very pid (this container, restarted).
 * A lock that cannot be read (empty or damaged) is not taken over either: the message says to
 * remove it.
 *
 * Only the owner removes the lock (`release` checks the nonce it wrote); a takeover renames the
 * stale file away first and checks it renamed what it judged stale, so a takeover racing a fresh
 * start never removes the fresh daemon's lock.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  openSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** The lock's file name in the data dir. */
export const DAEMON_LOCK_FILE = 'daemon.lock';

/** What the lock says of its holder. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** When the holder took the lock (ISO 8601). */
  readonly startedAt: string;
  /** The holder's status server (set once it listens). */
  readonly statusUrl?: string;
  /** The holder process's identity on its host (Linux: boot id and start time), to tell a reused pid apart. */
  readonly proc?: string;
  /** The holder's PID namespace (Linux): pids of another namespace cannot be checked from here. */
  readonly pidns?: string;
  /** Random, per acquisition: what `release` checks before removing the file. */
  readonly nonce: string;
}

/** The state of a data dir's lock. */
export type LockState =
  | { readonly state: 'free' }
  /** Held by a process that exists on this host (possibly this process). */
  | { readonly state: 'live'; readonly holder: LockHolder; readonly raw: string }
  /** Held by a process of this host that is gone: may be taken over. */
  | { readonly state: 'stale'; readonly holder: LockHolder; readonly raw: string; readonly why: string }
  /** Taken on another host (or in another PID namespace of this one): cannot be checked from here, never taken over automatically. */
  | { readonly state: 'foreign'; readonly holder: LockHolder; readonly raw: string; readonly where: 'host' | 'pidns' }
  /** The file exists but is not a lock this code wrote whole (empty, damaged). */
  | { readonly state: 'unreadable'; readonly detail: string };

/** What the lock reads of the machine (injectable for tests). */
export interface LockEnv {
  readonly pid: number;
  readonly host: string;
  /** True when a process with this pid exists on this host (a zombie does not count). */
  isAlive(pid: number): boolean;
  /** The identity of process `pid` on this host (boot id and start time), undefined when unknown. */
  procId(pid: number): string | undefined;
  /** This process's PID namespace, undefined when unknown. */
  pidNs(): string | undefined;
}

/** Lock files held by this process (by path): a lock naming this pid is ours only if listed here. */
const heldHere = new Set<string>();

function procStat(pid: number): { start: string; zombie: boolean } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so split after the last ')'
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // f[0] is field 3 (state); field 22 (starttime, clock ticks since boot) is f[19]
    const start = f[19];
    return start === undefined ? undefined : { start, zombie: f[0] === 'Z' };
  } catch {
    return undefined;
  }
}

let bootId: string | null | undefined;
function readBootId(): string | null {
  if (bootId === undefined) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      bootId = null;
    }
  }
  return bootId;
}

/** The machine as it is (process.kill(pid, 0); /proc on Linux). */
export const SYSTEM_LOCK_ENV: LockEnv = {
  get pid() {
    return process.pid;
  },
  get host() {
    return hostname();
  },
  isAlive(pid) {
    try {
      process.kill(pid, 0);
    } catch (e) {
      // EPERM: it exists, owned by another user
      if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
    }
    return procStat(pid)?.zombie !== true;
  },
  procId(pid) {
    const boot = readBootId();
    const st = procStat(pid);
    return boot === null || st === undefined ? undefined : `${boot}:${st.start}`;
  },
  pidNs() {
    try {
      return readlinkSync('/proc/self/ns/pid');
    } catch {
      return undefined;
    }
  },
};

function parseHolder(raw: string): LockHolder | undefined {
  try {
    const v = JSON.parse(raw) as Record<string, unknown>;
    if (
      typeof v.pid !== 'number' ||
      !Number.isInteger(v.pid) ||
      v.pid <= 0 ||
      typeof v.host !== 'string' ||
      typeof v.startedAt !== 'string' ||
      typeof v.nonce !== 'string'
    )
      return undefined;
    return {
      pid: v.pid,
      host: v.host,
      startedAt: v.startedAt,
      nonce: v.nonce,
      ...(typeof v.statusUrl === 'string' ? { statusUrl: v.statusUrl } : {}),
      ...(typeof v.proc === 'string' ? { proc: v.proc } : {}),
      ...(typeof v.pidns === 'string' ? { pidns: v.pidns } : {}),
    };
  } catch {
    return undefined;
  }
}

function judge(file: string, raw: string, env: LockEnv): LockState {
  const holder = parseHolder(raw);
  if (holder === undefined)
    return { state: 'unreadable', detail: raw.trim() === '' ? 'the file is empty' : 'not a lock mmkit wrote' };
  if (holder.host !== env.host) return { state: 'foreign', holder, raw, where: 'host' };
  if (holder.pid === env.pid)
    return heldHere.has(file)
      ? { state: 'live', holder, raw }
      : { state: 'stale', holder, raw, why: `it names this process's pid, from an earlier life` };
  const ns = env.pidNs();
  if (holder.pidns !== undefined && ns !== undefined && holder.pidns !== ns)
    return { state: 'foreign', holder, raw, where: 'pidns' };
  if (!env.isAlive(holder.pid)) return { state: 'stale', holder, raw, why: `pid ${holder.pid} is gone` };
  const now = env.procId(holder.pid);
  if (holder.proc !== undefined && now !== undefined && now !== holder.proc)
    return { state: 'stale', holder, raw, why: `pid ${holder.pid} is now another process` };
  return { state: 'live', holder, raw };
}

/** The state of `<dataDir>/daemon.lock` (read only). */
export function inspectDaemonLock(dataDir: string, env: LockEnv = SYSTEM_LOCK_ENV): LockState {
  const file = join(dataDir, DAEMON_LOCK_FILE);
  let raw: string;
  try {
    raw = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'free' };
    return { state: 'unreadable', detail: (e as Error).message };
  }
  return judge(file, raw, env);
}

/** One line naming a holder: `pid 123 on host h, since <ISO>, status page http://...`. */
export function describeHolder(h: LockHolder): string {
  return `pid ${h.pid} on host ${h.host}, since ${h.startedAt}${h.statusUrl ? `, status page ${h.statusUrl}` : ''}`;
}

/** The data dir is locked by another daemon (or by a lock that cannot be judged): this one must not start. */
export class DaemonLockedError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly lock: Extract<LockState, { state: 'live' | 'foreign' | 'unreadable' }>,
  ) {
    super(message);
    this.name = 'DaemonLockedError';
  }
}

function lockedError(
  file: string,
  dataDir: string,
  st: Extract<LockState, { state: 'live' | 'foreign' | 'unreadable' }>,
) {
  switch (st.state) {
    case 'live':
      return new DaemonLockedError(
        `another mmkit daemon is running on data dir ${dataDir}: ${describeHolder(st.holder)} (it holds ${file}). ` +
          `One daemon per data dir: stop it first (\`mmkit kill --data-dir ${dataDir}\`), or give this one another --data-dir.`,
        file,
        st,
      );
    case 'foreign':
      return new DaemonLockedError(
        `data dir ${dataDir} is locked by an mmkit daemon on ${st.where === 'host' ? 'another host' : 'this host but in another PID namespace (another container?)'}: ${describeHolder(st.holder)}. ` +
          `A lock from another host cannot be checked from here and is never taken over automatically: ` +
          `if no daemon uses this data dir any more, remove ${file}.`,
        file,
        st,
      );
    case 'unreadable':
      return new DaemonLockedError(
        `data dir ${dataDir} has a lock that cannot be read (${st.detail}): if no daemon uses this data dir, remove ${file}.`,
        file,
        st,
      );
  }
}

/** A lock this process holds. */
export interface DaemonLock {
  readonly file: string;
  /** What the file says (statusUrl included once set). */
  readonly holder: LockHolder;
  /** Record the status server's URL in the lock (for `mmkit status`/`kill` and a second daemon's message). */
  setStatusUrl(url: string): void;
  /** Remove the lock if it is still this acquisition's. Idempotent. @returns whether it removed it */
  release(): boolean;
}

/** Options of `acquireDaemonLock`. */
export interface AcquireOptions {
  /** Told when a stale lock is taken over (naming the old holder). */
  readonly warn?: (fields: Record<string, unknown>, msg: string) => void;
  readonly now?: () => number;
  readonly env?: LockEnv;
  /** How long a lock being written (empty for an instant) is re-read before it is called unreadable, ms. */
  readonly settleMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function readRaw(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** Create `file` holding `raw`, exclusively. @returns false when it exists already */
function createExclusive(file: string, raw: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    writeSync(fd, raw);
    // on disk before it counts: an empty lock left by a power loss would need an operator
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Remove the stale lock `raw` at `file`, unless it changed meanwhile: renamed away first (atomic),
 * then checked; a fresh lock renamed by mistake (another daemon took over in between) is put back.
 */
function removeStale(file: string, raw: string, env: LockEnv): void {
  const aside = `${file}.${env.pid}.${randomBytes(4).toString('hex')}.stale`;
  try {
    renameSync(file, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // someone else removed it
    throw e;
  }
  try {
    if (readFileSync(aside, 'utf8') !== raw) {
      // not the stale lock: a daemon that took it over in between; put its lock back (unless a
      // third daemon created one meanwhile: that one then holds the data dir)
      try {
        linkSync(aside, file);
      } catch {
        /* EEXIST: see above */
      }
    }
  } finally {
    rmSync(aside, { force: true });
  }
}

/**
 * Take `<dataDir>/daemon.lock` for this process (the data dir must exist).
 * @throws DaemonLockedError when a daemon holds it (on this host and alive, or on another host) or it cannot be read
 */
export async function acquireDaemonLock(dataDir: string, o: AcquireOptions = {}): Promise<DaemonLock> {
  const env = o.env ?? SYSTEM_LOCK_ENV;
  const file = join(dataDir, DAEMON_LOCK_FILE);
  const settleMs = o.settleMs ?? 1000;
  const proc = env.procId(env.pid);
  const pidns = env.pidNs();
  let holder: LockHolder = {
    pid: env.pid,
    host: env.host,
    startedAt: new Date(o.now?.() ?? Date.now()).toISOString(),
    ...(proc !== undefined ? { proc } : {}),
    ...(pidns !== undefined ? { pidns } : {}),
    nonce: randomBytes(8).toString('hex'),
  };
  const settleUntil = Date.now() + settleMs;
  for (let takeovers = 0; ; ) {
    if (createExclusive(file, JSON.stringify(holder) + '\n')) break;
    const raw = readRaw(file);
    if (raw === undefined) continue; // removed meanwhile: try again
    const st = judge(file, raw, env);
    if (st.state === 'live' || st.state === 'foreign') throw lockedError(file, dataDir, st);
    if (st.state === 'unreadable') {
      // a lock is written right after it is created: an empty one for an instant is being written
      if (Date.now() < settleUntil) {
        await sleep(50);
        continue;
      }
      throw lockedError(file, dataDir, st);
    }
    if (st.state !== 'stale') continue;
    if (++takeovers > 5) throw new Error(`could not take over the stale lock ${file}: it keeps changing`);
    o.warn?.(
      { lock: file, holder: { pid: st.holder.pid, host: st.holder.host, startedAt: st.holder.startedAt } },
      `taking over a stale daemon lock: ${describeHolder(st.holder)} (${st.why})`,
    );
    removeStale(file, raw, env);
  }
  heldHere.add(file);
  let released = false;
  const mine = (): boolean => {
    const raw = readRaw(file);
    return raw !== undefined && parseHolder(raw)?.nonce === holder.nonce;
  };
  return {
    file,
    get holder() {
      return holder;
    },
    setStatusUrl(url) {
      if (released || !mine()) return;
      holder = { ...holder, statusUrl: url };
      // written whole, then renamed over the lock: a reader never sees half a file
      const tmp = `${file}.${env.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(holder) + '\n');
      renameSync(tmp, file);
    },
    release() {
      if (released) return false;
      released = true;
      heldHere.delete(file);
      if (!mine()) return false;
      rmSync(file, { force: true });
      return true;
    },
  };
}
