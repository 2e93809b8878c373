/**
 * Market choice: which markets a strategy trades when none are configured. A strategy may define
 * `selectMarkets(markets, ctx)` (src/strategy/api.ts); `chooseMarkets` runs it (or the default pick)
 * and checks its answer. One helper for every caller: `mmkit run` and `mmkit strategy check`
 * (src/cli/run.ts), `mmkit record --top --strategy` (src/cli/record.ts) and backtests.
 *
 * The default pick (a strategy without `selectMarkets`): of the first 30 candidates, the ones whose
 * first (YES) token's book has the most resting levels, ties in the candidates' order; markets whose
 * book cannot be read are skipped.
 *
 * Pure apart from the books the caller's `ctx.book` fetches.
 */
import { ConfigError } from '../core/errors.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import type { Micro, Pips } from '../core/units.ts';
import type { MarketInfo } from '../core/venue.ts';
import type { BookView } from '../core/views.ts';
import type { ParamSchema, ParamsOf, SelectContext, StrategyDefinition } from './api.ts';

/** How many candidates the default pick reads the books of (the first ones). */
export const DEFAULT_PICK_CANDIDATES = 30;

/** The default pick: the candidates with the most resting levels in the YES book, best first. */
export async function defaultSelectMarkets(
  markets: readonly MarketInfo[],
  ctx: Pick<SelectContext, 'count' | 'book'>,
): Promise<ConditionId[]> {
  const scored: Array<[ConditionId, number]> = [];
  for (const m of markets.slice(0, DEFAULT_PICK_CANDIDATES)) {
    let b: BookView | undefined;
    try {
      b = await ctx.book(m.tokens[0].tokenId);
    } catch {
      b = undefined;
    }
    if (b !== undefined) scored.push([m.market, b.levels('bids').length + b.levels('asks').length]);
  }
  scored.sort((a, b) => b[1] - a[1]);
  return scored.slice(0, ctx.count).map(([m]) => m);
}

/**
 * The markets `def` trades out of `markets` (the candidates), best first, at most `ctx.count`: its
 * `selectMarkets` when it has one, else the default pick. Ids that are not candidates are ignored
 * (logged), duplicates taken once.
 * @throws ConfigError (key `strategy`) when `selectMarkets` throws or does not return an array of ids
 */
export async function chooseMarkets(
  def: Pick<StrategyDefinition, 'name' | 'selectMarkets'>,
  markets: readonly MarketInfo[],
  ctx: SelectContext,
): Promise<MarketInfo[]> {
  let ids: readonly unknown[];
  if (def.selectMarkets === undefined) ids = await defaultSelectMarkets(markets, ctx);
  else {
    let r: unknown;
    try {
      r = await def.selectMarkets(markets, ctx as SelectContext<ParamsOf<ParamSchema>>);
    } catch (e) {
      throw new ConfigError('strategy', `${def.name}: selectMarkets failed: ${(e as Error)?.message ?? String(e)}`, {
        cause: e,
      });
    }
    if (!Array.isArray(r)) throw new ConfigError('strategy', `${def.name}: selectMarkets must return condition ids`);
    ids = r;
  }
  const byId = new Map<string, MarketInfo>();
  for (const m of markets) byId.set(m.market.toLowerCase(), m);
  const out: MarketInfo[] = [];
  const taken = new Set<string>();
  const unknown: string[] = [];
  for (const id of ids) {
    if (out.length >= ctx.count) break;
    const m = typeof id === 'string' ? byId.get(id.toLowerCase()) : undefined;
    if (m === undefined) {
      unknown.push(String(id).slice(0, 80));
      continue;
    }
    if (taken.has(m.market)) continue;
    taken.add(m.market);
    out.push(m);
  }
  if (unknown.length > 0)
    ctx.log.warn({ strategy: def.name, unknown }, 'selectMarkets returned markets that are not candidates: ignored');
  return out;
}

/** A read-only BookView over best-first levels ([price pips, size micro]): for `SelectContext.book`. */
export function levelsBookView(
  tokenId: TokenId,
  bids: ReadonlyArray<readonly [number, number]>,
  asks: ReadonlyArray<readonly [number, number]>,
): BookView {
  const b = bids as ReadonlyArray<readonly [Pips, Micro]>;
  const a = asks as ReadonlyArray<readonly [Pips, Micro]>;
  const bestBid = b[0]?.[0] ?? null;
  const bestAsk = a[0]?.[0] ?? null;
  return {
    tokenId,
    bestBid,
    bestAsk,
    mid: bestBid !== null && bestAsk !== null ? (bestBid + bestAsk) / 2 : null,
    stale: false,
    levels: (side, depth) => {
      const l = side === 'bids' ? b : a;
      return depth === undefined ? l : l.slice(0, depth);
    },
  };
}
