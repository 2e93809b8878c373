/**
 * Hand-written market-channel feeds for backtests of a scene (a few books, a collapse), and a plugin
 * strategy that buys a token once at the ask (FAK): what the backtest tests of marks, fees and
 * loss limits build on (test/integration/backtest-*.test.ts).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { frameLine, headerLine } from '../../src/venues/sim/feed.ts';
import type { genMarkets } from './feed-gen.ts';

type Market = ReturnType<typeof genMarkets>[number];
/** A level as the wire gives it: [price, shares], decimal strings. */
type Level = readonly [string, string];

/** The strategy API's module, as a plugin written to a temporary file imports it. */
const API = pathToFileURL(fileURLToPath(new URL('../../src/strategy/index.ts', import.meta.url))).href;

/** A `book` frame of `token` of `market` at `t` (levels best first; the wire lists the best level last). */
export function bookFrame(
  market: Market,
  t: number,
  token: string,
  bids: readonly Level[],
  asks: readonly Level[],
): string {
  const lv = (l: readonly Level[]) => [...l].reverse().map(([price, size]) => ({ price, size }));
  const msg = {
    event_type: 'book',
    market: market.market,
    asset_id: token,
    timestamp: String(t),
    hash: `h${t}${token.slice(0, 4)}`,
    bids: lv(bids),
    asks: lv(asks),
    min_order_size: '5',
    tick_size: '0.01',
    neg_risk: false,
    last_trade_price: '',
  };
  return frameLine(t, 'm', JSON.stringify(msg));
}

/** Writes a gzip feed of `market`: its header at `start`, then `frames` (from `bookFrame`). */
export function writeHandFeed(file: string, start: number, market: Market, frames: readonly string[]): void {
  const header = headerLine({ h: 1, t: start, part: 0, source: 'synthetic', recorder: 'test', markets: [market] });
  writeFileSync(file, gzipSync(`${[header, ...frames].join('\n')}\n`));
}

/**
 * Writes a plugin strategy (`file`, a .ts) that buys `shares` of the market's NO token at its best
 * ask (FAK) once, at the `afterBooks`-th NO book it receives (default the first with both sides).
 */
export function writeBuyNoOnce(file: string, o: { shares: number; afterBooks?: number }): void {
  const size = Math.round(o.shares * 1e6);
  writeFileSync(
    file,
    `import { defineStrategy } from ${JSON.stringify(API)};
export default defineStrategy({
  name: 'buy-no-once',
  description: 'buys ${o.shares} NO at the ask once (FAK)',
  params: {},
  create(ctx) {
    let sent = false;
    let books = 0;
    return {
      onEvent(event, state) {
        if (sent) return undefined;
        const m = [...ctx.markets.values()][0];
        const no = m.tokens[1].tokenId;
        if (event.type === 'book_snapshot' && event.tokenId === no) books++;
        if (books < ${o.afterBooks ?? 0}) return undefined;
        const b = state.book(no);
        if (b === undefined || b.stale || b.bestBid === null || b.bestAsk === null) return undefined;
        sent = true;
        return { orders: [{ market: m.market, tokenId: no, side: 'BUY', price: b.bestAsk, size: ${size}, type: 'FAK' }] };
      },
    };
  },
});
`,
  );
}
