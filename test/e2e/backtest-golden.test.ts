/**
 * The backtest of the sample feed is a fixed point: `mmkit backtest --feed
 * test/fixtures/sample-feed.ndjson.gz --strategy bands --json` prints exactly the bytes of
 * test/fixtures/sample-feed-bands.expected.json, recorded before the bot's wiring was moved into
 * the one kernel (src/kernel). A restructuring or a speed-up that changes a result fails here; a
 * deliberate change of results re-records the file (and says why in its commit).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runMmkit } from './support/cli.ts';

const backtestJson = () =>
  runMmkit([
    'backtest',
    '--feed',
    'test/fixtures/sample-feed.ndjson.gz',
    '--strategy',
    'bands',
    '--json',
    '--no-feed-cache',
  ]);

describe('the sample feed backtest', () => {
  it('prints byte-identical JSON to the recorded expectation', async () => {
    const r = await backtestJson();
    expect(r.code, r.err).toBe(0);
    const want = readFileSync(join(ROOT, 'test/fixtures/sample-feed-bands.expected.json'), 'utf8');
    if (r.out !== want) expect(JSON.parse(r.out)).toEqual(JSON.parse(want)); // shows where it differs
    expect(r.out).toBe(want);
  }, 120_000);
});
