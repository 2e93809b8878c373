/**
 * A secret given as a flag is visible to every user of the machine in the process list (`ps`), its
 * environment variable is not (trial 7 F7): `mmkit exchange --admin-token T` and `mmkit kill --token
 * T` say so once on stderr, naming the variable to use (MMKIT_ADMIN_TOKEN, MMKIT_CONTROL_TOKEN), and
 * never print the token; the variable alone gets no warning.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runMmkit } from './support/cli.ts';

const TOKEN = 'ARGV-SECRET-xyz123';
const children: ChildProcess[] = [];
// a failing test must not leave exchanges running
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** `mmkit exchange` until it printed its URLs, then SIGTERM: its whole stderr. */
async function exchangeStderr(args: string[], env: Record<string, string> = {}): Promise<string> {
  const e: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('MMKIT_') && !k.startsWith('VITEST') && v !== undefined) e[k] = v;
  const p = spawn(
    process.execPath,
    [`${ROOT}bin/mmkit.js`, 'exchange', '--port', '0', '--json', '--agents', 'none', '--log-level', 'warn', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...e, ...env } },
  );
  children.push(p);
  let err = '';
  p.stderr!.on('data', (d) => (err += d));
  const [line] = (await once(createInterface({ input: p.stdout! }), 'line')) as [string];
  expect(JSON.parse(line)).toHaveProperty('clob_url');
  p.kill('SIGTERM');
  await once(p, 'close');
  return err;
}

const WARNING = /warning: (--admin-token|--token) is visible to every user of this machine in the process list/;

describe('a secret on argv', () => {
  it('mmkit exchange --admin-token: one warning naming MMKIT_ADMIN_TOKEN, the token never printed', async () => {
    const err = await exchangeStderr(['--admin-token', TOKEN]);
    const lines = err.split('\n').filter((l) => WARNING.test(l));
    expect(lines).toEqual([
      'mmkit: warning: --admin-token is visible to every user of this machine in the process list (ps); set MMKIT_ADMIN_TOKEN in the environment instead',
    ]);
    expect(err).not.toContain(TOKEN);
    // by the environment: no warning
    expect(await exchangeStderr([], { MMKIT_ADMIN_TOKEN: TOKEN })).not.toMatch(WARNING);
  }, 90_000);

  it('mmkit kill --token: one warning naming MMKIT_CONTROL_TOKEN, the token never printed', async () => {
    const r = await runMmkit(['kill', '--url', 'http://127.0.0.1:9', '--token', TOKEN, '--timeout', '5s']);
    expect(r.code, r.err).toBe(3);
    expect(r.err.split('\n').filter((l) => WARNING.test(l))).toEqual([
      'mmkit: warning: --token is visible to every user of this machine in the process list (ps); set MMKIT_CONTROL_TOKEN in the environment instead',
    ]);
    expect(r.out + r.err).not.toContain(TOKEN);
    const env = await runMmkit(['kill', '--url', 'http://127.0.0.1:9', '--timeout', '5s'], {
      env: { MMKIT_CONTROL_TOKEN: TOKEN },
    });
    expect(env.err).not.toMatch(WARNING);
    expect(env.out + env.err).not.toContain(TOKEN);
  }, 60_000);
});
