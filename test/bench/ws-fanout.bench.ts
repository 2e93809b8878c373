/**
 * Market-channel fan-out over loopback: 50 raw `ws` subscribers follow both tokens of one market
 * while the exchange, in its own process (ws-fanout.exchange.ts: agents off, a bare HTTP server
 * with the streams attached), is driven by a fast in-process flow of placements, cancels and
 * crossing orders (`placeInternal`). Runs ~3 s.
 *
 * Figure: events delivered per second, summed over subscribers; an event is one event object
 * received by one subscriber (array frames count their elements). Printed as
 * `figure: ws_fanout_events_per_sec = <n> events/s`.
 *
 * Env: BENCH_MS (drive time, default 3000), BENCH_OPS_PER_TURN (exchange ops per event-loop turn,
 * default 10), BENCH_PROF=1 (CPU profile of the exchange process into /tmp/wsprof).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';

const SUBSCRIBERS = 50;
const DURATION_MS = Number(process.env.BENCH_MS ?? 3000);

const prof = process.env.BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/wsprof'] : [];
const child = spawn(process.execPath, [...prof, '--import', 'tsx', 'test/bench/ws-fanout.exchange.ts'], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const lines = createInterface({ input: child.stdout! });
const nextLine = async (): Promise<any> => JSON.parse(((await once(lines, 'line')) as [string])[0]);
const { url, tokens } = (await nextLine()) as { url: string; tokens: [string, string] };

let counting = false;
let events = 0;
let lastAt = 0;
let closedEarly = 0;
const sockets = await Promise.all(
  Array.from({ length: SUBSCRIBERS }, async () => {
    const ws = new WebSocket(url);
    await once(ws, 'open');
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (!counting || isBinary) return;
      // only snapshots on subscribe come as arrays; count their elements
      events += data[0] === 0x5b ? (JSON.parse(data.toString()) as unknown[]).length : 1;
      lastAt = performance.now();
    });
    ws.on('close', () => {
      if (counting) closedEarly++;
    });
    ws.send(JSON.stringify({ assets_ids: tokens, type: 'market' }));
    return ws;
  }),
);
await new Promise((r) => setTimeout(r, 300)); // snapshots in

counting = true;
const t0 = performance.now();
child.stdin!.write(`go ${DURATION_MS}\n`);
const done = (await nextLine()) as { ops: number; stats: { framesSent: number; slowTerminated: number } };
// let the frames in flight arrive: wait until 200 ms pass without one
for (;;) {
  const idle = performance.now() - lastAt;
  if (idle >= 200) break;
  await new Promise((r) => setTimeout(r, 200 - idle));
}
counting = false;
const seconds = (lastAt - t0) / 1000;
const rate = Math.round(events / seconds);
console.log(
  `# ${SUBSCRIBERS} subscribers, ${done.ops} exchange ops in ${(DURATION_MS / 1000).toFixed(1)} s (${Math.round(done.ops / (DURATION_MS / 1000))} ops/s), ` +
    `${events} events received over ${seconds.toFixed(2)} s, ${done.stats.framesSent} frames sent, ${done.stats.slowTerminated + closedEarly} sockets lost`,
);
console.log(`figure: ws_fanout_events_per_sec = ${rate} events/s`);
for (const s of sockets) s.terminate();
child.stdin!.end();
await once(child, 'exit');
