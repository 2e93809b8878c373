/**
 * One daemon's membership of a fleet (issue 21): the coordination parts assembled, so that the
 * daemon wires one object. `joinFleet` connects (fail-fast profile, ./redis.ts), then starts, in
 * order: the Redis health watch (./redis-health.ts), the kill watch (./kill.ts: a trip already in
 * force calls `onKill` before `joinFleet` resolves), the fail-closed guard (./fail-closed.ts), the
 * heartbeat lease (./heartbeat-lease.ts) and the market leases (./market-leases.ts).
 *
 * What the daemon does with it:
 *  - heartbeats: send the venue's heartbeat only while `shouldBeat()`; `onHeartbeatLease(true)`
 *    means "beat now" (a taker heartbeats at once);
 *  - quoting: quote a market only while `quotable(market)` (Redis up, the fleet not killed, its
 *    lease held); `onMarketGained` cancels the previous holder's orders on the market first
 *    (`DELETE /cancel-market-orders`), `onMarketLost` pulls this member's quotes there;
 *  - fail closed: `onDown` pulls every quote (the pause target gets 'fleet'), `onUp` resumes;
 *  - kill: `onKill` trips the daemon's own kill switch as a risk event (exit 4); a risk trip of the
 *    daemon's own switch calls `trip()`, so that the whole fleet stops.
 *  - exit: `leave()` (pulls, releases the leases, leaves the membership, disconnects); `release()`
 *    first when the exit still has Redis calls to make after the leases went.
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../core/clock.ts';
import { ConfigError } from '../core/errors.ts';
import { FleetGuard, type FleetPauseTarget } from './fail-closed.ts';
import { type FleetKeys, fleetKeys } from './fleet-keys.ts';
import { HeartbeatChain } from './heartbeat-chain.ts';
import { HeartbeatLease, type HeartbeatLeaseStatus } from './heartbeat-lease.ts';
import { FleetKillWatch, type FleetKillRecord, tripFleetKill } from './kill.ts';
import { RedisLeases } from './lease.ts';
import { MarketLeases, type PreviousHolder } from './market-leases.ts';
import { type MemberStatusRecord, memberStatusKey, parseMemberStatus } from './member-status.ts';
import { RedisHealth } from './redis-health.ts';
import { connectFleetRedis } from './redis.ts';

export interface FleetMemberOptions {
  /** fleet.redisUrl (never logged: ./redis.ts redacts it in errors). */
  readonly redisUrl: string;
  /** The wallet address the fleet trades as (its keys' hash tag). */
  readonly account: string;
  /** This member's name (./redis.ts memberName). */
  readonly member: string;
  readonly clock: Clock;
  /** The fleet's markets (the same list on every member). */
  readonly markets: readonly string[];
  /** Heartbeat lease ttl, ms (default 2500). */
  readonly heartbeatLeaseMs?: number;
  /** Market lease ttl, ms (default 5000). */
  readonly marketLeaseMs?: number;
  readonly onKill: (rec: FleetKillRecord) => void;
  readonly pauseTarget?: FleetPauseTarget;
  readonly onDown?: () => void;
  readonly onUp?: () => void;
  readonly onHeartbeatLease?: (held: boolean) => void;
  /**
   * A market was taken (previous: its last holder when another member, else null); `fleet` is the
   * fleet's Redis, for a wiring that must read more of it before it quotes, and `recorded` whether
   * the market had a last holder at all (this member or another): a market with none after the
   * fleet's Redis lost its records has an unknown one, not none.
   */
  readonly onMarketGained?: (
    market: string,
    previous: PreviousHolder | null,
    fleet: { readonly redis: Redis; readonly keys: FleetKeys; readonly recorded: boolean },
  ) => Promise<void> | void;
  readonly onMarketLost?: (market: string) => Promise<void> | void;
  /** Connection errors after the first (for a debug log; never carries the URL). */
  readonly onError?: (err: Error) => void;
  /**
   * This member's ledger id (its data dir's): the join is refused when a live member of the same name
   * has another (./member-status.ts `ledger`), before anything of the fleet is taken.
   */
  readonly ledgerId?: string;
}

/** A snapshot for status and metrics. */
export interface FleetMemberStatus {
  readonly member: string;
  /** FleetMemberOptions.ledgerId. */
  readonly ledger?: string;
  readonly redisUp: boolean;
  readonly killed: FleetKillRecord | null;
  readonly heartbeat: HeartbeatLeaseStatus;
  readonly markets: readonly string[];
  readonly liveMembers: readonly string[];
  readonly outages: number;
}

/** See the module comment. */
export interface FleetMember {
  readonly keys: FleetKeys;
  readonly redis: Redis;
  shouldBeat(): boolean;
  canPlace(): boolean;
  quotable(market: string): boolean;
  /** Trips the fleet kill switch (every member stops). */
  trip(reason: string): Promise<void>;
  /**
   * The fleet's last heartbeat id (./heartbeat-chain.ts): a member taking the heartbeat lease goes
   * on from it. Null when none is recorded.
   */
  lastHeartbeatId(): Promise<string | null>;
  /**
   * Records the id the venue returned to this member's heartbeat, fenced by its heartbeat lease:
   * false (nothing written) when it does not hold the lease or a later holder wrote already.
   */
  recordHeartbeat(id: string): Promise<boolean>;
  status(): FleetMemberStatus;
  /**
   * Pulls and releases the leases at once (another member takes the markets and the heartbeat) and
   * stops watching the fleet, but keeps the connection: an orderly exit's last Redis calls (claims
   * of the shutdown backfill's fills, the ledger's last publish) come after. Idempotent.
   */
  release(): Promise<void>;
  /** Pulls and releases everything (`release`), leaves, disconnects. Idempotent. */
  leave(): Promise<void>;
}

/**
 * Joins the fleet (see the module comment).
 * @throws ValidationError on a bad account or market id; an Error (URL redacted) when Redis cannot be reached
 */
export async function joinFleet(o: FleetMemberOptions): Promise<FleetMember> {
  const keys = fleetKeys(o.account);
  const redis = await connectFleetRedis(o.redisUrl, o.onError ? { onError: o.onError } : {});
  if (o.ledgerId !== undefined)
    try {
      await refuseNamesake(redis, keys, o.member, o.ledgerId);
    } catch (e) {
      redis.disconnect();
      throw e;
    }
  const leases = new RedisLeases(redis);
  const health = new RedisHealth({ redis, clock: o.clock });
  const kill = new FleetKillWatch({ redis, keys, clock: o.clock, onTrip: (rec) => o.onKill(rec) });
  const markets = new MarketLeases({
    leases,
    keys,
    member: o.member,
    clock: o.clock,
    markets: o.markets,
    ...(o.marketLeaseMs !== undefined ? { ttlMs: o.marketLeaseMs } : {}),
    ...(o.onMarketGained
      ? {
          onGained: (m: string, p: PreviousHolder | null, recorded: boolean) =>
            o.onMarketGained!(m, p, { redis, keys, recorded }),
        }
      : {}),
    ...(o.onMarketLost ? { onLost: o.onMarketLost } : {}),
  });
  const guard = new FleetGuard({
    health,
    kill,
    markets,
    ...(o.pauseTarget ? { target: o.pauseTarget } : {}),
    ...(o.onDown ? { onDown: o.onDown } : {}),
    ...(o.onUp ? { onUp: o.onUp } : {}),
  });
  const hb = new HeartbeatLease({
    leases,
    key: keys.heartbeatLease,
    member: o.member,
    clock: o.clock,
    health,
    ...(o.heartbeatLeaseMs !== undefined ? { ttlMs: o.heartbeatLeaseMs } : {}),
    onAcquired: () => o.onHeartbeatLease?.(true),
    onLost: () => o.onHeartbeatLease?.(false),
  });
  let released: Promise<void> | undefined;
  const release = () =>
    (released ??= (async () => {
      await markets.stop().catch(() => undefined);
      await hb.stop().catch(() => undefined);
      guard.stop();
      kill.stop();
      health.stop();
    })());
  let left: Promise<void> | undefined;
  const leave = () =>
    (left ??= (async () => {
      await release();
      redis.disconnect();
    })());
  try {
    await health.start();
    await kill.start();
    guard.start();
    hb.start();
    await markets.start();
  } catch (e) {
    await leave();
    throw e;
  }
  const chain = new HeartbeatChain(redis, keys.heartbeatState);
  return {
    keys,
    redis,
    async lastHeartbeatId() {
      return (await chain.last())?.id ?? null;
    },
    async recordHeartbeat(id) {
      const s = hb.status();
      if (!s.holder) return false;
      return chain.record(id, s.fence);
    },
    shouldBeat: () => hb.shouldBeat(),
    canPlace: () => guard.canPlace(),
    quotable: (m) => guard.quotable(m),
    async trip(reason) {
      await tripFleetKill(redis, keys, { reason, by: o.member, at: o.clock.now() });
    },
    status: () => ({
      member: o.member,
      ...(o.ledgerId !== undefined ? { ledger: o.ledgerId } : {}),
      redisUp: health.isUp(),
      killed: kill.tripped() ?? null,
      heartbeat: hb.status(),
      markets: markets.held().filter((m) => markets.holds(m)),
      liveMembers: markets.liveMembers(),
      outages: guard.outages,
    }),
    release,
    leave,
  };
}

/**
 * Refuses a second daemon under a live member's name (trial 14 F1: it joined without a word, took the
 * same market leases and risk grant, and its status record hid the first's markets and PnL): a
 * member's status record (refreshed every 2 s, gone 6 s after its daemon stops) naming another
 * ledger id is another daemon's. The same data dir restarted (its ledger id) takes its own place.
 * @throws ConfigError on `fleet.member`
 */
async function refuseNamesake(redis: Redis, keys: FleetKeys, member: string, ledgerId: string): Promise<void> {
  const raw = await redis.get(memberStatusKey(keys, member));
  if (raw === null) return;
  let rec: MemberStatusRecord;
  try {
    rec = parseMemberStatus(raw);
  } catch {
    return; // another version's record: not ours to judge
  }
  if (rec.ledger === undefined || rec.ledger === ledgerId) return;
  throw new ConfigError(
    'fleet.member',
    `a live fleet member named ${member} runs on another data dir (its status record is from ${new Date(rec.at).toISOString()}): give this daemon another name (fleet.member, MMKIT_FLEET_MEMBER), or stop that one first`,
  );
}
