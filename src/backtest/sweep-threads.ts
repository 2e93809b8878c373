/**
 * A pool of sweep worker threads (./sweep.ts `startSweepThread`) for the workers of distributed
 * sweeps (./sweep-queue-worker.ts): `run(task)` runs one point in a thread of its own, so that the
 * process's event loop stays free (BullMQ renews the point's lock from it: a busy loop would let
 * the lock lapse and the point be taken for stalled). Threads are started on demand, kept while
 * idle, and replaced when one dies; a point whose thread dies gets a failed row, as in a local sweep.
 */
import type { Worker } from 'node:worker_threads';
import { failedRow, startSweepThread, type SweepMessage, type SweepRow, type SweepTask } from './sweep.ts';

interface Thread {
  readonly w: Worker;
  readonly ready: Promise<void>;
  settle?: (row: SweepRow) => void;
}

export class SweepThreads {
  readonly #idle: Thread[] = [];
  readonly #all = new Set<Thread>();
  #closed = false;

  #start(): Thread {
    const w = startSweepThread();
    let onReady!: () => void;
    const t: Thread = { w, ready: new Promise<void>((r) => (onReady = r)) };
    const die = (why: string): void => {
      if (!this.#all.delete(t)) return;
      const i = this.#idle.indexOf(t);
      if (i >= 0) this.#idle.splice(i, 1);
      onReady();
      const s = t.settle;
      t.settle = undefined;
      s?.(failedRow(-1, {}, why));
      void w.terminate();
    };
    w.on('message', (m: SweepMessage) => {
      if (m.kind === 'ready') onReady();
      else {
        const s = t.settle;
        t.settle = undefined;
        this.#idle.push(t);
        s?.(m.row);
      }
    });
    w.on('error', (e) => die(`worker failed: ${e.message}`));
    w.on('exit', (code) => die(`worker exited with code ${code}`));
    this.#all.add(t);
    return t;
  }

  /** Runs a point in a thread; resolves with its row (a failed row when the thread died). */
  async run(task: SweepTask): Promise<SweepRow> {
    if (this.#closed) return failedRow(task.index, task.point, 'the worker is closing');
    const t = this.#idle.pop() ?? this.#start();
    await t.ready;
    const row = await new Promise<SweepRow>((resolve) => {
      if (!this.#all.has(t)) return resolve(failedRow(-1, {}, 'worker thread died at start'));
      t.settle = resolve;
      t.w.postMessage(task);
    });
    return row.index === -1 ? failedRow(task.index, task.point, row.error ?? 'worker failed') : row;
  }

  /** Ends every thread (a point still running gets a failed row). */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.all([...this.#all].map((t) => t.w.terminate()));
  }
}
