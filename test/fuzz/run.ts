/**
 * `npm run fuzz`: fuzzes every HTTP route's parsers and the WebSocket message handlers of the paper
 * exchange with fast-check (issue 16), in process (test/fuzz/harness.ts), and prints
 *   figure: fuzz_inputs = N inputs
 *   figure: fuzz_inputs_per_sec = X inputs/s
 *   figure: fuzz_failures = F failures
 * On a failure: the seed, the path and the shrunk counterexample, then exit 1. The run is
 * deterministic for a seed: `npm run fuzz -- --seed S` replays it.
 *
 * Options: --inputs N (default 1,000,000), --seed S (default: random, printed), --ws-share 0.3,
 * --loopback-share 0.02 (HTTP inputs over a real socket), --real-ws-share 0.01, --no-loopback,
 * --quiet (no progress lines), --keep-going (collect failures by kind instead of stopping at the
 * first and shrinking it).
 */
import fc from 'fast-check';
import { fuzzInputArb } from './generators.ts';
import { FuzzTarget, type FuzzInput, type FuzzStats } from './harness.ts';

export interface FuzzRunOptions {
  inputs: number;
  seed: number;
  wsShare?: number;
  loopbackShare?: number;
  realWsShare?: number;
  loopback?: boolean;
  /** Called every `progressEvery` inputs. */
  progress?: (done: number, perSec: number) => void;
  progressEvery?: number;
  /**
   * Keep going after a failure (no shrinking): failures are collected by kind, each with its first
   * input. For hunting several bugs in one run; the figures then count every failing input.
   */
  keepGoing?: boolean;
}

export interface FuzzRunResult {
  inputs: number;
  seconds: number;
  perSec: number;
  failures: number;
  seed: number;
  /** The failure, shrunk: its message, fast-check's path and the counterexample. */
  failure?: { message: string; path: string | undefined; counterexample: string };
  stats: FuzzStats;
  /** With keepGoing: failure kinds, their count and first input. */
  collected?: Map<string, { n: number; message: string; input: string }>;
}

/** One fuzz run (used by the runner and by test/security/fuzz.test.ts). */
export async function fuzzRun(o: FuzzRunOptions): Promise<FuzzRunResult> {
  const loopback = o.loopback ?? true;
  const target = await FuzzTarget.create({ seed: o.seed, loopback });
  const arb = fuzzInputArb(target.world, {
    loopback,
    ...(o.wsShare !== undefined ? { wsShare: o.wsShare } : {}),
    ...(o.loopbackShare !== undefined ? { loopbackShare: o.loopbackShare } : {}),
    ...(o.realWsShare !== undefined ? { realWsShare: o.realWsShare } : {}),
  });
  let generated = 0;
  let shrinking = false;
  const t0 = performance.now();
  let firstFailure: string | undefined;
  let failing = 0;
  const collected = new Map<string, { n: number; message: string; input: string }>();
  const prop = fc.asyncProperty(arb, async (input: FuzzInput) => {
    if (!shrinking) {
      generated++;
      if (o.progress && o.progressEvery && generated % o.progressEvery === 0)
        o.progress(generated, generated / ((performance.now() - t0) / 1000));
    }
    const f = await target.run(input);
    if (f !== undefined && o.keepGoing) {
      failing++;
      const kind = f
        .split('\n')[0]!
        .replace(/[0-9a-f]{8,}/g, '#')
        .slice(0, 90);
      const c = collected.get(kind);
      if (c) c.n++;
      else collected.set(kind, { n: 1, message: f, input: fc.stringify(input) });
      return;
    }
    if (f !== undefined) {
      if (!shrinking) {
        shrinking = true;
        firstFailure = f;
      }
      throw new Error(f);
    }
  });
  let details: fc.RunDetails<[FuzzInput]>;
  let seconds = 0;
  try {
    details = await fc.check(prop, {
      numRuns: o.inputs,
      seed: o.seed,
    });
  } finally {
    seconds = (performance.now() - t0) / 1000;
    await target.close();
  }
  const stats = target.stats;
  const result: FuzzRunResult = {
    inputs: generated,
    seconds,
    perSec: generated / seconds,
    failures: details.failed ? 1 : failing,
    seed: o.seed,
    stats,
    ...(o.keepGoing ? { collected } : {}),
  };
  if (details.failed) {
    const err = details.errorInstance;
    result.failure = {
      message: err instanceof Error ? err.message : String(err ?? firstFailure),
      path: details.counterexamplePath ?? undefined,
      counterexample: details.counterexample ? fc.stringify(details.counterexample[0]) : '(none)',
    };
    if (firstFailure !== undefined && result.failure.message !== firstFailure)
      result.failure.message += `\n  (first seen as: ${firstFailure})`;
  }
  return result;
}

/** The statistics as comment lines (routes reached, statuses, codes, WebSocket closes). */
export function describeStats(s: FuzzStats): string[] {
  const lines: string[] = [];
  const routes = Object.entries(s.routes);
  const reached = s.registered.filter((k) => (s.routes[k]?.ok ?? 0) > 0).length;
  lines.push(
    `# http: ${s.httpInject} in process, ${s.httpLoopback} over loopback (${s.loopbackRaw} of them as raw bytes); ` +
      `statuses ${JSON.stringify(s.status)}; ${s.registered.length} routes registered, ${s.registered.filter((k) => s.routes[k]).length} fuzzed, ${reached} answered 2xx at least once`,
  );
  lines.push(
    `# signed requests past authentication: ${s.pastAuth}; orders accepted: ${s.ordersAccepted}; trades: ${s.tradesAtEnd}`,
  );
  lines.push(
    `# ws: ${s.wsFake} inputs on fake sockets, ${s.wsReal} on real ones, ${s.wsFrames} frames, ${s.wsErrorFrames} error frames; closes ${JSON.stringify(s.wsClosed)}`,
  );
  lines.push(`# state checks: ${s.stateChecks}`);
  const top = routes
    .filter(([k]) => !k.startsWith('HEAD'))
    .sort((a, b) => b[1].n - a[1].n)
    .slice(0, 8)
    .map(([k, r]) => `${k} ${r.ok}/${r.n}`)
    .join(', ');
  lines.push(`# busiest routes (2xx/inputs): ${top}`);
  const codes = Object.entries(s.codes)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .map(([c, n]) => `${c} ${n}`)
    .join(', ');
  lines.push(`# refusal codes: ${codes}`);
  const never = s.registered.filter((k) => (s.routes[k]?.ok ?? 0) === 0);
  if (never.length > 0) lines.push(`# never 2xx: ${never.join(', ')}`);
  return lines;
}

function argValue(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  const eq = args.find((a) => a.startsWith(name + '='));
  return eq?.slice(name.length + 1);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const num = (name: string): number | undefined => {
    const v = argValue(args, name);
    if (v === undefined) return undefined;
    const n = Number(v.replace(/_/g, ''));
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name}: not a number: ${v}`);
    return n;
  };
  const inputs = num('--inputs') ?? 1_000_000;
  const seed = num('--seed') ?? Math.floor(Math.random() * 2 ** 31);
  const quiet = args.includes('--quiet');
  console.log(`# fuzz: ${inputs} inputs, seed ${seed} (replay: npm run fuzz -- --seed ${seed} --inputs ${inputs})`);
  const wsShare = num('--ws-share');
  const loopbackShare = num('--loopback-share');
  const realWsShare = num('--real-ws-share');
  const r = await fuzzRun({
    inputs,
    seed,
    loopback: !args.includes('--no-loopback'),
    keepGoing: args.includes('--keep-going'),
    ...(wsShare !== undefined ? { wsShare } : {}),
    ...(loopbackShare !== undefined ? { loopbackShare } : {}),
    ...(realWsShare !== undefined ? { realWsShare } : {}),
    progressEvery: quiet ? 0 : Math.max(1000, Math.round(inputs / 20)),
    progress: (n, rate) => console.error(`# ${n} inputs, ${Math.round(rate)} inputs/s`),
  });
  for (const l of describeStats(r.stats)) console.log(l);
  for (const [kind, c] of r.collected ?? []) {
    console.log(`# FAILURE x${c.n}: ${kind}`);
    console.log(`#   ${c.message.split('\n').join('\n#   ').slice(0, 1500)}`);
    console.log(`#   input: ${c.input.slice(0, 1500)}`);
  }
  if (r.failure) {
    console.log(`# FAILURE after ${r.inputs} inputs, seed ${r.seed}, path ${r.failure.path ?? '(none)'}`);
    console.log(`# ${r.failure.message.split('\n').join('\n# ')}`);
    console.log(`# counterexample (shrunk): ${r.failure.counterexample}`);
  }
  console.log(`figure: fuzz_inputs = ${r.inputs} inputs`);
  console.log(`figure: fuzz_inputs_per_sec = ${Math.round(r.perSec)} inputs/s`);
  console.log(`figure: fuzz_failures = ${r.failures} failures`);
  process.exit(r.failures > 0 ? 1 : 0);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
