/**
 * `mmkit world facts`: runs the paper world alone in virtual time and measures its stylized facts,
 * so a world profile can be checked against the public figures it is calibrated to (README, "World
 * profiles") and the profiles compared:
 *
 *  - spreads of the YES books (sampled every 10 s per active market), overall and by price level;
 *  - trade sizes (shares per taker order), volatility (the standard deviation of one-minute mid
 *    changes), the share of taker volume from informed and fast traders, the share of volume traded
 *    within an hour of a market's end, the news jumps and their sizes;
 *  - the markout of every maker fill at +1 s, +10 s and +60 s, and those of a probe: one account
 *    that keeps one small bid and one small ask at the touch of every active market (post-only,
 *    re-placed every second when the touch moved away from it). A markout is in price units,
 *    size-weighted, positive when the YES mid moved the maker's way: mid(t + h) - price for a buy of
 *    YES (or a sell of NO at 1 - price), the reverse for a sell. `probePickedOffAfterJumps`: the share
 *    of the probe's fills (by size) that came within 1 s after a news jump of their market.
 *
 * The first `warmupMs` (default 2 minutes: the liquidity providers lay their ladders) are not measured.
 * Deterministic for (profile, seed, hours, start).
 */
import { VirtualClock } from '../../core/clock.ts';
import { AMOUNT_SCALE, PRICE_SCALE, tickPips } from '../../core/units.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../exchange.ts';
import type { ExchangeEvent } from '../exchange-types.ts';
import type { Trade } from '../matching/types.ts';
import { seedWorld, startWorld, type RunningWorld } from './index.ts';
import type { WorldProfileName } from './profiles.ts';
import { addressFor } from './seeding.ts';

export interface WorldFactsOptions {
  profile: WorldProfileName;
  seed: number;
  /** Virtual hours measured (after the warm-up). */
  hours: number;
  /** Virtual start (default 2026-01-01T00:00Z, as synthetic backtests). */
  startMs?: number;
  warmupMs?: number;
  /** The probe's order size, shares (at least each market's minimum). Default 5. */
  probeShares?: number;
}

/** Percentiles and mean of a sample (null when empty). */
export interface Dist {
  n: number;
  mean: number | null;
  p10: number | null;
  p50: number | null;
  p90: number | null;
}

export interface WorldFacts {
  profile: WorldProfileName;
  seed: number;
  hours: number;
  /** Active markets, averaged over the spread samples. */
  markets: number;
  trades: number;
  /** Taker volume, shares. */
  volume: number;
  /** YES-book spreads, price units. */
  spread: Dist;
  /** Spreads by the mid's price level: [0, 0.1), [0.1, 0.3), [0.3, 0.7), [0.7, 0.9), [0.9, 1]. */
  spreadByPrice: Array<{ range: string } & Dist>;
  /** Shares per taker order. */
  tradeSize: Dist;
  /** Standard deviation of one-minute mid changes, price units. */
  volatility1m: number | null;
  /** Share of taker volume from informed traders (all of them) and from fast traders. */
  informedShare: number;
  fastShare: number;
  /** Share of the volume traded within an hour of its market's end. */
  volumeLastHourShare: number;
  newsJumps: number;
  /** Mean absolute move of the fair value at a news jump (probability). */
  newsMoveMean: number | null;
  makerFills: number;
  makerMarkout1s: number | null;
  makerMarkout10s: number | null;
  makerMarkout60s: number | null;
  probeFills: number;
  /** The probe's filled shares. */
  probeVolume: number;
  probeMarkout1s: number | null;
  probeMarkout10s: number | null;
  probeMarkout60s: number | null;
  probePickedOffAfterJumps: number | null;
}

const HORIZONS = [1_000, 10_000, 60_000] as const;
const SPREAD_EVERY_MS = 10_000;
const PROBE_EVERY_MS = 1_000;
const MARKOUT_EVERY_MS = 100;
const PICKOFF_WINDOW_MS = 1_000;
const PRICE_BUCKETS = [
  { range: '0.00-0.10', lo: 0, hi: 0.1 },
  { range: '0.10-0.30', lo: 0.1, hi: 0.3 },
  { range: '0.30-0.70', lo: 0.3, hi: 0.7 },
  { range: '0.70-0.90', lo: 0.7, hi: 0.9 },
  { range: '0.90-1.00', lo: 0.9, hi: 1.0001 },
];

/** Percentiles (nearest rank) and mean of xs. */
export function dist(xs: number[]): Dist {
  if (xs.length === 0) return { n: 0, mean: null, p10: null, p50: null, p90: null };
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { n: s.length, mean: s.reduce((a, b) => a + b, 0) / s.length, p10: at(0.1), p50: at(0.5), p90: at(0.9) };
}

/** A pending markout: a fill in YES terms waiting for the mid at its horizons. */
interface Pending {
  market: string;
  due: number;
  /** +1 for a long YES fill, -1 for a short. */
  dir: number;
  /** YES price, 0..1. */
  price: number;
  /** Shares. */
  size: number;
  probe: boolean;
}

class Markouts {
  private readonly queues = HORIZONS.map(() => [] as Pending[]);
  private readonly heads = HORIZONS.map(() => 0);
  readonly sum = HORIZONS.map(() => 0);
  readonly weight = HORIZONS.map(() => 0);
  readonly probeSum = HORIZONS.map(() => 0);
  readonly probeWeight = HORIZONS.map(() => 0);

  add(p: Omit<Pending, 'due'>, at: number): void {
    HORIZONS.forEach((h, i) => this.queues[i]!.push({ ...p, due: at + h }));
  }

  /** Resolve every pending markout due by `now` with the market's current (or last known) mid. */
  settle(now: number, mid: (market: string) => number | undefined): void {
    HORIZONS.forEach((_h, i) => {
      const q = this.queues[i]!;
      let k = this.heads[i]!;
      while (k < q.length && q[k]!.due <= now) {
        const p = q[k++]!;
        const m = mid(p.market);
        if (m === undefined) continue;
        const v = p.dir * (m - p.price) * p.size;
        this.sum[i]! += v;
        this.weight[i]! += p.size;
        if (p.probe) {
          this.probeSum[i]! += v;
          this.probeWeight[i]! += p.size;
        }
      }
      if (k > 4096 && k * 2 > q.length) {
        q.splice(0, k);
        k = 0;
      }
      this.heads[i] = k;
    });
  }

  avg(i: number, probe: boolean): number | null {
    const w = probe ? this.probeWeight[i]! : this.weight[i]!;
    return w > 0 ? (probe ? this.probeSum[i]! : this.sum[i]!) / w : null;
  }
}

/**
 * Run the world alone in virtual time and measure it (see the module comment).
 * @throws RangeError on a bad profile, seed or duration.
 */
export function measureWorld(o: WorldFactsOptions): WorldFacts {
  if (!(o.hours > 0) || !Number.isFinite(o.hours))
    throw new RangeError(`hours must be a positive number, got ${o.hours}`);
  if (!Number.isSafeInteger(o.seed) || o.seed < 0)
    throw new RangeError(`seed must be a non-negative integer, got ${o.seed}`);
  const clock = new VirtualClock(o.startMs ?? Date.UTC(2026, 0, 1));
  const ex = new PaperExchange({ ...DEFAULT_EXCHANGE_OPTIONS, clock });
  seedWorld(ex, o.seed);
  ex.start();
  const world: RunningWorld = startWorld(ex, {
    seed: o.seed,
    agents: 'default',
    lifecycle: true,
    priceFeed: false,
    profile: o.profile,
  });
  const informed = new Set([...world.accounts.informed, ...world.accounts.newsInformed]);
  const fast = new Set(world.accounts.fast);
  const probe = addressFor(`world-facts-probe:${o.seed}`);
  ex.fund(probe, 100_000_000 * AMOUNT_SCALE);
  const probeShares = o.probeShares ?? 5;
  let probeN = 0;
  const probeId = () => `0x${'f'.repeat(48)}${(++probeN).toString(16).padStart(16, '0')}`;

  const markets = () => ex.listMarkets().filter((e) => e.state.status === 'active');
  const lastMid = new Map<string, number>();
  const yesMid = (market: string): number | undefined => {
    const e = ex.market(market);
    if (e !== undefined && e.state.status !== 'resolved') {
      const { bid, ask } = ex.engine.bestBidAsk(e.meta.tokens[0]);
      if (bid !== null && ask !== null) {
        const m = (bid + ask) / 2 / PRICE_SCALE;
        lastMid.set(market, m);
        return m;
      }
    }
    return lastMid.get(market);
  };

  const warmupMs = o.warmupMs ?? 120_000;
  clock.advance(warmupMs);
  const t0 = clock.now();
  const end = t0 + o.hours * 3_600_000;

  // ---- observation ----------------------------------------------------------------------------------
  const mk = new Markouts();
  const lastJump = new Map<string, number>();
  let newsJumps = 0;
  const newsMoves: number[] = [];
  world.onNews((e) => {
    lastJump.set(e.market, e.at);
    newsJumps++;
    newsMoves.push(Math.abs(e.after - e.before));
  });
  let trades = 0;
  let volume = 0;
  let informedVol = 0;
  let fastVol = 0;
  let lastHourVol = 0;
  const sizes: number[] = [];
  let makerFills = 0;
  let probeFills = 0;
  let probeVolume = 0;
  let probePicked = 0;
  const onTrade = (t: Trade): void => {
    const e = ex.market(t.market);
    if (e === undefined) return;
    const yes = e.meta.tokens[0];
    const shares = t.size / AMOUNT_SCALE;
    trades++;
    volume += shares;
    sizes.push(shares);
    if (informed.has(t.takerAccount)) informedVol += shares;
    if (fast.has(t.takerAccount)) fastVol += shares;
    if (Date.parse(e.meta.endDate) - t.matchTime <= 3_600_000) lastHourVol += shares;
    for (const m of t.makers) {
      const isYes = m.tokenId === yes;
      const buy = m.side === 'BUY';
      const dir = isYes === buy ? 1 : -1;
      const price = (isYes ? m.price : PRICE_SCALE - m.price) / PRICE_SCALE;
      const size = m.size / AMOUNT_SCALE;
      const isProbe = m.account === probe;
      makerFills++;
      mk.add({ market: t.market, dir, price, size, probe: isProbe }, t.matchTime);
      if (isProbe) {
        probeFills++;
        probeVolume += size;
        const j = lastJump.get(t.market);
        if (j !== undefined && t.matchTime - j <= PICKOFF_WINDOW_MS) probePicked += size;
      }
    }
  };
  const unsubscribe = ex.subscribe((events: readonly ExchangeEvent[]) => {
    for (const ev of events) if (ev.type === 'trade') onTrade(ev.trade);
  });

  // ---- the probe: one small bid and ask at the touch of every active market ------------------------
  const refreshProbe = (): void => {
    for (const e of markets()) {
      const yes = e.meta.tokens[0];
      const no = e.meta.tokens[1];
      const { bid, ask } = ex.engine.bestBidAsk(yes);
      const mine = ex.engine.openOrders(probe, { market: e.meta.conditionId });
      const size = Math.max(e.meta.minSizeMicro, Math.round(probeShares) * AMOUNT_SCALE);
      const tick = tickPips(e.state.tick);
      // our bid is a BUY YES at the best bid; our ask a BUY NO at 1 - the best ask
      const wantBid = bid !== null && ask !== null && bid >= tick ? bid : null;
      const wantAsk = bid !== null && ask !== null && ask <= PRICE_SCALE - tick ? PRICE_SCALE - ask : null;
      let haveBid = false;
      let haveAsk = false;
      const cancel: string[] = [];
      for (const ord of mine) {
        const isBid = ord.tokenId === yes;
        const want = isBid ? wantBid : wantAsk;
        if (want !== null && ord.price === want && !(isBid ? haveBid : haveAsk)) {
          if (isBid) haveBid = true;
          else haveAsk = true;
        } else cancel.push(ord.id);
      }
      if (cancel.length > 0) ex.cancel(probe, cancel);
      const place = (token: string, price: number) =>
        ex.placeInternal({
          id: probeId(),
          account: probe,
          tokenId: token,
          side: 'BUY',
          price,
          size,
          type: 'GTC',
          postOnly: true,
        });
      if (!haveBid && wantBid !== null) place(yes, wantBid);
      if (!haveAsk && wantAsk !== null) place(no, wantAsk);
    }
  };

  // ---- sampling ---------------------------------------------------------------------------------------
  const spreads: number[] = [];
  const byPrice = PRICE_BUCKETS.map(() => [] as number[]);
  let marketSamples = 0;
  let spreadRounds = 0;
  const minuteMid = new Map<string, number>();
  const changes: number[] = [];
  let nextSpread = t0;
  let nextMinute = t0;
  let nextProbe = t0;
  for (let t = t0; t < end; t = Math.min(end, t + MARKOUT_EVERY_MS)) {
    clock.advanceTo(t);
    if (t >= nextProbe) {
      refreshProbe();
      nextProbe += PROBE_EVERY_MS;
    }
    mk.settle(t, yesMid);
    if (t >= nextSpread) {
      nextSpread += SPREAD_EVERY_MS;
      spreadRounds++;
      for (const e of markets()) {
        marketSamples++;
        const { bid, ask } = ex.engine.bestBidAsk(e.meta.tokens[0]);
        if (bid === null || ask === null) continue;
        const s = (ask - bid) / PRICE_SCALE;
        const mid = (ask + bid) / 2 / PRICE_SCALE;
        spreads.push(s);
        const b = PRICE_BUCKETS.findIndex((x) => mid >= x.lo && mid < x.hi);
        if (b >= 0) byPrice[b]!.push(s);
      }
    }
    if (t >= nextMinute) {
      nextMinute += 60_000;
      for (const e of markets()) {
        const m = yesMid(e.meta.conditionId);
        const prev = minuteMid.get(e.meta.conditionId);
        if (m !== undefined && prev !== undefined) changes.push(m - prev);
        if (m !== undefined) minuteMid.set(e.meta.conditionId, m);
      }
    }
  }
  clock.advanceTo(end);
  // markouts due after the end settle on the mids at the end (the horizons are short beside the run)
  mk.settle(Infinity, yesMid);
  unsubscribe();
  world.stop();
  ex.stop();

  let vol: number | null = null;
  if (changes.length > 1) {
    const mean = changes.reduce((a, b) => a + b, 0) / changes.length;
    vol = Math.sqrt(changes.reduce((a, b) => a + (b - mean) ** 2, 0) / (changes.length - 1));
  }
  return {
    profile: o.profile,
    seed: o.seed,
    hours: o.hours,
    markets: spreadRounds > 0 ? marketSamples / spreadRounds : 0,
    trades,
    volume,
    spread: dist(spreads),
    spreadByPrice: PRICE_BUCKETS.map((b, i) => ({ range: b.range, ...dist(byPrice[i]!) })),
    tradeSize: dist(sizes),
    volatility1m: vol,
    informedShare: volume > 0 ? informedVol / volume : 0,
    fastShare: volume > 0 ? fastVol / volume : 0,
    volumeLastHourShare: volume > 0 ? lastHourVol / volume : 0,
    newsJumps,
    newsMoveMean: newsMoves.length > 0 ? newsMoves.reduce((a, b) => a + b, 0) / newsMoves.length : null,
    makerFills,
    makerMarkout1s: mk.avg(0, false),
    makerMarkout10s: mk.avg(1, false),
    makerMarkout60s: mk.avg(2, false),
    probeFills,
    probeVolume,
    probeMarkout1s: mk.avg(0, true),
    probeMarkout10s: mk.avg(1, true),
    probeMarkout60s: mk.avg(2, true),
    probePickedOffAfterJumps: probeVolume > 0 ? probePicked / probeVolume : null,
  };
}
