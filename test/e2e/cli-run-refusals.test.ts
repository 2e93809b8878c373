/**
 * A strategy whose every quote the risk gate refuses, and that throws now and then, as its author
 * sees it from a second terminal and at exit (user trial 4, F22 and F9): `mmkit run` with a plugin
 * from a scratch directory (in-process paper exchange) that quotes off the tick and throws at every
 * 4th book event.
 *  - /metrics counts the refusals by code (`mmkit_risk_refusals_total{code="OFF_TICK"}`) and the
 *    strategy's errors (`mmkit_strategy_errors_total`);
 *  - `mmkit status` says what was refused in the last 5 minutes, by code, and the strategy's errors
 *    with the first one; `--json` carries them (`gate`, `strategyErrors`);
 *  - the exit summary (text on stdout, the JSON `summary` line) carries the strategy's error count,
 *    its first error and the refusals by code.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { logLines, waitUntil } from './support/bot-harness.ts';
import { ROOT, runMmkit } from './support/cli.ts';

mkdirSync(join(ROOT, '.tmp'), { recursive: true });
// inside the project, so the plugin imports 'mmkit/strategy' as a user's plugin does
const scratch = mkdtempSync(join(ROOT, '.tmp', 'refusals-e2e-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const PLUGIN = `import { defineStrategy, type MmkitEvent, type StrategyState } from 'mmkit/strategy';

let books = 0;
export default defineStrategy({
  name: 'offtick',
  description: 'bids 0.5003 (off the 0.01 and 0.001 ticks) on each book it sees; throws at every 4th book event',
  params: {},
  create: (ctx) => ({
    onEvent: (e: MmkitEvent, state: StrategyState) => {
      if (e.type !== 'book_snapshot' && e.type !== 'level_change') return undefined;
      // 0.5003 is on a 0.0001 tick: such a market (the world has some) is left alone
      if (ctx.markets.get(e.market)?.tick === '0.0001') return undefined;
      if (++books % 4 === 0) throw new Error('boom in onEvent');
      const quotes = [{ tokenId: e.tokenId, side: 'BUY' as const, price: 5003, size: 5_000_000 }];
      return { quotes: [{ market: e.market, quotes, at: state.now }] };
    },
  }),
});
`;

/** A metric's value in the exposition text (the sample with exactly these labels), or undefined. */
function metric(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('mmkit run with a strategy the gate refuses', () => {
  it('counts the refusals by code and the strategy errors on /metrics, in `mmkit status` and the exit summary', async () => {
    const file = join(scratch, 'offtick.ts');
    writeFileSync(file, PLUGIN);
    const data = join(scratch, 'data');
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (!k.startsWith('MMKIT_') && !k.startsWith('VITEST') && v !== undefined) env[k] = v;
    const p = spawn(
      process.execPath,
      [
        join(ROOT, 'bin/mmkit.js'),
        'run',
        '--strategy',
        file,
        '--duration',
        '120s',
        '--data-dir',
        data,
        '--http-port',
        '0',
        '--log-format',
        'json',
      ],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    const closed = once(p, 'close');
    try {
      const daemonFile = join(data, 'daemon.json');
      expect(await waitUntil(() => existsSync(daemonFile), 60_000), err.slice(-3000)).toBe(true);
      const url = (JSON.parse(readFileSync(daemonFile, 'utf8')) as { statusUrl: string }).statusUrl;

      // /metrics: the refusals by code and the strategy's errors
      let text = '';
      const seen = async (): Promise<boolean> => {
        text = await (await fetch(`${url}/metrics`)).text();
        return (
          (metric(text, 'mmkit_risk_refusals_total', '{code="OFF_TICK"}') ?? 0) >= 3 &&
          (metric(text, 'mmkit_strategy_errors_total') ?? 0) >= 1
        );
      };
      const end = Date.now() + 60_000;
      while (!(await seen()) && Date.now() < end) await new Promise((r) => setTimeout(r, 500));
      expect(metric(text, 'mmkit_risk_refusals_total', '{code="OFF_TICK"}'), text).toBeGreaterThanOrEqual(3);
      expect(metric(text, 'mmkit_strategy_errors_total'), text).toBeGreaterThanOrEqual(1);
      expect(text).toContain('# TYPE mmkit_risk_trims_total counter');

      // `mmkit status` (its sample is taken once a second: wait for one with the refusals)
      await new Promise((r) => setTimeout(r, 1500));
      const st = await runMmkit(['status', '--data-dir', data], { timeoutMs: 30_000 });
      expect(st.out, st.err).toMatch(/refused {5}\(last 5 min\) OFF_TICK x\d+ {3}\(since start OFF_TICK x\d+\)/);
      expect(st.out).toMatch(
        /strategy {4}errors \d+ \(last 5 min \d+\); first: boom in onEvent at .*offtick\.ts:\d+:\d+/,
      );
      const js = await runMmkit(['status', '--data-dir', data, '--json'], { timeoutMs: 30_000 });
      const s = JSON.parse(js.out) as {
        gate: { windowSec: number; refused: Record<string, number>; refusedRecent: Record<string, number> };
        strategyErrors: { count: number; recent: number; first: { message: string; at: string | null } | null };
      };
      expect(s.gate.windowSec).toBe(300);
      expect(s.gate.refused['OFF_TICK']).toBeGreaterThanOrEqual(3);
      expect(s.gate.refusedRecent['OFF_TICK']).toBeGreaterThanOrEqual(3);
      expect(s.strategyErrors.count).toBeGreaterThanOrEqual(1);
      expect(s.strategyErrors.first?.message).toBe('boom in onEvent');
    } finally {
      p.kill('SIGTERM');
      await closed;
    }

    // the exit summary: text and the JSON line. A strategy that erred now and then is no failure in
    // itself; this one also placed no order (the gate refused all it asked): exit 1, said so (trial 10 F14)
    expect(p.exitCode, err.slice(-3000)).toBe(1);
    expect(out).toMatch(/\nFAILED: the strategy threw \d+ time\(s\) and placed no order, first: boom in onEvent at /);
    expect(out, err.slice(-3000)).toMatch(/ {2}risk refusals {5}OFF_TICK x\d+/);
    // the epoch's venue as /api/status shows it: no `#chain` (review-2 F9)
    expect(out).toMatch(/\nledger epoch \d+ \(inprocess:http:\/\/127\.0\.0\.1:\d+(\/clob)?[,)]/);
    expect(out).toMatch(/ {2}strategy errors {3}\d+ \(first: boom in onEvent at .*offtick\.ts:\d+:\d+\)/);
    const summary = logLines(err).find((l) => l.msg === 'summary');
    expect(summary, err.slice(-3000)).toBeDefined();
    expect(summary!['strategyErrors']).toBeGreaterThanOrEqual(1);
    expect(summary!['firstStrategyError']).toMatchObject({ message: 'boom in onEvent' });
    expect((summary!['riskRefusals'] as Record<string, number>)['OFF_TICK']).toBeGreaterThanOrEqual(3);
    expect(summary!['riskTrims']).toEqual({});
    expect(summary!['strategyEvaluations']).toBeGreaterThan(summary!['strategyErrors'] as number);
    expect((summary!['epoch'] as { venue: string }).venue).toMatch(/^inprocess:http:\/\/127\.0\.0\.1:\d+(\/clob)?$/);
  }, 240_000);

  it('exits 1 after its orderly shutdown when the strategy erred on every evaluation, and says why (findings-4 F9)', async () => {
    const file = join(scratch, 'always-throws.ts');
    writeFileSync(
      file,
      `import { defineStrategy } from 'mmkit/strategy';
export default defineStrategy({
  name: 'always-throws',
  description: 'throws on every event',
  params: {},
  create: () => ({
    onEvent: () => {
      throw new Error('boom on every event');
    },
  }),
});
`,
    );
    const data = join(scratch, 'data-throws');
    const r = await runMmkit(
      ['run', '--strategy', file, '--duration', '8s', '--data-dir', data, '--http-port', '0', '--log-format', 'json'],
      { timeoutMs: 180_000 },
    );
    expect(r.code, r.err.slice(-3000)).toBe(1);
    expect(r.out).toMatch(/ {2}open orders left {2}0\n/);
    expect(r.out).toMatch(
      /\nFAILED: the strategy errored on every evaluation \((\d+)\), first: boom on every event at .*always-throws\.ts:\d+:\d+\n$/,
    );
    const summary = logLines(r.err).find((l) => l.msg === 'summary');
    expect(summary, r.err.slice(-3000)).toBeDefined();
    expect(summary!['strategyErrors']).toBeGreaterThan(0);
    expect(summary!['strategyEvaluations']).toBe(summary!['strategyErrors']);
  }, 240_000);

  it('exits 1 when the strategy threw on the events it acted on and placed no order (trial 10 F14)', async () => {
    const file = join(scratch, 'throws-on-ticks.ts');
    writeFileSync(
      file,
      `import { defineStrategy } from 'mmkit/strategy';
export default defineStrategy({
  name: 'throws-on-ticks',
  description: 'ignores market events, throws on every tick',
  params: {},
  create: () => ({
    onEvent: (e) => {
      if (e.type === 'timer') throw new Error('boom on a tick');
      return undefined;
    },
  }),
});
`,
    );
    const data = join(scratch, 'data-throws-ticks');
    const r = await runMmkit(
      ['run', '--strategy', file, '--duration', '8s', '--data-dir', data, '--http-port', '0', '--log-format', 'json'],
      { timeoutMs: 180_000 },
    );
    expect(r.code, r.err.slice(-3000)).toBe(1);
    expect(r.out).toMatch(/ {2}orders placed {5}0\n/);
    expect(r.out).toMatch(
      /\nFAILED: the strategy threw (\d+) time\(s\) and placed no order, first: boom on a tick at .*throws-on-ticks\.ts:\d+:\d+\n$/,
    );
    const summary = logLines(r.err).find((l) => l.msg === 'summary');
    expect(summary!['strategyEvaluations']).toBeGreaterThan(summary!['strategyErrors'] as number);
  }, 240_000);
});
