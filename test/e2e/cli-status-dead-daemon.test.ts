/**
 * `mmkit status` and `mmkit kill` after the daemon crashed (SIGKILL: its lock and daemon.json stay
 * behind): exit 3, and the message names the dead pid and points to the orders it may have left
 * resting (`mmkit orders`, `mmkit cancel-all`, and the venue they ask), instead of only asking whether
 * `mmkit run` runs; the URL named is the one the lock records, not the config's default.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMmkit } from './support/cli.ts';

describe('status and kill of a crashed daemon', () => {
  it('exit 3 naming the dead pid and pointing to mmkit orders / cancel-all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-dead-'));
    const pid = 2 ** 22 + 12346;
    // what a daemon killed with SIGKILL leaves behind (its status server on a port nobody listens on)
    const statusUrl = 'http://127.0.0.1:9';
    writeFileSync(
      join(dir, 'daemon.lock'),
      JSON.stringify({ pid, host: hostname(), startedAt: '2026-11-27T15:00:00.000Z', nonce: 'x', statusUrl }),
    );
    writeFileSync(join(dir, 'daemon.json'), JSON.stringify({ statusUrl, pid }));
    // the venue it traded on (`mmkit run --exchange-url`), which the recovery commands ask
    writeFileSync(join(dir, 'venue.json'), JSON.stringify({ pid, url: 'http://127.0.0.1:18090' }));
    for (const cmd of ['status', 'kill']) {
      const r = await runMmkit([cmd, '--data-dir', dir, '--timeout', '3s'], { timeoutMs: 60_000 });
      expect(r.code, r.err).toBe(3);
      expect(r.err).toContain(`pid ${pid}`);
      expect(r.err).toMatch(/not running \(crashed\?\)/);
      expect(r.err).toContain(`mmkit orders --data-dir ${dir}`);
      expect(r.err).toContain(`mmkit cancel-all --data-dir ${dir}`);
      expect(r.err).not.toMatch(/is `mmkit run` running\?/);
      // the status URL the lock records, not the config's default :8787; and the venue to be asked
      expect(r.err).toContain(`no mmkit daemon at ${statusUrl}`);
      expect(r.err).not.toContain('8787');
      expect(r.err).toContain('http://127.0.0.1:18090');
    }
    // a daemon of the in-process paper exchange: its orders ended with it
    writeFileSync(join(dir, 'venue.json'), JSON.stringify({ pid, url: 'http://127.0.0.1:42767', inProcess: true }));
    const r = await runMmkit(['status', '--data-dir', dir], { timeoutMs: 60_000 });
    expect(r.code, r.err).toBe(3);
    expect(r.err).toContain('in-process paper exchange (http://127.0.0.1:42767), which ended with it');
  }, 60_000);
});
