/**
 * A fleet member's limits keeper as `mmkit run` starts it (src/cli/run-fleet-limits.ts), over a real
 * Redis and a member assembled by `joinFleet`: accepted at join, it keeps the record; when the record
 * later holds other values than its own (another member recorded its own caps after Redis lost the
 * record), the fleet would trade with mixed caps, so the member trips the fleet's kill switch, naming
 * the keys and both values (review-1 F11: it used to log one error while the fleet went on).
 */
import { pino } from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkRunFleetLimits } from '../../../src/cli/run-fleet-limits.ts';
import { LiveClock } from '../../../src/core/clock.ts';
import type { ConditionId } from '../../../src/core/ids.ts';
import type { FleetKillRecord } from '../../../src/fleet/kill.ts';
import { type FleetMember, joinFleet } from '../../../src/fleet/member.ts';
import { resolveRiskLimits } from '../../../src/risk/limits.ts';
import { useTestRedis } from '../../support/redis-suite.ts';

const ACCOUNT = '0x00000000000000000000000000000000000000e7';
const MARKETS = ['0xc1', '0xc2'];
const clock = new LiveClock();
let member: FleetMember | undefined;
const r = useTestRedis({ beforeStop: async () => void (await member?.leave().catch(() => undefined)) });

async function until(cond: () => boolean | Promise<boolean>, ms = 15_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return true;
    await new Promise((res) => setTimeout(res, 50));
  }
  return cond();
}

describe('a fleet member whose recorded limits change under it', () => {
  it('trips the fleet kill switch, naming the key and both values (no trading with mixed caps)', async () => {
    const kills: FleetKillRecord[] = [];
    member = await joinFleet({
      redisUrl: r.url,
      account: ACCOUNT,
      member: 'a',
      clock,
      markets: MARKETS,
      onKill: (rec) => kills.push(rec),
      pauseTarget: { pause: () => undefined, resume: () => undefined },
    });
    const lines: Array<Record<string, unknown>> = [];
    const log = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _e, cb) {
          lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
          cb();
        },
      }),
    );
    const limits = resolveRiskLimits({ maxLoss: 100 });
    const stop = await checkRunFleetLimits(member, {
      limits,
      markets: MARKETS as ConditionId[],
      clock,
      name: 'a',
      log,
    });
    try {
      // accepted: the record is this member's, nothing tripped after a few keeper rounds
      await new Promise((res) => setTimeout(res, 2500));
      expect(kills).toEqual([]);
      expect(lines.filter((l) => l['level'] === 50)).toEqual([]);
      // another member's caps recorded over them (the window after a Redis restarted empty)
      await member.redis.hset(member.keys.riskLimits, 'maxLoss', '5000000');
      expect(await until(() => kills.length > 0), JSON.stringify(lines)).toBe(true);
      expect(kills[0]!.reason).toContain('maxLoss recorded 5000000, a has 100000000');
      expect(kills[0]!.by).toBe('a');
      const err = lines.find((l) => l['level'] === 50);
      expect(String(err?.['msg'])).toContain("tripping the fleet's kill switch");
    } finally {
      stop();
    }
  }, 60_000);
});
