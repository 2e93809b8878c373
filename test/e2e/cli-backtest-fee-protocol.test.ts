/**
 * `--fee-protocol` of `mmkit backtest` and `mmkit sweep` (trial 8 F8 leftover), as real processes of
 * bin/mmkit.js: a feed whose header says protocol 1 is backtested under it (`--json` `feeProtocol`,
 * the summary's `fee protocol 1`), the flag overrides the header, and a bad value is a usage error
 * (exit 2) naming the flag.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFeed } from '../support/feed-gen.ts';
import { runMmkit } from './support/cli.ts';

let dir: string;
let feed: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-fee-protocol-'));
  feed = join(dir, 'v1.ndjson.gz');
  await writeFeed(feed, { seed: 3, markets: 1, messages: 300, feeRateBps: 1000, protocol: 1 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const backtest = (...extra: string[]) =>
  runMmkit(['backtest', '--feed', feed, '--strategy', 'bands', '--no-feed-cache', ...extra]);

describe('mmkit backtest --fee-protocol', () => {
  it("the feed header's protocol by default, the flag's when given", async () => {
    const header = await backtest('--json');
    expect(header.code, header.err).toBe(0);
    expect(JSON.parse(header.out).feeProtocol).toBe(1);
    const flag = await backtest('--json', '--fee-protocol', '2');
    expect(flag.code, flag.err).toBe(0);
    expect(JSON.parse(flag.out).feeProtocol).toBe(2);
    const summary = await backtest();
    expect(summary.code, summary.err).toBe(0);
    expect(summary.out).toMatch(
      /^mmkit backtest: .*latency 0 ms, fee protocol 1, post-only off, risk limits default$/m,
    );
  }, 120_000);

  it('a bad value is a usage error (exit 2), in backtest and sweep', async () => {
    for (const bad of ['3', 'v2', '']) {
      const r = await backtest('--fee-protocol', bad);
      expect(r.code, r.err).toBe(2);
      expect(r.err).toContain('--fee-protocol must be 1 or 2');
    }
    const s = await runMmkit([
      'sweep',
      '--feed',
      feed,
      '--strategy',
      'bands',
      '--grid',
      '{"margin":[0.01,0.02]}',
      '--fee-protocol',
      '0',
    ]);
    expect(s.code, s.err).toBe(2);
    expect(s.err).toContain('--fee-protocol must be 1 or 2');
  }, 120_000);
});
