/**
 * The daemon's file in its data dir (daemon.json: where its status server listens, its pid), in a
 * module of its own so `mmkit status` and `mmkit kill` find the daemon without loading the ops stack.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** The record other terminals read to find the status server. */
export const DAEMON_FILE = 'daemon.json';

/** The status URL a living daemon recorded in `<dataDir>/daemon.json`, if any. */
export function readDaemonFile(dataDir: string): { statusUrl: string; pid: number } | undefined {
  const f = join(dataDir, DAEMON_FILE);
  if (!existsSync(f)) return undefined;
  try {
    const v = JSON.parse(readFileSync(f, 'utf8')) as { statusUrl?: unknown; pid?: unknown };
    if (typeof v.statusUrl !== 'string' || typeof v.pid !== 'number') return undefined;
    try {
      process.kill(v.pid, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ESRCH') return undefined;
    }
    return { statusUrl: v.statusUrl, pid: v.pid };
  } catch {
    return undefined;
  }
}

/**
 * Remove daemon.json if this process wrote it (its pid): a daemon never removes another's record.
 * @returns whether it removed it
 */
export function removeDaemonFile(dataDir: string, pid: number = process.pid): boolean {
  const f = join(dataDir, DAEMON_FILE);
  try {
    const v = JSON.parse(readFileSync(f, 'utf8')) as { pid?: unknown };
    if (v.pid !== pid) return false;
  } catch {
    return false;
  }
  rmSync(f, { force: true });
  return true;
}
