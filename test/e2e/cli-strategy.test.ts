/**
 * `mmkit strategy new` and `mmkit strategy check` as a user runs them: the scaffolded plugin and
 * its test typecheck under the project's strict compiler options and the test passes; `check` runs
 * the shipped `bands` plugin briefly through the real daemon on an in-process paper exchange and
 * reports what it quoted; bad params and a plugin that quotes nothing fail with their exit codes.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/mmkit.js');

/** Scratch space inside the project (so node_modules resolve), outside tsconfig's and vitest's includes. */
mkdirSync(join(ROOT, '.tmp'), { recursive: true });
const scratch = mkdtempSync(join(ROOT, '.tmp', 'strategy-e2e-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  try {
    rmdirSync(join(ROOT, '.tmp')); // only when empty: another run may be using it
  } catch {
    /* not empty */
  }
});

function run(
  cmd: string,
  args: string[],
  o: { cwd?: string; timeoutMs?: number } = {},
): Promise<{ code: number | null; out: string; err: string }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('MMKIT_') && !k.startsWith('VITEST') && v !== undefined) env[k] = v;
  const p = spawn(cmd, args, { cwd: o.cwd ?? ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (err += d));
  return new Promise((res, rej) => {
    const t = setTimeout(() => {
      p.kill('SIGKILL');
      rej(new Error(`${cmd} ${args.join(' ')} timed out\n${out}\n${err}`));
    }, o.timeoutMs ?? 90_000);
    // 'close', not 'exit': the exit can come before the last output has been read
    p.on('close', (code) => {
      clearTimeout(t);
      res({ code, out, err });
    });
  });
}
const mmkit = (args: string[], o: { cwd?: string; timeoutMs?: number } = {}) =>
  run(process.execPath, [BIN, ...args], o);
const npx = (args: string[], cwd: string) =>
  run(join(ROOT, 'node_modules/.bin', args[0]!), args.slice(1), { cwd, timeoutMs: 120_000 });

/** Writes a plugin's `source` to `scratch/<sub>/<name>` (the folder created); returns the file's path. */
function writePlugin(sub: string, name: string, source: string): string {
  const dir = join(scratch, sub);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, source);
  return file;
}

describe('mmkit strategy new', () => {
  it('scaffolds a plugin and its test that typecheck, and the test passes', async () => {
    const dir = join(scratch, 'new');
    const r = await mmkit(['strategy', 'new', 'foo', '--dir', dir, '--json']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ name: 'foo', plugin: join(dir, 'foo.ts'), test: join(dir, 'foo.test.ts') });
    const plugin = readFileSync(join(dir, 'foo.ts'), 'utf8');
    expect(plugin).toContain("name: 'foo'");
    // inside the project: the plugin API by its package name (self-reference), nothing else
    expect(plugin).toContain("from 'mmkit/strategy'");
    expect(plugin).not.toMatch(/from '\.{1,2}\//);
    const test = readFileSync(join(dir, 'foo.test.ts'), 'utf8');
    expect(test.match(/from '[^']+'/g)).toEqual(["from 'vitest'", "from 'mmkit/strategy'", "from './foo.ts'"]);

    // the project's strict compiler options, on just these two files
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: '../../../tsconfig.json', include: ['*.ts'] }));
    const tsc = await npx(['tsc', '-p', join(dir, 'tsconfig.json'), '--noEmit'], dir);
    expect(tsc.code, tsc.out + tsc.err).toBe(0);

    writeFileSync(join(dir, 'vitest.config.ts'), "export default { test: { include: ['*.test.ts'] } };\n");
    const vt = await npx(['vitest', 'run', '--root', dir, '--config', join(dir, 'vitest.config.ts')], dir);
    expect(vt.code, vt.out + vt.err).toBe(0);
    expect(vt.out + vt.err).toMatch(/3 passed/);

    // it loads as a plugin: the loader accepts it by path
    const again = await mmkit(['strategy', 'new', 'foo', '--dir', dir]);
    expect(again.code).toBe(2);
    expect(again.err).toContain('--force');
  }, 180_000);

  it('prints a test command that runs, for a folder outside strategies/ (trial 10 F10)', async () => {
    // a folder of the user's, outside the checkout (inside it, the checkout's vitest config would apply)
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-new-elsewhere-'));
    try {
      const r = await mmkit(['strategy', 'new', 'qq', '--dir', dir]);
      expect(r.code, r.err).toBe(0);
      const cmd = r.out.split('\n')[3]!.trim(); // wrote, wrote, next:, the test command
      expect(cmd).toBe(`cd ${ROOT.replace(/\/$/, '')} && npx vitest run --root ${dir} qq.test.ts`);
      const vt = await run('sh', ['-c', cmd], { cwd: tmpdir(), timeoutMs: 120_000 });
      expect(vt.code, vt.out + vt.err).toBe(0);
      expect(vt.out + vt.err).toMatch(/3 passed/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 180_000);

  it('writes into ./strategies when the working directory has one, else into .', async () => {
    const proj = join(scratch, 'proj');
    mkdirSync(join(proj, 'strategies'), { recursive: true });
    expect((await mmkit(['strategy', 'new', 'bar'], { cwd: proj })).code).toBe(0);
    expect(existsSync(join(proj, 'strategies', 'bar.ts'))).toBe(true);
    expect(existsSync(join(proj, 'strategies', 'bar.test.ts'))).toBe(true);
    const flat = join(scratch, 'flat');
    mkdirSync(flat, { recursive: true });
    expect((await mmkit(['strategy', 'new', 'baz'], { cwd: flat })).code).toBe(0);
    expect(readFileSync(join(flat, 'baz.ts'), 'utf8')).toContain("from 'mmkit/strategy'");
  });

  it('outside the project (mmkit not resolvable): imports the plugin API by its relative path', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mmkit-strategy-e2e-'));
    try {
      expect((await mmkit(['strategy', 'new', 'qux', '--dir', out])).code).toBe(0);
      const rel = relative(out, join(ROOT, 'src/strategy/index.ts')).split(sep).join('/');
      expect(readFileSync(join(out, 'qux.ts'), 'utf8')).toContain(`from '${rel}'`);
      expect(readFileSync(join(out, 'qux.test.ts'), 'utf8')).toContain(`from '${rel}'`);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('refuses a name that is not a file name', async () => {
    const r = await mmkit(['strategy', 'new', '../evil', '--dir', scratch]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('strategy name');
  });
});

describe('mmkit strategy check', () => {
  it('runs strategies/bands.ts briefly on paper and reports its quotes', async () => {
    const r = await mmkit(['strategy', 'check', 'strategies/bands.ts', '--duration', '6s', '--json'], {
      timeoutMs: 120_000,
    });
    expect(r.code, r.err.slice(-2000)).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({ strategy: 'bands', ok: true });
    expect(j.params).toMatchObject({ tokens: 'both', bands: 3 });
    expect(j.summary.ordersPlaced).toBeGreaterThan(0);
    expect(j.summary.openOrdersAtExit).toBe(0);
    expect(j.markets.length).toBe(2);
    expect(j.markets.some((m: any) => m.bids > 0)).toBe(true);
    // each token's quotes in its own prices, named by outcome; the market's in YES prices (the
    // counts of both views agree: a NO bid is a YES ask)
    for (const m of j.markets) {
      expect(m.prices, m.market).toBe('yes');
      for (const t of m.tokens) expect(['Yes', 'No']).toContain(t.outcome);
      const n = (f: 'bids' | 'asks') => m.tokens.reduce((a: number, t: any) => a + t[f], 0);
      expect(m.bids + m.asks, m.market).toBe(n('bids') + n('asks'));
    }
    expect(j.orders.length).toBeGreaterThan(0);
    for (const o of j.orders) {
      expect(o.side).toMatch(/^(BUY|SELL)$/);
      expect(o.price).toMatch(/^0\.\d+$/);
      expect(o.size).toMatch(/^\d+(\.\d+)?$/);
    }
  }, 120_000);

  it('runs the rewards strategy: it picks rewarded markets itself and quotes both of their sides', async () => {
    const r = await mmkit(['strategy', 'check', 'rewards', '--duration', '8s', '--json'], { timeoutMs: 120_000 });
    expect(r.code, r.err.slice(-2000)).toBe(0);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({ strategy: 'rewards', ok: true });
    expect(j.markets.length).toBe(2);
    for (const m of j.markets) {
      // a YES bid and a NO bid (a YES ask) from collateral: two tokens quoted
      const tokens = new Set(j.orders.filter((o: any) => o.market === m.market).map((o: any) => o.tokenId));
      expect(tokens.size, m.market).toBe(2);
    }
  }, 120_000);

  it('names a bad parameter with exit 2, before running anything', async () => {
    const r = await mmkit(['strategy', 'check', 'strategies/bands.ts', '--param', 'bands=99']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('bot.params.bands');
    const u = await mmkit(['strategy', 'check', 'strategies/bands.ts', '--param', 'nope=1']);
    expect(u.code).toBe(2);
    expect(u.err).toContain('bot.params.nope');
  }, 120_000);

  it('fails (exit 1) for a plugin that quotes nothing', async () => {
    const file = writePlugin(
      'idle',
      'idle.ts',
      "import { defineStrategy } from 'mmkit/strategy';\nexport default defineStrategy({ name: 'idle', description: 'quotes nothing', params: {}, create: () => ({ onEvent: () => undefined }) });\n",
    );
    const r = await mmkit(['strategy', 'check', file, '--duration', '3s'], { timeoutMs: 120_000 });
    expect(r.code, r.err.slice(-2000)).toBe(1);
    expect(r.out).toContain('placed no order');
    expect(r.err).toContain('mmkit: idle: no params');
    expect(r.err).not.toContain('| param |');
  }, 120_000);

  it("--log-level shows the plugin's ctx.log lines on stderr; without it they stay in (trial 10 F6)", async () => {
    const file = writePlugin(
      'chatty',
      'chatty.ts',
      "import { defineStrategy } from 'mmkit/strategy';\nexport default defineStrategy({ name: 'chatty', description: 'logs', params: {}, create: (ctx) => { ctx.log.info({ hello: 1 }, 'chatty created'); return { onEvent: () => undefined }; } });\n",
    );
    const shown = await mmkit(['strategy', 'check', file, '--duration', '2s', '--log-level', 'info'], {
      timeoutMs: 120_000,
    });
    expect(shown.code, shown.err.slice(-2000)).toBe(1); // it quotes nothing
    const line = shown.err
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['msg'] === 'chatty created');
    expect(line, shown.err.slice(-2000)).toMatchObject({ component: 'strategy', hello: 1, level: 30 });
    const quiet = await mmkit(['strategy', 'check', file, '--duration', '2s'], { timeoutMs: 120_000 });
    expect(quiet.err).not.toContain('chatty created');
    const bad = await mmkit(['strategy', 'check', file, '--log-level', 'loud']);
    expect(bad.code).toBe(2);
  }, 240_000);

  it('fails (exit 1) for a plugin that throws, naming the first error and where it was thrown', async () => {
    const file = writePlugin(
      'bad',
      'bad.ts',
      "import { defineStrategy } from 'mmkit/strategy';\nexport default defineStrategy({ name: 'bad', description: 'throws', params: {}, create: () => ({ onEvent() {\n  throw new Error('boom in onEvent');\n} }) });\n",
    );
    const r = await mmkit(['strategy', 'check', file, '--duration', '10s'], { timeoutMs: 120_000 });
    expect(r.code, r.err.slice(-2000)).toBe(1);
    expect(r.out).toMatch(/strategy errors: \d+ \(output dropped\); first: boom in onEvent at .*bad\.ts:3:\d+/);
    expect(r.out).toMatch(/check FAILED: the strategy threw: boom in onEvent \(at .*bad\.ts:3:\d+\)/);
    // the exact count (the run's counter), past the 10 errors the engine logs one by one (review-2 F3):
    // a run long enough for more than 10 evaluations on a loaded machine
    const j = await mmkit(['strategy', 'check', file, '--duration', '12s', '--json'], { timeoutMs: 120_000 });
    expect(j.code, j.err.slice(-2000)).toBe(1);
    const rep = JSON.parse(j.out) as {
      summary: { strategyErrors: number; strategyEvaluations: number };
      strategyErrors: { count: number; first: { kind: string } };
      handler: { calls: number };
    };
    expect(rep.strategyErrors).not.toHaveProperty('more');
    expect(rep.strategyErrors.count).toBeGreaterThan(10);
    expect(rep.strategyErrors.count).toBe(rep.summary.strategyErrors);
    expect(rep.strategyErrors.count).toBe(rep.summary.strategyEvaluations);
    expect(rep.strategyErrors.count).toBe(rep.handler.calls);
    expect(rep.strategyErrors.first.kind).toBe('threw');
  }, 240_000);

  it('warns (still ok) when the gate refused most of the quotes and when a handler is slow (findings-4 F21)', async () => {
    // on each book event one bid at the best bid and two the gate refuses: off the tick (OFF_TICK),
    // or on a market whose tick is one pip (0.0001: no price is off it) under bot.risk.minPrice
    // (PRICE_LIMIT); each timer tick busy-waits 150 ms (README rule 4: handlers must be cheap)
    const file = writePlugin(
      'slow',
      'slow-mostly-refused.ts',
      `import { defineStrategy } from 'mmkit/strategy';
export default defineStrategy({ name: 'slow-mostly-refused', description: 'two of three quotes off the tick; slow ticks', params: {}, create(ctx) {
  return { onEvent(event, state) {
    if (event.type === 'timer' && event.name === 'tick') {
      const end = Date.now() + 150;
      while (Date.now() < end) {}
      return undefined;
    }
    if (event.type !== 'book_snapshot' && event.type !== 'level_change') return undefined;
    const m = ctx.markets.get(event.market);
    if (m === undefined) return undefined;
    const yes = m.tokens[0].tokenId;
    const b = state.book(yes);
    if (b === undefined || b.stale || b.bestBid === null) return undefined;
    const bid = (price: number) => ({ tokenId: yes, side: 'BUY' as const, price, size: 10_000_000 });
    const off = Math.round(Number(m.tick) * 10_000) > 1 ? [b.bestBid - 1, b.bestBid - 2] : [1, 2];
    return { quotes: [{ market: m.market, quotes: [bid(b.bestBid), bid(off[0]), bid(off[1])], at: state.now }] };
  } };
} });
`,
    );
    // (12 s: the duration includes the start, which a loaded machine makes slow)
    const r = await mmkit(['strategy', 'check', file, '--duration', '12s'], { timeoutMs: 180_000 });
    expect(r.code, r.out + r.err.slice(-2000)).toBe(0);
    expect(r.out).toMatch(/\n {2}slowest onEvent (\d+) ms, p99 [\d.]+ ms \(\d+ calls\)\n/);
    expect(Number(/slowest onEvent (\d+) ms/.exec(r.out)![1])).toBeGreaterThanOrEqual(150);
    // (on a loaded machine the slow ticks can also delay the heartbeat: its refusals are listed too)
    const warned =
      /\n {2}warning: (?:most quotes|every quote) refused: ((?:[A-Z_]+ x\d+)(?:, [A-Z_]+ x\d+)*) of (\d+)\n/.exec(
        r.out,
      );
    expect(warned, r.out).not.toBeNull();
    // (which codes depends on the markets picked: a 0.0001 tick market's are PRICE_LIMIT)
    expect(warned![1]).toMatch(/\b(OFF_TICK|PRICE_LIMIT) x\d+/);
    const refused = [...warned![1]!.matchAll(/x(\d+)/g)].reduce((a, m) => a + Number(m[1]), 0);
    expect(refused * 2).toBeGreaterThan(Number(warned![2]));
    expect(r.out).toMatch(/\n {2}warning: slow handler: the slowest onEvent took \d+ ms \(over 100 ms/);
    expect(r.out).toMatch(/\ncheck ok\n$/);
  }, 240_000);

  it('counts an immediate order the risk gate refused (a FOK above maxOrderSize)', async () => {
    const file = writePlugin(
      'fok',
      'big-fok.ts',
      `import { defineStrategy } from 'mmkit/strategy';
export default defineStrategy({ name: 'big-fok', description: 'one FOK of 500 shares', params: {}, create(ctx) {
  let sent = false;
  return { onEvent(event, state) {
    if (sent || event.type !== 'timer' || event.name !== 'tick') return undefined;
    for (const m of ctx.markets.values()) {
      const yes = m.tokens[0].tokenId;
      const b = state.book(yes);
      if (b === undefined || b.stale || b.bestAsk === null || b.bestBid === null) continue;
      sent = true;
      return { orders: [{ market: m.market, tokenId: yes, side: 'BUY', price: b.bestAsk, size: 500_000_000, type: 'FOK' }] };
    }
    return undefined;
  } };
} });
`,
    );
    const r = await mmkit(['strategy', 'check', file, '--duration', '10s', '--json'], { timeoutMs: 120_000 });
    expect(r.code, r.err.slice(-2000)).toBe(1);
    const rep = JSON.parse(r.out) as { refusals: Record<string, number>; strategyErrors: { count: number } };
    expect(rep.refusals).toEqual({ ORDER_SIZE: 1 });
    expect(rep.strategyErrors.count).toBe(0);
  }, 120_000);
});
