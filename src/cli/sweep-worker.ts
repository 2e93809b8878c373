/**
 * `mmkit sweep-worker`: runs the points of distributed sweeps (`mmkit sweep --redis URL`) on this
 * machine until SIGINT or SIGTERM (src/backtest/sweep-queue-worker.ts).
 *
 *   mmkit sweep-worker --redis URL [--concurrency N] [--feed-cache DIR | --no-feed-cache] [--lock-ms N]
 *
 * The first SIGINT/SIGTERM stops taking points and waits for the running ones; a second one exits
 * at once (the points it held go back on the queue when their lock lapses).
 */
import { availableParallelism } from 'node:os';
import type { Command } from 'commander';
import { intIn } from './backtest.ts';
import { ExitCode, reportError } from './exit-codes.ts';

/** Options of `mmkit sweep-worker` as commander hands them over. */
export interface SweepWorkerCliOptions {
  redis: string;
  concurrency?: number;
  /** --feed-cache DIR, or false for --no-feed-cache. */
  feedCache?: string | false;
  lockMs?: number;
}

/** Runs `mmkit sweep-worker` until a stop signal; resolves with the exit code. */
export async function sweepWorkerCommand(o: SweepWorkerCliOptions): Promise<number> {
  const { checkRedisUrl, redactRedisUrl } = await import('../fleet/redis.ts');
  const url = checkRedisUrl(o.redis);
  const { defaultFeedCacheDir } = await import('../backtest/feed-cache.ts');
  const { startSweepWorker } = await import('../backtest/sweep-queue-worker.ts');
  const feedCache = o.feedCache === false ? undefined : (o.feedCache ?? defaultFeedCacheDir());
  const concurrency = o.concurrency ?? Math.max(1, availableParallelism() - 1);
  const say = (line: string): void => void process.stderr.write(`mmkit sweep-worker: ${line}\n`);
  const w = await startSweepWorker({
    redisUrl: url,
    concurrency,
    ...(feedCache !== undefined ? { feedCache } : {}),
    ...(o.lockMs !== undefined ? { lockMs: o.lockMs } : {}),
    log: say,
  });
  say(`taking points from ${w.queue} at ${redactRedisUrl(url)}, ${concurrency} at a time`);
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  say(`${signal}: finishing the running points (again to exit at once)`);
  const again = (): never => process.exit(130);
  process.once('SIGINT', again);
  process.once('SIGTERM', again);
  await w.close();
  say('stopped');
  return ExitCode.OK;
}

/** Registers `mmkit sweep-worker` on the program. */
export function register(program: Command): void {
  const cmd = program
    .command('sweep-worker')
    .description('run the points of distributed sweeps (mmkit sweep --redis URL) on this machine');
  cmd.addHelpText(
    'after',
    `
Examples:
  mmkit sweep-worker --redis redis://sweeps.internal:6379 --concurrency 4

Takes points only of sweeps started with the same code and Node.js; feeds (and a strategy given by
path) must be at the same absolute path as on the coordinator, with the same bytes (checked).
Exit codes: 0 stopped by a signal, 2 usage or configuration error, 3 Redis unreachable at start,
130 a second signal.
`,
  );
  cmd
    .requiredOption('--redis <url>', 'the Redis of the sweep queue (redis:// or rediss://)')
    .option('--concurrency <n>', 'points run at once, in threads (default: cores - 1)', intIn('--concurrency', 1, 256))
    .option('--feed-cache <dir>', "this machine's decoded-feed cache folder (default: the user's cache folder)")
    .option('--no-feed-cache', 'decode the feed text for every point, write no cache')
    .option(
      '--lock-ms <n>',
      "a point's lock, ms: a dead worker's points run elsewhere within about twice this (default 10000)",
      intIn('--lock-ms', 1_000, 600_000),
    )
    .action(async (o: SweepWorkerCliOptions) => {
      let code: number;
      try {
        code = await sweepWorkerCommand(o);
      } catch (err) {
        code = reportError(err, { json: false });
      }
      process.exit(code);
    });
}
