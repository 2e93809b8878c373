/**
 * The synthetic market world of the paper exchange.
 *
 * `seedWorld(ex, seed)` fills a fresh exchange with the records of a believable venue (generator.ts):
 * tags, series, sports, 10-20 events across categories holding 30-60 binary markets (every tick
 * size, neg-risk groups, short-dated games and rolling crypto up/down windows), profiles, comments
 * and articles. It places no orders: books start empty.
 *
 * `startWorld(ex, opts)` makes it live, on the exchange's clock:
 *  - priceFeed: a seeded per-second random walk per crypto symbol, published about once a second
 *    (`crypto_price` world events, RTDS `crypto_prices`); it also drives the crypto markets;
 *  - lifecycle: markets close at their end and resolve shortly after, rolling crypto windows and
 *    games are replaced, ticks move to 0.001 near the edges, comments trickle in (lifecycle.ts);
 *  - agents: liquidity providers, noise traders and informed traders trading toward each market's
 *    hidden probability (agents.ts, fair.ts).
 *
 * Every state change goes through the exchange's commands, so with --db the world is journaled and a
 * restart replays it; a world started on the restored exchange recomputes its hidden state from the
 * seed and carries on (agents are funded only once).
 */
import type { PaperExchange } from '../exchange.ts';
import { Agents, DEFAULT_AGENT_RATES, type AgentRates } from './agents.ts';
import { roundPrice } from './crypto.ts';
import { agentAccounts, type AgentAccounts } from './agent-accounts.ts';
import { generateWorld } from './generator.ts';
import { withWorldFee } from './world-fees.ts';
import { DEFAULT_LIFECYCLE, Lifecycle, type LifecycleOptions } from './lifecycle.ts';
import { CRYPTO_SYMBOLS } from './model.ts';
import type { NewsEvent } from './news.ts';
import { DEFAULT_WORLD_PROFILE, worldProfile, type WorldProfileName } from './profiles.ts';
import { WorldRuntime, type WorldStats } from './runtime.ts';
import { giveWorldRewards } from '../rewards/world-configs.ts';

export type { AgentRates } from './agents.ts';
export type { WorldStats } from './runtime.ts';
export type { NewsEvent } from './news.ts';
export {
  DEFAULT_WORLD_PROFILE,
  isWorldProfileName,
  PROFILES,
  WORLD_PROFILES,
  worldProfile,
  type WorldProfile,
  type WorldProfileName,
} from './profiles.ts';
export { generateWorld, type WorldPlan } from './generator.ts';

/** 'default': the flow agents trade on every active market; 'none': no agent ever trades. */
export type AgentsMode = 'default' | 'none';

/** What startWorld runs (server.ts passes its `world` option through). */
export interface WorldOptions {
  /** The world's seed (the journal's seed after a restart). */
  seed: number;
  /** Flow agents: 'default' trades on every active market; 'none' turns them off. */
  agents: AgentsMode;
  /** Markets closing, resolving and appearing during the run. */
  lifecycle: boolean;
  /** The simulated crypto prices (RTDS crypto_prices; they drive the up/down markets). */
  priceFeed: boolean;
  /**
   * Multiplier of the agents' activity (noise and informed arrival rates; ladder refreshes happen
   * `rate` times as often; 0 turns the agents off). Default 1: over the ~45 markets of a seeded
   * world, about 15 orders and 5-10 cancels per second, 3-5 trades per second, ~1% of a core.
   */
  rate?: number;
  /**
   * Who trades and what they know (profiles.ts): calm (the easy world of old), realistic (news,
   * informed and fast traders; the default) or toxic.
   */
  profile?: WorldProfileName;
  /** Per-kind agent rates, overriding the profile's (before `rate`). */
  rates?: Partial<AgentRates>;
  /** Lifecycle options (comment rate, pause between games). */
  lifecycleOptions?: Partial<LifecycleOptions>;
  /** Period of the crypto price publication, ms. Default 1000. */
  priceFeedMs?: number;
  /**
   * The taker fee rate of the markets the lifecycle lists, bps (0 to 1000; default 0: no fee). The
   * seeded markets take theirs from `seedWorld`; give both the same.
   */
  feeRateBps?: number;
}

/** A started world. */
export interface RunningWorld {
  /** Stops every timer of the world and detaches it from the exchange. Idempotent. */
  stop(): void;
  /** What the world did since it started. */
  stats(): WorldStats;
  /**
   * The hidden probability (0..1) that a market resolves YES, as the informed traders know it now.
   * For tests and diagnostics: the exchange never exposes it.
   */
  fair(conditionId: string): number;
  /** The simulated price of a crypto symbol now (unrounded). */
  cryptoPrice(symbol: (typeof CRYPTO_SYMBOLS)[number]): number;
  /** The agents' accounts (also when agents are off). */
  readonly accounts: AgentAccounts;
  /** The profile the world runs. */
  readonly profile: WorldProfileName;
  /** The news jumps announced so far (the last 10,000), oldest first. */
  news(): readonly NewsEvent[];
  /** Be told of each news jump as it is announced (on the exchange's clock). */
  onNews(fn: (e: NewsEvent) => void): void;
}

/**
 * Create the world's initial records in an empty exchange (deterministic for a seed: the same seed
 * gives the same ids and, at the same clock time, the same records). Places no orders.
 */
export function seedWorld(ex: PaperExchange, seed: number, o: { readonly feeRateBps?: number } = {}): void {
  withWorldFee({ feeRateBps: 0 }, o.feeRateBps); // checked before anything is written
  const plan = generateWorld(seed, ex.clock.now());
  for (const tag of plan.tags) ex.exec({ k: 'tag', tag });
  for (const series of plan.series) ex.exec({ k: 'series', series });
  for (const sport of plan.sports) ex.exec({ k: 'sport', sport });
  for (const profile of plan.profiles) ex.exec({ k: 'profile', profile });
  // an event before its markets: a new_market listener finds the market's event
  const byEvent = new Map<string, typeof plan.markets>();
  for (const m of plan.markets) {
    const list = byEvent.get(m.eventId ?? '') ?? [];
    list.push(m);
    byEvent.set(m.eventId ?? '', list);
  }
  for (const event of plan.events) {
    ex.exec({ k: 'event', event });
    for (const m of byEvent.get(event.id) ?? []) {
      ex.addMarket(withWorldFee(m, o.feeRateBps));
      giveWorldRewards(ex, seed, m);
    }
  }
  for (const comment of plan.comments) ex.exec({ k: 'comment', comment });
  for (const article of plan.articles) ex.exec({ k: 'article', article });
}

/** The effective agent rates of a world's options. */
export function agentRatesOf(opts: Pick<WorldOptions, 'rate' | 'rates' | 'profile'>): AgentRates {
  const base = opts.profile !== undefined ? worldProfile(opts.profile).rates : DEFAULT_AGENT_RATES;
  const r = { ...base, ...(opts.rates ?? {}) };
  const k = opts.rate ?? 1;
  if (!(k >= 0) || !Number.isFinite(k)) throw new RangeError(`world rate must be a finite number >= 0, got ${k}`);
  return {
    noisePerMarketPerMin: r.noisePerMarketPerMin * k,
    informedPerMarketPerMin: r.informedPerMarketPerMin * k,
    lpRefreshMs: k > 0 ? r.lpRefreshMs / k : Infinity,
    lpReactMs: r.lpReactMs,
  };
}

/**
 * Start the world's activity (prices, lifecycle, agents) on the exchange's clock. Works on a fresh
 * exchange after seedWorld and on one restored from its journal.
 * @throws RangeError when `rate` is negative or not finite.
 */
export function startWorld(ex: PaperExchange, opts: WorldOptions): RunningWorld {
  const profileName = opts.profile ?? DEFAULT_WORLD_PROFILE;
  const profile = worldProfile(profileName);
  const rates = agentRatesOf({ ...opts, profile: profileName });
  const rt = new WorldRuntime(ex, opts.seed, profile);
  const accounts = agentAccounts(opts.seed);
  if (opts.priceFeed) {
    rt.timers.every(opts.priceFeedMs ?? 1000, () => {
      const at = rt.clock.now();
      for (const symbol of CRYPTO_SYMBOLS) {
        ex.publish({ type: 'crypto_price', symbol, value: roundPrice(symbol, rt.walk(symbol).priceAt(at)), at });
        rt.stats.pricesPublished++;
      }
    });
  }
  withWorldFee({ feeRateBps: 0 }, opts.feeRateBps);
  if (opts.lifecycle)
    new Lifecycle(rt, {
      ...DEFAULT_LIFECYCLE,
      ...(opts.lifecycleOptions ?? {}),
      ...(opts.feeRateBps !== undefined ? { feeRateBps: opts.feeRateBps } : {}),
    }).start();
  if (opts.agents === 'default' && (opts.rate ?? 1) > 0) new Agents(rt, rates).start();
  let stopped = false;
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      rt.stop();
    },
    stats: () => structuredClone(rt.stats),
    fair: (cid) => rt.fair.fair(cid, rt.clock.now()),
    cryptoPrice: (symbol) => rt.walk(symbol).priceAt(rt.clock.now()),
    accounts,
    profile: profileName,
    news: () => rt.newsLog.slice(),
    onNews: (fn) => rt.onNews(fn),
  };
}
