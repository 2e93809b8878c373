/**
 * The daemon's files in its data dir (daemon.json: where its status server listens, its pid;
 * control.token: the secret of its control routes), in a module of its own so `mmkit status` and
 * `mmkit kill` find the daemon without loading the ops stack.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
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

/**
 * The daemon's control token (`<dataDir>/control.token`): the secret its status server asks of a
 * control request (POST /api/kill), which `mmkit kill` on the same machine reads here. Created
 * owner-only (0600) by the daemon at start, a fresh one each start, removed at its exit.
 */
export const CONTROL_TOKEN_FILE = 'control.token';

/**
 * True when `given` is the token, compared in constant time (of SHA-256 digests: equal lengths for
 * timingSafeEqual, and the time says nothing of the token, not even its length).
 */
export function sameToken(given: string | undefined, token: string): boolean {
  if (typeof given !== 'string' || token === '') return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(token).digest();
  return timingSafeEqual(a, b);
}

/** A fresh control token: 32 random bytes, hex. */
export function newControlToken(): string {
  return randomBytes(32).toString('hex');
}

/**
 * Write the control token to `<dataDir>/control.token`, owner-only: the file is created with mode
 * 0600 (never wider, whatever the umask, and never chmod-ed after), then renamed over any old one,
 * so a reader never sees a half-written or a world-readable token.
 * @returns the file's path
 * @throws the file system's error (the caller decides; the token is never in the message)
 */
export function writeControlToken(dataDir: string, token: string): string {
  const f = join(dataDir, CONTROL_TOKEN_FILE);
  const tmp = `${f}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, `${token}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, f);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  return f;
}

/** The control token recorded in `<dataDir>/control.token`, if any (trimmed). */
export function readControlToken(dataDir: string): string | undefined {
  try {
    const t = readFileSync(join(dataDir, CONTROL_TOKEN_FILE), 'utf8').trim();
    return t === '' ? undefined : t;
  } catch {
    return undefined;
  }
}

/**
 * Remove `<dataDir>/control.token` if it holds `token` (this daemon's): a daemon never removes
 * another's token. Without `token`, whatever is there (only for the holder of the data dir's lock:
 * no other living daemon uses the directory then).
 * @returns whether it removed it
 */
export function removeControlToken(dataDir: string, token?: string): boolean {
  const t = readControlToken(dataDir);
  if (token !== undefined && (t === undefined || !sameToken(t, token))) return false;
  if (t === undefined && !existsSync(join(dataDir, CONTROL_TOKEN_FILE))) return false;
  rmSync(join(dataDir, CONTROL_TOKEN_FILE), { force: true });
  return true;
}
