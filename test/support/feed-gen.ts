/**
 * A synthetic market-channel feed in the recorder's format (src/venues/sim/feed.ts), for tests and
 * benchmarks that need a feed of a chosen length. Deterministic for a seed.
 *
 * Per market one YES book (in YES prices) around a hidden value that random-walks; both tokens
 * are "subscribed", so every message lists both tokens as the paper exchange's market channel does
 * (src/exchange/ws/market.ts): `book` snapshots of both tokens at the start; then messages of
 *  - level changes: one `price_change` listing the YES entry then the NO entry (NO = 1 − p, sides
 *    swapped), with each token's best bid / ask after the change;
 *  - trades: a taker sweeps one to three levels from the top: a `price_change` of the levels it
 *    consumed, a `last_trade_price` per token (the last fill's price), then a fresh `book` of each
 *    token.
 * Levels are refilled so the book keeps about `depth` levels a side, never crossed.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createGzip } from 'node:zlib';
import type { ConditionId, TokenId } from '../../src/core/ids.ts';
import { Rng } from '../../src/core/random.ts';
import { formatAmount, formatPrice, PRICE_SCALE, type Micro } from '../../src/core/units.ts';
import type { MarketInfo } from '../../src/core/venue.ts';
import { frameLine, headerLine } from '../../src/venues/sim/feed.ts';

export interface FeedGenOptions {
  seed: number;
  /** Markets in the feed. */
  markets: number;
  /** Market-channel messages to write (after the initial snapshots). */
  messages: number;
  /** First receive time, unix ms. */
  startMs?: number;
  /** Mean gap between messages, ms. */
  meanGapMs?: number;
  /** Levels per side. */
  depth?: number;
  /** Fraction of messages that are trades (each trade is about 1 + 2 + 2 messages). */
  tradeShare?: number;
  /** The markets' taker fee rate, bps (default 0). */
  feeRateBps?: number;
  /** The header's `protocol` (the venue's order protocol; default: none written, as older feeds). */
  protocol?: 1 | 2;
}

const TICK = 100;

function hex64(rng: Rng): string {
  let s = '0x';
  for (let i = 0; i < 8; i++)
    s += Math.floor(rng.next() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
  return s;
}
function tokenId(rng: Rng): string {
  let s = String(1 + Math.floor(rng.next() * 9));
  for (let i = 0; i < 76; i++) s += String(Math.floor(rng.next() * 10));
  return s;
}

interface MarketGen {
  info: MarketInfo;
  yes: string;
  no: string;
  bids: Map<number, number>;
  asks: Map<number, number>;
  value: number;
}

/** The markets of a generated feed (same seed, same markets). */
export function genMarkets(seed: number, n: number): MarketInfo[] {
  const rng = new Rng(seed ^ 0x6d6d);
  const out: MarketInfo[] = [];
  for (let i = 0; i < n; i++) {
    const market = hex64(rng) as ConditionId;
    out.push({
      market,
      question: `Synthetic market ${i + 1}?`,
      tokens: [
        { tokenId: tokenId(rng) as TokenId, outcome: 'Yes' },
        { tokenId: tokenId(rng) as TokenId, outcome: 'No' },
      ],
      tick: '0.01',
      minOrderSize: 5_000_000 as Micro,
      negRisk: false,
      feeRateBps: 0,
      active: true,
      endDate: '2027-01-01T00:00:00Z',
    });
  }
  return out;
}

const best = (m: Map<number, number>, bid: boolean): number => {
  let b = 0;
  for (const p of m.keys()) if (b === 0 || (bid ? p > b : p < b)) b = p;
  return b;
};

/**
 * Generates the feed's lines (header first), calling `write` for each line (without newline);
 * `pause` is awaited every so often (backpressure). Resolves with the number of market-channel
 * messages written (snapshots included).
 */
export async function generateFeed(
  o: FeedGenOptions,
  write: (line: string) => void,
  pause: () => Promise<void> | void = () => undefined,
): Promise<number> {
  const rng = new Rng(o.seed);
  const start = o.startMs ?? Date.UTC(2026, 0, 1);
  const gap = o.meanGapMs ?? 20;
  const depth = o.depth ?? 6;
  const tradeShare = o.tradeShare ?? 0.08;
  const infos = genMarkets(o.seed, o.markets).map((m) => ({ ...m, feeRateBps: o.feeRateBps ?? 0 }));
  write(
    headerLine({
      h: 1,
      t: start,
      part: 0,
      source: 'synthetic',
      recorder: 'test/support/feed-gen',
      ...(o.protocol !== undefined ? { protocol: o.protocol } : {}),
      markets: infos,
    }),
  );
  let t = start;
  let count = 0;
  const size = (): number => (5 + Math.floor(rng.next() * 60)) * 1_000_000;
  const ms: MarketGen[] = infos.map((info, i) => {
    const value = 3000 + Math.round(rng.next() * 4000) + i;
    const m: MarketGen = {
      info,
      yes: info.tokens[0].tokenId,
      no: info.tokens[1].tokenId,
      bids: new Map(),
      asks: new Map(),
      value,
    };
    refill(m);
    return m;
  });

  function refill(m: MarketGen): Array<[boolean, number]> {
    const touched: Array<[boolean, number]> = [];
    const v = Math.round(m.value / TICK) * TICK;
    const bb = best(m.bids, true);
    const ba = best(m.asks, false);
    const top = bb === 0 ? Math.min(v - TICK, (ba || PRICE_SCALE) - TICK) : bb;
    const bot = ba === 0 ? Math.max(v + TICK, (bb || 0) + TICK) : ba;
    for (let i = 0; m.bids.size < depth && i < 50; i++) {
      const p = top - i * TICK;
      if (p < TICK) break;
      if (!m.bids.has(p)) {
        m.bids.set(p, size());
        touched.push([true, p]);
      }
    }
    for (let i = 0; m.asks.size < depth && i < 50; i++) {
      const p = bot + i * TICK;
      if (p > PRICE_SCALE - TICK) break;
      if (!m.asks.has(p)) {
        m.asks.set(p, size());
        touched.push([false, p]);
      }
    }
    void top;
    void bot;
    return touched;
  }

  const ts = (): string => String(Math.floor(t) - 40);
  const bestStr = (p: number): string => (p === 0 ? '0' : formatPrice(p));
  function bookMsg(m: MarketGen, yes: boolean): string {
    const levels = (side: Map<number, number>, asc: boolean, mirror: boolean) =>
      [...side.entries()]
        .map(([p, s]) => [mirror ? PRICE_SCALE - p : p, s] as const)
        .sort((a, b) => (asc ? a[0] - b[0] : b[0] - a[0]))
        .map(([p, s]) => `{"price":"${formatPrice(p)}","size":"${formatAmount(s)}"}`)
        .join(',');
    // wire order: best LAST (bids ascending, asks descending)
    const bids = yes ? levels(m.bids, true, false) : levels(m.asks, true, true);
    const asks = yes ? levels(m.asks, false, false) : levels(m.bids, false, true);
    return `{"event_type":"book","market":"${m.info.market}","asset_id":"${yes ? m.yes : m.no}","timestamp":"${ts()}","hash":"h${count}","bids":[${bids}],"asks":[${asks}],"min_order_size":"5","tick_size":"0.01","neg_risk":false,"last_trade_price":""}`;
  }
  function priceChange(m: MarketGen, touched: Array<[boolean, number]>): string {
    const bb = best(m.bids, true);
    const ba = best(m.asks, false);
    const yb = bestStr(bb);
    const ya = bestStr(ba);
    const nb = bestStr(ba === 0 ? 0 : PRICE_SCALE - ba);
    const na = bestStr(bb === 0 ? 0 : PRICE_SCALE - bb);
    const entries: string[] = [];
    for (const [bid, p] of touched) {
      const s = formatAmount((bid ? m.bids : m.asks).get(p) ?? 0);
      entries.push(
        `{"asset_id":"${m.yes}","price":"${formatPrice(p)}","size":"${s}","side":"${bid ? 'BUY' : 'SELL'}","hash":"h${count}","best_bid":"${yb}","best_ask":"${ya}"}`,
      );
      entries.push(
        `{"asset_id":"${m.no}","price":"${formatPrice(PRICE_SCALE - p)}","size":"${s}","side":"${bid ? 'SELL' : 'BUY'}","hash":"h${count}","best_bid":"${nb}","best_ask":"${na}"}`,
      );
    }
    return `{"event_type":"price_change","market":"${m.info.market}","timestamp":"${ts()}","price_changes":[${entries.join(',')}]}`;
  }
  const emit = (raw: string): void => {
    write(frameLine(Math.round(t * 1000) / 1000, 'm', raw));
    count++;
  };

  for (const m of ms) {
    t += 1;
    emit(bookMsg(m, true));
    emit(bookMsg(m, false));
  }
  let nextPause = count + 20_000;
  while (count < o.messages) {
    if (count >= nextPause) {
      nextPause = count + 20_000;
      await pause();
    }
    t += rng.exp(gap);
    const m = ms[Math.floor(rng.next() * ms.length)]!;
    m.value = Math.min(9000, Math.max(1000, m.value + (rng.next() - 0.5) * 30));
    const r = rng.next();
    if (r < tradeShare && m.bids.size > 0 && m.asks.size > 0) {
      // a taker sweeps 1-3 levels of one side
      const buy = rng.next() < 0.5 + (m.value - (best(m.bids, true) + best(m.asks, false)) / 2) / 2000;
      const side = buy ? m.asks : m.bids;
      const levels = [...side.keys()].sort((a, b) => (buy ? a - b : b - a));
      const n = 1 + Math.floor(rng.next() * Math.min(3, levels.length));
      const touched: Array<[boolean, number]> = [];
      let total = 0;
      let last = 0;
      for (let i = 0; i < n; i++) {
        const p = levels[i]!;
        const have = side.get(p)!;
        const take = i < n - 1 ? have : Math.max(1_000_000, Math.floor((have * rng.next()) / 10_000) * 10_000);
        const left = have - Math.min(have, take);
        total += Math.min(have, take);
        last = p;
        if (left <= 0) side.delete(p);
        else side.set(p, left);
        touched.push([!buy, p]);
      }
      emit(priceChange(m, touched));
      for (const yes of [true, false]) {
        const price = yes ? last : PRICE_SCALE - last;
        const sd = yes === buy ? 'BUY' : 'SELL';
        emit(
          `{"event_type":"last_trade_price","asset_id":"${yes ? m.yes : m.no}","market":"${m.info.market}","price":"${formatPrice(price)}","side":"${sd}","size":"${formatAmount(total)}","fee_rate_bps":"0","timestamp":"${ts()}","transaction_hash":"0x${count.toString(16)}"}`,
        );
      }
      emit(bookMsg(m, true));
      emit(bookMsg(m, false));
      const again = refill(m);
      if (again.length > 0 && count < o.messages) {
        t += 0.25;
        emit(priceChange(m, again));
      }
      continue;
    }
    // a level change: add, resize or remove a level near the value; keep the book uncrossed
    const bid = rng.next() < 0.5;
    const side = bid ? m.bids : m.asks;
    const v = Math.round(m.value / TICK) * TICK;
    const off = Math.floor(rng.next() * depth) * TICK;
    let p = bid ? v - TICK - off : v + TICK + off;
    const bb = best(m.bids, true);
    const ba = best(m.asks, false);
    if (bid && ba !== 0 && p >= ba) p = ba - TICK;
    if (!bid && bb !== 0 && p <= bb) p = bb + TICK;
    if (p < TICK || p > PRICE_SCALE - TICK) continue;
    const touched: Array<[boolean, number]> = [[bid, p]];
    if (side.has(p) && rng.next() < 0.3 && side.size > 2) side.delete(p);
    else side.set(p, size());
    // trim a far level to keep the depth bounded
    if (side.size > depth + 2) {
      const far = [...side.keys()].sort((a, b) => (bid ? a - b : b - a))[0]!;
      side.delete(far);
      touched.push([bid, far]);
    }
    emit(priceChange(m, touched));
  }
  return count;
}

/** Writes a generated feed to `file` (gzip), streaming. Resolves with the messages written. */
export async function writeFeed(file: string, o: FeedGenOptions): Promise<number> {
  const gz = createGzip({ level: 1 });
  const out = createWriteStream(file);
  gz.pipe(out);
  let buf: string[] = [];
  const flush = async (): Promise<void> => {
    if (buf.length === 0) return;
    const chunk = buf.join('\n') + '\n';
    buf = [];
    if (!gz.write(chunk)) await once(gz, 'drain');
  };
  const n = await generateFeed(o, (line) => buf.push(line), flush);
  await flush();
  gz.end();
  await once(out, 'finish');
  return n;
}
