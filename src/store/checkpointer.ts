/**
 * The WAL checkpointer of a file store: a worker thread with its own connection that checkpoints
 * passively at an interval, so the writer never pays for a checkpoint on the order path.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const CHECKPOINTER = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.lib);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 1000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (e) { parentPort.postMessage({ error: String((e && e.message) || e) }); }
}, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  try { db.close(); } catch {}
  parentPort.close();
});
`;

/** A worker thread checkpointing the WAL of `file` periodically; undefined when it cannot start. */
export function startCheckpointer(file: string, intervalMs: number, onFail: () => void): Worker | undefined {
  try {
    const lib = createRequire(import.meta.url).resolve('better-sqlite3');
    const w = new Worker(CHECKPOINTER, { eval: true, workerData: { file, lib, intervalMs: Math.max(50, intervalMs) } });
    w.unref();
    let failed = false;
    const fail = (): void => {
      if (failed) return;
      failed = true;
      onFail();
    };
    w.on('error', fail);
    w.on('message', (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'error' in m) fail();
    });
    return w;
  } catch {
    return undefined;
  }
}
