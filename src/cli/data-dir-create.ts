/**
 * Creating the data directory (bot.dataDir, `--data-dir`) where a command needs it: `mmkit run` (and
 * its shadow and fleet members), and the paper wallet's first use (src/cli/wallet.ts).
 *
 * Why a check before `mkdirSync(dir, {recursive: true})` (trial 7 F10): a path under /proc made
 * Node's recursive mkdir loop forever at 100 % CPU (a Node bug on that file system), and being
 * synchronous it kept the SIGTERM handler from ever running: only SIGKILL stopped the command; and a
 * data dir that is an existing FILE gave the raw `EEXIST: file already exists, mkdir …` (exit 1).
 * So the path is checked first, without creating anything: it must not be under /proc or /sys (the
 * kernel's file systems, also through a symbolic link), and its nearest existing ancestor must be a
 * directory (the path itself when it exists), writable when something is to be created in it. Bad
 * input is then a ConfigError naming the key (exit 2) with the reason, and mkdir runs only where it
 * can succeed or fail with an ordinary error (which is reported the same way).
 *
 * An existing directory that cannot be written is not refused here: the store's probe
 * (src/cli/run-disk-probe.ts) says so with its cause (a full disk, a read-only mount; exit 1).
 */
import { accessSync, constants, mkdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { ConfigError } from '../core/errors.ts';

/** The kernel's virtual file systems: no place for data (and /proc hangs Node's recursive mkdir). */
const KERNEL_FS = ['/proc', '/sys'] as const;

/** The kernel file system `path` (absolute) lies in, if any. */
function kernelFsOf(path: string): string | undefined {
  return KERNEL_FS.find((root) => path === root || path.startsWith(`${root}${sep}`));
}

/**
 * Why `dir` cannot be (or become) a data directory, or undefined when it can; reads the file system,
 * creates nothing (see the module comment).
 */
export function dataDirProblem(dir: string): string | undefined {
  const abs = resolve(dir);
  const fs = kernelFsOf(abs);
  if (fs !== undefined) return `${dir} is under ${fs}, a kernel file system: choose a directory on a disk`;
  // the nearest existing ancestor (the path itself when it exists)
  let at = abs;
  let st: ReturnType<typeof statSync> | undefined;
  for (;;) {
    try {
      st = statSync(at);
      break;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // ENOTDIR: a file on the way (statSync of a/b where a is a file); the walk reaches it
      if (code !== 'ENOENT' && code !== 'ENOTDIR') return `${at} cannot be read: ${(e as Error).message}`;
    }
    const up = dirname(at);
    if (up === at) return `${dir}: no part of the path exists`;
    at = up;
  }
  let real = at;
  try {
    real = realpathSync(at);
  } catch {
    // (stat succeeded: keep the path as given)
  }
  const linked = kernelFsOf(real);
  if (linked !== undefined)
    return `${dir} leads to ${real}, under ${linked}, a kernel file system: choose a directory on a disk`;
  if (!st.isDirectory())
    return at === abs
      ? `${dir} is a file, not a directory: choose another path, or move the file away`
      : `${dir} cannot be created: ${at} is a file, not a directory`;
  if (at !== abs)
    try {
      accessSync(at, constants.W_OK | constants.X_OK);
    } catch {
      return `${dir} cannot be created: ${at} is not writable by this user`;
    }
  return undefined;
}

/**
 * Creates the data directory `dir` (and its missing parents) owner-only, mode 0700 (an existing
 * directory keeps its mode), after `dataDirProblem`'s check.
 * @param key the configuration key the directory comes from, named in the error (default bot.dataDir)
 * @throws ConfigError (exit 2) naming `key` and the reason when `dir` cannot be a data directory
 */
export function ensureDataDir(dir: string, key = 'bot.dataDir'): void {
  const problem = dataDirProblem(dir);
  if (problem !== undefined) throw new ConfigError(key, problem);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new ConfigError(key, `${dir} cannot be created: ${(e as Error).message}`, { cause: e });
  }
}
