/**
 * `mmkit run` as a member of a fleet (issue 21; fleet.redisUrl set): joins the fleet's Redis
 * (src/fleet/member.ts) and ties it to the daemon's kernel:
 *  - heartbeats: only the heartbeat lease holder sends them (TraderOptions.fleet), a taker at once,
 *    going on from the chain's last id the holders record in Redis (src/fleet/heartbeat-chain.ts);
 *  - markets: quoted only while this member holds the market's lease; a market taken from another
 *    member first has that member's orders there cancelled (whatever rests on the market and is
 *    not this daemon's: the lease made the market exclusive), a market lost is pulled;
 *  - fail closed: Redis unreachable pauses placing (reason 'fleet') and pulls every market; Redis
 *    back resumes (the leases decide what is quoted again);
 *  - kill: a fleet trip trips this daemon's kill switch ('manual': a risk stop, exit 4), and a risk
 *    trip of this daemon trips the fleet's;
 *  - exit: `leave()` after the orderly shutdown's cancels (releases the leases at once).
 * Without fleet.redisUrl none of this loads.
 */
import type { Clock } from '../core/clock.ts';
import type { ConditionId, OrderId } from '../core/ids.ts';
import type { Venue } from '../core/venue.ts';
import type { FleetMember } from '../fleet/member.ts';
import type { Trader, TraderFleet } from '../kernel/create-trader.ts';
import { isRiskTrigger } from '../risk/kill-switch.ts';
import { CliError, ExitCode } from './exit-codes.ts';
import type { Logger } from 'pino';

/** fleet.* of the configuration, as `mmkit run` takes it. */
export interface RunFleetConfig {
  redisUrl: string;
  member: string;
}

/** The live venue's heartbeat chain (LiveVenue fits): the id it last got, and where to go on from. */
export interface HeartbeatIds {
  readonly heartbeatId: string | null;
  continueHeartbeatChain(id: string | null): void;
}

/** A late-bound fleet member: the kernel is built before the member joins (fail closed until then). */
export interface FleetRef {
  member?: FleetMember;
}

/** What the kernel reads (TraderOptions.fleet): nothing is quoted or beaten before the member joined. */
export function fleetView(ref: FleetRef): TraderFleet {
  return {
    shouldBeat: () => ref.member?.shouldBeat() ?? false,
    quotable: (m) => ref.member?.quotable(m) ?? false,
    canPlace: () => ref.member?.canPlace() ?? false,
  };
}

/** The message of a kill-switch trip that came from the fleet (not sent back to it). */
const FROM_FLEET = 'fleet kill switch: ';

/**
 * Joins the fleet and wires it to the trader (see the module comment); sets `ref.member`.
 * @throws ConfigError on a bad member name; CliError UNREACHABLE (exit 3, URL redacted) when Redis cannot be reached
 */
export async function joinRunFleet(
  cfg: RunFleetConfig,
  o: {
    ref: FleetRef;
    trader: Trader;
    venue: Venue;
    address: string;
    markets: readonly ConditionId[];
    clock: Clock;
    log: Logger;
    /** The venue's heartbeat ids, shared with the fleet's chain (absent: each member chains alone). */
    chain?: HeartbeatIds;
  },
): Promise<FleetMember> {
  const { joinFleet } = await import('../fleet/member.ts');
  const { memberName } = await import('../fleet/redis.ts');
  const { trader, venue, log } = o;
  const name = memberName(cfg.member);
  const flog = log.child({ component: 'fleet', member: name });
  let joined!: (m: FleetMember) => void;
  const ready = new Promise<FleetMember>((res) => {
    joined = res;
  });
  let member: FleetMember;
  try {
    member = await joinFleet({
      redisUrl: cfg.redisUrl,
      account: o.address,
      member: name,
      clock: o.clock,
      markets: o.markets,
      onKill: (rec) => {
        flog.error({ reason: rec.reason, by: rec.by }, 'fleet kill switch tripped');
        trader.kill.trip('manual', `${FROM_FLEET}${rec.reason} (by ${rec.by})`);
      },
      pauseTarget: trader.executor,
      onDown: () => {
        flog.warn('fleet Redis unreachable: quotes pulled, placing paused until it is back');
        for (const m of o.markets) trader.pullMarket(m);
      },
      onUp: () => flog.info('fleet Redis reachable again: quoting resumes'),
      onHeartbeatLease: (held) => {
        flog.info({ held }, held ? 'heartbeat lease taken: this member heartbeats' : 'heartbeat lease lost');
        if (!held) return;
        // a taker goes on from the fleet's chain, then beats at once (once joined: nothing beats before)
        void ready.then(async (m) => {
          if (o.chain !== undefined) {
            const id = await m.lastHeartbeatId().catch(() => null);
            if (id !== null) o.chain.continueHeartbeatChain(id);
          }
          await trader.heartbeat.beatNow();
        });
      },
      onMarketGained: async (market, previous) => {
        if (previous !== null) {
          // what rests on the market and is not ours belonged to the previous holder: cancelled, not adopted
          const ours = new Set<OrderId>(trader.tracker.liveOrders().map((x) => x.id));
          const theirs = (await venue.openOrders()).filter((x) => x.market === market && !ours.has(x.id));
          if (theirs.length > 0) await venue.cancel(theirs.map((x) => x.id));
          flog.info({ market, from: previous.member, cancelled: theirs.length }, 'market taken over');
        } else flog.info({ market }, 'market taken');
      },
      onMarketLost: (market) => {
        flog.info({ market }, 'market given up: quotes pulled');
        trader.pullMarket(market as ConditionId);
      },
      onError: (err) => flog.debug({ err: err.message }, 'fleet Redis connection error'),
    });
  } catch (e) {
    // (the message names the Redis redacted: src/fleet/redis.ts)
    const { FleetUnreachableError } = await import('../fleet/redis.ts');
    if (e instanceof FleetUnreachableError)
      throw new CliError(e.message, ExitCode.UNREACHABLE, 'UNREACHABLE', { cause: e });
    throw e;
  }
  o.ref.member = member;
  joined(member);
  const chain = o.chain;
  if (chain !== undefined) {
    // the holder records every new id of the chain (fenced: a former holder's late write is refused)
    let recorded: string | null = null;
    trader.heartbeat.onStatus((s) => {
      const id = chain.heartbeatId;
      if (!s.ok || id === null || id === recorded || !member.shouldBeat()) return;
      recorded = id;
      member
        .recordHeartbeat(id)
        .then((ok) => ok || flog.debug('heartbeat id not recorded: another member holds the heartbeat lease'))
        .catch((err: Error) => flog.debug({ err: err.message }, 'heartbeat id not recorded (Redis unreachable)'));
    });
  }
  trader.kill.onTrip((t) => {
    if (!isRiskTrigger(t.trigger) || t.message.startsWith(FROM_FLEET)) return;
    member
      .trip(`${t.trigger}: ${t.message}`)
      .catch((err: Error) =>
        flog.error({ err: err.message }, 'could not trip the fleet kill switch (Redis unreachable)'),
      );
  });
  flog.info({ markets: o.markets.length }, 'joined the fleet');
  return member;
}

/** This member's figures for its status record (money in micro-collateral). */
export interface RunFleetFigures {
  openOrders: number;
  fills: number;
  pnl: { realized: number; unrealized: number; fees: number; rewards: number };
}

/**
 * Publishes this member's status record (src/fleet/member-status.ts) every `everyMs` (default
 * 2000): its markets and heartbeat lease from the membership, `figures()` from the daemon, the
 * shared budgets' use from `budgets` (a fleet's RedisWindowGate) when they are shared.
 * Returns the stop (deletes the record).
 */
export async function startRunFleetStatus(
  member: FleetMember,
  o: {
    clock: Clock;
    figures: () => RunFleetFigures;
    budgets?: Pick<import('../fleet/window-gate.ts').RedisWindowGate, 'names' | 'ruleState'>;
    everyMs?: number;
    /** The fleet as `mmkit fleet status` reads it, every period (for the status page); needs `account`. */
    onFleet?: (r: import('./fleet-status.ts').FleetStatusReport) => void;
    account?: string;
  },
): Promise<() => Promise<void>> {
  const { MemberStatusPublisher, memberPnl } = await import('../fleet/member-status.ts');
  const pub = new MemberStatusPublisher({
    redis: member.redis,
    keys: member.keys,
    clock: o.clock,
    ...(o.everyMs !== undefined ? { everyMs: o.everyMs } : {}),
    collect: () => {
      const s = member.status();
      const f = o.figures();
      const budgets: Record<string, { used: number; limit: number }> = {};
      for (const n of o.budgets?.names() ?? []) {
        const r = o.budgets!.ruleState(n);
        budgets[n] = { used: r.used, limit: r.limit };
      }
      return {
        member: s.member,
        markets: s.markets,
        openOrders: f.openOrders,
        fills: f.fills,
        pnl: memberPnl(f.pnl),
        budgets,
        heartbeat: s.heartbeat.holder,
      };
    },
  });
  pub.start();
  let poll: ReturnType<Clock['setInterval']> | undefined;
  if (o.onFleet !== undefined && o.account !== undefined) {
    const { readFleetStatus } = await import('./fleet-status.ts');
    const { onFleet, account } = o;
    let busy = false;
    poll = o.clock.setInterval(() => {
      if (busy) return;
      busy = true;
      readFleetStatus(member.redis, account)
        .then(onFleet, () => undefined) // Redis away: the last view stays (the member fails closed anyway)
        .finally(() => {
          busy = false;
        });
    }, o.everyMs ?? 2000);
  }
  return async () => {
    if (poll !== undefined) o.clock.clearInterval(poll);
    poll = undefined;
    await pub.stop();
  };
}
