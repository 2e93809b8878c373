/**
 * The flow agents' accounts of a world: how many of each kind and their addresses, which depend on
 * the seed only (agents.ts trades with them; the generator gives them profiles, world-comments.ts).
 */
import { addressFor } from './seeding.ts';

/** The flow agents' accounts of a world (deterministic per seed). */
export interface AgentAccounts {
  /** Liquidity providers: resting ladders on every market. */
  lp: string[];
  /** Noise traders: Poisson limit and marketable orders. */
  noise: string[];
  /** Informed traders: trade toward the hidden probability. */
  informed: string[];
  /** More informed traders, each with its own delay and error (profiles with news; profiles.ts). */
  newsInformed: string[];
  /** Fast traders: take stale quotes right after a jump (profiles with news). */
  fast: string[];
}

export const AGENT_COUNTS = { lp: 4, noise: 8, informed: 3, newsInformed: 16, fast: 6 } as const;

/** The agent accounts of world `seed`. */
export function agentAccounts(seed: number): AgentAccounts {
  const make = (role: string, n: number) =>
    Array.from({ length: n }, (_, i) => addressFor(`agent:${seed}:${role}:${i}`));
  return {
    lp: make('lp', AGENT_COUNTS.lp),
    noise: make('noise', AGENT_COUNTS.noise),
    informed: make('informed', AGENT_COUNTS.informed),
    newsInformed: make('news-informed', AGENT_COUNTS.newsInformed),
    fast: make('fast', AGENT_COUNTS.fast),
  };
}
