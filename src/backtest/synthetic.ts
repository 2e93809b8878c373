/**
 * Synthetic mode (`mmkit backtest --world SEED --duration 6h`): the paper exchange's world
 * (src/exchange/world: seeded markets, flow agents, lifecycle) and matching engine run in VIRTUAL
 * time, with our orders inside the same matching engine through an in-process Venue adapter
 * (./exchange-venue.ts), so our quotes change what the agents meet: market impact included.
 *
 * Built as src/exchange/server.ts builds the exchange, minus the network: a PaperExchange on a
 * VirtualClock, `seedWorld`, the exchange's 4 Hz housekeeping (`start`: GTD expiry, the dead-man
 * switch) and `startWorld` (agents and lifecycle; the crypto price publication is off: nothing
 * here reads the real-time data stream, and the crypto markets follow the seeded walks anyway).
 * The world first runs `warmupMs` alone (the liquidity providers lay their ladders), then the bot
 * joins on the chosen markets (by default the `marketCount` most liquid active markets that stay
 * open for the whole run, contested ones first: YES mid in [0.10, 0.90]), and the clock jumps from one due timer to the next until the end: as
 * fast as the CPU allows.
 *
 * Liquidity rewards: the traded markets carry the exchange's reward configs (the bot's estimate
 * follows them), and the run's rewards are what the exchange itself paid our account at the ends of
 * the epochs closed during the run plus its standing in the running epoch (`exchangeRewards`).
 *
 * The exchange and the world run on a QuietClock view of the virtual clock (./quiet-clock.ts): their
 * timers fire as they would on the clock itself, but the runner does not stop to let the bot's
 * promises settle after them (nothing of the bot's is pending because an agent acted; what the bot
 * does in response is counted where it happens). Our venue adapter's timers (latencies, trade
 * statuses) stay on the clock itself: they may answer the bot's requests.
 */
import { VirtualClock } from '../core/clock.ts';
import { ConfigError } from '../core/errors.ts';
import type { FeeProtocol } from '../core/fees.ts';
import { PRICE_SCALE } from '../core/units.ts';
import { marketsInOrder, type MarketInfo } from '../core/venue.ts';
import { DEFAULT_EXCHANGE_OPTIONS, PaperExchange } from '../exchange/exchange.ts';
import { DEFAULT_WORLD_PROFILE, seedWorld, startWorld, type RunningWorld } from '../exchange/world/index.ts';
import { createExchangeVenue, marketInfo } from '../venues/paper/exchange-venue.ts';
import type { RewardConfig } from '../core/rewards.ts';
import { QuietClock } from './quiet-clock.ts';
import type { ExchangeRewards } from './rewards.ts';
import type { BacktestDriver, BookLevels, MarketChooser, NewsJumpRow, WorldSpec } from './types.ts';

/** 2026-01-01T00:00:00Z: the default virtual start (a fixed time: the world's records depend on it). */
export const DEFAULT_WORLD_START_MS = Date.UTC(2026, 0, 1);
export const DEFAULT_WARMUP_MS = 60_000;
export const DEFAULT_WORLD_MARKETS = 3;

/** Options of the world driver. */
export interface WorldDriverOptions {
  readonly world: WorldSpec;
  /** Seed of the run (order ids); the world has its own (`world.seed`). */
  readonly seed: number;
  readonly latencyMs: number;
  /** Our collateral, micro. */
  readonly collateral: number;
  /** Condition ids to trade instead of the most liquid ones. */
  readonly markets?: readonly string[];
  /**
   * Without `markets`: chooses `marketCount` markets among the candidates (the active markets open
   * for the whole run, in the default pick's order), reading the exchange's books after the
   * warm-up. Default: the first `marketCount` candidates.
   */
  readonly choose?: MarketChooser;
  /**
   * The order protocol whose taker fee our orders pay (../venues/paper/exchange-venue.ts): default
   * the protocol the world's exchange speaks (2 unless its options say 1), what a bot trading on that
   * paper exchange would sign and pay; 1 the V1 formula.
   */
  readonly feeProtocol?: FeeProtocol;
}

/**
 * What the backtest reads of the paper exchange's reward ledger (`PaperExchange.rewards`,
 * src/exchange/rewards/ledger.ts): a market's config, the payments made at closed epochs, and a
 * maker's standing in the running epoch.
 */
export interface RewardPayerView {
  configOf(conditionId: string): RewardConfig | null;
  /** A maker's rows of the closed epochs. */
  historyOf(maker: string): readonly { readonly market: string; readonly earned: number; readonly paid: number }[];
  standing(maker: string, now: number): readonly { readonly market: string; readonly earnedSoFar: number }[];
}

/** A token's book in the exchange now (undefined: unknown token). */
function bookLevels(ex: PaperExchange, tokenId: string): BookLevels | undefined {
  try {
    const b = ex.engine.book(tokenId);
    return { bids: b.bids.map((l) => [l.price, l.size] as const), asks: b.asks.map((l) => [l.price, l.size] as const) };
  } catch {
    return undefined;
  }
}

/** A market with the exchange's reward config (none: as it is). */
function withExchangeRewards(m: MarketInfo, payer: RewardPayerView): MarketInfo {
  const c = payer.configOf(m.market);
  return c === null ? m : { ...m, rewards: c };
}

/**
 * What the exchange's rewards came to for `maker` per traded market, micro: `accrued`, its share of
 * the pools (each closed epoch's `earned` plus its standing in the running epoch at `now`, floored
 * to the micro, before the minimum payout), and `paid`, what the exchange credited at the ends of
 * the closed epochs (nothing below the minimum payout). Traded markets without a reward config and
 * without rows are left out.
 */
export function exchangeRewards(
  payer: RewardPayerView,
  maker: string,
  markets: readonly MarketInfo[],
  now: number,
): Map<string, ExchangeRewards> {
  const me = maker.toLowerCase();
  const traded = new Set<string>(markets.map((m) => m.market));
  const sums = new Map<string, { accrued: number; paid: number }>();
  const at = (market: string): { accrued: number; paid: number } => {
    let x = sums.get(market);
    if (x === undefined) sums.set(market, (x = { accrued: 0, paid: 0 }));
    return x;
  };
  for (const row of payer.historyOf(me))
    if (traded.has(row.market)) {
      const x = at(row.market);
      x.accrued += row.earned;
      x.paid += row.paid;
    }
  for (const s of payer.standing(me, now)) if (traded.has(s.market)) at(s.market).accrued += s.earnedSoFar;
  const out = new Map<string, ExchangeRewards>();
  for (const m of markets) {
    const x = sums.get(m.market);
    if (x === undefined && m.rewards == null) continue;
    out.set(m.market, { accrued: x?.accrued ?? 0, paid: x?.paid ?? 0 });
  }
  return out;
}

/** True when the token's book is two-sided with its mid in [0.10, 0.90]. */
function contested(ex: PaperExchange, token: string): boolean {
  const { bid, ask } = ex.engine.bestBidAsk(token);
  if (bid === null || ask === null) return false;
  const mid = (bid + ask) / 2;
  return mid >= 0.1 * PRICE_SCALE && mid <= 0.9 * PRICE_SCALE;
}

/**
 * Builds the world, warms it up, picks the markets and returns the driver the runner runs.
 * @throws ConfigError on a bad duration, an unknown market, or no market that stays open long enough
 */
export async function createWorldDriver(o: WorldDriverOptions): Promise<BacktestDriver> {
  const w = o.world;
  if (!Number.isSafeInteger(w.seed) || w.seed < 0)
    throw new ConfigError('backtest.world', `the world seed must be a non-negative integer, got ${w.seed}`);
  if (!(w.durationMs > 0) || !Number.isFinite(w.durationMs))
    throw new ConfigError('backtest.duration', `must be a positive duration, got ${w.durationMs} ms`);
  const warmupMs = w.warmupMs ?? DEFAULT_WARMUP_MS;
  const marketCount = w.marketCount ?? DEFAULT_WORLD_MARKETS;
  const rate = w.rate ?? 1;
  const profile = w.profile ?? DEFAULT_WORLD_PROFILE;
  const t0 = w.startMs ?? DEFAULT_WORLD_START_MS;
  const clock = new VirtualClock(t0);
  const quiet = new QuietClock(clock);
  const ex = new PaperExchange({
    ...DEFAULT_EXCHANGE_OPTIONS,
    clock: quiet,
    ...(w.rewards !== undefined ? { rewards: w.rewards } : {}),
  });
  const feeRateBps = w.feeRateBps ?? 0;
  try {
    seedWorld(ex, w.seed, { feeRateBps });
  } catch (e) {
    throw new ConfigError('backtest.world.feeRateBps', (e as Error).message, { cause: e });
  }
  ex.start();
  // the price feed is on: strategies that price from the real-time stream (crypto-fair-value) get
  // the world's crypto prices through the venue's priceEvents, as they would from the RTDS live
  const world: RunningWorld = startWorld(ex, {
    seed: w.seed,
    agents: 'default',
    lifecycle: true,
    priceFeed: true,
    rate,
    profile,
    feeRateBps,
  });
  clock.advance(warmupMs);
  const startMs = clock.now();
  const endMs = startMs + w.durationMs;

  const feeProtocol: FeeProtocol = o.feeProtocol ?? ex.protocol;
  const venue = createExchangeVenue({
    exchange: ex,
    clock,
    collateral: o.collateral,
    latencyMs: o.latencyMs,
    idSeed: o.seed,
    feeProtocol,
  });
  const all = await venue.markets();
  let markets: MarketInfo[];
  if (o.markets !== undefined && o.markets.length > 0) {
    // in the order given: the strategy's ctx.markets follows it, as the daemon's does
    const picked = marketsInOrder(all, o.markets);
    markets = picked.found;
    const missing = picked.missing;
    if (missing.length > 0)
      throw new ConfigError('backtest.markets', `unknown market(s) in world ${w.seed}: ${missing.join(', ')}`);
  } else {
    // (a search that matches no question is said as such, not as a run too long: trial 23 F8)
    if (
      w.search !== undefined &&
      !ex.listMarkets().some((e) => e.meta.question.toLowerCase().includes(w.search!.toLowerCase()))
    )
      throw new ConfigError('--world-search', `no market of world ${w.seed} has "${w.search}" in its question`);
    const scored = ex
      .listMarkets()
      .filter((e) => e.state.status === 'active' && Date.parse(e.meta.endDate) > endMs + 3_600_000)
      .filter((e) => w.search === undefined || e.meta.question.toLowerCase().includes(w.search.toLowerCase()))
      .map((e) => ({ e, liquidity: ex.liquidity(e), contested: contested(ex, e.meta.tokens[0]) }))
      .filter((x) => x.liquidity > 0);
    // contested markets (YES mid in [0.10, 0.90]: both outcomes carry risk) first, then the most
    // liquid; ties by condition id (deterministic). Long shots rank high on liquidity alone (their
    // asks are worth nearly a dollar a share) but are no test of a quoter: news barely moves them.
    scored.sort(
      (a, b) =>
        Number(b.contested) - Number(a.contested) ||
        b.liquidity - a.liquidity ||
        (a.e.meta.conditionId < b.e.meta.conditionId ? -1 : 1),
    );
    markets =
      o.choose === undefined
        ? scored.slice(0, marketCount).map((x) => marketInfo(x.e))
        : await o.choose(
            scored.map((x) => withExchangeRewards(marketInfo(x.e), ex.rewards)),
            marketCount,
            clock.now(),
            (t) => bookLevels(ex, t),
          );
    if (o.choose !== undefined && markets.length === 0 && scored.length > 0)
      throw new ConfigError(
        'backtest.markets',
        `the strategy's selectMarkets chose none of world ${w.seed}'s ${scored.length} candidate markets`,
      );
  }
  // each market's reward config, as the exchange pays it (the bot's estimate follows it too)
  const payer = ex.rewards;
  markets = markets.map((m) => withExchangeRewards(m, payer));
  if (markets.length === 0)
    throw new ConfigError(
      'backtest.markets',
      `world ${w.seed} has no active market with books${w.search !== undefined ? ` matching "${w.search}"` : ''} that stays open for the run (${w.durationMs / 1000} s) and an hour after it`,
    );

  // the news jumps of the traded markets from now on (the report's "picked off after jumps")
  const traded = new Set<string>(markets.map((m) => m.market));
  const news: NewsJumpRow[] = [];
  world.onNews((e) => {
    if (traded.has(e.market) && e.at >= startMs && e.at <= endMs) news.push({ ...e });
  });

  let halted = false;
  const halt = (): void => {
    if (halted) return;
    halted = true;
    world.stop();
    ex.stop();
  };
  return {
    mode: 'world',
    clock,
    venue,
    markets,
    endMs,
    quietFired: () => quiet.fired,
    feeProtocol,
    news: () => news.slice(),
    bookIncludesOwn: true,
    rewards: () => exchangeRewards(payer, venue.address, markets, clock.now()),
    source: {
      world: {
        seed: w.seed,
        durationMs: w.durationMs,
        warmupMs,
        marketCount,
        rate,
        profile,
        startMs: t0,
        ...(w.search !== undefined ? { search: w.search } : {}),
        ...(w.rewards !== undefined ? { rewards: { ...w.rewards } } : {}),
        ...(feeRateBps > 0 ? { feeRateBps } : {}),
      },
    },
    async run(step, count) {
      let steps = 0;
      for (;;) {
        const next = clock.nextAt();
        const target = next === undefined || next > endMs ? endMs : Math.max(next, clock.now());
        clock.advanceTo(target);
        steps++;
        const r = step();
        if (r !== false && (r === true || (await r))) break;
        if (target >= endMs) break;
      }
      count(steps, 0, 0);
    },
    halt,
    async close() {
      halt();
      await venue.close();
    },
  };
}
