/**
 * The pure parts of distributed sweeps (src/backtest/sweep-queue.ts, sweep-fingerprint.ts): job
 * ids without ':', paths made absolute and no feed-cache folder sent, rows checked on the way back,
 * and a code fingerprint of contents, not of modification times.
 */
import { mkdtempSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toLosslessJson } from '../../../src/backtest/lossless-json.ts';
import { codeFingerprint } from '../../../src/backtest/sweep-fingerprint.ts';
import { decodeRow, distributableBase, pointJobId, sweepQueueName } from '../../../src/backtest/sweep-queue.ts';
import { failedRow, type SweepTask } from '../../../src/backtest/sweep.ts';

describe('distributed sweep jobs', () => {
  it('job ids and queue names carry no colon', () => {
    expect(pointJobId('0123456789abcdef', 12)).toBe('0123456789abcdef-12');
    expect(sweepQueueName('0123456789abcdef')).toBe('mmkit-sweep-0123456789abcdef');
    expect(pointJobId('a', 1) + sweepQueueName('b')).not.toContain(':');
  });

  it('sends feeds and a strategy path absolute, and no feed-cache folder', () => {
    const b = distributableBase(
      { strategy: './my.ts', feeds: ['a.gz', '/abs/b.gz'], feedCache: '/home/me/.cache/x', seed: 3 },
      '/work/run',
    );
    expect(b).toEqual({ strategy: '/work/run/my.ts', feeds: ['/work/run/a.gz', '/abs/b.gz'], seed: 3 });
    expect(distributableBase({ strategy: 'bands' }, '/x')).toEqual({ strategy: 'bands' });
  });

  it("keeps a worker's row exactly (NaN, -0), and refuses a row of another point", () => {
    const task: SweepTask = { index: 2, point: { m: 1 }, options: { strategy: 'bands' } };
    const row = { ...failedRow(2, { m: 1 }, 'x'), error: undefined, stopReason: 'end', pnl: -0, sharpe: NaN };
    const back = decodeRow(task, toLosslessJson(row));
    expect(Object.is(back.pnl, -0)).toBe(true);
    expect(Number.isNaN(back.sharpe)).toBe(true);
    expect(decodeRow(task, toLosslessJson({ ...row, index: 3 })).error).toMatch(/no row for this point/);
    expect(decodeRow(task, '{"$":"bad"}').error).toMatch(/unreadable/);
    expect(decodeRow(task, 42).error).toMatch(/no row/);
  });

  it('the code fingerprint follows contents and the Node.js version, not modification times', () => {
    const root = mkdtempSync(join(tmpdir(), 'mmkit-fp-'));
    try {
      mkdirSync(join(root, 'src'));
      writeFileSync(join(root, 'src', 'a.ts'), 'export const a = 1;\n');
      writeFileSync(join(root, 'package.json'), '{}');
      const f1 = codeFingerprint(root, 'v20.0.0');
      expect(f1).toMatch(/^[0-9a-f]{16}$/);
      utimesSync(join(root, 'src', 'a.ts'), new Date(0), new Date(0));
      expect(codeFingerprint(root, 'v20.0.0')).toBe(f1);
      expect(codeFingerprint(root, 'v20.0.1')).not.toBe(f1);
      writeFileSync(join(root, 'src', 'a.ts'), 'export const a = 2;\n');
      expect(codeFingerprint(root, 'v20.0.0')).not.toBe(f1);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
