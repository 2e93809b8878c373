/**
 * A fleet member's status (`mmkit run` in a fleet, src/cli/run-fleet.ts): its status record in the
 * fleet's Redis, which `mmkit fleet status` reads (src/fleet/member-status.ts, loaded only in a
 * fleet), its name on its metrics, and the fleet's section of its status page.
 */
import { hostname } from 'node:os';
import type { Clock } from '../core/clock.ts';
import type { FleetMember } from '../fleet/member.ts';
import type { DaemonOps } from '../ops/daemon-ops.ts';
import { type FleetStatusSection, fleetStatusSection } from '../ops/status-fleet.ts';

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
  const host = hostname();
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
        ...(s.ledger !== undefined ? { ledger: s.ledger } : {}),
        host,
        pid: process.pid,
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

/**
 * A fleet member publishes its status record (`mmkit fleet status`, startRunFleetStatus), labels
 * its metrics with its name and shows the fleet on the status page (FleetStatusSection).
 * Returns the stop.
 */
export async function startFleetStatusSection(
  member: FleetMember,
  o: {
    ops: Pick<DaemonOps, 'metrics' | 'monitor'>;
    clock: Clock;
    figures: () => RunFleetFigures;
    budgets?: Pick<import('../fleet/window-gate.ts').RedisWindowGate, 'names' | 'ruleState'>;
    account: string;
  },
): Promise<() => Promise<void>> {
  const name = member.status().member;
  o.ops.metrics.setMember(name);
  let fleetSection: FleetStatusSection | undefined;
  o.ops.monitor.setFleet(() => fleetSection);
  return startRunFleetStatus(member, {
    clock: o.clock,
    ...(o.budgets !== undefined ? { budgets: o.budgets } : {}),
    account: o.account,
    onFleet: (r) => {
      fleetSection = fleetStatusSection(name, r);
    },
    figures: o.figures,
  });
}
