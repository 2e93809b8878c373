/**
 * CPU used by the default synthetic world. A plain script: `node --import tsx
 * test/bench/world-cpu.bench.ts` (or `npm run bench -- world`).
 *
 * Builds a paper exchange in-process on the wall clock (no HTTP: the figure is the world's own
 * cost plus the matching engine it drives), seeds the world, starts its housekeeping and the default
 * world (agents, lifecycle, price feed), lets it warm up for 3 s (BENCH_WARMUP_MS: the liquidity
 * providers lay their first ladders on every book), then runs it in real time for ~10 s (BENCH_MS)
 * and measures the process CPU time (user + system, `process.cpuUsage`) over that wall time.
 *
 * Prints `figure: world_cpu_percent_of_core = <x.y> %` and `figure: world_orders_per_sec = <n> orders/s`.
 */
import { LiveClock } from '../../src/core/clock.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../../src/exchange/exchange.ts';
import { seedWorld, startWorld } from '../../src/exchange/world/index.ts';

const RUN_MS = Number(process.env.BENCH_MS ?? 10_000);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 3_000);
const SEED = Number(process.env.BENCH_SEED ?? 1);

const ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock: new LiveClock() });
seedWorld(ex, SEED);
ex.start();
let trades = 0;
ex.subscribe((events) => {
  for (const e of events) if (e.type === 'trade') trades++;
});
// let start-up work (module loading, JIT of the first calls) settle before measuring
await new Promise((r) => setTimeout(r, 200));

const world = startWorld(ex, { seed: SEED, agents: 'default', lifecycle: true, priceFeed: true });
await new Promise((r) => setTimeout(r, WARMUP_MS));
const s0 = world.stats();
const trades0 = trades;
const cpu0 = process.cpuUsage();
const wall0 = performance.now();
await new Promise((r) => setTimeout(r, RUN_MS));
const cpu = process.cpuUsage(cpu0);
const wallMs = performance.now() - wall0;
const s1 = world.stats();
world.stop();
const s = {
  orders: s1.orders - s0.orders,
  cancels: s1.cancels - s0.cancels,
  pricesPublished: s1.pricesPublished - s0.pricesPublished,
  refused:
    Object.values(s1.rejected).reduce((a, b) => a + b, 0) - Object.values(s0.rejected).reduce((a, b) => a + b, 0),
};
trades -= trades0;
ex.stop();

const cpuMs = (cpu.user + cpu.system) / 1000;
const sec = wallMs / 1000;
const active = ex.listMarkets().filter((m) => m.state.status === 'active').length;
console.log(
  `# ${active} active markets, ${(wallMs / 1000).toFixed(1)} s: ${s.orders} orders, ${s.cancels} cancels, ${trades} trades, ${s.pricesPublished} price ticks, ${s.refused} refused`,
);
console.log(`figure: world_cpu_percent_of_core = ${((100 * cpuMs) / wallMs).toFixed(1)} %`);
console.log(`figure: world_orders_per_sec = ${Math.round(s.orders / sec)} orders/s`);
