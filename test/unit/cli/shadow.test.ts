import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import { shadowUrls } from '../../../src/cli/run-shadow.ts';
import { shadowBanner } from '../../../src/cli/shadow-cli.ts';
import type { ShadowRunSummary } from '../../../src/cli/run-shadow.ts';
import { SHADOW_DIR, shadowDataDir } from '../../../src/cli/shadow-dir.ts';
import { controlToken, daemonUrl, formatStatus } from '../../../src/cli/status.ts';
import type { StatusSnapshot } from '../../../src/ops/status.ts';

describe('shadow mode: the venue shadowed', () => {
  it('is bot.exchangeUrl (venue.*Url over it) or venue.clobUrl + venue.wsUrl; none is a ConfigError naming the key', () => {
    expect(shadowUrls({ exchangeUrl: 'http://127.0.0.1:8080', urls: {} })).toMatchObject({
      clob: 'http://127.0.0.1:8080/clob',
      ws: 'ws://127.0.0.1:8080',
    });
    expect(
      shadowUrls({ exchangeUrl: '', urls: { clob: 'https://clob.example', ws: 'wss://ws.example' } }),
    ).toMatchObject({ clob: 'https://clob.example', ws: 'wss://ws.example', gamma: '' });
    const none = (): unknown => shadowUrls({ exchangeUrl: '', urls: { clob: 'https://clob.example' } });
    expect(none).toThrow(ConfigError);
    expect(none).toThrow(/bot\.exchangeUrl.*shadow mode needs a venue/);
  });
});

describe('shadow mode: its files', () => {
  it('live in <dataDir>/shadow, where `mmkit status --shadow` and `mmkit kill --shadow` look (never the live daemon.json)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-shadow-'));
    expect(shadowDataDir(dir)).toBe(join(dir, SHADOW_DIR));
    // a live daemon's record and a shadow run's, side by side
    writeFileSync(join(dir, 'daemon.json'), JSON.stringify({ statusUrl: 'http://127.0.0.1:41001', pid: process.pid }));
    mkdirSync(join(dir, 'shadow'));
    writeFileSync(
      join(dir, 'shadow', 'daemon.json'),
      JSON.stringify({ statusUrl: 'http://127.0.0.1:41002', pid: process.pid }),
    );
    writeFileSync(join(dir, 'shadow', 'control.token'), `${'c'.repeat(64)}\n`, { mode: 0o600 });
    expect(daemonUrl({ dataDir: dir }, {}).url).toBe('http://127.0.0.1:41001');
    const target = daemonUrl({ dataDir: dir, shadow: true }, {});
    expect(target).toEqual({ url: 'http://127.0.0.1:41002', source: `${dir}/shadow/daemon.json` });
    expect(controlToken({ dataDir: dir, shadow: true }, target, {})).toEqual({
      token: 'c'.repeat(64),
      source: `${dir}/shadow/control.token`,
    });
  });
});

describe('shadow mode: SHADOW is said', () => {
  const snap = (mode: 'live' | 'shadow' | undefined) =>
    ({
      schema: 1,
      ...(mode !== undefined ? { mode } : {}),
      pid: 42,
      uptimeSec: 5,
      lifecycle: 'running',
      strategy: { name: 'bands', params: {} },
      account: { address: 'shadow@1' },
      venue: { url: 'http://127.0.0.1:8080' },
      health: { healthy: true, status: 'ok', reasons: [] },
      pnl: { total: '0', realized: '0', unrealized: '0', fees: '0' },
      inventory: { collateral: { available: '10000', reserved: '0' }, positions: [] },
      orders: { open: 0, placed: 0, cancelled: 0, rejected: 0 },
      fills: { count: 0, volume: '0', notional: '0', recent: [] },
      killSwitch: { tripped: false },
      markets: [],
    }) as unknown as StatusSnapshot;

  it('by `mmkit status` for a shadow run, and not for a live one (or a daemon too old to say)', () => {
    const s = formatStatus(snap('shadow'), 'http://127.0.0.1:1');
    expect(s.split('\n')[0]).toBe(
      'SHADOW: live books, simulated fills; no order is sent to the venue (mmkit run --shadow)',
    );
    expect(s).toContain('mmkit SHADOW daemon at http://127.0.0.1:1: HEALTHY');
    for (const m of ['live', undefined] as const) {
      const l = formatStatus(snap(m), 'http://127.0.0.1:1');
      expect(l).not.toContain('SHADOW');
      expect(l.split('\n')[0]).toMatch(/^mmkit daemon at /);
    }
  });

  it("by the summary's first line, with the orders sent to the venue (none)", () => {
    const line = shadowBanner({
      sentToVenue: 0,
      simulated: { queue: 'risk-averse', latencyMs: 50, frames: 123 },
    } as unknown as ShadowRunSummary);
    expect(line).toBe(
      'SHADOW run: live books, simulated fills (queue risk-averse, latency 50 ms, 123 live frames); orders sent to the venue: 0',
    );
  });
});
