import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MatchingEngine } from '../../../../src/exchange/matching/engine.ts';
import type { EngineEvent } from '../../../../src/exchange/matching/types.ts';
import {
  bestOf,
  BookMirror,
  LevelCollector,
  noLevelOf,
  priceChangeEntry,
  sizeAt,
  spreadOf,
  withCurrentSizes,
  yesLevelOf,
} from '../../../../src/exchange/ws/market-map.ts';
import { formatAmount, formatPrice } from '../../../../src/core/units.ts';

describe('level -> token levels', () => {
  it('maps a YES bid to YES BUY p and NO SELL 1-p; a YES ask to YES SELL p and NO BUY 1-p', () => {
    expect(yesLevelOf({ side: 'bid', yesPrice: 4000, size: 7 })).toEqual({ price: 4000, side: 'BUY', size: 7 });
    expect(noLevelOf({ side: 'bid', yesPrice: 4000, size: 7 })).toEqual({ price: 6000, side: 'SELL', size: 7 });
    expect(yesLevelOf({ side: 'ask', yesPrice: 4700, size: 0 })).toEqual({ price: 4700, side: 'SELL', size: 0 });
    expect(noLevelOf({ side: 'ask', yesPrice: 4700, size: 0 })).toEqual({ price: 5300, side: 'BUY', size: 0 });
  });
  it('formats entries like GET /book', () => {
    const e = priceChangeEntry('t', { price: 5300, side: 'BUY', size: 12_500_000 }, 'h', {
      best_bid: '0.53',
      best_ask: '0',
    });
    expect(e).toEqual({
      asset_id: 't',
      price: '0.53',
      size: '12.5',
      side: 'BUY',
      hash: 'h',
      best_bid: '0.53',
      best_ask: '0',
    });
  });
  it('collects each level once, first-touch order, last size', () => {
    const c = new LevelCollector();
    c.add('bid', 4000, 1);
    c.add('ask', 4000, 2);
    c.add('bid', 3900, 3);
    c.add('bid', 4000, 0);
    expect(c.levels()).toEqual([
      { side: 'bid', yesPrice: 4000, size: 0 },
      { side: 'ask', yesPrice: 4000, size: 2 },
      { side: 'bid', yesPrice: 3900, size: 3 },
    ]);
  });
  it('finds level sizes in best-first sides', () => {
    const bids = [
      { price: 50, size: 1 },
      { price: 40, size: 2 },
      { price: 10, size: 3 },
    ];
    const asks = [
      { price: 60, size: 4 },
      { price: 70, size: 5 },
    ];
    expect(sizeAt(bids, 40, true)).toBe(2);
    expect(sizeAt(bids, 10, true)).toBe(3);
    expect(sizeAt(bids, 45, true)).toBe(0);
    expect(sizeAt(asks, 70, false)).toBe(5);
    expect(sizeAt(asks, 65, false)).toBe(0);
    expect(sizeAt([], 1, false)).toBe(0);
    const view = { market: 'm', tokenId: 't', bids, asks };
    expect(bestOf(view)).toEqual({ best_bid: '0.005', best_ask: '0.006' });
    expect(spreadOf(view)).toBe('0.001');
    expect(bestOf({ ...view, asks: [] })).toEqual({ best_bid: '0.005', best_ask: '0' });
    expect(spreadOf({ ...view, bids: [] })).toBe('0');
  });
});

describe('price_change stream reproduces both token books (property)', () => {
  it('applying the mapped level events to snapshots gives the engine books', () => {
    const Y = 'yes-token';
    const N = 'no-token';
    const wire = (
      v: { bids: { price: number; size: number }[]; asks: { price: number; size: number }[] },
      asset: string,
    ) => ({
      event_type: 'book',
      asset_id: asset,
      bids: v.bids.map((l) => ({ price: formatPrice(l.price), size: formatAmount(l.size) })),
      asks: v.asks.map((l) => ({ price: formatPrice(l.price), size: formatAmount(l.size) })),
    });
    const op = fc.record({
      acct: fc.integer({ min: 0, max: 2 }),
      token: fc.boolean(),
      buy: fc.boolean(),
      price: fc.integer({ min: 1, max: 99 }),
      lots: fc.integer({ min: 1, max: 30 }),
      type: fc.constantFrom('GTC', 'GTC', 'GTC', 'FAK'),
      cancel: fc.integer({ min: 0, max: 9 }),
    });
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 80 }), fc.integer({ min: 0, max: 20 }), (ops, snapAt) => {
        const e = new MatchingEngine();
        e.addMarket({
          conditionId: 'c',
          yesToken: Y,
          noToken: N,
          tickPips: 100,
          minSizeMicro: 0,
          negRisk: false,
          feeRateBps: 0,
        });
        for (const a of ['a0', 'a1', 'a2']) {
          e.credit(a, 1e12);
          e.setTokens(a, Y, 1e10);
          e.setTokens(a, N, 1e10);
        }
        const mirror = new BookMirror();
        let n = 0;
        const ids: string[] = [];
        let subscribed = false;
        for (const o of ops) {
          if (n++ === snapAt) {
            mirror.apply(wire(e.book(Y), Y));
            mirror.apply(wire(e.book(N), N));
            subscribed = true;
            e.drainEvents();
          }
          if (o.cancel === 0 && ids.length > 0) e.cancel(`a${o.acct}`, ids[o.lots % ids.length]!, n, 'USER');
          else {
            const id = `o${n}`;
            ids.push(id);
            e.place(
              {
                id,
                account: `a${o.acct}`,
                owner: 'k',
                tokenId: o.token ? Y : N,
                side: o.buy ? 'BUY' : 'SELL',
                price: o.price * 100,
                size: o.lots * 10_000,
                type: o.type,
                postOnly: false,
                expiresAt: 0,
                feeRateBps: 0,
              },
              n,
            );
          }
          const evs = e.drainEvents().filter((x): x is Extract<EngineEvent, { type: 'level' }> => x.type === 'level');
          if (!subscribed || evs.length === 0) continue;
          const col = new LevelCollector();
          for (const l of evs) col.add(l.side, l.yesPrice, l.size);
          const levels = withCurrentSizes(col.levels(), e.book(Y));
          const changes = (asset: string, f: typeof yesLevelOf) =>
            levels.map((l) => priceChangeEntry(asset, f(l), '', { best_bid: '', best_ask: '' }));
          mirror.apply({
            event_type: 'price_change',
            price_changes: [...changes(Y, yesLevelOf), ...changes(N, noLevelOf)],
          });
        }
        if (!subscribed) return;
        for (const asset of [Y, N]) {
          const w = wire(e.book(asset), asset);
          const got = mirror.levels(asset)!;
          expect(got.bids).toEqual(new Map(w.bids.map((l) => [l.price, l.size])));
          expect(got.asks).toEqual(new Map(w.asks.map((l) => [l.price, l.size])));
        }
      }),
      { numRuns: 300 },
    );
  });
});
