/**
 * Runs the `mmkit` command as a user does (node bin/mmkit.js, from the project root), without the
 * test process's MMKIT_ and VITEST variables (plus `env`, when given), and resolves with its exit code and its whole output
 * (on 'close': every byte read). Killed, and rejected, after `timeoutMs`.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const ROOT = new URL('../../../', import.meta.url).pathname;

export function runMmkit(
  args: readonly string[],
  o: { cwd?: string; timeoutMs?: number; env?: Record<string, string> } = {},
): Promise<{ code: number | null; out: string; err: string }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('MMKIT_') && !k.startsWith('VITEST') && v !== undefined) env[k] = v;
  Object.assign(env, o.env ?? {});
  const p = spawn(process.execPath, [join(ROOT, 'bin/mmkit.js'), ...args], {
    cwd: o.cwd ?? ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (err += d));
  return new Promise((res, rej) => {
    const t = setTimeout(() => {
      p.kill('SIGKILL');
      rej(new Error(`mmkit ${args.join(' ')} timed out\n${out}\n${err}`));
    }, o.timeoutMs ?? 120_000);
    p.on('close', (code) => {
      clearTimeout(t);
      res({ code, out, err });
    });
  });
}
