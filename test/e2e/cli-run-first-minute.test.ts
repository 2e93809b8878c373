/**
 * A first `npm start` shows the bot trading within a minute: `mmkit run` with nothing configured
 * (an in-process paper exchange, its default realistic world, a fresh data dir) gets fills of its
 * own quotes from the world's flow alone (no test trader), and says so in its summary.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/mmkit.js', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'mmkit-first-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a first run', () => {
  it('fills some of its quotes within the first minute, from the world alone', async () => {
    // the default world: whatever the environment says
    const env = { ...process.env };
    delete env.MMKIT_EXCHANGE_WORLD_PROFILE;
    const p = spawn(process.execPath, [BIN, 'run', '--duration', '60s', '--data-dir', dir, '--http-port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env,
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    p.stderr.on('data', (d: Buffer) => (err += d.toString('utf8')));
    const code = await new Promise<number | null>((r) => p.on('close', r));
    expect(code, err.slice(-3000)).toBe(0);
    const fills = Number(/^\s+fills\s+(\d+)/m.exec(out)?.[1] ?? -1);
    expect(fills, out).toBeGreaterThan(0);
  }, 150_000);
});
