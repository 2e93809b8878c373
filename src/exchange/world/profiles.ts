/**
 * World profiles: who trades in the paper world, how often, how big, and how much they know.
 *
 *  - `calm`: the world as it was before profiles (issue 18). Noise traders, liquidity providers and
 *    a few informed traders who see the hidden fair value exactly but act only on a wide edge; no
 *    announced news and no fast traders. Passive quoting earns the spread easily. For a given seed it
 *    emits exactly the event stream it always did (test/unit/exchange/world/calm-golden.test.ts).
 *  - `realistic` (the default): the fair value also moves by news, jumps at Poisson times that are
 *    bigger and more frequent as a market nears its end; informed traders learn each jump after a
 *    delay and with an error drawn per agent, and trade on it aggressively; fast traders take stale
 *    quotes within milliseconds of a jump and of a crypto price move; liquidity providers widen and
 *    skew after they are filled. Calibrated to public figures (README, "World profiles").
 *  - `toxic`: the same agents, more news, faster and more numerous informed traders: a stress test
 *    in which a quoter that does not protect itself loses.
 *
 * A profile is plain data; the agents (agents.ts, news-flow.ts) read it. Every part the calm world
 * did not have is off (null or 0) in calm, and its code paths are not taken, so no random draw moves.
 */
/** Activity rates of the agents (before the world's `rate` multiplier). */
export interface AgentRates {
  /** Noise-trader orders per active market per minute. */
  noisePerMarketPerMin: number;
  /** Informed traders' looks at each active market per minute (they trade only on an edge). */
  informedPerMarketPerMin: number;
  /** Mean time between two refreshes of a market's liquidity ladder, ms. */
  lpRefreshMs: number;
  /** Delay before a ladder is replenished after one of its orders filled, ms. */
  lpReactMs: number;
}

export const DEFAULT_AGENT_RATES: AgentRates = {
  noisePerMarketPerMin: 10,
  informedPerMarketPerMin: 8,
  lpRefreshMs: 4_000,
  lpReactMs: 1_000,
};

export const WORLD_PROFILES = ['calm', 'realistic', 'toxic'] as const;
export type WorldProfileName = (typeof WORLD_PROFILES)[number];
export const DEFAULT_WORLD_PROFILE: WorldProfileName = 'realistic';

/** News: announced jumps of a market's hidden fair value (news.ts). */
export interface NewsParams {
  /** Mean number of news jumps per market per hour, away from the end. */
  perMarketPerHour: number;
  /**
   * Typical size of a jump, in probability near 0.5 (the standard deviation of the move it causes in
   * a market at 0.5 at any time of its life; heavier near the end through `nearEndBoost`).
   */
  sizeProb: number;
  /** Probability that a jump is a big one (3x the size). */
  bigShare: number;
  /** In the last `nearEndFraction` of a market's life, jumps are this many times as frequent. */
  nearEndBoost: number;
  nearEndFraction: number;
}

/** Informed traders with a per-agent delay and precision (news-flow.ts). */
export interface InformedParams {
  /** How many informed traders (accounts) there are. */
  agents: number;
  /** Each agent learns a jump this long after it happens (drawn per agent, uniform, ms). */
  delayMs: readonly [number, number];
  /** Each agent's estimate of the fair value is off by a normal error of this standard deviation (per agent, uniform, probability). */
  errorProb: readonly [number, number];
  /** Share of the informed traders who act on a given jump. */
  reactShare: number;
  /** They trade when the book is this far from their estimate, pips. */
  edgePips: number;
  /** Order size, shares (uniform). */
  sizeShares: readonly [number, number];
}

/** Fast traders: take stale quotes right after a jump or a crypto move (news-flow.ts). */
export interface FastParams {
  agents: number;
  /** Reaction time after a news jump, ms (uniform per reaction). */
  latencyMs: readonly [number, number];
  /** Reaction time after a step of the crypto price feed, ms (uniform per reaction). */
  cryptoLatencyMs: readonly [number, number];
  /** They take quotes at least this far (pips) on the wrong side of the new fair value. */
  marginPips: number;
  /** The most they take in one sweep, shares. */
  maxShares: number;
  /** React to the crypto price feed on crypto markets too. */
  crypto: boolean;
}

/** Liquidity providers' defences (agents.ts). */
export interface LpParams {
  /** Multiplies each provider's half spread (drawn per market; calm: 1). */
  spreadScale: number;
  /** After a fill, the half spread grows by this fraction per base size filled (0: never). */
  widenPerFill: number;
  /** At most this many times the usual half spread. */
  maxWiden: number;
  /** The widening decays with this time constant, ms. */
  widenDecayMs: number;
  /** Inventory skew: the quote centre moves by this many half spreads at full inventory (calm: 1). */
  skew: number;
  /**
   * On markets with liquidity rewards the providers compete for the pool: the market's provider
   * keeps its inner quotes inside the reward band at the min size or more, and a second provider
   * quotes one level a side at the min size inside the band (calm: false, nothing changes).
   */
  rewards: boolean;
}

/** Noise traders' order sizes: lognormal, clamped (shares). */
export interface NoiseSizeParams {
  median: number;
  sigma: number;
  min: number;
  max: number;
}

/** How unevenly the flow is spread over the markets (activity.ts). */
export interface ActivityParams {
  /** A market's weight in the takers' choice of market is e^(sigma x z), z standard normal per market. */
  sigma: number;
  /** Most levels a side a busy market's provider quotes beyond the usual three. */
  maxExtraLevels: number;
}

export interface WorldProfile {
  readonly name: WorldProfileName;
  readonly description: string;
  /** Arrival rates (before the world's `rate` multiplier). */
  readonly rates: AgentRates;
  readonly noiseSize: NoiseSizeParams;
  /** null: no announced news (the calm world: its latent walks still jump, unannounced). */
  readonly news: NewsParams | null;
  /** null: only the calm world's three informed traders (exact fair value, wide edge). */
  readonly informed: InformedParams | null;
  /** null: no fast traders. */
  readonly fast: FastParams | null;
  readonly lp: LpParams;
  /** null: every market draws the same flow and depth (calm). */
  readonly activity: ActivityParams | null;
}

const CALM: WorldProfile = {
  name: 'calm',
  description: 'the easy world: uninformed flow, no announced news, no fast traders (passive quoting earns the spread)',
  rates: DEFAULT_AGENT_RATES,
  noiseSize: { median: 18, sigma: 0.9, min: 5, max: 500 },
  news: null,
  informed: null,
  fast: null,
  lp: { spreadScale: 1, widenPerFill: 0, maxWiden: 1, widenDecayMs: 1, skew: 1, rewards: false },
  activity: null,
};

/**
 * Uneven activity (realistic and toxic): lognormal market weights of sigma 1 (the busiest of ~45
 * markets draws about 5x the mean flow; on the real venue volume is far more concentrated still)
 * and up to 3 more ladder levels a side on the busy ones.
 */
const ACTIVITY: ActivityParams = { sigma: 1, maxExtraLevels: 3 };

const REALISTIC: WorldProfile = {
  name: 'realistic',
  description:
    'news jumps, informed traders with delays and errors, fast traders picking off stale quotes, defensive liquidity providers',
  rates: { ...DEFAULT_AGENT_RATES, noisePerMarketPerMin: 10, informedPerMarketPerMin: 12 },
  noiseSize: { median: 30, sigma: 1.5, min: 5, max: 3_000 },
  news: { perMarketPerHour: 3, sizeProb: 0.06, bigShare: 0.15, nearEndBoost: 3, nearEndFraction: 0.1 },
  informed: {
    agents: 8,
    delayMs: [300, 30_000],
    errorProb: [0.003, 0.02],
    reactShare: 0.6,
    edgePips: 80,
    sizeShares: [50, 400],
  },
  fast: {
    agents: 3,
    latencyMs: [5, 80],
    cryptoLatencyMs: [300, 2_000],
    marginPips: 200,
    maxShares: 1_000,
    crypto: true,
  },
  lp: { spreadScale: 0.45, widenPerFill: 0.1, maxWiden: 2, widenDecayMs: 30_000, skew: 1.5, rewards: true },
  activity: ACTIVITY,
};

const TOXIC: WorldProfile = {
  name: 'toxic',
  description: 'more news, bigger moves, faster and more numerous informed traders: a quoter without defences loses',
  rates: { ...DEFAULT_AGENT_RATES, noisePerMarketPerMin: 8, informedPerMarketPerMin: 20 },
  noiseSize: { median: 30, sigma: 1.5, min: 5, max: 3_000 },
  news: { perMarketPerHour: 6, sizeProb: 0.08, bigShare: 0.2, nearEndBoost: 4, nearEndFraction: 0.15 },
  informed: {
    agents: 12,
    delayMs: [100, 10_000],
    errorProb: [0.002, 0.01],
    reactShare: 0.8,
    edgePips: 50,
    sizeShares: [80, 600],
  },
  fast: {
    agents: 4,
    latencyMs: [2, 30],
    cryptoLatencyMs: [50, 500],
    marginPips: 100,
    maxShares: 2_000,
    crypto: true,
  },
  lp: { spreadScale: 0.45, widenPerFill: 0.15, maxWiden: 2.5, widenDecayMs: 30_000, skew: 2, rewards: true },
  activity: ACTIVITY,
};

export const PROFILES: Readonly<Record<WorldProfileName, WorldProfile>> = {
  calm: CALM,
  realistic: REALISTIC,
  toxic: TOXIC,
};

export function isWorldProfileName(s: unknown): s is WorldProfileName {
  return typeof s === 'string' && (WORLD_PROFILES as readonly string[]).includes(s);
}

/**
 * The profile of a name.
 * @throws RangeError naming the profiles when `name` is not one of them.
 */
export function worldProfile(name: string): WorldProfile {
  if (!isWorldProfileName(name))
    throw new RangeError(`unknown world profile "${name}": expected one of ${WORLD_PROFILES.join(', ')}`);
  return PROFILES[name];
}
