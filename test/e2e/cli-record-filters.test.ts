/**
 * `mmkit record --top N` takes its candidates through bot.marketFilters, as `mmkit run` does: by
 * default no market ending within the hour (the 5-minute crypto windows); MMKIT_MARKET_MIN_WINDOW_MINUTES=60
 * leaves out the windows shorter than an hour; MMKIT_MARKET_MIN_HOURS_TO_END=24 every market ending
 * today; a --config file's bot.marketFilters apply too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayFeeds } from '../../src/backtest/replay.ts';
import { windowMinutes } from '../../src/cli/market-filters.ts';
import type { MarketInfo } from '../../src/core/venue.ts';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';

const BIN = new URL('../../bin/mmkit.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'mmkit-record-filters-'));
const children: ChildProcess[] = [];
let ex: RunningExchange;
let base: string;
beforeAll(async () => {
  ex = await startExchange({ port: 0, seed: 5, world: { agents: 'default', lifecycle: false, priceFeed: true } });
  base = ex.urls.clob_url.replace(/\/clob$/, '');
}, 60_000);
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await ex?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Records the top 50 for a second with `env` (MMKIT_* of this process left out); the markets recorded. */
async function recorded(name: string, env: Record<string, string>, extra: string[] = []): Promise<MarketInfo[]> {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('MMKIT_') && v !== undefined) clean[k] = v;
  const out = join(dir, `${name}.ndjson.gz`);
  const p = spawn(
    process.execPath,
    [
      BIN,
      'record',
      '--log-level',
      'warn',
      '--out',
      out,
      '--exchange-url',
      base,
      '--top',
      '50',
      '--duration',
      '1s',
      '--no-rtds',
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...clean, ...env } },
  );
  children.push(p);
  let err = '';
  p.stderr!.on('data', (d) => (err += d));
  const [code] = (await once(p, 'close')) as [number | null];
  expect(code, err.slice(-2000)).toBe(0);
  for await (const it of replayFeeds([out])) if (it.kind === 'header') return [...it.header.markets];
  throw new Error('no header');
}

const hoursLeft = (m: MarketInfo) => (Date.parse(m.endDate) - Date.now()) / 3_600_000;

describe('mmkit record --top and bot.marketFilters', () => {
  it('the default filters: nothing ending within the hour (the short crypto windows)', async () => {
    const all = (await (
      await fetch(`${ex.urls.gamma_url}/markets?active=true&closed=false&limit=500`)
    ).json()) as Array<{
      question: string;
      endDate: string;
    }>;
    // the world has short windows to leave out
    expect(all.some((m) => (windowMinutes(m.question) ?? Infinity) < 60)).toBe(true);
    const ms = await recorded('default', {});
    expect(ms.length).toBeGreaterThan(0);
    for (const m of ms) expect(hoursLeft(m), m.question).toBeGreaterThan(1);
    // markets ending within a day or so are still in (not "today": in the last hour of a UTC day no
    // market ends later today with more than an hour left; this failed a CI run at 23:3x UTC)
    expect(ms.some((m) => hoursLeft(m) < 48)).toBe(true);
  }, 120_000);

  it('minWindowMinutes from the environment leaves out the short windows, and only them', async () => {
    const short = (ms: MarketInfo[]) => ms.filter((m) => (windowMinutes(m.question) ?? Infinity) < 60);
    const any = await recorded('hours0', { MMKIT_MARKET_MIN_HOURS_TO_END: '0' });
    expect(short(any).length).toBeGreaterThan(0);
    const ms = await recorded('window60', {
      MMKIT_MARKET_MIN_HOURS_TO_END: '0',
      MMKIT_MARKET_MIN_WINDOW_MINUTES: '60',
    });
    expect(short(ms)).toEqual([]);
    expect(ms.map((m) => m.market).sort()).toEqual(
      any
        .filter((m) => !short(any).includes(m))
        .map((m) => m.market)
        .sort(),
    );
  }, 120_000);

  it('minHoursToEnd=24 from the environment: nothing ending today', async () => {
    const ms = await recorded('hours24', { MMKIT_MARKET_MIN_HOURS_TO_END: '24' });
    expect(ms.length).toBeGreaterThan(0);
    for (const m of ms) expect(hoursLeft(m), m.question).toBeGreaterThan(24);
  }, 120_000);

  it("a --config file's bot.marketFilters", async () => {
    const cfg = join(dir, 'filters.json');
    writeFileSync(cfg, JSON.stringify({ bot: { marketFilters: { search: 'price of', minHoursToEnd: 2 } } }));
    const ms = await recorded('config', {}, ['--config', cfg]);
    expect(ms.length).toBeGreaterThan(0);
    for (const m of ms) expect(m.question.toLowerCase()).toContain('price of');
  }, 120_000);
});
