/**
 * A sweep worker (see ./sweep.ts): runs the backtests it is sent, one at a time, and posts each
 * point's row back. Started by runSweep through a bootstrap that registers tsx first.
 */
import { parentPort } from 'node:worker_threads';
import { runPoint, type SweepMessage, type SweepTask } from './sweep.ts';

const port = parentPort;
if (port !== null) {
  port.on('message', (t: SweepTask) => {
    void runPoint(t).then((row) => port.postMessage({ kind: 'done', index: t.index, row } satisfies SweepMessage));
  });
  port.postMessage({ kind: 'ready' } satisfies SweepMessage);
}
