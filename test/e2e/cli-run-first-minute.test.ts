/**
 * A first `npm start` shows the bot trading within a minute: `mmkit run` with nothing configured
 * (an in-process paper exchange, its default realistic world, the default bands, a fresh data dir)
 * gets a fill of its own quotes from the world's flow alone (no test trader) within 60 s of its
 * first order, and says so in its summary.
 *
 * The minute is measured on the exchange's clock, not the test's, so a loaded machine (a slow start,
 * a late process) does not decide it: the run lasts 90 s, and the store says when the first order
 * went out and when the first fill matched. With the in-process exchange the bot and the exchange
 * share one process clock; an order's `created_at` is stamped before it is sent, so at or before
 * the exchange saw it, and a fill's `match_time` is the exchange's own (whole seconds, taken here as
 * the end of its second). So the interval measured is at least the exchange's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { runMmkit } from './support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'mmkit-first-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a first run', () => {
  it('fills one of its quotes within 60 s of its first order (exchange time), from the world alone', async () => {
    // the default settings: none of the environment's MMKIT_* variables (profile, seed, strategy...)
    const { code, out, err } = await runMmkit(['run', '--duration', '90s', '--data-dir', dir, '--http-port', '0'], {
      timeoutMs: 190_000,
    });
    expect(code, err.slice(-3000)).toBe(0);
    const fills = Number(/^\s+fills\s+(\d+)/m.exec(out)?.[1] ?? -1);
    expect(fills, out).toBeGreaterThan(0);

    const db = new Database(join(dir, 'mmkit.db'), { readonly: true });
    try {
      const firstOrder = (db.prepare('SELECT min(created_at) AS t FROM orders').get() as { t: number | null }).t;
      const firstFill = (
        db.prepare("SELECT min(match_time) AS t FROM fills WHERE source = 'bot'").get() as { t: number | null }
      ).t;
      expect(firstOrder, 'the bot placed no order').not.toBeNull();
      expect(firstFill, 'no fill of the bot').not.toBeNull();
      const seconds = (firstFill! + 1000 - firstOrder!) / 1000;
      expect(seconds, `first fill ${seconds.toFixed(1)} s after the first order`).toBeLessThanOrEqual(60);
    } finally {
      db.close();
    }
  }, 200_000);
});
