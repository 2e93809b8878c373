import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import type { ConditionId, TokenId } from '../../../src/core/ids.ts';
import type { MarketInfo } from '../../../src/core/venue.ts';
import type { BookView, SelectContext } from '../../../src/strategy/api.ts';
import { chooseMarkets, defaultSelectMarkets, levelsBookView } from '../../../src/strategy/select.ts';
import { marketInfo, SH } from './fixtures.ts';

const cid = (i: number) => `0x${i.toString(16).padStart(64, '0')}` as ConditionId;
const mk = (i: number): MarketInfo => marketInfo(cid(i), `${i}1` as TokenId, `${i}2` as TokenId);
/** A book of `n` levels a side for market i's YES token. */
const books = (levels: Record<number, number>) => async (t: TokenId) => {
  const n = levels[Number(t.slice(0, -1))];
  if (n === undefined) throw new Error('no book');
  const side = Array.from({ length: n }, (_, k) => [100 * (k + 1), SH] as const);
  return levelsBookView(t, side, side);
};
const log = {
  debug() {},
  info() {},
  warnings: [] as object[],
  warn(o: object) {
    this.warnings.push(o);
  },
};
const ctx = (over: Partial<SelectContext> = {}): SelectContext => ({
  now: 0,
  count: 2,
  params: {},
  book: books({ 1: 1, 2: 5, 3: 3 }),
  log,
  ...over,
});

describe('defaultSelectMarkets', () => {
  it('the most resting levels first; unreadable books skipped; ties in the candidates order', async () => {
    const ms = [mk(1), mk(2), mk(3), mk(4)];
    expect(await defaultSelectMarkets(ms, ctx())).toEqual([cid(2), cid(3)]);
    expect(await defaultSelectMarkets(ms, ctx({ count: 9, book: books({ 1: 2, 2: 2, 4: 2 }) }))).toEqual([
      cid(1),
      cid(2),
      cid(4),
    ]);
  });

  it('reads the books of the first 30 candidates only', async () => {
    const ms = Array.from({ length: 40 }, (_, i) => mk(i + 1));
    const levels: Record<number, number> = {};
    for (let i = 1; i <= 40; i++) levels[i] = i;
    expect(await defaultSelectMarkets(ms, ctx({ count: 1, book: books(levels) }))).toEqual([cid(30)]);
  });
});

describe('chooseMarkets', () => {
  const ms = [mk(1), mk(2), mk(3)];
  it('without selectMarkets: the default pick', async () => {
    expect((await chooseMarkets({ name: 'x' }, ms, ctx())).map((m) => m.market)).toEqual([cid(2), cid(3)]);
  });

  it("the strategy's order, at most count, unknown ids ignored (and logged), duplicates once, any case", async () => {
    log.warnings.length = 0;
    const def = {
      name: 'mine',
      selectMarkets: (_: readonly MarketInfo[], c: SelectContext) => {
        expect(c.count).toBe(2);
        return [cid(9), cid(3), cid(3), cid(1).toUpperCase().replace('0X', '0x') as ConditionId, cid(2)];
      },
    };
    expect((await chooseMarkets(def, ms, ctx())).map((m) => m.market)).toEqual([cid(3), cid(1)]);
    expect(log.warnings).toEqual([{ strategy: 'mine', unknown: [cid(9)] }]);
  });

  it('async selectMarkets reading books through ctx.book', async () => {
    const def = {
      name: 'fewest',
      async selectMarkets(markets: readonly MarketInfo[], c: SelectContext) {
        const n = new Map<ConditionId, number>();
        for (const m of markets) {
          const b: BookView | undefined = await c.book(m.tokens[0].tokenId);
          n.set(m.market, b?.levels('bids').length ?? 0);
        }
        return [...n].sort((a, b) => a[1] - b[1]).map(([m]) => m);
      },
    };
    expect((await chooseMarkets(def, ms, ctx())).map((m) => m.market)).toEqual([cid(1), cid(3)]);
  });

  it('a selectMarkets that throws or answers junk: ConfigError naming the strategy', async () => {
    const boom = {
      name: 'b',
      selectMarkets: () => {
        throw new Error('no');
      },
    };
    await expect(chooseMarkets(boom, ms, ctx())).rejects.toThrow(ConfigError);
    await expect(chooseMarkets(boom, ms, ctx())).rejects.toThrow(
      /^config strategy: b: selectMarkets threw: no \(at .*select\.test\.ts:\d+:\d+\)$/,
    );
    const junk = { name: 'j', selectMarkets: () => 'x' as unknown as ConditionId[] };
    await expect(chooseMarkets(junk, ms, ctx())).rejects.toThrow(/j: selectMarkets must return condition ids/);
  });

  it('ids of which none is a candidate: named, not "chose none" (trial 10 F17); some unknown: ignored', async () => {
    const wrong = { name: 'w', selectMarkets: () => ['0xnotamarket' as ConditionId] };
    await expect(chooseMarkets(wrong, ms, ctx())).rejects.toThrow(
      `config strategy: w: selectMarkets returned 1 id(s), none of them one of the ${ms.length} candidate markets: 0xnotamarket`,
    );
    const some = { name: 's', selectMarkets: () => ['0xnotamarket' as ConditionId, cid(2)] };
    expect((await chooseMarkets(some, ms, ctx())).map((m) => m.market)).toEqual([cid(2)]);
    const none = { name: 'n', selectMarkets: () => [] as ConditionId[] };
    expect(await chooseMarkets(none, ms, ctx())).toEqual([]);
  });
});

describe('levelsBookView', () => {
  it('best first levels, touch, mid, depth', () => {
    const b = levelsBookView(
      '7' as TokenId,
      [
        [4900, SH],
        [4800, 2 * SH],
      ],
      [[5100, SH]],
    );
    expect([b.bestBid, b.bestAsk, b.mid, b.stale]).toEqual([4900, 5100, 5000, false]);
    expect(b.levels('bids', 1)).toEqual([[4900, SH]]);
    expect(levelsBookView('7' as TokenId, [], []).mid).toBeNull();
  });
});
