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
 * A ready-made choice for strategies that quote around a book's mid (avellaneda, amm, template use
 * it): `selectTwoSidedMarkets`, the two-sided books in a mid range, tightest first.
 *
 * Pure apart from the books the caller's `ctx.book` fetches.
 */
import { errAt, errMsg } from '../core/error-location.ts';
import { ConfigError } from '../core/errors.ts';
import type { ConditionId, TokenId } from '../core/ids.ts';
import { PRICE_SCALE, type Micro, type Pips } from '../core/units.ts';
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

/** What `selectTwoSidedMarkets` accepts (probability units, like the params strategies take). */
export interface TwoSidedPick {
  /** Lowest mid of the YES book accepted (e.g. 0.1). */
  readonly minMid: number;
  /** Highest mid of the YES book accepted (e.g. 0.9). */
  readonly maxMid: number;
  /** Widest spread (best ask - best bid) accepted. */
  readonly maxSpread: number;
  /** Least time left to the market's end date, ms (default 0: any end still ahead). */
  readonly minMsToEnd?: number;
  /** How many candidates' books are read, the first ones (default 2 x DEFAULT_PICK_CANDIDATES). */
  readonly maxBooks?: number;
}

/**
 * A pick for strategies that quote around a book's mid: the active candidates ending at least
 * minMsToEnd from `ctx.now` whose YES book is two-sided with its mid in [minMid, maxMid] and its
 * spread at most maxSpread, best first: the tightest spread, then the most resting levels, then the
 * condition id (so the same books always give the same answer). After them, the candidates whose
 * book is not two-sided (yet: a venue that has just started may show none), most levels first. At
 * most `ctx.count`; markets whose book cannot be read, or two-sided outside the range, are left out.
 */
export async function selectTwoSidedMarkets(
  markets: readonly MarketInfo[],
  ctx: Pick<SelectContext, 'now' | 'count' | 'book'>,
  pick: TwoSidedPick,
): Promise<ConditionId[]> {
  const minMid = pick.minMid * PRICE_SCALE;
  const maxMid = pick.maxMid * PRICE_SCALE;
  const maxSpread = Math.round(pick.maxSpread * PRICE_SCALE);
  const minMsToEnd = pick.minMsToEnd ?? 0;
  const scored: Array<{ id: ConditionId; empty: boolean; spread: number; levels: number }> = [];
  for (const m of markets.slice(0, pick.maxBooks ?? 2 * DEFAULT_PICK_CANDIDATES)) {
    const end = Date.parse(m.endDate);
    if (!m.active || !(end - ctx.now >= minMsToEnd) || end <= ctx.now) continue;
    const b = await ctx.book(m.tokens[0].tokenId).catch(() => undefined);
    if (b === undefined) continue;
    const levels = b.levels('bids').length + b.levels('asks').length;
    if (b.stale || b.bestBid === null || b.bestAsk === null || b.mid === null || b.bestAsk <= b.bestBid) {
      // not two-sided (yet: a venue that has just started may show no book): after the others
      scored.push({ id: m.market, empty: true, spread: 0, levels });
      continue;
    }
    const spread = b.bestAsk - b.bestBid;
    if (spread > maxSpread || b.mid < minMid || b.mid > maxMid) continue;
    scored.push({ id: m.market, empty: false, spread, levels });
  }
  scored.sort(
    (x, y) =>
      Number(x.empty) - Number(y.empty) ||
      x.spread - y.spread ||
      y.levels - x.levels ||
      (x.id < y.id ? -1 : x.id > y.id ? 1 : 0),
  );
  return scored.slice(0, ctx.count).map((x) => x.id);
}

/**
 * The markets `def` trades out of `markets` (the candidates), best first, at most `ctx.count`: its
 * `selectMarkets` when it has one, else the default pick. Ids that are not candidates are ignored
 * (logged), duplicates taken once.
 * @throws ConfigError (key `strategy`) when `selectMarkets` throws (its message and where), does not
 *   return an array of ids, or returns ids of which none is a candidate (the first three named)
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
      const at = errAt(e);
      throw new ConfigError(
        'strategy',
        `${def.name}: selectMarkets threw: ${errMsg(e)}${at === undefined ? '' : ` (at ${at})`}`,
        { cause: e },
      );
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
  if (unknown.length > 0) {
    // none of what it returned is a candidate: a wrong id, not a choice of none (trial 10 F17)
    if (out.length === 0)
      throw new ConfigError(
        'strategy',
        `${def.name}: selectMarkets returned ${ids.length} id(s), none of them one of the ${markets.length} candidate markets: ${unknown.slice(0, 3).join(', ')}${unknown.length > 3 ? ', ...' : ''}`,
      );
    ctx.log.warn({ strategy: def.name, unknown }, 'selectMarkets returned markets that are not candidates: ignored');
  }
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
