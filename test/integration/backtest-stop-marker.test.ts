/**
 * The recorder's orderly stop (`{"e":"disconnect","r":"stop"}`, written as `mmkit record` ends) is
 * no venue disconnect when nothing follows it: a backtest of a whole recording counts no
 * disconnect and pulls no quotes at its end (trial 11 F6: `venue.disconnects` 1 and 3 pulls). A stop
 * followed by more data (a later part of the recording) is a real gap, and is still one.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.ts';

/** 5.5 minutes of a paper exchange recorded by `mmkit record` (trial 11): it ends with the stop marker. */
const FEED = new URL('../fixtures/paper-feed-5m.ndjson.gz', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'mmkit-stop-marker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (feed: string) =>
  runBacktest({ feeds: [feed], strategy: 'bands', latencyMs: 2, risk: { maxRejections: 100_000 } });

describe('backtest: the recorder stop marker', () => {
  it('at the end of a recording: no disconnect, no pull; in its middle, followed by data: a disconnect', async () => {
    const lines = gunzipSync(readFileSync(FEED)).toString('utf8').split('\n').filter(Boolean);
    const isStop = (l: string) => /"e":"disconnect","r":"stop"/.test(l);
    expect(lines.slice(-2).every(isStop)).toBe(true);
    const whole = await run(FEED);
    expect(whole.fillCount).toBeGreaterThan(0);
    expect((whole.venue as { disconnects: number }).disconnects).toBe(0);
    expect(whole.engine.pulls).toBe(0);
    // the same recording stopped halfway and started again: its stop is a gap
    const body = lines.slice(0, -2);
    const mid = Math.floor(body.length / 2);
    const t = (JSON.parse(body[mid - 1]!) as { t: number }).t;
    const parted = [
      ...body.slice(0, mid),
      JSON.stringify({ t, c: 'm', e: 'disconnect', r: 'stop' }),
      JSON.stringify({ t: t + 1, c: 'm', e: 'connect', r: '' }),
      ...body.slice(mid),
    ];
    const file = join(dir, 'parted.ndjson');
    writeFileSync(file, `${parted.join('\n')}\n`);
    const gap = await run(file);
    expect((gap.venue as { disconnects: number }).disconnects).toBe(1);
    expect(gap.engine.pulls).toBeGreaterThan(0);
  }, 120_000);
});
