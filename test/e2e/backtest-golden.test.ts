/**
 * The backtest of the sample feed is a fixed point: `mmkit backtest --feed
 * test/fixtures/sample-feed.ndjson.gz --strategy bands --json` prints exactly the bytes of
 * test/fixtures/sample-feed-bands.expected.json, recorded before the bot's wiring was moved into
 * the one kernel (src/kernel). A restructuring or a speed-up that changes a result fails here; a
 * deliberate change of results re-records the file (and says why in its commit).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;

function backtestJson(): Promise<{ code: number | null; out: string; err: string }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (!k.startsWith('MMKIT_') && !k.startsWith('VITEST') && v !== undefined) env[k] = v;
  const args = ['backtest', '--feed', 'test/fixtures/sample-feed.ndjson.gz', '--strategy', 'bands', '--json'];
  const p = spawn(process.execPath, [join(ROOT, 'bin/mmkit.js'), ...args, '--no-feed-cache'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (err += d));
  return new Promise((res) => p.on('exit', (code) => res({ code, out, err })));
}

describe('the sample feed backtest', () => {
  it('prints byte-identical JSON to the recorded expectation', async () => {
    const r = await backtestJson();
    expect(r.code, r.err).toBe(0);
    const want = readFileSync(join(ROOT, 'test/fixtures/sample-feed-bands.expected.json'), 'utf8');
    if (r.out !== want) expect(JSON.parse(r.out)).toEqual(JSON.parse(want)); // shows where it differs
    expect(r.out).toBe(want);
  }, 120_000);
});
