/**
 * The shape check of what a strategy's `onEvent` returns, where it leaves the handler (the engine,
 * ./loop.ts). Plugins are not type-checked (tsx strips the types; a `.js` plugin has none), so a
 * typo'd key (`qoutes`), `quotes: 42`, a market of another instance or an `async onEvent` (a Promise)
 * used to be ignored without a word, or to fail later in the risk gate with an internal TypeError.
 * Each is now a strategy error: counted and reported like a throw, the whole output dropped (fail
 * closed: the quotes resting stay as they were).
 *
 * Cheap by design: this runs once per strategy output, on the hot path of every backtest. It checks
 * the shape of what is returned (the keys, that lists are lists, that markets are this instance's),
 * not every field of every quote: the risk gate validates the quotes themselves (tick, size, side)
 * and refuses them with a code and a reason.
 */
import { inspect } from 'node:util';
import type { ConditionId } from '../core/ids.ts';

/**
 * Why `out` (an `onEvent` result other than undefined or null) is not a valid StrategyOutput for an
 * instance trading `markets`, or undefined when it is. The first problem found, one line.
 */
export function outputProblem(out: unknown, markets: ReadonlySet<ConditionId>): string | undefined {
  if (typeof out !== 'object' || out === null) return `onEvent returned ${describe(out)}: ${EXPECTED}`;
  if (typeof (out as { then?: unknown }).then === 'function')
    return 'onEvent returned a Promise (an async handler?): handlers must be synchronous, its output is ignored';
  if (Array.isArray(out)) return `onEvent returned an array: ${EXPECTED}`;
  for (const k in out)
    if (k !== 'quotes' && k !== 'orders') return `unknown key ${JSON.stringify(k)} (expected quotes|orders)`;
  const { quotes, orders } = out as { readonly quotes?: unknown; readonly orders?: unknown };
  if (quotes !== undefined) {
    if (!Array.isArray(quotes)) return `quotes must be an array of { market, quotes, at }, got ${describe(quotes)}`;
    // indexed loops: the iterator protocol is slow in the interpreter (see ./loop.ts, #output)
    for (let i = 0; i < quotes.length; i++) {
      const d: unknown = quotes[i];
      if (typeof d !== 'object' || d === null) return `quotes[${i}] must be { market, quotes, at }, got ${describe(d)}`;
      const { market, quotes: qs, at } = d as { readonly market?: unknown; readonly quotes?: unknown; at?: unknown };
      if (!markets.has(market as ConditionId)) return `quotes[${i}].market ${notOurs(market)}`;
      if (!Array.isArray(qs)) return `quotes[${i}].quotes must be an array of quotes, got ${describe(qs)}`;
      if (typeof at !== 'number' || !Number.isFinite(at))
        return `quotes[${i}].at must be the time the quotes were made (state.now), got ${describe(at)}`;
      // a market twice: the last entry would silently win (its quotes placed, then pulled)
      for (let j = 0; j < i; j++)
        if ((quotes[j] as { readonly market?: unknown }).market === market)
          return `quotes[${i}].market ${String(market).slice(0, 80)} is also quotes[${j}]'s: one entry per market (it is the market's whole set)`;
      for (let j = 0; j < qs.length; j++) {
        const x: unknown = qs[j];
        if (typeof x !== 'object' || x === null)
          return `quotes[${i}].quotes[${j}] must be { tokenId, side, price, size }, got ${describe(x)}`;
        for (const k in x)
          if (k !== 'tokenId' && k !== 'side' && k !== 'price' && k !== 'size')
            return `quotes[${i}].quotes[${j}] has the unknown key ${JSON.stringify(k)} (a quote is { tokenId, side, price, size }, a GTC limit order${k === 'type' || k === 'postOnly' ? '; FOK/FAK orders go in `orders`, post-only is bot.postOnly' : ''})`;
      }
    }
  }
  if (orders !== undefined) {
    if (!Array.isArray(orders)) return `orders must be an array of immediate orders, got ${describe(orders)}`;
    for (let i = 0; i < orders.length; i++) {
      const x: unknown = orders[i];
      if (typeof x !== 'object' || x === null)
        return `orders[${i}] must be { market, tokenId, side, price, size, type }, got ${describe(x)}`;
      const { market, type } = x as { readonly market?: unknown; readonly type?: unknown };
      if (!markets.has(market as ConditionId)) return `orders[${i}].market ${notOurs(market)}`;
      if (type !== 'FOK' && type !== 'FAK')
        return `orders[${i}].type must be 'FOK' or 'FAK' (an immediate order), got ${describe(type)}${type === 'GTC' ? ': a resting order is a quote (`quotes`)' : ''}`;
    }
  }
  return undefined;
}

const EXPECTED = 'expected { quotes?: [...], orders?: [...] } or undefined';

function notOurs(market: unknown): string {
  return `${typeof market === 'string' ? market.slice(0, 80) : describe(market)} is not one of this instance's markets`;
}

/** A value as a person reads it in one short line (`42`, `'hello'`, `null`, `{ a: 1 }`). */
function describe(v: unknown): string {
  return inspect(v, { depth: 1, breakLength: Infinity, maxArrayLength: 3, maxStringLength: 60 }).slice(0, 120);
}
