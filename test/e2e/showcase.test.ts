/**
 * `npm run showcase` (scripts/showcase.ts): every shipped strategy is backtested on the sample feed
 * and in a synthetic world, and the script prints the table the README shows. Here with a short
 * world run: every strategy must trade on the sample feed, and the table must be what the script
 * prints (deterministic: the same numbers twice).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

function showcase(args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'showcase.ts'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 300_000,
  });
  expect(r.status, r.stderr.slice(-2000)).toBe(0);
  return r.stdout;
}

describe('npm run showcase', () => {
  it('backtests every shipped strategy on the sample feed and a synthetic world, deterministically', () => {
    const rows = JSON.parse(showcase(['--world-hours', '0.1', '--json'])) as Array<{
      strategy: string;
      source: string;
      fills: number;
      quoteUptime: string;
    }>;
    expect(rows.map((r) => r.strategy)).toEqual([
      'bands',
      'bands',
      'avellaneda',
      'avellaneda',
      'amm',
      'amm',
      'crypto-fair-value',
      'crypto-fair-value',
      'template',
      'template',
    ]);
    for (const r of rows.filter((x) => x.source === 'sample feed')) {
      expect(r.fills, r.strategy).toBeGreaterThan(0);
      expect(r.quoteUptime).toMatch(/^\d+\.\d %$/);
    }
    const table = showcase(['--world-hours', '0.1']);
    expect(table.split('\n')[0]).toBe(
      '| strategy | source | fills | volume | realized PnL | unrealized PnL | max inventory | quote uptime | markout +10s |',
    );
    expect(table).toContain(`| bands | sample feed | ${rows[0]!.fills} |`);
  }, 600_000);
});
