/**
 * The fleet's liquidity rewards (findings-2 F3): the venue pays the account's rewards to the one
 * maker address the members share, and every member reads the same `GET /rewards/user?date=`. If
 * each booked what it reads, the fleet would report N times what the venue paid. So a payout is
 * booked once fleet-wide: Redis keeps, per UTC date and market, the figure the fleet has booked
 * so far (a HASH per date, kept 30 days), and a member books only what an atomic script grants it:
 * the venue's figure minus what the fleet booked already. Whoever books a part, the members'
 * booked figures add up to the venue's, exactly, whatever members join, leave, die or restart (the
 * record is the fleet's, not a member's), and two members polling at once cannot both book it. The
 * record also keeps each ledger's part, and a claim corrects it to what the ledger's store really
 * booked: a claim whose answer was lost (a timeout after Redis ran it) is booked by the next one.
 *
 * Who may claim a market's payout (`mayClaim`): the member holding the market's lease at the time
 * (its quotes earned it), and for a market outside the fleet's markets, the heartbeat lease holder
 * (one member at a time). A payout of a fleet market nobody holds waits for its next holder.
 *
 * A venue that lowers a figure gives back only what the claiming member booked of it (its ledger
 * never goes below zero); the rest stays with the members that booked it.
 *
 * A member's own estimate of a payout (its reward tracker's, while it quoted the market) stops
 * counting once the fleet has booked the payout (`booked` > 0, review-1 F9): the member settles its
 * row at what it booked of it, 0 when another member booked it all (src/ops/reward-book.ts).
 */
import type { Redis } from 'ioredis';
import type { FleetKeys } from './fleet-keys.ts';
import { Script } from './lease.ts';

/** How long the fleet keeps a date's booked figures (the reward book reads a week back). */
export const REWARD_CLAIMS_TTL_MS = 30 * 24 * 3_600_000;

/**
 * KEYS[1] the date's HASH (field `<market>`: the fleet's booked figure; field `<market>|<ledger id>`:
 * each ledger's part of it); ARGV market, ledger id, the venue's figure (µ), what this ledger's
 * store booked of it (µ: the truth, it replaces the record's part, which a claim whose answer was
 * lost left too high), the ttl (ms). Returns the part this ledger books now (signed µ; 0: nothing).
 */
const CLAIM_LUA = `
local mf = ARGV[1] .. '|' .. ARGV[2]
local mine = tonumber(ARGV[4])
local booked = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') - tonumber(redis.call('HGET', KEYS[1], mf) or '0') + mine
local d = tonumber(ARGV[3]) - booked
if d < -mine then d = -mine end
redis.call('HSET', KEYS[1], ARGV[1], tostring(booked + d), mf, tostring(mine + d))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return d
`;
const CLAIM = new Script(CLAIM_LUA);

/** What the reward book asks the fleet (RewardBookOptions.fleet). */
export interface RewardClaims {
  /** True when this member may book `market`'s payouts now (see the module comment). */
  mayClaim(market: string): boolean;
  /**
   * Claims the part of `paid` (the venue's figure of `date` and `market`, µ) the fleet has not
   * booked yet; `mine` is what this member booked of it so far. Returns the part to book (signed µ).
   * @throws what Redis throws (unreachable: nothing is booked; the next poll claims it)
   */
  claim(date: string, market: string, paid: number, mine: number): Promise<number>;
  /**
   * What the fleet has booked of (`date`, `market`)'s payout so far, all members (µ; 0: nothing yet).
   * @throws what Redis throws
   */
  booked(date: string, market: string): Promise<number>;
}

/**
 * The fleet's reward claims of one member.
 * @param holds true while this member holds the market's lease
 * @param beats true while this member holds the heartbeat lease
 * @param ledgerId this member's ledger id (stable across restarts of its data directory)
 * @param fleetMarkets the fleet's markets (the same on every member)
 */
export function rewardClaims(
  redis: Redis,
  keys: FleetKeys,
  o: { ledgerId: string; holds(market: string): boolean; beats(): boolean; fleetMarkets: readonly string[] },
): RewardClaims {
  const fleet = new Set(o.fleetMarkets);
  return {
    mayClaim: (market) => (fleet.has(market) ? o.holds(market) : o.beats()),
    async claim(date, market, paid, mine) {
      if (!Number.isSafeInteger(paid) || paid < 0 || !Number.isSafeInteger(mine) || mine < 0)
        throw new RangeError(`reward claim: paid and mine must be non-negative integers, got ${paid}, ${mine}`);
      const d = await CLAIM.run(
        redis,
        [keys.rewardsPaid(date)],
        [market, o.ledgerId, paid, mine, REWARD_CLAIMS_TTL_MS],
      );
      return Number(d);
    },
    async booked(date, market) {
      return Number((await redis.hget(keys.rewardsPaid(date), market)) ?? '0');
    },
  };
}
