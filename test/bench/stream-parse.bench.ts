/**
 * Market-channel frames parsed and validated per second, on one core: JSON text → messages →
 * validated, integer-unit events, exactly the path the market stream runs for every frame
 * (frame-scan.ts for canonical frames, else socket.ts parseFrame + MarketDecoder.decode). A realistic mix: price_change frames with 2-4
 * entries (70%), full book snapshots with 5-25 levels a side (15%), last_trade_price (15%), with
 * real-length ids (77-digit token ids, 0x condition ids, 40-hex hashes).
 *
 * Run: node --import tsx test/bench/stream-parse.bench.ts
 * Prints:
 *   figure: market_frames_parsed_per_sec = <n> frames/s      (production path: frame scanner, hand-written hot decoders)
 *   figure: market_frames_parsed_per_sec_zod = <n> frames/s  (reference path: zod for every kind)
 */
import type { MarketDataEvent } from '../../src/core/events.ts';
import { MarketDecoder } from '../../src/api/streams/market-decode.ts';
import { FrameScanner } from '../../src/api/streams/frame-scan.ts';
import { parseFrame } from '../../src/api/streams/socket.ts';
import { formatAmount, formatPrice } from '../../src/core/units.ts';

let seed = 12345;
const rnd = (): number => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x80000000;
};
const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[int(0, 15)]).join('');
const digits = (n: number) => String(int(1, 9)) + Array.from({ length: n - 1 }, () => String(int(0, 9))).join('');

const markets = Array.from({ length: 20 }, () => ({ cid: `0x${hex(64)}`, yes: digits(77), no: digits(77) }));
const size = () => formatAmount(int(1, 5000) * 10_000);

function frame(): string {
  const m = markets[int(0, markets.length - 1)]!;
  const ts = String(1_760_000_000_000 + int(0, 1e9));
  const x = rnd();
  if (x < 0.7) {
    const n = int(2, 4);
    const mid = int(1000, 9000);
    const price_changes = Array.from({ length: n }, (_, i) => {
      const yes = i % 2 === 0;
      const p = mid + int(-10, 10) * 10;
      return {
        asset_id: yes ? m.yes : m.no,
        price: formatPrice(yes ? p : 10_000 - p),
        size: rnd() < 0.2 ? '0' : size(),
        side: rnd() < 0.5 ? 'BUY' : 'SELL',
        hash: hex(40),
        best_bid: formatPrice(mid - 10),
        best_ask: formatPrice(mid + 10),
      };
    });
    return JSON.stringify({ event_type: 'price_change', market: m.cid, timestamp: ts, price_changes });
  }
  if (x < 0.85) {
    const mid = int(1000, 9000);
    const bids = Array.from({ length: int(5, 25) }, (_, i) => ({
      price: formatPrice(mid - 10 * (i + 1)),
      size: size(),
    })).reverse();
    const asks = Array.from({ length: int(5, 25) }, (_, i) => ({
      price: formatPrice(mid + 10 * (i + 1)),
      size: size(),
    })).reverse();
    return JSON.stringify({
      event_type: 'book',
      market: m.cid,
      asset_id: m.yes,
      timestamp: ts,
      hash: hex(40),
      bids,
      asks,
      min_order_size: '5',
      tick_size: '0.001',
      neg_risk: false,
      last_trade_price: formatPrice(mid),
    });
  }
  return JSON.stringify({
    event_type: 'last_trade_price',
    asset_id: m.yes,
    market: m.cid,
    price: formatPrice(int(100, 9900)),
    side: rnd() < 0.5 ? 'BUY' : 'SELL',
    size: size(),
    fee_rate_bps: '0',
    timestamp: ts,
    transaction_hash: `0x${hex(64)}`,
  });
}

const FRAMES = Array.from({ length: 4096 }, frame);
const bytes = FRAMES.reduce((s, f) => s + f.length, 0);

function run(fast: boolean, ms: number, scan = fast): { perSec: number; events: number } {
  const dec = new MarketDecoder({ fast });
  const scanner = scan ? new FrameScanner() : undefined;
  let events = 0;
  const sink = (_e: MarketDataEvent) => {
    events++;
  };
  let n = 0;
  let bad = 0;
  const start = performance.now();
  let now = start;
  while (now - start < ms) {
    for (let k = 0; k < 512; k++) {
      const text = FRAMES[n & 4095]!;
      n++;
      if (scanner?.scan(text, 0, dec.stats, sink)) continue;
      const f = parseFrame(text);
      if (!f.ok) {
        bad++;
        continue;
      }
      for (const msg of f.messages) if (dec.decode(msg, 0, sink).kind !== 'ok') bad++;
    }
    now = performance.now();
  }
  if (bad > 0) throw new Error(`bench frames refused: ${bad}`);
  return { perSec: n / ((now - start) / 1000), events };
}

run(true, 300); // warm up
run(true, 300, false);
run(false, 300);
const fast = run(true, 2000);
const json = run(true, 2000, false);
const zod = run(false, 2000);
console.log(
  `# ${FRAMES.length} distinct frames, mean ${Math.round(bytes / FRAMES.length)} bytes; ${(fast.events / (fast.perSec * 2)).toFixed(2)} events per frame`,
);
console.log(`figure: market_frames_parsed_per_sec = ${Math.round(fast.perSec)} frames/s`);
console.log(`# without the frame scanner (JSON.parse + hand-written decoders): ${Math.round(json.perSec)} frames/s`);
console.log(`figure: market_frames_parsed_per_sec_zod = ${Math.round(zod.perSec)} frames/s`);
