/**
 * `template` (strategies/template.ts): the plugin users copy quotes exactly what its comments say,
 * under the common rules. Prices in pips (0.01 = 100), sizes in micro-shares (SH = one share).
 */
import { describe, expect, it } from 'vitest';
import type { QuoteIntent } from '../../../src/core/intents.ts';
import { loadStrategy } from '../../../src/strategy/loader.ts';
import { resolveParams } from '../../../src/strategy/params.ts';
import template from '../../../strategies/template.ts';
import {
  bookView,
  ctxFor,
  fakeState,
  levelEvent,
  M1,
  marketInfo,
  NO1,
  order,
  SH,
  snapshotEvent,
  timerEvent,
  YES1,
} from '../strategy/fixtures.ts';

const simple = (qs: readonly QuoteIntent[] | undefined) =>
  (qs ?? []).map((q) => `${q.tokenId === YES1 ? 'Y' : 'N'} ${q.side} ${q.price} ${q.size / SH}`);
const book = (bid = 4900, ask = 5100, stale = false) => bookView(YES1, [[bid, 100 * SH]], [[ask, 100 * SH]], stale);
const handler = (o: Record<string, unknown> = {}) =>
  template.create(ctxFor([marketInfo(M1, YES1, NO1)]), resolveParams(template.params, { halfSpread: 0.02, ...o }));

describe('template', () => {
  it('loads by name; every param documented', async () => {
    const def = await loadStrategy('template');
    expect(def.name).toBe('template');
    for (const spec of Object.values(def.params)) expect(spec.doc.length).toBeGreaterThan(10);
  });
  it('bids mid - 0.02 and asks mid + 0.02 out of YES held', () => {
    const s = fakeState({ books: [book()], positions: { [YES1]: 50 * SH } });
    expect(simple(handler().onEvent(snapshotEvent(M1, YES1), s)?.quotes?.[0]?.quotes)).toEqual([
      'Y BUY 4800 10',
      'Y SELL 5200 10',
    ]);
    // no YES held: no ask; with tokens 'both' the ask becomes a NO bid
    const flat = fakeState({ books: [book()] });
    expect(simple(handler().onEvent(timerEvent(), flat)?.quotes?.[0]?.quotes)).toEqual(['Y BUY 4800 10']);
    expect(simple(handler({ tokens: 'both' }).onEvent(timerEvent(), flat)?.quotes?.[0]?.quotes)).toEqual([
      'Y BUY 4800 10',
      'N BUY 4800 10',
    ]);
  });
  it('rounds bids down and asks up (mid 0.495 on a 0.01 tick)', () => {
    const s = fakeState({ books: [book(4900, 5000)], positions: { [YES1]: 50 * SH } });
    // 0.475 -> 0.47, 0.515 -> 0.52
    expect(simple(handler().onEvent(timerEvent(), s)?.quotes?.[0]?.quotes)).toEqual([
      'Y BUY 4700 10',
      'Y SELL 5200 10',
    ]);
  });
  it('no book, a stale or one-sided book: an empty set', () => {
    for (const s of [
      fakeState(),
      fakeState({ books: [book(4900, 5100, true)] }),
      fakeState({ books: [bookView(YES1, [[4900, SH]], [])] }),
    ]) {
      expect(handler().onEvent(timerEvent(), s)?.quotes?.[0]?.quotes).toEqual([]);
    }
  });
  it('keeps a live order within priceTolerance ticks; ignores events that do not move quotes', () => {
    const s = fakeState({ books: [book()], orders: [order(M1, YES1, 'BUY', 4700, 10 * SH)] });
    expect(simple(handler({ priceTolerance: 1 }).onEvent(timerEvent(), s)?.quotes?.[0]?.quotes)).toEqual([
      'Y BUY 4700 10',
    ]);
    expect(handler().onEvent(levelEvent(M1, YES1, false), s)).toBeUndefined();
  });
});
