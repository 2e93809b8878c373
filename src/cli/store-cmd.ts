/**
 * `mmkit store archive`: moves the finished orders and the audit rows older than a cut-off out of
 * the daemon's store into an archive file (src/store/archive.ts), so that a store left for weeks
 * stays of bounded size. Fills, the ledger and open orders always stay. It holds the data dir's
 * daemon lock while it works: it refuses to run beside a daemon, and no daemon starts meanwhile.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Command, InvalidArgumentError } from 'commander';
import { action, addCommonOptions, configFrom, note, printJson, type CommonOptions } from './common.ts';
import { parseDuration } from './config.ts';
import { storeFileOf } from './data-dir-venue.ts';
import { CliError, EXIT_CODES_HELP, ExitCode, usageError } from './exit-codes.ts';

const DAY_MS = 86_400_000;

/** `30d`, `12h`, `90m`... as ms (days allowed beside parseDuration's units); at least a day. */
export function parseAge(v: string): number {
  const d = /^(\d+(?:\.\d+)?)d$/.exec(v.trim());
  const ms = d !== null ? Math.round(Number(d[1]) * DAY_MS) : parseDuration(v);
  if (ms === undefined) throw new InvalidArgumentError(`expected an age such as 30d or 36h, got ${JSON.stringify(v)}`);
  if (ms < DAY_MS) throw new InvalidArgumentError('at least 1d: younger orders may still get fill updates');
  return ms;
}

interface ArchiveCliOptions extends CommonOptions {
  olderThan: number;
  storeFile?: string;
  archiveFile?: string;
  dryRun?: boolean;
  vacuum?: boolean;
}

const mb = (b: number) => `${(b / 1_048_576).toFixed(1)} MB`;

export function register(program: Command): void {
  const store = program.command('store').description("housekeeping of the daemon's SQLite store");
  store.addHelpText(
    'after',
    `
Examples:
  mmkit store archive --older-than 30d --dry-run
  mmkit store archive --older-than 30d
${EXIT_CODES_HELP}`,
  );
  const archive = store
    .command('archive')
    .description('move finished orders and audit rows older than --older-than into an archive file')
    .requiredOption('--older-than <age>', 'the cut-off age: 30d, 36h (at least 1d)', parseAge)
    .option('--store-file <file>', 'the SQLite store (default <dataDir>/mmkit.db) [bot.storeFile]')
    .option(
      '--archive-file <file>',
      'where the rows go (default <dataDir>/archive/mmkit-before-<date>.db; a later run adds to an existing file)',
    )
    .option('--dry-run', 'count what would move; change nothing')
    .option('--vacuum', 'rewrite the store afterwards so its file shrinks (needs free disk as large as the store)');
  addCommonOptions(archive);
  archive.addHelpText(
    'after',
    `
What moves: orders that are filled, cancelled or rejected and were last updated before the cut-off,
and the audit log's rows written before it. What stays, whatever its age: open orders, every fill,
the ledger (epochs, sessions, adjustments, operations) and the rewards, so positions, PnL, the
restart reconciliation and \`mmkit positions --source store\` are unchanged. The rows are copied
into the archive (a SQLite file, mode 0600) and committed there before they are deleted from the
store: a run that dies half way loses nothing, and running it again finishes the move. The freed
space is reused by the store's later writes; --vacuum gives it back to the file system now.

The daemon must be stopped (\`mmkit kill\`): the command takes the data dir's daemon lock.

Examples:
  mmkit store archive --older-than 30d --dry-run
  mmkit store archive --older-than 30d
  mmkit store archive --older-than 7d --vacuum --json
${EXIT_CODES_HELP}`,
  );
  archive.action(
    action(async (o: ArchiveCliOptions) => {
      const cfg = configFrom(o, { 'bot.storeFile': o.storeFile });
      const file = storeFileOf(cfg);
      if (!existsSync(file))
        throw usageError(`no store at ${file} (the daemon creates it; --data-dir or --store-file point elsewhere)`);
      const before = Date.now() - o.olderThan;
      const date = new Date(before).toISOString().slice(0, 10);
      const archiveFile = o.archiveFile ?? join(cfg.bot.dataDir, 'archive', `mmkit-before-${date}.db`);
      const { acquireDaemonLock, DaemonLockedError } = await import('../ops/daemon-lock.ts');
      let lock: Awaited<ReturnType<typeof acquireDaemonLock>> | undefined;
      if (o.dryRun !== true) {
        try {
          lock = await acquireDaemonLock(cfg.bot.dataDir);
        } catch (e) {
          if (e instanceof DaemonLockedError)
            throw new CliError(
              `${e.message.replace(/ One daemon per data dir:.*$/, '')}: stop it before archiving (\`mmkit kill --data-dir ${cfg.bot.dataDir}\`)`,
              ExitCode.FAILURE,
              'DAEMON_RUNNING',
            );
          throw e;
        }
      }
      try {
        if (o.dryRun !== true) mkdirSync(dirname(archiveFile), { recursive: true, mode: 0o700 });
        const { archiveStore } = await import('../store/archive.ts');
        const r = archiveStore(file, {
          before,
          archiveFile,
          ...(o.dryRun === true ? { dryRun: true } : {}),
          ...(o.vacuum === true ? { vacuum: true } : {}),
        });
        const moved = r.orders > 0 || r.audit > 0;
        if (o.json) {
          printJson({
            dryRun: o.dryRun === true,
            store: file,
            archive: o.dryRun === true || !moved ? null : archiveFile,
            before: new Date(before).toISOString(),
            orders: r.orders,
            audit: r.audit,
            openOrdersKept: r.openKept,
            storeBytesBefore: r.bytesBefore,
            storeBytesAfter: r.bytesAfter,
            freeBytes: r.freeBytes,
          });
          return;
        }
        const what = `${r.orders} finished order(s) and ${r.audit} audit row(s) older than ${new Date(before).toISOString()}`;
        if (o.dryRun === true) process.stdout.write(`would move ${what} (dry run: nothing changed)\n`);
        else if (!moved)
          process.stdout.write(
            `nothing to archive: no finished order or audit row older than ${new Date(before).toISOString()}\n`,
          );
        else {
          process.stdout.write(`moved ${what} to ${archiveFile}\n`);
          process.stdout.write(
            `store ${file}: ${mb(r.bytesBefore)} before, ${mb(r.bytesAfter)} now` +
              (o.vacuum === true ? '\n' : `, ${mb(r.freeBytes)} free inside it (reused; --vacuum returns it)\n`),
          );
        }
        if (r.openKept > 0) note(`${r.openKept} older order(s) not finished (open or unresolved) were kept`);
      } finally {
        lock?.release();
      }
    }),
  );
}
