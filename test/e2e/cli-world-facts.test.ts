/**
 * `mmkit world facts` as a user runs it: the world alone in virtual time, its stylized facts as a
 * table or one JSON document (deterministic for a profile and seed), and a clear usage error for a
 * profile that does not exist.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const BIN = new URL('../../bin/mmkit.js', import.meta.url).pathname;

function mmkit(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('mmkit world facts', () => {
  it('prints the facts of a profile as JSON, the same twice, and as a table', () => {
    const a = mmkit(['world', 'facts', '--profile', 'toxic', '--seed', '3', '--hours', '0.25', '--json']);
    expect(a.code, a.err).toBe(0);
    const f = JSON.parse(a.out) as Record<string, unknown>;
    expect(f.profile).toBe('toxic');
    expect(f.seed).toBe(3);
    for (const k of ['probeMarkout1s', 'probeMarkout10s', 'probeMarkout60s', 'probePickedOffAfterJumps'])
      expect(typeof f[k], k).toBe('number');
    expect(f.trades as number).toBeGreaterThan(100);
    expect(f.newsJumps as number).toBeGreaterThan(0);
    expect((f.spread as { p50: number }).p50).toBeGreaterThan(0);
    const b = mmkit(['world', 'facts', '--profile', 'toxic', '--seed', '3', '--hours', '0.25', '--json']);
    expect(b.out).toBe(a.out);
    // the profile from the environment (exchange.worldProfile), as a table
    const t = mmkit(['world', 'facts', '--hours', '0.1'], { MMKIT_EXCHANGE_WORLD_PROFILE: 'calm' });
    expect(t.code, t.err).toBe(0);
    expect(t.out).toMatch(/^profile\s+calm \(seed 1, 0\.1 virtual h/);
    expect(t.out).toMatch(/probe markouts\s+\+1s [+-]\d\.\d{4}/);
    expect(t.out).toMatch(/news jumps\s+0 /);
  }, 180_000);

  it('refuses an unknown profile with a usage error naming the choices', () => {
    const r = mmkit(['world', 'facts', '--profile', 'wild', '--hours', '0.1']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/worldProfile/);
    expect(r.err).toMatch(/calm/);
    expect(r.out).toBe('');
  });
});
