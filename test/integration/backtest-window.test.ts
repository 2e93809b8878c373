/**
 * A feed backtest of a window of the recording (`fromMs`/`toMs`, `mmkit backtest --from/--to`;
 * trial 11 F5: the recording starts before the bot and ends after it, and a backtest of the whole
 * of it is not comparable with the run). The records before the window's start build the books the
 * bot starts with, as a live bot gets them on subscribing: it quotes at once, not after the next
 * snapshot of each book. Its figures cover the window only.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/errors.ts';
import { runBacktest, type BacktestOptions } from '../../src/backtest/runner.ts';

/** 5.5 minutes of a paper exchange (3 markets) recorded by `mmkit record`, 22:08:42.818 to 22:14:12.822 UTC. */
const FEED = new URL('../fixtures/paper-feed-5m.ndjson.gz', import.meta.url).pathname;
const FROM = Date.parse('2026-11-28T22:10:00Z');
const TO = Date.parse('2026-11-28T22:13:00Z');

const run = (o: Partial<BacktestOptions> = {}) => {
  let firstQuoteAt: number | undefined;
  const r = runBacktest({
    feeds: [FEED],
    strategy: 'bands',
    latencyMs: 2,
    risk: { maxRejections: 100_000 },
    hooks: { onGate: (d) => void (firstQuoteAt ??= d.quotes.length > 0 ? d.at : undefined) },
    ...o,
  });
  return r.then((x) => ({ ...x, firstQuoteAt }));
};

describe.skipIf(!existsSync(FEED))('backtest: a window of the feed', () => {
  it('trades from its start with the books as they stood, stops at its end, and counts only it', async () => {
    const whole = await run();
    const w = await run({ fromMs: FROM, toMs: TO });
    expect(w.startMs).toBe(FROM);
    expect(w.endMs).toBe(TO);
    expect(w.stopReason).toBe('end of the window (--to)');
    // the books were there when the bot subscribed: it quoted within its first second
    expect(w.firstQuoteAt! - FROM).toBeLessThan(1000);
    expect(w.fillCount).toBeGreaterThan(0);
    expect(w.fillCount).toBeLessThan(whole.fillCount);
    for (const f of w.fills) {
      expect(f.t).toBeGreaterThanOrEqual(FROM);
      expect(f.t).toBeLessThanOrEqual(TO);
    }
    // a window of the whole feed is the whole feed
    const all = await run({ fromMs: whole.startMs, toMs: whole.endMs });
    expect(all.fills).toEqual(whole.fills);
    expect(all.pnl).toEqual(whole.pnl);
  }, 120_000);

  it('refuses a window after the feed, one that ends before it starts, and one of a world backtest', async () => {
    await expect(run({ fromMs: TO + 3_600_000 })).rejects.toThrow(/after the feed's last record/);
    // a window wholly before the feed (unix seconds given for ms, trial 12 F2): said, not an empty run
    await expect(run({ fromMs: 1_795_903_000, toMs: 1_795_903_200 })).rejects.toThrow(/before the feed's first record/);
    await expect(run({ fromMs: TO, toMs: FROM })).rejects.toBeInstanceOf(ConfigError);
    await expect(
      runBacktest({ world: { seed: 1, durationMs: 60_000 }, strategy: 'bands', fromMs: FROM }),
    ).rejects.toThrow(/feed backtests only/);
  }, 60_000);
});
