/**
 * Hand-built recorded feeds for the simulated venue's tests: frames shaped as the paper exchange's
 * market channel sends them (src/exchange/ws/market.ts): a `book` per token (levels best last), a
 * `price_change` per batch listing each touched level of both tokens (YES entry then NO entry, the
 * NO one mirrored at 1 − p on the other side, each with its token's best prices after the batch),
 * and a `last_trade_price` per token for each trade (the NO print mirrored), all with the batch's
 * venue timestamp. The builder keeps the YES book so the frames stay consistent.
 */
import { VirtualClock } from '../../../../src/core/clock.ts';
import type { ConditionId, TokenId } from '../../../../src/core/ids.ts';
import { formatAmount, formatPrice, PRICE_SCALE, type Micro, type Side } from '../../../../src/core/units.ts';
import type { FeedItem, FeedHeader } from '../../../../src/venues/sim/feed.ts';
import type { MarketInfo } from '../../../../src/core/venue.ts';
import { createSimVenue, type SimVenue, type SimVenueOptions } from '../../../../src/venues/sim/sim-venue.ts';

export const CID = ('0x' + 'c1'.repeat(32)) as ConditionId;
export const YES = '71321045679252212594626385532706912750332728571942532289631379312455583992563' as TokenId;
export const NO = '52114319501245915516055106046884209969926127482827954674443846427813813222750' as TokenId;
export const T0 = 1_700_000_000_000;
/** One share, micro. */
export const SH = 1_000_000;

export function marketInfo(o: Partial<MarketInfo> = {}): MarketInfo {
  return {
    market: CID,
    question: 'Will it?',
    tokens: [
      { tokenId: YES, outcome: 'Yes' },
      { tokenId: NO, outcome: 'No' },
    ],
    tick: '0.01',
    minOrderSize: (5 * SH) as Micro,
    negRisk: false,
    feeRateBps: 0,
    active: true,
    endDate: '2030-01-01T00:00:00Z',
    ...o,
  };
}

type Lvl = Map<number, number>; // YES price (pips) -> size (micro)

/** Builds a consistent recorded feed of one market (YES book kept; NO mirrored). */
export class FeedBuilder {
  readonly items: FeedItem[] = [];
  t = T0;
  /** Venue time lag behind the receive time (the feed latency), ms. */
  lag = 0;
  readonly bids: Lvl = new Map();
  readonly asks: Lvl = new Map();
  private n = 0;

  constructor(readonly market: MarketInfo = marketInfo()) {}

  /** Moves the receive time on by `ms`. */
  at(ms: number): this {
    this.t += ms;
    return this;
  }

  private push(raw: unknown): FeedItem {
    const it: FeedItem = { kind: 'frame', t: this.t, ch: 'm', raw: JSON.stringify(raw) };
    this.items.push(it);
    return it;
  }

  private ts(): string {
    return String(Math.round(this.t - this.lag));
  }

  header(): FeedItem {
    const h: FeedHeader = { h: 1, t: this.t, part: 0, source: 'test', recorder: 'test', markets: [this.market] };
    const it: FeedItem = { kind: 'header', t: this.t, header: h };
    this.items.push(it);
    return it;
  }

  private view(token: 0 | 1): { bids: Array<[number, number]>; asks: Array<[number, number]> } {
    const yb = [...this.bids].filter(([, s]) => s > 0).sort((a, b) => b[0] - a[0]);
    const ya = [...this.asks].filter(([, s]) => s > 0).sort((a, b) => a[0] - b[0]);
    if (token === 0) return { bids: yb, asks: ya };
    return { bids: ya.map(([p, s]) => [PRICE_SCALE - p, s]), asks: yb.map(([p, s]) => [PRICE_SCALE - p, s]) };
  }

  private best(token: 0 | 1): { best_bid: string; best_ask: string } {
    const v = this.view(token);
    return {
      best_bid: v.bids[0] ? formatPrice(v.bids[0][0]) : '0',
      best_ask: v.asks[0] ? formatPrice(v.asks[0][0]) : '0',
    };
  }

  private tokenId(i: 0 | 1): TokenId {
    return this.market.tokens[i].tokenId;
  }

  /** Sets the YES book (prices in pips, sizes in shares) and sends both tokens' snapshots. */
  book(bids: Array<[number, number]>, asks: Array<[number, number]>): this {
    this.bids.clear();
    this.asks.clear();
    for (const [p, s] of bids) this.bids.set(p, s * SH);
    for (const [p, s] of asks) this.asks.set(p, s * SH);
    return this.snapshots();
  }

  /** Sends both tokens' snapshots of the current book. */
  snapshots(only?: 0 | 1): this {
    for (const i of [0, 1] as const) {
      if (only !== undefined && i !== only) continue;
      const v = this.view(i);
      this.push({
        event_type: 'book',
        asset_id: this.tokenId(i),
        market: this.market.market,
        timestamp: this.ts(),
        hash: `h${++this.n}`,
        // the wire lists best last
        bids: [...v.bids].reverse().map(([p, s]) => ({ price: formatPrice(p), size: formatAmount(s) })),
        asks: [...v.asks].reverse().map(([p, s]) => ({ price: formatPrice(p), size: formatAmount(s) })),
        tick_size: this.market.tick,
        min_order_size: formatAmount(this.market.minOrderSize),
        last_trade_price: '',
      });
    }
    return this;
  }

  /** One batch: YES levels set to new totals (sizes in shares), as one price_change of both tokens. */
  change(levels: Array<['bid' | 'ask', number, number]>): this {
    for (const [side, p, s] of levels) (side === 'bid' ? this.bids : this.asks).set(p, s * SH);
    const bests = [this.best(0), this.best(1)];
    const hashes = [`h${++this.n}`, `h${++this.n}`];
    const list: unknown[] = [];
    for (const [side, p, s] of levels) {
      const size = formatAmount(s * SH);
      list.push({
        asset_id: this.tokenId(0),
        price: formatPrice(p),
        size,
        side: side === 'bid' ? 'BUY' : 'SELL',
        hash: hashes[0],
        ...bests[0],
      });
      list.push({
        asset_id: this.tokenId(1),
        price: formatPrice(PRICE_SCALE - p),
        size,
        side: side === 'bid' ? 'SELL' : 'BUY',
        hash: hashes[1],
        ...bests[1],
      });
    }
    this.push({ event_type: 'price_change', market: this.market.market, timestamp: this.ts(), price_changes: list });
    return this;
  }

  /** A trade's prints on both tokens: taker `side` on YES at `yesPrice` for `shares` (NO mirrored). `only`: print on one token only. */
  trade(side: Side, yesPrice: number, shares: number, only?: 0 | 1): this {
    for (const i of [0, 1] as const) {
      if (only !== undefined && i !== only) continue;
      this.push({
        event_type: 'last_trade_price',
        asset_id: this.tokenId(i),
        market: this.market.market,
        price: formatPrice(i === 0 ? yesPrice : PRICE_SCALE - yesPrice),
        side: i === 0 ? side : side === 'BUY' ? 'SELL' : 'BUY',
        size: formatAmount(shares * SH),
        fee_rate_bps: String(this.market.feeRateBps),
        timestamp: this.ts(),
      });
    }
    return this;
  }

  /**
   * A taker SELL of YES at `yesPrice` eating `shares` from the bid level there, as the exchange
   * reports it: the level's new size first (both tokens), then the prints.
   */
  sellInto(yesPrice: number, shares: number): this {
    const left = (this.bids.get(yesPrice) ?? 0) / SH - shares;
    return this.change([['bid', yesPrice, Math.max(0, left)]]).trade('SELL', yesPrice, shares);
  }

  /** A taker BUY of YES at `yesPrice` eating `shares` from the ask level there. */
  buyInto(yesPrice: number, shares: number): this {
    const left = (this.asks.get(yesPrice) ?? 0) / SH - shares;
    return this.change([['ask', yesPrice, Math.max(0, left)]]).trade('BUY', yesPrice, shares);
  }

  status(status: 'connect' | 'disconnect', reason = ''): this {
    this.items.push({ kind: 'status', t: this.t, ch: 'm', status, reason });
    return this;
  }

  resolved(winner: 0 | 1): this {
    this.push({
      event_type: 'market_resolved',
      market: this.market.market,
      winning_asset_id: this.tokenId(winner),
      winning_outcome: this.market.tokens[winner].outcome,
      timestamp: this.ts(),
    });
    return this;
  }

  /** A market line: the market as the venue lists it now (`o` over the builder's market). */
  marketLine(o: Partial<MarketInfo>): this {
    this.items.push({ kind: 'market', t: this.t, ch: 'm', info: { ...this.market, ...o } });
    return this;
  }

  raw(text: string): this {
    this.items.push({ kind: 'frame', t: this.t, ch: 'm', raw: text });
    return this;
  }

  /** Items added since `from` (an index into items). */
  since(from: number): FeedItem[] {
    return this.items.slice(from);
  }
}

/** Default sim options: risk-averse, constant 10 ms latencies. */
export function simOptions(clock: VirtualClock, o: Partial<SimVenueOptions> = {}): SimVenueOptions {
  return {
    clock,
    markets: [marketInfo()],
    queue: 'risk-averse',
    latency: {
      entry: { kind: 'constant', ms: 10 },
      cancel: { kind: 'constant', ms: 10 },
      response: { kind: 'constant', ms: 10 },
    },
    seed: 7,
    ...o,
  };
}

/** A venue on a fresh clock at T0. */
export function newSim(o: Partial<SimVenueOptions> = {}): { venue: SimVenue; clock: VirtualClock } {
  const clock = new VirtualClock(T0);
  return { venue: createSimVenue(simOptions(clock, o)), clock };
}

/** Feeds items as the runner does: advance the clock to each item's time, then ingest. */
export function feed(venue: SimVenue, clock: VirtualClock, items: readonly FeedItem[]): void {
  for (const it of items) {
    if (it.t > clock.now()) clock.advanceTo(it.t);
    venue.ingest(it);
  }
}

/** Lets promise continuations run (the venue resolves requests from clock timers). */
export async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

/** Advances the clock by `ms` and lets the answers come back. */
export async function advance(clock: VirtualClock, ms: number): Promise<void> {
  clock.advance(ms);
  await flush();
}
