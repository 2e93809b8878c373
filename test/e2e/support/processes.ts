/**
 * Processes as the operating system sees them, for the tests of how the daemon stops (signals,
 * `npm start`, node as PID 1, a lock left by `kill -9`): whether a pid lives, which processes
 * mention a string in their command line (Linux /proc), and the status server of the daemon holding
 * a data dir (its lock).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** True when a process with this pid exists (a zombie counts as gone). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}

/**
 * The processes (pid and command line) whose command line contains `needle` (Linux: /proc; empty
 * elsewhere). The test process itself is left out.
 */
export function processesMentioning(needle: string): Array<{ pid: number; cmd: string }> {
  if (!existsSync('/proc/self/cmdline')) return [];
  const out: Array<{ pid: number; cmd: string }> = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d) || Number(d) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmd.includes(needle) && pidAlive(Number(d))) out.push({ pid: Number(d), cmd });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** The children of a process (Linux: /proc/<pid>/task/<pid>/children), [] when unknown. */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** What `<dir>/daemon.lock` says, or undefined (absent, or being written). */
export function lockOf(dir: string): { pid: number; host: string; startedAt: string; statusUrl?: string } | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, 'daemon.lock'), 'utf8')) as {
      pid: number;
      host: string;
      startedAt: string;
      statusUrl?: string;
    };
  } catch {
    return undefined;
  }
}

/** The daemon's /api/status (undefined when it does not answer). */
export async function daemonStatus(
  url: string,
): Promise<{ pid: number; lifecycle: string; orders: { open: number } } | undefined> {
  try {
    const r = await fetch(`${url}/api/status`, { signal: AbortSignal.timeout(5000) });
    return r.ok ? ((await r.json()) as { pid: number; lifecycle: string; orders: { open: number } }) : undefined;
  } catch {
    return undefined;
  }
}
