/**
 * `bot.markets` / `--markets` are taken in the order given, so a strategy iterating `ctx.markets`
 * trades the same markets in `mmkit run` and in a backtest (trial 12 F4: the daemon's order was the
 * venue's listing, sorted by condition id; the backtest's the feed header's).
 */
import { describe, expect, it } from 'vitest';
import { pickMarkets } from '../../../src/cli/run-markets.ts';
import type { RunConfig } from '../../../src/cli/run.ts';
import { marketsInOrder } from '../../../src/core/venue.ts';
import { loadStrategy } from '../../../src/strategy/loader.ts';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import { marketInfo } from '../strategy/fixtures.ts';

const id = (c: string) => `0x${c.repeat(64)}` as ConditionId;
const tok = (c: string) => `${c}${c}` as TokenId;
const [A, B, C] = [id('a'), id('b'), id('c')];
const all = [marketInfo(A, tok('1'), tok('2')), marketInfo(B, tok('3'), tok('4')), marketInfo(C, tok('5'), tok('6'))];

describe('markets in the order given', () => {
  it('keeps the order of the ids, any case, a repeat once, and names the ones not found', () => {
    const r = marketsInOrder(all, [C, A.toUpperCase().replace('0X', '0x'), C, '0xdead']);
    expect(r.found.map((m) => m.market)).toEqual([C, A]);
    expect(r.missing).toEqual(['0xdead']);
  });
  it('mmkit run: bot.markets in its order (the venue lists them sorted by condition id)', async () => {
    const def = await loadStrategy('bands');
    const log = { child: () => log, info() {}, warn() {}, debug() {}, error() {} } as never;
    const cfg = { markets: [C, A], marketFilters: {}, marketCount: 1 } as unknown as RunConfig;
    const got = await pickMarkets({} as never, all, cfg, 0, def, {}, log);
    expect(got.map((m) => m.market)).toEqual([C, A]);
    await expect(pickMarkets({} as never, all, { ...cfg, markets: [B, id('d')] }, 0, def, {}, log)).rejects.toThrow(
      /unknown or inactive market\(s\): 0xd+/,
    );
  });
});
