/**
 * The paper exchange's persistence (--db FILE): an append-only SQLite journal of applied commands
 * (see ../commands.ts). Replaying it through the deterministic engine restores orders, trades,
 * balances, API keys and the world exactly. One writer, WAL, commands batched into one transaction
 * per event-loop turn (and flushed on close), numbered schema migrations.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, openSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { CommandSink, TimedCommand } from '../commands.ts';
import { newWorldIdentity, type WorldIdentity } from '../identity.ts';

const MIGRATIONS: readonly string[] = [
  // 1: meta and the command journal
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);
   CREATE TABLE commands (seq INTEGER PRIMARY KEY AUTOINCREMENT, t INTEGER NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL);`,
];

export interface Journal extends CommandSink {
  /** The world seed the database was created with (a later --seed does not change it). */
  readonly seed: number;
  /** Secret API keys are derived from; created with the database, so keys survive restarts. */
  readonly serverSecret: Buffer;
  /** The world's identity, created with the database (a database written before it existed gets one on its next open). */
  readonly identity: WorldIdentity;
  /** Journaled commands in order (lazy). */
  commands(): IterableIterator<TimedCommand>;
  /** Number of journaled commands (including buffered ones). */
  count(): number;
  /** Write buffered commands now. */
  flush(): void;
  /** Flush and close. Idempotent. */
  close(): void;
}

/**
 * Open (or create) a journal file. `now` (unix ms) is the start time recorded in a new world's
 * identity.
 * @throws Error when the file cannot be opened or holds a newer schema than this code knows.
 */
export function openJournal(file: string, opts: { seed: number; now?: number }): Journal {
  // the journal holds the server secret every account's credentials derive from: owner-only. The
  // file is made (or narrowed) 0600 before SQLite opens it; SQLite gives its -wal and -shm files
  // the database file's mode.
  if (file !== ':memory:') {
    closeSync(openSync(file, 'a', 0o600));
    chmodSync(file, 0o600);
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)');
  const row = db.prepare('SELECT version FROM schema_version').get() as { version: number } | undefined;
  let version = row?.version ?? 0;
  if (version > MIGRATIONS.length)
    throw new Error(`${file}: schema version ${version} is newer than this mmkit (${MIGRATIONS.length})`);
  db.transaction(() => {
    for (; version < MIGRATIONS.length; version++) db.exec(MIGRATIONS[version] as string);
    db.prepare('DELETE FROM schema_version').run();
    db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(version);
  })();

  const getMeta = db.prepare('SELECT value FROM meta WHERE key = ?');
  const putMeta = db.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)');
  putMeta.run('seed', String(opts.seed));
  putMeta.run('server_secret', randomBytes(32));
  const seed = Number((getMeta.get('seed') as { value: string }).value);
  const serverSecret = Buffer.from((getMeta.get('server_secret') as { value: Buffer }).value);
  const fresh = newWorldIdentity(seed, opts.now ?? Date.now());
  putMeta.run('world_id', fresh.worldId);
  putMeta.run('world_started_at', String(fresh.startedAt));
  const identity: WorldIdentity = {
    worldId: String((getMeta.get('world_id') as { value: string }).value),
    startedAt: Number((getMeta.get('world_started_at') as { value: string }).value),
    seed,
  };

  const insert = db.prepare('INSERT INTO commands (t, kind, body) VALUES (?, ?, ?)');
  const insertMany = db.transaction((cmds: TimedCommand[]) => {
    for (const c of cmds) {
      const { t, ...body } = c;
      insert.run(t, c.k, JSON.stringify(body));
    }
  });
  let buffer: TimedCommand[] = [];
  let scheduled = false;
  let closed = false;
  let stored = (db.prepare('SELECT COUNT(*) AS n FROM commands').get() as { n: number }).n;

  const flush = (): void => {
    scheduled = false;
    if (buffer.length === 0 || closed) return;
    const batch = buffer;
    buffer = [];
    insertMany(batch);
    stored += batch.length;
  };

  return {
    seed,
    serverSecret,
    identity,
    append(cmd: TimedCommand): void {
      if (closed) throw new Error('journal is closed');
      buffer.push(cmd);
      if (buffer.length >= 5000) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    *commands(): IterableIterator<TimedCommand> {
      flush();
      for (const r of db.prepare('SELECT t, body FROM commands ORDER BY seq').iterate() as IterableIterator<{
        t: number;
        body: string;
      }>) {
        yield { ...(JSON.parse(r.body) as object), t: r.t } as TimedCommand;
      }
    },
    count: () => stored + buffer.length,
    flush,
    close(): void {
      if (closed) return;
      flush();
      closed = true;
      db.close();
    },
  };
}
