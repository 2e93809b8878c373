/**
 * The kill switch through the daemon: failing heartbeats (the venue's dead-man switch) trip it; within 2 s every order of
 * the bot is gone from the venue, and the daemon exits 0 saying why.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Wallet } from 'ethers';
import { afterAll, describe, expect, it } from 'vitest';
import { startExchange, type RunningExchange } from '../../src/exchange/server.ts';

const BIN = new URL('../../bin/mmkit.js', import.meta.url).pathname;
const children: ChildProcess[] = [];
const exchanges: RunningExchange[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await Promise.all(exchanges.map((e) => e.close()));
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('mmkit run: kill switch', () => {
  it('trips on failed heartbeats and leaves zero open orders within 2 s', async () => {
    const ex = await startExchange({ port: 0, seed: 5, world: { agents: 'default', lifecycle: false, priceFeed: true } });
    exchanges.push(ex);
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-kill-'));
    const bot = new Wallet(Wallet.createRandom().privateKey);
    writeFileSync(join(dir, 'paper-wallet.key'), bot.privateKey + '\n', { mode: 0o600 });
    const addr = bot.address.toLowerCase();
    const base = ex.urls.clob_url.replace(/\/clob$/, '');
    const p = spawn(process.execPath, [BIN, 'run', '--exchange-url', base, '--data-dir', dir, '--duration', '60s', '--log-level', 'info'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, MMKIT_RISK: JSON.stringify({ maxHeartbeatFailures: 2 }) },
    });
    children.push(p);
    let out = '';
    let err = '';
    p.stdout!.on('data', (d) => (out += d));
    p.stderr!.on('data', (d) => (err += d));
    for (let i = 0; i < 100 && ex.exchange.openOrders(addr).length === 0; i++) await sleep(200);
    expect(ex.exchange.openOrders(addr).length, err.slice(-2000)).toBeGreaterThan(0);
    // the venue's dead-man switch endpoint starts failing (injected fault): after 2 failed heartbeats
    // the kill switch trips
    ex.faults.add({ route: 'POST /clob/v1/heartbeats', status: 500 });
    let trippedAt = 0;
    for (let i = 0; i < 300 && trippedAt === 0; i++) {
      if (err.includes('kill switch')) trippedAt = Date.now();
      else await sleep(50);
    }
    expect(trippedAt, err.slice(-2000)).toBeGreaterThan(0);
    while (ex.exchange.openOrders(addr).length > 0 && Date.now() - trippedAt < 5000) await sleep(20);
    expect(ex.exchange.openOrders(addr)).toEqual([]);
    expect(Date.now() - trippedAt).toBeLessThanOrEqual(2000);
    const [code] = await once(p, 'exit');
    expect(code).toBe(0);
    expect(out).toContain('kill switch: heartbeatFailure');
    expect(out).toContain('open orders left  0');
  }, 90_000);
});
