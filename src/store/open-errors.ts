/**
 * SQLite's failures to open the store, as errors that name the file and the way forward.
 *
 * Why: SQLite's own words ("database disk image is malformed", "file is not a database", "attempt to
 * write a readonly database") name neither the file nor what to do, and they came out as exit 1, a
 * failure of the run, where the operator has a data dir to repair: exit 2 (README "Exit codes": a bad
 * configuration, the message names the key; here bot.storeFile, whose default is <dataDir>/mmkit.db).
 * The daemon opens the store before it binds its status port or creates a paper wallet
 * (src/cli/run.ts), so a damaged store refuses the start before anything else happens.
 */
import { ConfigError } from '../core/errors.ts';

/** The config key naming the store file (its default is <dataDir>/mmkit.db). */
export const STORE_FILE_KEY = 'bot.storeFile';

/** The SQLite result code of an error (better-sqlite3's SqliteError.code: 'SQLITE_CORRUPT', ...), if any. */
function sqliteCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/**
 * A failure to open the store at `file` as a ConfigError naming it and saying what to do (a damaged or
 * foreign file: move it aside or restore a backup; a read-only one: the permissions); any other error
 * unchanged.
 */
export function storeOpenError(file: string, e: unknown): unknown {
  const code = sqliteCode(e);
  if (code === undefined) return e;
  const why = (e as Error).message;
  if (code.startsWith('SQLITE_CORRUPT') || code.startsWith('SQLITE_NOTADB'))
    return new ConfigError(
      STORE_FILE_KEY,
      `the store ${file} cannot be read: ${why} (the file is damaged or truncated, or is not an mmkit store); ` +
        `nothing was done with it. Restore a backup of it, or move it aside with its -wal and -shm files ` +
        `(mv ${file} ${file}.damaged): a new store starts a new ledger epoch, and the next start's reconciliation ` +
        'books the fills it finds at the venue as external (positions follow the venue)',
      { cause: e },
    );
  if (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_PERM'))
    return new ConfigError(
      STORE_FILE_KEY,
      `the store ${file} cannot be opened for writing: ${why}; the daemon's user needs to read and write it, ` +
        'its -wal and -shm files and its directory',
      { cause: e },
    );
  return e;
}
