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
 * A Redis restarted empty (no persistence, or a failover to an empty replica; review-1 F7) loses
 * the record while the members' stores keep what they booked: a claim would then grant again what
 * the other members had booked. So each member re-asserts its booked parts from its store
 * (`reassert`: the parts the record lacks are added, field and total; at once on every reconnect
 * to Redis and before each poll's claims, as the fleet's limits are re-asserted:
 * ./fleet-limits.ts). A re-assert that added a part (a loss seen) holds every claim for
 * `REWARD_REASSERT_HOLD_MS` (a key with a TTL, Redis's clock), so that the other live members
 * re-assert theirs before anyone is granted the payout again; and a claim by a member that booked a
 * part of a date whose record is gone (proof of the loss) grants nothing until a re-assert has
 * re-created it. A member not running at the loss re-asserts its parts only when it starts again:
 * what it had booked may be granted again meanwhile (run Redis with `--appendonly yes`).
 *
 * A member's own estimate of a payout (its reward tracker's, while it quoted the market) stops
 * counting once the fleet has booked the payout (`booked` > 0, review-1 F9): the member settles its
 * row at what it booked of it, 0 when another member booked it all (src/ops/reward-book.ts).
 */
import type { Redis } from 'ioredis';
import type { FleetKeys } from './fleet-keys.ts';
import { Script } from './lua-script.ts';

/** How long the fleet keeps a date's booked figures (the reward book reads a week back). */
export const REWARD_CLAIMS_TTL_MS = 30 * 24 * 3_600_000;

/**
 * How long claims grant nothing after a re-assert added a part: the reward book's default poll
 * period (60 s, which re-asserts before it claims) with a margin, so every live member re-asserts
 * in it even without a reconnect.
 */
export const REWARD_REASSERT_HOLD_MS = 65_000;

/**
 * KEYS[1] the date's HASH (field `<market>`: the fleet's booked figure; field `<market>|<ledger id>`:
 * each ledger's part of it), KEYS[2] the hold (see the module comment); ARGV market, ledger id, the venue's figure (µ), what this ledger's
 * store booked of it (µ: the truth, it replaces the record's part, which a claim whose answer was
 * lost left too high), the ttl (ms). Returns the part this ledger books now (signed µ; 0: nothing;
 * also 0, nothing written, while the hold exists, or when this ledger booked a part but the date's
 * record is gone: lost).
 */
const CLAIM_LUA = `
local mf = ARGV[1] .. '|' .. ARGV[2]
local mine = tonumber(ARGV[4])
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if mine > 0 and redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local booked = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') - tonumber(redis.call('HGET', KEYS[1], mf) or '0') + mine
local d = tonumber(ARGV[3]) - booked
if d < -mine then d = -mine end
redis.call('HSET', KEYS[1], ARGV[1], tostring(booked + d), mf, tostring(mine + d))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return d
`;
const CLAIM = new Script(CLAIM_LUA);

/**
 * KEYS[1] the date's HASH, KEYS[2] the hold; ARGV ledger id, the ttl (ms), the hold (ms), then pairs
 * market, what this ledger's store booked of it (µ, > 0). A part the record lacks is added (its
 * field, and to the market's booked figure; the hold set); a part present is left (a claim corrects
 * it). Returns the parts added.
 */
const REASSERT_LUA = `
local n = 0
for i = 4, #ARGV, 2 do
  local mf = ARGV[i] .. '|' .. ARGV[1]
  if redis.call('HEXISTS', KEYS[1], mf) == 0 then
    local booked = tonumber(redis.call('HGET', KEYS[1], ARGV[i]) or '0') + tonumber(ARGV[i + 1])
    redis.call('HSET', KEYS[1], mf, ARGV[i + 1], ARGV[i], tostring(booked))
    n = n + 1
  end
end
if n > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
end
return n
`;
const REASSERT = new Script(REASSERT_LUA);

/** One part of a payout a member's store booked: its date, market and amount (µ, > 0). */
export interface BookedPart {
  readonly date: string;
  readonly market: string;
  readonly paid: number;
}

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
  /**
   * Re-asserts the parts this member booked (from its store) that the fleet's record lacks (a Redis
   * restarted empty). Returns how many were added.
   * @throws what Redis throws
   */
  reassert(parts: readonly BookedPart[]): Promise<number>;
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
  o: {
    ledgerId: string;
    holds(market: string): boolean;
    beats(): boolean;
    fleetMarkets: readonly string[];
    /** How long claims are held after a re-assert added a part, ms (default `REWARD_REASSERT_HOLD_MS`). */
    reassertHoldMs?: number;
  },
): RewardClaims {
  const fleet = new Set(o.fleetMarkets);
  return {
    mayClaim: (market) => (fleet.has(market) ? o.holds(market) : o.beats()),
    async claim(date, market, paid, mine) {
      if (!Number.isSafeInteger(paid) || paid < 0 || !Number.isSafeInteger(mine) || mine < 0)
        throw new RangeError(`reward claim: paid and mine must be non-negative integers, got ${paid}, ${mine}`);
      const d = await CLAIM.run(
        redis,
        [keys.rewardsPaid(date), keys.rewardsHold],
        [market, o.ledgerId, paid, mine, REWARD_CLAIMS_TTL_MS],
      );
      return Number(d);
    },
    async booked(date, market) {
      return Number((await redis.hget(keys.rewardsPaid(date), market)) ?? '0');
    },
    async reassert(parts) {
      const byDate = new Map<string, (string | number)[]>();
      for (const p of parts) {
        if (!Number.isSafeInteger(p.paid) || p.paid <= 0) continue;
        const args = byDate.get(p.date) ?? [];
        args.push(p.market, p.paid);
        byDate.set(p.date, args);
      }
      let n = 0;
      for (const [date, args] of byDate)
        n += Number(
          await REASSERT.run(
            redis,
            [keys.rewardsPaid(date), keys.rewardsHold],
            [o.ledgerId, REWARD_CLAIMS_TTL_MS, o.reassertHoldMs ?? REWARD_REASSERT_HOLD_MS, ...args],
          ),
        );
      return n;
    },
  };
}
