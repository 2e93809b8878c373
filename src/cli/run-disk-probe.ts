/**
 * The start's check that the store's directory can take writes, before anything trades (trial 6 F3).
 *
 * Why: SQLite on a full disk fails only at the write that needs a new page. A daemon started on a
 * full data dir opened its store, reconciled, quoted and took fills (its first writes reused free
 * pages of the file and of its WAL) until the first fill that could not be stored tripped the kill
 * switch: trading with a store that cannot keep up, and a fill missing from it until the next start
 * backfilled it. Writing (and syncing) a probe file of `STORE_HEADROOM_BYTES` next to the store
 * proves the room a session needs to start; a full disk, a read-only mount or a directory the user
 * cannot write refuses the start with one message naming the directory and the cause (exit 1,
 * README "Exit codes": the command ran but did not succeed; nothing was traded).
 *
 * It checks the start only: a disk that fills while the daemon runs is the store failure's kill
 * switch trip (`storeFailure`, src/kernel/create-trader.ts) and its orderly shutdown (exit 4).
 */
import { closeSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CliError, ExitCode } from './exit-codes.ts';

/**
 * The room the store must have at start: 1 MiB, some thousands of fills and order updates with their
 * WAL frames (a page is 4 KiB), far more than a session's first minutes write.
 */
export const STORE_HEADROOM_BYTES = 1 << 20;

/** The causes said in words (the rest are named by their code). */
const CAUSES: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: "the user's disk quota is exhausted",
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOENT: 'its directory does not exist',
};

/**
 * Writes, syncs and removes a probe file of `bytes` in the directory of `storeFile` (see the module
 * comment); nothing for an in-memory store (`:memory:`).
 * @throws CliError (exit 1) naming the data dir, the store file and the cause when it cannot
 */
export function probeStoreWritable(dataDir: string, storeFile: string, bytes = STORE_HEADROOM_BYTES): void {
  // (an in-memory store writes no file)
  if (storeFile === ':memory:' || storeFile === '') return;
  const probe = join(dirname(storeFile), `.mmkit-write-probe-${process.pid}`);
  let fd: number | undefined;
  try {
    fd = openSync(probe, 'w', 0o600);
    const chunk = Buffer.alloc(Math.min(bytes, 64 * 1024), 0x5a);
    for (let left = bytes; left > 0; left -= chunk.length) writeSync(fd, chunk, 0, Math.min(left, chunk.length));
    fsyncSync(fd);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    const cause = CAUSES[code] ?? (err instanceof Error ? err.message : String(err));
    throw new CliError(
      `the store cannot be written: data dir ${dataDir} (store ${storeFile}): ${cause}${code && CAUSES[code] ? ` (${code})` : ''}; ` +
        `it needs at least ${Math.round(bytes / 1024)} KiB free to start: free some space (or fix the mount or the permissions) and start again. Nothing was traded.`,
      ExitCode.FAILURE,
      undefined,
      { cause: err },
    );
  } finally {
    try {
      if (fd !== undefined) closeSync(fd);
      unlinkSync(probe);
    } catch {
      /* never created (or already failed: the error above says why) */
    }
  }
}
