/**
 * The books a feed starts with: each wanted token's first `book` snapshot (the recorder writes every
 * subscribed token's snapshot right after it connects), read from the start of the feed, for a
 * strategy's market choice (`selectMarkets`) before a backtest runs. Best first: bids descending,
 * asks ascending, in pips and micro-shares. Frames that are not valid JSON or not snapshots are
 * skipped; reading stops when every token has one, or after `maxItems` items or `maxMs` of feed time.
 */
import type { TokenId } from '../core/ids.ts';
import { parseAmount, parsePrice } from '../core/units.ts';
import { replayFeeds } from './replay.ts';

/** One token's first snapshot: levels best first, [price pips, size micro]. */
export interface FeedBook {
  readonly bids: ReadonlyArray<readonly [number, number]>;
  readonly asks: ReadonlyArray<readonly [number, number]>;
}

/**
 * The first snapshot of each of `tokens` in the feeds (absent: none seen within the limits).
 * @throws the file system's error when a feed cannot be read
 */
export async function firstBooks(
  files: readonly string[],
  tokens: readonly TokenId[],
  o: { maxItems?: number; maxMs?: number } = {},
): Promise<Map<TokenId, FeedBook>> {
  const want = new Set<string>(tokens);
  const out = new Map<TokenId, FeedBook>();
  if (want.size === 0) return out;
  const maxItems = o.maxItems ?? 50_000;
  const maxMs = o.maxMs ?? 600_000;
  let n = 0;
  let t0: number | undefined;
  const it = replayFeeds(files, { channels: ['m'] });
  try {
    for await (const item of it) {
      if (++n > maxItems) break;
      t0 ??= item.t;
      if (item.t - t0 > maxMs) break;
      if (item.kind !== 'frame') continue;
      let msg: unknown;
      try {
        msg = JSON.parse(item.raw);
      } catch {
        continue;
      }
      for (const m of Array.isArray(msg) ? msg : [msg]) {
        const b = snapshotOf(m);
        if (b === undefined || !want.has(b.token) || out.has(b.token as TokenId)) continue;
        out.set(b.token as TokenId, b.book);
      }
      if (out.size === want.size) break;
    }
  } finally {
    await it.return?.();
  }
  return out;
}

function snapshotOf(m: unknown): { token: string; book: FeedBook } | undefined {
  if (typeof m !== 'object' || m === null) return undefined;
  const r = m as Record<string, unknown>;
  if (r['event_type'] !== 'book' || typeof r['asset_id'] !== 'string') return undefined;
  const bids = levels(r['bids']);
  const asks = levels(r['asks']);
  if (bids === undefined || asks === undefined) return undefined;
  bids.sort((a, b) => b[0] - a[0]);
  asks.sort((a, b) => a[0] - b[0]);
  return { token: r['asset_id'], book: { bids, asks } };
}

function levels(x: unknown): Array<[number, number]> | undefined {
  if (!Array.isArray(x)) return undefined;
  const out: Array<[number, number]> = [];
  for (const l of x) {
    if (typeof l !== 'object' || l === null) return undefined;
    const { price, size } = l as { price?: unknown; size?: unknown };
    if (typeof price !== 'string' || typeof size !== 'string') return undefined;
    try {
      const s = parseAmount(size, 'down');
      if (s > 0) out.push([parsePrice(price, 'down'), s]);
    } catch {
      return undefined;
    }
  }
  return out;
}
