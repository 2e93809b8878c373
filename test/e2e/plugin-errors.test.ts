/**
 * A plugin author's mistakes as `mmkit strategy check` (the real daemon on an in-process paper
 * exchange) and `mmkit backtest` report them (findings-4 F3, F11, F12, F14, F23): an output of the
 * wrong shape or an async onEvent is a strategy error that says why; a throw in create() names the
 * strategy and where; a one-argument ConfigError keeps the author's text; a FOK the venue killed is
 * no "placed no order"; a gate refusal gives its first reason.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'bin/mmkit.js');
const FEED = join(ROOT, 'test/fixtures/sample-feed.ndjson.gz');

/** Scratch space inside the project (so `mmkit/strategy` resolves), outside tsconfig's and vitest's includes. */
mkdirSync(join(ROOT, '.tmp'), { recursive: true });
const scratch = mkdtempSync(join(ROOT, '.tmp', 'plugin-errors-e2e-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  try {
    rmdirSync(join(ROOT, '.tmp')); // only when empty: another run may be using it
  } catch {
    /* not empty */
  }
});

function mmkit(args: string[], timeoutMs = 120_000): Promise<{ code: number | null; out: string; err: string }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('MMKIT_') && !k.startsWith('VITEST') && v !== undefined) env[k] = v;
  const p = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (err += d));
  return new Promise((res, rej) => {
    const t = setTimeout(() => {
      p.kill('SIGKILL');
      rej(new Error(`mmkit ${args.join(' ')} timed out\n${out}\n${err}`));
    }, timeoutMs);
    p.on('close', (code) => {
      clearTimeout(t);
      res({ code, out, err });
    });
  });
}

/** Writes a plugin into the scratch folder; `body` is the object literal's create(ctx, p) { ... } and more. */
function plugin(name: string, body: string): string {
  const file = join(scratch, `${name}.ts`);
  writeFileSync(
    file,
    `import { defineStrategy, ConfigError, tickPips } from 'mmkit/strategy';\nexport default defineStrategy({ name: '${name}', description: 'x', ${body} });\n`,
  );
  return file;
}

/** onEvent quoting the first market's YES bid one tick under the best bid, its output passed through `shape`. */
const quoting = (shape: string) => `params: {}, create(ctx) {
  return { onEvent(event, state) {
    if (event.type !== 'timer') return undefined;
    const m = [...ctx.markets.values()][0];
    const yes = m.tokens[0].tokenId;
    const b = state.book(yes);
    if (!b || b.stale || b.bestBid === null) return undefined;
    const entry = { market: m.market, quotes: [{ tokenId: yes, side: 'BUY', price: b.bestBid - tickPips(m.tick), size: 10_000_000 }], at: state.now };
    return ${shape};
  } };
}`;

describe('strategy output checked where it leaves onEvent (F3, F14)', () => {
  it("a typo'd key: check fails saying so, and so does a backtest", async () => {
    const file = plugin('typokey', quoting('{ qoutes: [entry] }'));
    const r = await mmkit(['strategy', 'check', file, '--duration', '3s']);
    expect(r.code, r.err.slice(-2000)).toBe(1);
    const why = 'invalid output: unknown key "qoutes" (expected quotes|orders)';
    expect(r.out).toMatch(/strategy errors: \d+\+? \(output dropped\); first: invalid output: unknown key "qoutes"/);
    expect(r.out).toContain(`check FAILED: the strategy returned an ${why}`);
    const b = await mmkit(['backtest', '--feed', FEED, '--strategy', file, '--no-feed-cache', '--json']);
    expect(b.code, b.err.slice(-2000)).toBe(1);
    expect(JSON.parse(b.out).engine.firstStrategyError).toEqual({ message: why });
    expect(b.err).toContain(`(first: ${why})`);
  }, 240_000);

  it("quotes of a market not the instance's, and an entry whose quotes is not a list", async () => {
    const other = plugin('othermarket', quoting("{ quotes: [{ ...entry, market: '0xdeadbeef' }] }"));
    const r = await mmkit(['strategy', 'check', other, '--duration', '3s', '--json']);
    expect(r.code, r.err.slice(-2000)).toBe(1);
    expect(JSON.parse(r.out).strategyErrors.first).toEqual({
      message: "invalid output: quotes[0].market 0xdeadbeef is not one of this instance's markets",
      at: null,
      kind: 'invalid output',
    });
    const inner = plugin('innergarbage', quoting("{ quotes: [{ ...entry, quotes: 'abc' }] }"));
    const i = await mmkit(['strategy', 'check', inner, '--duration', '3s']);
    expect(i.code, i.err.slice(-2000)).toBe(1);
    expect(i.out).toContain('check FAILED: the strategy returned an invalid output: quotes[0].quotes must be an array');
  }, 240_000);

  it('an async onEvent: "handlers must be synchronous"', async () => {
    const file = plugin(
      'asyncevent',
      quoting('{ quotes: [entry] }').replace('onEvent(event, state)', 'async onEvent(event, state)'),
    );
    const r = await mmkit(['strategy', 'check', file, '--duration', '3s']);
    expect(r.code, r.err.slice(-2000)).toBe(1);
    expect(r.out).toContain('onEvent returned a Promise (an async handler?): handlers must be synchronous');
  }, 120_000);

  it('a non-Error throw reads as util.inspect shows it (F21)', async () => {
    const file = plugin('throwobj', 'params: {}, create: () => ({ onEvent() { throw { code: 42 }; } })');
    const r = await mmkit(['strategy', 'check', file, '--duration', '3s']);
    expect(r.code, r.err.slice(-2000)).toBe(1);
    expect(r.out).toContain(
      'check FAILED: the strategy threw: { code: 42 } (no file:line: what was thrown is not an Error; throw new Error(...) to get one)',
    );
    expect(r.out).not.toContain('[object Object]');
  }, 120_000);
});

describe("an error in a callback of the strategy's ctx.clock (trial 23 F1)", () => {
  it('is a strategy error like a throw of onEvent: counted with where, the daemon and the backtest go on', async () => {
    // quotes on every timer event; its own interval throws every 300 ms (before: an uncaught exception
    // killed the daemon with its quotes resting, and the backtest printed "mmkit: timer boom", no results)
    const body = quoting('{ quotes: [entry] }').replace(
      'create(ctx) {\n',
      "create(ctx) {\n  ctx.clock.setInterval(() => { throw new Error('timer boom'); }, 300);\n",
    );
    const file = plugin('timerthrows', body);
    const r = await mmkit(['strategy', 'check', file, '--duration', '4s', '--json']);
    expect(r.err).not.toContain('Node.js v');
    const check = JSON.parse(r.out) as { strategyErrors: { count: number; first: { message: string; at: string } } };
    expect(check.strategyErrors.count).toBeGreaterThanOrEqual(5);
    expect(check.strategyErrors.first.message).toBe('timer boom');
    expect(check.strategyErrors.first.at).toMatch(new RegExp(`^${file}:3:\\d+$`));
    expect(r.code).toBe(1);
    const b = await mmkit(['backtest', '--feed', FEED, '--strategy', file, '--no-feed-cache', '--json']);
    expect(b.err).not.toContain('Node.js v');
    const bt = JSON.parse(b.out) as {
      engine: { firstStrategyError: { message: string; at?: string } };
      stopReason: string;
    };
    expect(bt.engine.firstStrategyError.message).toBe('timer boom');
    expect(bt.engine.firstStrategyError.at).toMatch(new RegExp(`^${file}:3:\\d+$`));
    expect(bt.stopReason).toBe('end of feed');
  }, 240_000);
});

describe('create() and ConfigError (F14, F23)', () => {
  it('a throw in create() names the strategy and where, in check and backtest', async () => {
    const file = plugin('createthrows', "params: {}, create() {\n  throw new Error('cannot create');\n}");
    const at = new RegExp(`strategy createthrows: create\\(\\) threw: cannot create \\(at ${file}:3:\\d+\\)`);
    const r = await mmkit(['strategy', 'check', file, '--duration', '3s']);
    expect(r.code, r.err.slice(-2000)).toBe(1);
    expect(r.err).toMatch(at);
    const b = await mmkit(['backtest', '--feed', FEED, '--strategy', file, '--no-feed-cache']);
    expect(b.code, b.err.slice(-2000)).toBe(1);
    expect(b.err).toMatch(at);
  }, 240_000);

  it('create() returning no onEvent stops the start, named (exit 2), not at every event inside the engine (trial 10 F16)', async () => {
    const file = plugin('hollow', 'params: {},\n' + 'create() { return {}; }');
    const r = await mmkit(['strategy', 'check', file, '--duration', '3s']);
    expect(r.code, r.err.slice(-2000)).toBe(2);
    expect(r.err).toContain('create(ctx, params) returned an object whose onEvent is undefined');
    expect(r.err).not.toContain('loop.ts');
  }, 120_000);

  it("a one-argument ConfigError keeps the author's text (exit 2), never an internal TypeError", async () => {
    const file = plugin(
      'cfgerr',
      "params: { lo: { type: 'number', default: 0.5, doc: 'low' }, hi: { type: 'number', default: 0.2, doc: 'high' } },\n" +
        "create(ctx, p) { if (p.lo >= p.hi) throw new ConfigError('lo must be below hi'); return { onEvent: () => undefined }; }",
    );
    const r = await mmkit(['strategy', 'check', file, '--duration', '3s']);
    expect(r.code, r.err.slice(-2000)).toBe(2);
    expect(r.err).toContain('mmkit: config bot.params: lo must be below hi');
    expect(r.err).not.toContain('Cannot read properties');
  }, 120_000);
});

describe('strategy check wording (F11, F12)', () => {
  it('a FOK the venue killed: "no order rested or filled", not "placed no order"', async () => {
    const file = plugin(
      'fokmiss',
      `params: {}, create(ctx) {
  let sent = false;
  return { onEvent(event, state) {
    if (sent || event.type !== 'timer' || event.name !== 'tick') return undefined;
    for (const m of ctx.markets.values()) {
      const yes = m.tokens[0].tokenId;
      const b = state.book(yes);
      if (!b || b.stale || b.bestBid === null || b.bestAsk === null) continue;
      sent = true;
      return { orders: [{ market: m.market, tokenId: yes, side: 'BUY', price: b.bestBid, size: 5_000_000, type: 'FOK' }] };
    }
    return undefined;
  } };
}`,
    );
    const r = await mmkit(['strategy', 'check', file, '--duration', '3s']);
    expect(r.code, r.err.slice(-2000)).toBe(1);
    expect(r.out).toContain('FOK_ORDER_NOT_FILLED_ERROR');
    expect(r.out).toContain('check FAILED: no order rested or filled');
    expect(r.out).not.toContain('placed no order');
  }, 120_000);

  it('a gate refusal gives its first reason (the decimal size of its log line: test/unit/kernel/gate-path.test.ts)', async () => {
    const file = plugin(
      'floatsize',
      quoting('{ quotes: [{ ...entry, quotes: entry.quotes.map((q) => ({ ...q, size: 10_000_000.5 })) }] }'),
    );
    const r = await mmkit(['strategy', 'check', file, '--duration', '3s']);
    expect(r.code, r.err.slice(-2000)).toBe(1);
    expect(r.out).toMatch(
      /refused by the risk gate: INVALID_SIZE x\d+, first: size 10\.0000005 is not a positive multiple of 0\.000001 share/,
    );
  }, 120_000);
});
