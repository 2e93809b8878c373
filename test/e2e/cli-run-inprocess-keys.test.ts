/**
 * `mmkit run` with its in-process paper exchange and `exchange.*` keys that exchange does not apply
 * (MMKIT_EXCHANGE_DB, MMKIT_EXCHANGE_STARTING_BALANCE): a warning at start names them and the way to
 * get them (`mmkit exchange --db`, `--exchange-url`), instead of accepting and silently ignoring them.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMmkit } from './support/cli.ts';

describe('mmkit run: exchange.* keys the in-process paper exchange ignores', () => {
  it('warns at start naming them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-inproc-'));
    const db = join(dir, 'exchange.db');
    const r = await runMmkit(
      ['run', '--data-dir', join(dir, 'data'), '--http-port', '0', '--duration', '2s', '--log-format', 'json'],
      { env: { MMKIT_EXCHANGE_DB: db, MMKIT_EXCHANGE_STARTING_BALANCE: '500' }, timeoutMs: 120_000 },
    );
    expect(r.code, r.err.slice(-2000)).toBe(0);
    const warn = r.err
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string; keys?: string[]; component?: string })
      .find((l) => l.msg.includes('ignored by the in-process paper exchange'));
    expect(warn, r.err.slice(0, 3000)).toBeDefined();
    expect(warn!.level).toBe(40);
    // like every line of the daemon's log (README "every line carries `component`")
    expect(warn!.component).toBe('daemon');
    expect(warn!.keys).toEqual(['exchange.startingBalance', 'exchange.db']);
    expect(warn!.msg).toContain('mmkit exchange --db');
    // what the warning says: the in-process exchange kept nothing there
    expect(existsSync(db)).toBe(false);
    // the start line names the world it runs: profile, seed, protocol (default realistic, 2)
    const started = r.err
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['msg'] === 'paper exchange started in-process');
    expect(started, r.err.slice(0, 3000)).toMatchObject({ worldProfile: 'realistic', protocol: 2 });
    expect(typeof started!['seed']).toBe('number');
  }, 150_000);

  it('the start line names the world profile given (trial 9 F4: nothing said that --world-profile took effect)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mmkit-inproc-'));
    const r = await runMmkit(
      [
        'run',
        '--data-dir',
        join(dir, 'data'),
        '--http-port',
        '0',
        '--duration',
        '1s',
        '--log-format',
        'json',
        '--world-profile',
        'calm',
      ],
      { env: { MMKIT_SEED: '5' }, timeoutMs: 120_000 },
    );
    expect(r.code, r.err.slice(-2000)).toBe(0);
    const started = r.err
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l['msg'] === 'paper exchange started in-process');
    expect(started, r.err.slice(0, 3000)).toMatchObject({ component: 'daemon', worldProfile: 'calm', seed: 5 });
  }, 150_000);
});
