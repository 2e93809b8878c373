/**
 * replay.ts `checkFeedFiles`: a feed given twice (same path, another path to it, a byte-identical
 * copy) is found; two recordings of one market over overlapping times are found; parts of one
 * recording and feeds of other markets are not.
 */
import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFeedFiles } from '../../../src/backtest/replay.ts';
import { writeFeed } from '../../support/feed-gen.ts';

let dir: string;
let a: string;
let b: string;
let later: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-feed-check-'));
  a = join(dir, 'a.ndjson.gz');
  b = join(dir, 'b.ndjson.gz');
  later = join(dir, 'later.ndjson.gz');
  await writeFeed(a, { seed: 3, markets: 1, messages: 300, meanGapMs: 50 });
  // the same market, recorded again over the same time with other traffic
  await writeFeed(b, { seed: 3, markets: 1, messages: 200, meanGapMs: 80 });
  // the same market, a day later
  await writeFeed(later, { seed: 3, markets: 1, messages: 200, meanGapMs: 50, startMs: Date.UTC(2026, 0, 2) });
}, 30_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('checkFeedFiles', () => {
  it('finds one path given twice, and another path to the same file', async () => {
    expect((await checkFeedFiles([a, a])).duplicate).toEqual({ a, b: a, why: 'same-file' });
    const link = join(dir, 'link.ndjson.gz');
    symlinkSync(a, link);
    expect((await checkFeedFiles([a, link])).duplicate).toEqual({ a, b: link, why: 'same-file' });
  });

  it('finds a byte-identical copy under another name', async () => {
    const copy = join(dir, 'copy.ndjson.gz');
    copyFileSync(a, copy);
    expect((await checkFeedFiles([b, a, copy])).duplicate).toEqual({ a, b: copy, why: 'same-content' });
  });

  it('finds two recordings of one market over overlapping times, not ones one after the other', async () => {
    const c = await checkFeedFiles([a, b]);
    expect(c.duplicate).toBeUndefined();
    expect(c.overlaps).toHaveLength(1);
    expect(c.overlaps[0]!.markets).toHaveLength(1);
    expect(new Set([c.overlaps[0]!.a, c.overlaps[0]!.b])).toEqual(new Set([a, b]));
    expect(await checkFeedFiles([a, later])).toEqual({ overlaps: [] });
  });
});
