/**
 * The daemon's ops facade: the status server starts first (a port in use is a ConfigError naming
 * ops.httpPort), the status URL is recorded in <dataDir>/daemon.json and the control token in
 * <dataDir>/control.token (0600), both removed at close, a kill
 * request trips the switch and is answered when the daemon reports its flat check, and URLs are
 * shown without credentials.
 */
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { LiveClock } from '../../src/core/clock.ts';
import { ConfigError } from '../../src/core/errors.ts';
import { KillSwitch } from '../../src/risk/kill-switch.ts';
import { DaemonOps, epochVenueShown, publicUrl, readDaemonFile, startOps } from '../../src/ops/daemon-ops.ts';

const log = pino({ level: 'silent' });
const open: DaemonOps[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) await o.close();
});

describe('DaemonOps', () => {
  it('serves at once (503 starting), records its URL, and removes the record at close', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-ops-'));
    const ops = await startOps({
      clock: new LiveClock(),
      log,
      http: { httpHost: '127.0.0.1', httpPort: 0 },
      dataDir: dir,
      version: '1.0.0',
    });
    open.push(ops);
    expect(ops.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(readDaemonFile(dir)).toEqual({ statusUrl: ops.url, pid: process.pid });
    const h = await fetch(`${ops.url}/healthz`);
    expect(h.status).toBe(503);
    expect(((await h.json()) as { reasons: Array<{ code: string }> }).reasons[0]!.code).toBe('starting');
    const m = await (await fetch(`${ops.url}/metrics`)).text();
    expect(m).toContain('mmkit_info{version="1.0.0"} 1');
    // the control token, owner-only, for `mmkit kill`
    const token = readFileSync(join(dir, 'control.token'), 'utf8').trim();
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(dir, 'control.token')).mode & 0o777).toBe(0o600);
    // a kill before the engine exists is refused (nothing to trip yet)
    const k = await fetch(`${ops.url}/api/kill`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: '{}',
    });
    expect(k.status).toBe(500);
    await ops.close();
    expect(existsSync(join(dir, 'daemon.json'))).toBe(false);
    expect(existsSync(join(dir, 'control.token'))).toBe(false);
  });

  it('refuses a port in use with a ConfigError naming ops.httpPort', async () => {
    const a = await startOps({ clock: new LiveClock(), log, http: { httpHost: '127.0.0.1', httpPort: 0 } });
    open.push(a);
    const port = Number(new URL(a.url!).port);
    const err = await startOps({ clock: new LiveClock(), log, http: { httpHost: '127.0.0.1', httpPort: port } }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe('ops.httpPort');
    expect((err as Error).message).toContain('in use');
  });

  it('kill trips the switch (trigger cli) and resolves with the flat check', async () => {
    const clock = new LiveClock();
    const ops = new DaemonOps({ clock, log });
    const kill = new KillSwitch(clock);
    // attach needs the daemon's parts; only the kill switch matters here
    (ops as unknown as { attach: (p: unknown) => void }).attach({
      engine: { state: {}, events$: { subscribe: () => ({ unsubscribe() {} }) }, pulled: () => new Set(), ready: true },
      store: {},
      tracker: {},
      executor: { onCycle: () => () => {}, stats: () => ({ pauseReasons: [] }) },
      heartbeat: { onStatus: () => () => {}, status: () => ({}) },
      kill,
      markets: [],
      strategy: { name: 's', params: {} },
      address: '0xabc',
      venueUrl: 'http://127.0.0.1:1',
    });
    const tripped: string[] = [];
    kill.onTrip((t) => tripped.push(`${t.trigger}: ${t.message}`));
    const p = ops.kill('operator says stop');
    expect(tripped).toEqual(['cli: operator says stop']);
    ops.flattened({ flat: true, open: [] }, 'kill switch: cli: operator says stop');
    expect(await p).toEqual({ flat: true, openOrders: 0, reason: 'kill switch: cli: operator says stop' });
    // later requests get the same answer at once
    expect(await ops.kill('again')).toMatchObject({ flat: true });
    open.push(ops);
  });

  it('shows URLs without credentials or query', () => {
    expect(publicUrl('https://user:pw@gw.example.com/venue?token=abc')).toBe('https://gw.example.com/venue');
    expect(publicUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    expect(publicUrl('not a url')).toBe('');
    // a ledger epoch's venue (the status page's ledger.epoch.venue): no chain, its shadow: / inprocess: mark kept
    expect(epochVenueShown('inprocess:http://127.0.0.1:41234/clob#137')).toBe('inprocess:http://127.0.0.1:41234/clob');
    expect(epochVenueShown('shadow:https://u:p@clob.example.com/?k=1#137')).toBe('shadow:https://clob.example.com');
    expect(epochVenueShown('http://127.0.0.1:8080/clob#137')).toBe('http://127.0.0.1:8080/clob');
  });
});
