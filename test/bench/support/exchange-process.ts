/**
 * The paper exchange in a child process of its own (`mmkit exchange`, bin/mmkit.js), as in
 * production, for the saturating benches (budget-saturation, fleet): on a free port, its URLs as
 * JSON on its first line, no agents, no market lifecycle; the bench adds its own flags.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/** Starts `mmkit exchange` with `flags` after the common ones (its stderr is the bench's). */
export function spawnExchange(flags: readonly string[]): ChildProcess {
  return spawn(
    process.execPath,
    ['bin/mmkit.js', 'exchange', '--port', '0', '--json', '--agents', 'none', '--no-lifecycle', ...flags],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
}

/** The URLs the exchange prints on its first line, once it is up. */
export async function exchangeUrls(p: ChildProcess): Promise<{ clob_url: string }> {
  const [line] = (await once(createInterface({ input: p.stdout! }), 'line')) as [string];
  return JSON.parse(line) as { clob_url: string };
}

/** Ends the exchange (SIGTERM) unless it already exited, and waits for its exit. */
export async function stopExchange(p: ChildProcess): Promise<void> {
  if (p.exitCode === null) {
    p.kill('SIGTERM');
    await once(p, 'exit');
  }
}
