/**
 * The `mmkit exchange` command as a user runs it: a real process, its JSON line of URLs, a request
 * to it, and a clean stop on SIGTERM and SIGINT.
 */
import { exited } from './support/bot-harness.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/mmkit.js', import.meta.url).pathname;
const children: ChildProcess[] = [];
// a failing test must not leave exchanges running
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

async function start(args: string[]): Promise<{ p: ChildProcess; urls: Record<string, string> }> {
  const p = spawn(process.execPath, [BIN, 'exchange', '--port', '0', '--json', '--log-level', 'warn', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(p);
  const rl = createInterface({ input: p.stdout! });
  const [line] = (await once(rl, 'line')) as [string];
  return { p, urls: JSON.parse(line) };
}

describe('mmkit exchange', () => {
  it('prints its base URLs as one JSON line, serves, and stops cleanly on SIGTERM', async () => {
    const { p, urls } = await start(['--seed', '3', '--fund', '0x1111111111111111111111111111111111111111=250.5']);
    expect(Object.keys(urls).sort()).toEqual([
      'clob_url',
      'content_url',
      'data_url',
      'gamma_url',
      'price_feed_url',
      'relayer_url',
      'ws_url',
    ]);
    expect(urls.clob_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/clob$/);
    expect(urls.relayer_url).toBe(String(urls.clob_url).replace(/\/clob$/, '/relayer'));
    const markets: any = await (await fetch(`${urls.clob_url}/markets`)).json();
    expect(markets.data.length).toBeGreaterThan(0);
    const t = await (await fetch(`${urls.clob_url}/time`)).json();
    expect(typeof t).toBe('number');
    p.kill('SIGTERM');
    const [code] = await once(p, 'exit');
    expect(code).toBe(0);
  }, 90_000);

  it('stops on SIGINT too', async () => {
    const { p } = await start([]);
    p.kill('SIGINT');
    const [code] = await once(p, 'exit');
    expect(code).toBe(0);
  }, 90_000);

  it('refuses a bad flag with a clear message and a non-zero exit', async () => {
    const p = spawn(process.execPath, [BIN, 'exchange', '--port', 'abc'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    p.stderr!.on('data', (d) => (err += d));
    const [code] = await once(p, 'close'); // (not 'exit': the message can be read after it)
    expect(code).not.toBe(0);
    expect(err).toContain('--port');
  }, 90_000);

  it('--world-profile picks who trades in the world, and an unknown one is refused naming the key', async () => {
    const p = spawn(
      process.execPath,
      [BIN, 'exchange', '--port', '0', '--world-profile', 'toxic', '--log-level', 'warn'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    p.stdout!.on('data', (d) => (out += d));
    const deadline = Date.now() + 60_000;
    while (!out.includes('listening') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(out).toMatch(/world profile toxic/);
    p.kill('SIGTERM');
    await exited(p);
    const bad = spawn(process.execPath, [BIN, 'exchange', '--port', '0', '--world-profile', 'wild'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    bad.stderr!.on('data', (d) => (err += d));
    const [code] = await once(bad, 'close');
    expect(code).toBe(2);
    expect(err).toContain('exchange.worldProfile');
  }, 90_000);

  it('--fee-rate-bps: its markets charge takers that rate (fee-rate and the market listing say it); a bad rate is refused naming the key', async () => {
    const { p, urls } = await start(['--seed', '3', '--fee-rate-bps', '200', '--agents', 'none']);
    const markets = (await (await fetch(`${urls.clob_url}/markets`)).json()) as {
      data: Array<{ taker_base_fee: number; tokens: Array<{ token_id: string }> }>;
    };
    expect(markets.data.length).toBeGreaterThan(0);
    for (const m of markets.data) expect(m.taker_base_fee).toBe(200);
    const token = markets.data[0]!.tokens[0]!.token_id;
    expect(await (await fetch(`${urls.clob_url}/fee-rate?token_id=${token}`)).json()).toEqual({ base_fee: 200 });
    p.kill('SIGTERM');
    await exited(p);
    const bad = spawn(process.execPath, [BIN, 'exchange', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MMKIT_EXCHANGE_FEE_RATE_BPS: '5000' },
    });
    let err = '';
    bad.stderr!.on('data', (d) => (err += d));
    const [code] = await once(bad, 'close');
    expect(code).toBe(2);
    expect(err).toContain('exchange.feeRateBps');
  }, 90_000);

  it('--rewards-epoch / --rewards-sample / --rewards-min-payout: the world pays its providers; bad values refused naming the key', async () => {
    const { p, urls } = await start([
      '--seed',
      '5',
      '--rewards-epoch',
      '2s',
      '--rewards-sample',
      '200',
      '--rewards-min-payout',
      '0',
    ]);
    const { agentAccounts } = await import('../../src/exchange/world/agent-accounts.ts');
    const lps = agentAccounts(5).lp;
    const rewardRows = async () => {
      let n = 0;
      for (const a of lps) {
        const r: any = await (await fetch(`${urls.data_url}/activity?user=${a}&type=REWARD`)).json();
        n += (Array.isArray(r) ? r : r.data).length;
      }
      return n;
    };
    const deadline = Date.now() + 60_000;
    let rows = 0;
    while ((rows = await rewardRows()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(rows).toBeGreaterThan(0);
    p.kill('SIGTERM');
    await exited(p);
    for (const [args, key] of [
      [['--rewards-epoch', '500'], 'exchange.rewards.epochMs'],
      [['--rewards-sample', '5s', '--rewards-epoch', '2s'], 'exchange.rewards.sampleMs'],
      [['--rewards-epoch', '2 minutes'], '--rewards-epoch'],
      [['--rewards-min-payout', '-1'], 'exchange.rewards.minPayout'],
    ] as const) {
      const bad = spawn(process.execPath, [BIN, 'exchange', '--port', '0', ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let err = '';
      bad.stderr!.on('data', (d) => (err += d));
      const [code] = await once(bad, 'close');
      expect(code).not.toBe(0);
      expect(err).toContain(key);
    }
  }, 120_000);

  it('the same seed gives the same markets', async () => {
    const a = await start(['--seed', '11']);
    const b = await start(['--seed', '11']);
    const ids = async (u: string) =>
      ((await (await fetch(`${u}/markets?limit=100`)).json()) as any).data.map((m: any) => m.condition_id);
    expect(await ids(a.urls.clob_url!)).toEqual(await ids(b.urls.clob_url!));
    a.p.kill('SIGTERM');
    b.p.kill('SIGTERM');
    await Promise.all([exited(a.p), exited(b.p)]);
  }, 90_000);
});
