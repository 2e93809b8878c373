/**
 * `npm run showcase` (scripts/showcase.ts): every shipped strategy is backtested over several seeds
 * of each world profile and on the sample feed, and the script prints the table the README shows.
 * Here with short runs and two seeds: every strategy trades on the sample feed, each profile's row
 * carries a confidence interval, the news of the non-calm worlds shows in the picked-off column,
 * and the table is what the JSON says (deterministic: the same numbers twice).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatTable, type ShowcaseRow } from '../../scripts/showcase.ts';

const ROOT = join(import.meta.dirname, '..', '..');

function showcase(args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'showcase.ts'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 600_000,
  });
  expect(r.status, r.stderr.slice(-2000)).toBe(0);
  return r.stdout;
}

describe('npm run showcase', () => {
  it('backtests every shipped strategy over seeds of each profile and on the sample feed, deterministically', () => {
    const args = ['--seeds', '2', '--world-hours', '0.1', '--profiles', 'calm,toxic'];
    const rows = JSON.parse(showcase([...args, '--json'])) as ShowcaseRow[];
    expect(rows.map((r) => `${r.strategy}/${r.source}`)).toEqual(
      ['bands', 'avellaneda', 'amm', 'crypto-fair-value', 'rewards', 'template'].flatMap((s) => [
        `${s}/calm world`,
        `${s}/toxic world`,
        `${s}/sample feed`,
      ]),
    );
    // the sample feed carries its markets' reward configs: every strategy's quotes are scored there,
    // and the rewards strategy earns on the feed and in each world
    for (const r of rows.filter((x) => x.source === 'sample feed')) expect(r.rewardsMean).not.toBeNull();
    for (const r of rows.filter((x) => x.strategy === 'rewards')) expect(r.rewardsMean, r.source).toBeGreaterThan(0);
    for (const r of rows) {
      if (r.source === 'sample feed') {
        expect(r.runs).toBe(1);
        expect(r.fillsPerRun, r.strategy).toBeGreaterThan(0);
        expect(r.pnlCi95).toBeNull();
      } else {
        expect(r.runs).toBe(2);
        expect(r.pnlCi95 === null || r.pnlCi95 >= 0).toBe(true);
      }
    }
    // the calm world has no news: nothing is picked off after a jump there
    for (const r of rows.filter((x) => x.source === 'calm world')) expect(r.pickedOff ?? 0).toBe(0);
    const table = showcase(args);
    expect(table).toBe(formatTable(rows) + '\n');
    expect(table.split('\n')[0]).toBe(
      '| strategy | source | runs | fills/run | PnL mean ± 95% CI (USDC) | PnL/σ | rewards (USDC) | max drawdown | markout +10s | markout +60s | picked off |',
    );
  }, 900_000);
});
