/**
 * The files `mmkit strategy new NAME` writes: the plugin (strategies/template.ts with its name set)
 * and a vitest test next to it that drives the handler with a fake state (no venue, no clock, no
 * network). Both import only the plugin API, 'mmkit/strategy', where that resolves (inside the mmkit
 * project, by package self-reference, or where mmkit is installed); elsewhere the same module by
 * its relative path (`<prefix>/strategy/index.ts`). String building, plus one module resolution
 * (pluginApiSpecifier): the command writes the files.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT_URL } from '../core/package-root.ts';

/** The plugin API's package specifier (package.json `exports` "./strategy": src/strategy/index.ts). */
export const PLUGIN_API = 'mmkit/strategy';

/** The mmkit project root (holds src/ and strategies/), from src/cli/ and dist/src/cli/ alike. */
export const MMKIT_ROOT = fileURLToPath(PACKAGE_ROOT_URL);

/** File names a strategy may take: a letter, then letters, digits, `-` or `_`. */
export const STRATEGY_NAME_RE = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** The import prefix of mmkit's `src/` as seen from `dir` ("../src", "./src", "../../mmkit/src"). */
export function srcImportPrefix(dir: string, root: string = MMKIT_ROOT): string {
  let rel = relative(dir, root).split(sep).join('/');
  if (rel === '') rel = '.';
  else if (!rel.startsWith('.')) rel = `./${rel}`;
  return `${rel}/src`;
}

/**
 * What a plugin in `dir` imports the plugin API as: 'mmkit/strategy' when it resolves from `dir`
 * (inside the mmkit project, or mmkit installed in a node_modules above `dir`), else the relative
 * path of src/strategy/index.ts ("../src/strategy/index.ts", "../../mmkit/src/strategy/index.ts").
 */
export function pluginApiSpecifier(dir: string, root: string = MMKIT_ROOT): string {
  const inside = relative(root, dir);
  if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) return PLUGIN_API;
  try {
    createRequire(join(dir, 'noop.js')).resolve(`${PLUGIN_API.split('/')[0]}/package.json`);
    return PLUGIN_API;
  } catch {
    return `${srcImportPrefix(dir, root)}/strategy/index.ts`;
  }
}

/** The plugin source: the template with `name` set and its plugin API import pointing at `api`. */
export function pluginSource(
  name: string,
  api: string = PLUGIN_API,
  template = readFileSync(new URL('strategies/template.ts', PACKAGE_ROOT_URL), 'utf8'),
): string {
  const body = template
    .replace(/name: 'template'/, `name: '${name}'`)
    .replaceAll(`from '${PLUGIN_API}'`, `from '${api}'`)
    .replace(
      /^\/\*\*\n \* A minimal strategy plugin to copy: a fixed-spread quoter around the mid\.\n/,
      `/**\n * ${name}: a strategy plugin, scaffolded by \`mmkit strategy new ${name}\` from strategies/template.ts\n * (a fixed-spread quoter around the mid). Edit it; \`mmkit strategy check\` runs it briefly on paper.\n`,
    );
  return body;
}

/** The vitest test written next to the plugin. */
export function testSource(name: string, api: string = PLUGIN_API): string {
  return `/**
 * Tests of the ${name} strategy (scaffolded by \`mmkit strategy new ${name}\`). They call the handler
 * directly with a fake state: no venue, no clock, no network. Run: npx vitest run <this file>
 * Prices are pips (0.01 = 100), sizes micro-shares (1 share = 1_000_000).
 */
import { describe, expect, it } from 'vitest';
import {
  resolveParams,
  VirtualClock,
  type BookView,
  type ConditionId,
  type MarketInfo,
  type Micro,
  type MmkitEvent,
  type Pips,
  type PositionView,
  type QuoteIntent,
  type StrategyContext,
  type StrategyState,
  type TickSize,
  type TokenId,
} from '${api}';
import strategy from './${name}.ts';

const SH = 1_000_000;
const MARKET = ('0x' + '11'.repeat(32)) as ConditionId;
const YES = '1001' as TokenId;
const NO = '1002' as TokenId;
const market: MarketInfo = {
  market: MARKET,
  question: 'Will it?',
  tokens: [
    { tokenId: YES, outcome: 'Yes' },
    { tokenId: NO, outcome: 'No' },
  ],
  tick: '0.01' as TickSize,
  minOrderSize: (5 * SH) as Micro,
  negRisk: false,
  feeRateBps: 0,
  active: true,
  endDate: '2030-01-01T00:00:00Z',
};

/** A book from [price pips, size micro] levels, best first. */
function book(tokenId: TokenId, bids: Array<[number, number]>, asks: Array<[number, number]>): BookView {
  const b = bids as unknown as Array<[Pips, Micro]>;
  const a = asks as unknown as Array<[Pips, Micro]>;
  const bestBid = b[0]?.[0] ?? null;
  const bestAsk = a[0]?.[0] ?? null;
  return {
    tokenId,
    bestBid,
    bestAsk,
    mid: bestBid !== null && bestAsk !== null ? (bestBid + bestAsk) / 2 : null,
    stale: false,
    levels: (side, depth = Infinity) => (side === 'bids' ? b : a).slice(0, depth),
  };
}

function state(books: BookView[], positions: Record<string, number> = {}): StrategyState {
  const byToken = new Map(books.map((x) => [x.tokenId, x]));
  return {
    now: 1_000,
    book: (t) => byToken.get(t),
    position: (t): PositionView => ({ size: (positions[t] ?? 0) as Micro, avgPrice: null, realized: 0 }),
    openOrders: () => [],
    availableCollateral: (10_000 * SH) as Micro,
  };
}

const ctx: StrategyContext = { clock: new VirtualClock(1_000), log: { debug() {}, info() {}, warn() {} }, markets: new Map([[MARKET, market]]), random: () => 0.5 };
const snapshot: MmkitEvent = { type: 'book_snapshot', venueTime: 1_000, recvTime: 1_000, market: MARKET, tokenId: YES, bids: [], asks: [], hash: 'h', tickSize: 100 as Pips, minOrderSize: null, lastTradePrice: null };

function quotesFor(s: StrategyState): QuoteIntent[] {
  const handlers = strategy.create(ctx, resolveParams(strategy.params, {}));
  return handlers.onEvent(snapshot, s)?.quotes?.flatMap((d) => d.quotes) ?? [];
}

describe('${name}', () => {
  it('has valid, documented default params', () => {
    expect(() => resolveParams(strategy.params, {})).not.toThrow();
    for (const spec of Object.values(strategy.params)) expect(spec.doc.length).toBeGreaterThan(0);
  });

  it('quotes inside (0, 1), on the tick, at least the minimum size, never crossing the book', () => {
    const quotes = quotesFor(state([book(YES, [[4900, 100 * SH]], [[5100, 100 * SH]])], { [YES]: 50 * SH }));
    expect(quotes.length).toBeGreaterThan(0);
    for (const q of quotes) {
      expect(q.price % 100).toBe(0);
      expect(q.price).toBeGreaterThan(0);
      expect(q.price).toBeLessThan(10_000);
      expect(q.size).toBeGreaterThanOrEqual(market.minOrderSize);
      if (q.side === 'BUY') expect(q.price).toBeLessThan(5100);
      else expect(q.price).toBeGreaterThan(4900);
    }
  });

  it('quotes nothing without a book (never a guessed price)', () => {
    expect(quotesFor(state([]))).toEqual([]);
  });
});
`;
}
