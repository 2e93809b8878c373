/**
 * The exchange side of the ws-fanout bench (run by ws-fanout.bench.ts in its own process): a paper
 * exchange with its streams on a bare loopback HTTP server, no world agents, and a flow driver that
 * places and cancels orders in-process on one market as fast as the event loop allows while the
 * sockets are written. Protocol on stdio: prints `{"url", "tokens"}`; on the line `go <ms>` it drives
 * for that long, then prints `{"done": true, "ops", "stats"}` and exits on stdin's end.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { LiveClock } from '../../src/core/clock.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../../src/exchange/exchange.ts';
import { FaultController } from '../../src/exchange/faults.ts';
import { seedWorld } from '../../src/exchange/world/index.ts';
import { attachStreams } from '../../src/exchange/ws/index.ts';
import { FlowDriver } from '../integration/support/flow-driver.ts';

const OPS_PER_TURN = Number(process.env.BENCH_OPS_PER_TURN ?? 10);

const ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock: new LiveClock() });
seedWorld(ex, 1);
const server = createServer((_req, res) => res.writeHead(404).end());
const faults = new FaultController(() => Date.now());
const streams = attachStreams(server, ex, faults, { maxPayload: 64 * 1024 });
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const market = ex.listMarkets().find((m) => m.meta.tick === '0.01' && !m.meta.negRisk)!;
const driver = new FlowDriver(ex, market.meta.tokens, { seed: 5, accounts: 6 });
for (let i = 0; i < 500; i++) driver.step(); // some depth before the subscribers arrive
process.stdout.write(
  JSON.stringify({
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws/market`,
    tokens: market.meta.tokens,
  }) + '\n',
);

const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const m = /^go (\d+)$/.exec(line.trim());
  if (!m) return;
  const end = Date.now() + Number(m[1]);
  const ops0 = driver.ops;
  const turn = () => {
    if (Date.now() >= end) {
      process.stdout.write(JSON.stringify({ done: true, ops: driver.ops - ops0, stats: streams.stats() }) + '\n');
      return;
    }
    for (let i = 0; i < OPS_PER_TURN; i++) driver.step();
    setImmediate(turn);
  };
  turn();
});
rl.on('close', async () => {
  await streams.close();
  server.close();
  process.exit(0);
});
