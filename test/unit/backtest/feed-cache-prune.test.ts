/**
 * The feed-cache folder's pruning (src/backtest/feed-cache-prune.ts) on real files in a temporary
 * folder: leftovers, caches of other versions, the least-recently-used size cap, what is never
 * touched; and, as a property over random folders, the cap's contract.
 */
import fc from 'fast-check';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FEED_CACHE_VERSION, decoderFingerprint } from '../../../src/backtest/feed-cache.ts';
import { FOREIGN_AFTER_MS, ORPHAN_AFTER_MS, pruneFeedCaches } from '../../../src/backtest/feed-cache-prune.ts';

const root = mkdtempSync(join(tmpdir(), 'mmkit-prune-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const folder = () => {
  const d = join(root, String(n++));
  mkdirSync(d);
  return d;
};
const NOW = Date.UTC(2026, 10, 26, 12);
const hex = (c: string) => c.repeat(64);
const own = (c: string) =>
  `${hex(c)}.v${FEED_CACHE_VERSION}${decoderFingerprint() ? `-${decoderFingerprint()}` : ''}.mmfc`;
const put = (dir: string, name: string, bytes: number, ageMs: number): string => {
  const f = join(dir, name);
  writeFileSync(f, Buffer.alloc(bytes));
  const t = new Date(NOW - ageMs);
  utimesSync(f, t, t);
  return f;
};

describe('pruneFeedCaches', () => {
  it('removes leftovers after an hour and foreign caches after a week; never other files; no cap: no own cache goes', () => {
    const d = folder();
    put(d, `${own('a')}.123.k3j.tmp`, 10, ORPHAN_AFTER_MS + 1);
    put(d, `${own('b')}.456.zz.tmp`, 10, ORPHAN_AFTER_MS - 1000); // a builder still writing
    put(d, '.probe-77', 0, ORPHAN_AFTER_MS + 1);
    put(d, `${hex('c')}.v1.mmfc`, 100, FOREIGN_AFTER_MS + 1);
    put(d, `${hex('d')}.v1-0123456789ab.mmfc`, 100, FOREIGN_AFTER_MS - 1000); // another version, still used
    put(d, own('e'), 1000, 365 * 86_400_000); // ours, old: kept without a cap
    put(d, 'notes.txt', 5, FOREIGN_AFTER_MS * 10);
    put(d, `${hex('f')}.v1.mmfc.bak`, 5, FOREIGN_AFTER_MS * 10);
    mkdirSync(join(d, own('g'))); // a folder with a cache's name
    const r = pruneFeedCaches(d, { now: NOW });
    expect(r.removed.map((x) => [x.file.slice(d.length + 1), x.why]).sort()).toEqual(
      [
        [`${own('a')}.123.k3j.tmp`, 'orphan'],
        ['.probe-77', 'orphan'],
        [`${hex('c')}.v1.mmfc`, 'foreign'],
      ].sort(),
    );
    expect(r.freedBytes).toBe(110);
    expect(r.keptBytes).toBe(1100);
    expect(readdirSync(d).sort()).toEqual(
      [
        `${own('b')}.456.zz.tmp`,
        `${hex('d')}.v1-0123456789ab.mmfc`,
        `${hex('f')}.v1.mmfc.bak`,
        own('e'),
        own('g'),
        'notes.txt',
      ].sort(),
    );
  });

  it('evicts the least recently used caches beyond the cap, never one used since keepSince', () => {
    const d = folder();
    put(d, own('1'), 400, 5000);
    put(d, own('2'), 400, 4000);
    put(d, `${hex('3')}.v1.mmfc`, 400, 3000); // foreign but recent: counts, and is evicted by age like any
    put(d, own('4'), 400, 500); // used by the current run
    const r = pruneFeedCaches(d, { now: NOW, maxBytes: 900, keepSince: NOW - 1000 });
    expect(r.removed.map((x) => [x.file.slice(d.length + 1), x.why])).toEqual([
      [own('1'), 'size'],
      [own('2'), 'size'],
    ]);
    expect(r.keptBytes).toBe(800);
    // a cap smaller than what the run uses: everything else goes, the run's cache stays
    const r2 = pruneFeedCaches(d, { now: NOW, maxBytes: 1, keepSince: NOW - 1000 });
    expect(r2.removed.map((x) => x.file.slice(d.length + 1))).toEqual([`${hex('3')}.v1.mmfc`]);
    expect(readdirSync(d)).toEqual([own('4')]);
    expect(r2.keptBytes).toBe(400);
  });

  it('a missing folder is an empty one', () => {
    expect(pruneFeedCaches(join(root, 'nope'), { now: NOW, maxBytes: 0 })).toEqual({
      removed: [],
      freedBytes: 0,
      keptBytes: 0,
    });
  });

  it('property: under the cap afterwards unless only kept caches remain; evicted caches are the oldest, kept ones never go', () => {
    fc.assert(
      fc.property(
        // ages in whole seconds: file times round-trip exactly (NOW is a whole second too)
        fc.array(
          fc.record({
            bytes: fc.integer({ min: 0, max: 1000 }),
            age: fc.integer({ min: 0, max: 100 }).map((x) => x * 1000),
          }),
          { maxLength: 12 },
        ),
        fc.integer({ min: 0, max: 6000 }),
        fc.integer({ min: 0, max: 100 }).map((x) => x * 1000),
        (files, cap, keepAge) => {
          const d = folder();
          const made = files.map((f, i) => ({
            ...f,
            file: put(d, own(i.toString(16)).replace(/^[0-9a-f]+/, i.toString(16).padStart(64, '0')), f.bytes, f.age),
          }));
          const keepSince = NOW - keepAge;
          const r = pruneFeedCaches(d, { now: NOW, maxBytes: cap, keepSince });
          const gone = new Set(r.removed.map((x) => x.file));
          const left = made.filter((m) => !gone.has(m.file));
          for (const m of made) expect(existsSync(m.file)).toBe(!gone.has(m.file));
          const leftBytes = left.reduce((s, m) => s + m.bytes, 0);
          expect(r.keptBytes).toBe(leftBytes);
          const kept = (m: { age: number }) => NOW - m.age >= keepSince;
          // kept (recently used) caches never go
          for (const m of made) if (kept(m)) expect(gone.has(m.file)).toBe(false);
          // over the cap afterwards only when every remaining cache is a kept one
          if (leftBytes > cap) expect(left.every(kept)).toBe(true);
          // nothing was evicted that was not needed: putting back the last one evicted goes over the cap
          const evicted = made.filter((m) => gone.has(m.file));
          if (evicted.length > 0) {
            const last = made.find((m) => m.file === r.removed[r.removed.length - 1]!.file)!;
            expect(leftBytes + last.bytes).toBeGreaterThan(cap);
            // and every evicted one is at least as old as every unkept one left
            for (const e of evicted) for (const l of left) if (!kept(l)) expect(e.age).toBeGreaterThanOrEqual(l.age);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
