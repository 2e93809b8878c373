/**
 * `bands --param bandsFile=PATH`: poly-market-maker's bands file (`{"bands": [...]}`) loads into
 * our bands (units, order, its validity rules), a bad file is a ConfigError naming the field, and
 * the quotes follow poly-market-maker's two-token semantics (tokens 'both', the default: a YES bid
 * is also a NO sell, inventory sold before buying the other token).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/core/errors.ts';
import type { QuoteIntent } from '../../../src/core/intents.ts';
import { resolveParams } from '../../../src/strategy/params.ts';
import { defaultSelectMarkets } from '../../../src/strategy/select.ts';
import { loadBandsFile, parseBands } from '../../../src/strategy/band-ladder.ts';
import bands, { BANDS_PARAMS, bandsConfig, quoteMarket, type MarketPlan } from '../../../strategies/bands.ts';
import {
  bookView,
  complementView,
  ctxFor,
  fakeState,
  M1,
  M2,
  marketInfo,
  NO1,
  NO2,
  order,
  SH,
  YES1,
  YES2,
} from './fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'mmkit-bands-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
/** Writes `text` (or JSON of it) to a fresh file; returns its path. */
function file(content: unknown): string {
  const p = join(dir, `bands-${++n}.json`);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}
const band = (o: Record<string, unknown> = {}) => ({
  minMargin: 0.01,
  avgMargin: 0.015,
  maxMargin: 0.02,
  minAmount: 10,
  avgAmount: 20,
  maxAmount: 30,
  ...o,
});
const cfgOf = (o: Record<string, unknown>) => bandsConfig(resolveParams(BANDS_PARAMS, o));
const EXAMPLE = new URL('../../../config/bands.example.json', import.meta.url).pathname;

describe('bandsFile: loading', () => {
  it('loads the shipped example, which holds the default bands', () => {
    expect(cfgOf({ bandsFile: EXAMPLE }).bands).toEqual(cfgOf({}).bands);
  });
  it('maps margins to pips and amounts to micro-shares, by key name, innermost first', () => {
    const p = file({
      bands: [
        // keys in another order than poly-market-maker's file, and the outer band first
        { maxAmount: 30, avgAmount: 20, minAmount: 10, maxMargin: 0.04, avgMargin: 0.03, minMargin: 0.02 },
        { minMargin: 0.01, avgMargin: 0.01, maxMargin: 0.02, minAmount: 10, avgAmount: 20, maxAmount: 30 },
      ],
    });
    expect(cfgOf({ bandsFile: p }).bands).toEqual([
      { minMargin: 100, avgMargin: 100, maxMargin: 200, minAmount: 10 * SH, avgAmount: 20 * SH, maxAmount: 30 * SH },
      { minMargin: 200, avgMargin: 300, maxMargin: 400, minAmount: 10 * SH, avgAmount: 20 * SH, maxAmount: 30 * SH },
    ]);
  });
  it('the other params still apply; the file only replaces the bands', () => {
    const c = cfgOf({ bandsFile: file({ bands: [band()] }), maxPosition: 50, inventorySkew: 0 });
    expect(c.maxPosition).toBe(50 * SH);
    expect(c.inventorySkew).toBe(0);
    expect(c.tokens).toBe('both');
  });
  it('bandsJson takes the same document', () => {
    const doc = { bands: [band()] };
    expect(cfgOf({ bandsJson: JSON.stringify(doc) }).bands).toEqual(cfgOf({ bandsFile: file(doc) }).bands);
  });
});

describe('bandsFile: a bad file is a ConfigError naming the field', () => {
  /** The ConfigError of `bandsFile` = the path of `content` (or the path itself when `path` is given). */
  function errorOf(content: unknown, path?: string): ConfigError {
    const p = path ?? file(content);
    try {
      cfgOf({ bandsFile: p });
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).key).toBe('bot.params.bandsFile');
      expect((e as Error).message).toContain(p);
      return e as ConfigError;
    }
    throw new Error('no error');
  }
  it.each([
    ['missing file', undefined, /no such file/],
    ['not JSON', '{"bands": [', /not valid JSON/],
    ['a bare array', [band()], /expected a poly-market-maker bands file/],
    ['no bands key', {}, /bands: missing/],
    ['an unknown top-level key', { bands: [band()], strategy: 'bands' }, /strategy: unknown key/],
    ['bands not an array', { bands: { a: 1 } }, /bands: expected an array of 1 to 20 bands, got an object/],
    ['no bands', { bands: [] }, /expected an array of 1 to 20 bands/],
    ['a band that is not an object', { bands: [band(), 3] }, /bands\[1\] must be an object/],
    [
      'a missing field',
      { bands: [band({ maxAmount: undefined })] },
      /bands\[0\]\.maxAmount must be a non-negative number, got nothing/,
    ],
    [
      'a string number',
      { bands: [band({ avgMargin: '0.015' })] },
      /bands\[0\]\.avgMargin must be a non-negative number, got "0.015"/,
    ],
    ['a negative amount', { bands: [band({ minAmount: -1 })] }, /bands\[0\]\.minAmount must be a non-negative/],
    [
      'an unknown band key (poly-market-maker docs say minSize)',
      { bands: [{ ...band(), minSize: 1 }] },
      /bands\[0\]: unknown key minSize/,
    ],
    [
      'avgMargin outside the margins',
      { bands: [band({ avgMargin: 0.03 })] },
      /bands\[0\]: need minMargin <= avgMargin <= maxMargin/,
    ],
    [
      'minMargin = maxMargin',
      { bands: [band({ minMargin: 0.02, avgMargin: 0.02 })] },
      /bands\[0\]: need minMargin < maxMargin/,
    ],
    [
      'amounts out of order',
      { bands: [band({ minAmount: 25 })] },
      /bands\[0\]: need minAmount <= avgAmount <= maxAmount/,
    ],
    ['a margin of 1 or more', { bands: [band({ maxMargin: 1 })] }, /maxMargin below 1/],
    [
      'avgAmount below a lot',
      { bands: [band({ minAmount: 0, avgAmount: 0.001 })] },
      /avgAmount must be at least 0.01 shares/,
    ],
    [
      'overlapping bands',
      { bands: [band(), band({ minMargin: 0.015, avgMargin: 0.02, maxMargin: 0.03 })] },
      /bands\[0\] and bands\[1\]: margin windows overlap/,
    ],
  ])('%s', (_what, content, msg) => {
    const e = errorOf(content, content === undefined ? join(dir, 'nope.json') : undefined);
    expect(e.message).toMatch(msg);
  });
  it('touching bands are fine (as in poly-market-maker)', () => {
    const p = file({ bands: [band(), band({ minMargin: 0.02, avgMargin: 0.025, maxMargin: 0.03 })] });
    expect(cfgOf({ bandsFile: p }).bands).toHaveLength(2);
  });
  it('bandsFile and bandsJson together are refused', () => {
    expect(() => cfgOf({ bandsFile: EXAMPLE, bandsJson: JSON.stringify([band()]) })).toThrow(/not both/);
  });
  it('create() refuses a bad file before any quote', () => {
    const ctx = ctxFor([marketInfo(M1, YES1, NO1)]);
    const p = file({ bands: [band({ avgAmount: 40 })] });
    expect(() => bands.create(ctx, resolveParams(bands.params, { bandsFile: p }))).toThrow(ConfigError);
  });
  it('loadBandsFile and parseBands name the source', () => {
    expect(() => loadBandsFile(join(dir, 'missing.json'))).toThrow(/missing\.json: cannot read the bands file/);
    expect(() => parseBands({ bands: [band({ maxMargin: -1 })] }, 'k', 'here')).toThrow(/here: bands\[0\]\.maxMargin/);
  });
});

describe('bandsFile: quotes as poly-market-maker places them', () => {
  const plan: MarketPlan = { market: M1, yes: YES1, no: NO1, tick: 100, minSize: 5 * SH };
  const simple = (qs: readonly QuoteIntent[]) =>
    qs.map((q) => `${q.tokenId === YES1 ? 'Y' : 'N'} ${q.side} ${q.price} ${q.size / SH}`);
  const yesBook = bookView(YES1, [[4900, 100 * SH]], [[5100, 100 * SH]]);
  const cfg = cfgOf({
    bandsFile: file({
      bands: [
        { minMargin: 0.01, avgMargin: 0.02, maxMargin: 0.03, minAmount: 10, avgAmount: 20, maxAmount: 30 },
        { minMargin: 0.03, avgMargin: 0.04, maxMargin: 0.05, minAmount: 5, avgAmount: 10, maxAmount: 15 },
      ],
    }),
    inventorySkew: 0,
  });
  it('two-sided from collateral: YES bids at target - avgMargin, NO bids at (1 - target) - avgMargin', () => {
    const s = fakeState({ books: [yesBook, complementView(NO1, yesBook)] });
    expect(simple(quoteMarket(plan, cfg, s))).toEqual([
      'Y BUY 4800 20',
      'N BUY 4800 20',
      'Y BUY 4600 10',
      'N BUY 4600 10',
    ]);
  });
  it('fills a band with sells of the inventory first, then buys (its sell-before-buy rule)', () => {
    const s = fakeState({
      books: [yesBook, complementView(NO1, yesBook)],
      positions: { [NO1]: 8 * SH, [YES1]: 25 * SH },
    });
    expect(simple(quoteMarket(plan, cfg, s))).toEqual([
      'N SELL 5200 8',
      'Y BUY 4800 12',
      'Y SELL 5200 20',
      'Y BUY 4600 10',
      'Y SELL 5400 5',
      'N BUY 4600 5',
    ]);
  });
  it('leaves a band alone while its amount is within [minAmount, maxAmount]', () => {
    const s = fakeState({ books: [yesBook, complementView(NO1, yesBook)] });
    const first = quoteMarket(plan, cfg, s);
    // the inner YES bid partly filled: 15 of 20 left, still >= minAmount 10
    s.orders = first.map((q, i) => order(M1, q.tokenId, q.side, q.price, q.size, i === 0 ? 5 * SH : 0));
    const again = quoteMarket(plan, cfg, s);
    expect(simple(again)[0]).toBe('Y BUY 4800 15');
    expect(again).toHaveLength(first.length);
  });
});

describe('bands: selectMarkets', () => {
  it('is the default pick (the markets with the most resting levels)', async () => {
    expect(bands.selectMarkets).toBeTypeOf('function');
    const markets = [marketInfo(M1, YES1, NO1), marketInfo(M2, YES2, NO2)];
    const books = new Map([
      [YES1, bookView(YES1, [[4900, SH]], [[5100, SH]])],
      [
        YES2,
        bookView(
          YES2,
          [
            [4900, SH],
            [4800, SH],
          ],
          [
            [5100, SH],
            [5200, SH],
          ],
        ),
      ],
    ]);
    const ctx = {
      now: 0,
      count: 1,
      params: resolveParams(BANDS_PARAMS, {}),
      book: async (t: string) => books.get(t as typeof YES1),
      log: { debug() {}, info() {}, warn() {} },
    };
    const picked = await bands.selectMarkets!(markets, ctx);
    expect(picked).toEqual([M2]);
    expect(picked).toEqual(await defaultSelectMarkets(markets, ctx));
  });
});
