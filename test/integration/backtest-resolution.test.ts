/**
 * A market that resolves in a recorded feed (trial 8 F7): the backtest settles its positions into
 * realized PnL at 1 / 0, as the daemon's auto-redeem books a redemption live, instead of keeping
 * them open and marked at 1 / 0 (unrealized). The real runner, engine, store and bands strategy on a
 * generated feed with a `market_resolved` frame appended; nothing of ours mocked.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/runner.ts';
import { PRICE_SCALE } from '../../src/core/units.ts';
import { frameLine } from '../../src/venues/sim/feed.ts';
import { generateFeed, genMarkets } from '../support/feed-gen.ts';

const SEED = 5;
let dir: string;
let feed: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mmkit-bt-resolve-'));
  feed = join(dir, 'feed.ndjson.gz');
  const lines: string[] = [];
  await generateFeed({ seed: SEED, markets: 2, messages: 12_000, meanGapMs: 60, tradeShare: 0.04 }, (l) =>
    lines.push(l),
  );
  const m = genMarkets(SEED, 2)[0]!;
  const lastT = (JSON.parse(lines[lines.length - 1]!) as { t: number }).t;
  const yes = m.tokens[0]!.tokenId;
  const resolved = `{"event_type":"market_resolved","market":"${m.market}","winning_asset_id":"${yes}","winning_outcome":"Yes","timestamp":"${Math.floor(lastT)}"}`;
  lines.push(frameLine(lastT + 500, 'm', resolved));
  writeFileSync(feed, gzipSync(lines.join('\n') + '\n'));
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('backtest: a market resolved in the feed', () => {
  it('its positions are settled into realized PnL at 1 / 0 (size 0), as a redemption books them live', async () => {
    const r = await runBacktest({ feeds: [feed], strategy: 'bands', seed: 1, risk: { maxRejections: 1000 } });
    expect(r.stopReason).toBe('end of feed');
    const m = genMarkets(SEED, 2)[0]!;
    const [yes, no] = [m.tokens[0]!.tokenId, m.tokens[1]!.tokenId];
    expect(r.markets.find((x) => x.market === m.market)?.resolvedTo).toBe(yes);
    const mine = r.positions.filter((p) => p.tokenId === yes || p.tokenId === no);
    // the bot held some of this market when it resolved (else the test proves nothing)
    expect(mine.some((p) => p.bought !== p.sold)).toBe(true);
    for (const p of mine) {
      expect(p.size).toBe(0);
      expect(p.mark).toBe(p.tokenId === yes ? PRICE_SCALE : 0);
    }
    expect(r.pnl.total).toBe(r.pnl.realized + r.pnl.unrealized - r.pnl.fees);
    // the other market's positions stay open, marked to the mid
    const other = genMarkets(SEED, 2)[1]!;
    const rest = r.positions.filter((p) => other.tokens.some((t) => t.tokenId === p.tokenId));
    const open = rest.filter((p) => p.size !== 0);
    for (const p of open) expect(p.mark).not.toBe(null);
  }, 120_000);
});
