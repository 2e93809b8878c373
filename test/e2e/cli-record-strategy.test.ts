/**
 * `mmkit record --top N --strategy S` as a user runs it: the recorded markets are the ones S's
 * market choice (`selectMarkets`) picks among the most traded, in its order; --strategy with
 * --markets, and --param without --strategy, are refused (exit 2).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { replayFeeds } from '../../src/backtest/replay.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';
import type { FeedItem } from '../../src/venues/sim/feed.ts';

const BIN = new URL('../../bin/mmkit.js', import.meta.url).pathname;
const API = pathToFileURL(fileURLToPath(new URL('../../src/strategy/index.ts', import.meta.url))).href;
const dir = mkdtempSync(join(tmpdir(), 'mmkit-record-strategy-'));
const children: ChildProcess[] = [];
let ex: RunningExchange | undefined;
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await ex?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function record(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const p = spawn(process.execPath, [BIN, 'record', '--log-level', 'warn', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(p);
  let out = '';
  let err = '';
  p.stdout!.on('data', (d) => (out += d));
  p.stderr!.on('data', (d) => (err += d));
  const [code] = (await once(p, 'close')) as [number | null];
  return { code, out, err };
}

describe('mmkit record --top --strategy', () => {
  it("records the markets the strategy's selectMarkets picks", async () => {
    const plugin = join(dir, 'lowest.ts');
    writeFileSync(
      plugin,
      `import { defineStrategy } from ${JSON.stringify(API)};
export default defineStrategy({
  name: 'lowest',
  description: 'picks the lowest condition ids whose book has a bid',
  params: { skip: { type: 'integer', default: 0, min: 0, max: 10, doc: 'ids to skip' } },
  async selectMarkets(markets, ctx) {
    const out = [];
    for (const m of [...markets].sort((a, b) => (a.market < b.market ? -1 : 1))) {
      const b = await ctx.book(m.tokens[0].tokenId);
      if (b !== undefined && b.bestBid !== null) out.push(m.market);
    }
    return out.slice(ctx.params.skip);
  },
  create() { return { onEvent() { return undefined; } }; },
});
`,
    );
    ex = await startExchange({ port: 0, seed: 5, world: { agents: 'default', lifecycle: false, priceFeed: true } });
    const base = ex.urls.clob_url.replace(/\/clob$/, '');
    await new Promise((r) => setTimeout(r, 1_500)); // books
    // the candidates: at most 50 most traded order-book markets; this world has fewer, so all of them
    const all = (await (
      await fetch(`${ex.urls.gamma_url}/markets?active=true&closed=false&limit=500`)
    ).json()) as Array<{
      conditionId: string;
      acceptingOrders?: boolean;
    }>;
    const open = all.filter((m) => m.acceptingOrders !== false).map((m) => m.conditionId);
    expect(open.length).toBeLessThanOrEqual(50);
    const out = join(dir, 'lowest.ndjson.gz');
    const r = await record([
      '--out',
      out,
      '--exchange-url',
      base,
      '--top',
      '2',
      '--strategy',
      plugin,
      '--param',
      'skip=1',
      '--duration',
      '2s',
      '--no-rtds',
    ]);
    expect(r.code, r.err.slice(-2000)).toBe(0);
    const items: FeedItem[] = [];
    for await (const it of replayFeeds([out])) items.push(it);
    const h = items[0]!;
    expect(h.kind).toBe('header');
    if (h.kind !== 'header') return;
    const picked = h.header.markets.map((m) => m.market);
    expect(picked).toHaveLength(2);
    expect(picked).toEqual([...picked].sort());
    // (skip=1: the lowest id is left out)
    expect(open.sort().indexOf(picked[0]!)).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('refuses --strategy with --markets and --param without --strategy (exit 2)', async () => {
    const a = await record(['--out', join(dir, 'a.ndjson.gz'), '--markets', '0xabc', '--strategy', 'rewards']);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/either --markets or --strategy/);
    const b = await record(['--out', join(dir, 'b.ndjson.gz'), '--top', '1', '--param', 'x=1']);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/--param.*goes with --strategy/);
  }, 60_000);
});
