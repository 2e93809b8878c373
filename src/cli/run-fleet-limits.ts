/**
 * A fleet member's account limits and markets must be the fleet's (`mmkit run` in a fleet,
 * src/cli/run-fleet.ts; the records and their keeper are src/fleet/fleet-limits.ts, loaded only in a
 * fleet): risk.maxNotionalGlobal, maxOpenOrdersGlobal, maxLoss and maxDailyLoss are the account's, and the
 * members trade the same markets, so a member configured otherwise is refused at join, with an
 * exit-2 error that names the key and says how to change them.
 */
import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import { ConfigError } from '../core/errors.ts';
import type { ConditionId } from '../core/ids.ts';
import { formatAmount } from '../core/units.ts';
import type { FleetMember } from '../fleet/member.ts';
import type { RiskLimits } from '../risk/limits.ts';

/**
 * The account limits and the markets must be the fleet's (src/fleet/fleet-limits.ts): a member
 * configured with other ones leaves the fleet at once and the daemon exits 2 (CONFIG), naming the
 * key (checked before it publishes its ledger or claims the account's history, so a refused member
 * leaves neither behind). Accepted, it starts the keeper that re-records them should Redis lose them
 * (a restart without data), and trips the fleet's kill switch when it finds the record holding other
 * values than this member's (mixed caps: never traded on); returns its stop.
 * @throws ConfigError on a mismatch
 */
export async function checkRunFleetLimits(
  member: FleetMember,
  o: {
    limits: RiskLimits;
    markets: readonly ConditionId[];
    clock: Clock;
    name: string;
    log: Logger;
  },
): Promise<() => void> {
  const { checkFleetLimits, FleetLimitsKeeper } = await import('../fleet/fleet-limits.ts');
  const mine = {
    maxNotionalGlobal: o.limits.global.maxNotional,
    maxOpenOrdersGlobal: o.limits.global.maxOpenOrders,
    maxLoss: o.limits.killSwitch.maxLoss,
    maxDailyLoss: o.limits.killSwitch.maxDailyLoss,
    markets: o.markets,
  };
  const bad = await checkFleetLimits(member.redis, member.keys, o.name, mine, { clock: o.clock });
  if (bad.length === 0) {
    let tripped = false;
    const keeper = new FleetLimitsKeeper({
      redis: member.redis,
      keys: member.keys,
      member: o.name,
      limits: mine,
      clock: o.clock,
      onRewritten: () =>
        o.log.warn('fleet Redis had lost the account limits and markets: this member recorded them again'),
      // the record differs from this accepted member's values: another member recorded its own after
      // Redis lost the record (the joiner's window, src/fleet/fleet-limits.ts), so the fleet would run
      // with mixed caps: the fleet's kill switch stops every member until the operator sets them alike
      // (review-1 F11; was one error line while the fleet went on)
      onMismatch: (m) => {
        if (tripped) return;
        tripped = true;
        const reason = `fleet limits differ between members: ${m
          .map((x) =>
            x.key === 'markets'
              ? `markets recorded ${listSize(x.fleet)}, ${o.name} has ${listSize(String(x.mine))}`
              : `${x.key} recorded ${x.fleet}, ${o.name} has ${String(x.mine)}`,
          )
          .join('; ')}`;
        o.log.error({ keys: m.map((x) => x.key) }, `${reason}: tripping the fleet's kill switch`);
        member
          .trip(reason)
          .catch((err: unknown) =>
            o.log.error(
              { err: err instanceof Error ? err.message : String(err) },
              "could not trip the fleet's kill switch on differing limits (the member's guard fails closed on Redis errors)",
            ),
          );
      },
    });
    keeper.start();
    return () => keeper.stop();
  }
  await member.leave().catch(() => undefined);
  throw fleetMismatchError(bad[0]!);
}

/** "3 market(s)" of a recorded comma-separated market list. */
function listSize(list: string): string {
  return `${list === '' ? 0 : list.split(',').length} market(s)`;
}

/** The exit-2 error of a member whose limits or markets are not the fleet's. */
function fleetMismatchError(b: import('../fleet/fleet-limits.ts').LimitMismatch): ConfigError {
  const change =
    'must be the same on every member (to change them, stop every member, or mmkit kill --fleet, ' +
    'then start them with the new values)';
  if (b.key === 'markets') {
    const fleet = b.fleet === '' ? [] : b.fleet.split(',');
    const mine = String(b.mine) === '' ? [] : String(b.mine).split(',');
    const missing = fleet.filter((m) => !mine.includes(m));
    const extra = mine.filter((m) => !fleet.includes(m));
    const diff = [
      ...(missing.length > 0 ? [`missing here: ${missing.join(', ')}`] : []),
      ...(extra.length > 0 ? [`not the fleet's: ${extra.join(', ')}`] : []),
    ].join('; ');
    return new ConfigError(
      'bot.markets',
      `${mine.length} market(s) here, ${fleet.length} on the fleet's live members (${diff}): the fleet's markets ${change}`,
    );
  }
  const show = (v: number | string): string =>
    b.key === 'maxOpenOrdersGlobal' ? String(v) : `${formatAmount(Number(v))} USDC`;
  return new ConfigError(
    `bot.risk.${b.key}`,
    `is ${show(b.mine)} here but ${show(b.fleet)} on the fleet's live members: the account limits are the fleet's and ${change}`,
  );
}
