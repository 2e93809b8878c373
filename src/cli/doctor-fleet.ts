/**
 * `mmkit doctor`'s `fleet` check, when fleet.redisUrl is set (trial 14 F5: doctor passed with the
 * fleet's Redis unreachable, a markets list unlike the fleet's, or the name of a live member): what
 * `mmkit run` would refuse at its join, found before it starts. Read only: nothing is written to the
 * fleet's Redis (no membership, no lease, no record).
 *  - Redis answers (else FAIL, unreachable: exit 3);
 *  - bot.markets is set (a member needs it);
 *  - the markets the fleet records are bot.markets (any order), when it records some;
 *  - no live member of this name runs on another data dir (its status record's ledger id).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fail, pass, type Check } from '../ops/doctor/check.ts';

const ID = 'fleet';
const TITLE = 'fleet (fleet.redisUrl)';

export interface FleetDoctorInput {
  readonly redisUrl: string;
  /** fleet.member ('' = <hostname>-<pid>: nothing to compare). */
  readonly member: string;
  /** The account the fleet trades (the funder, else the wallet). */
  readonly account: string;
  /** bot.markets. */
  readonly markets: readonly string[];
  readonly dataDir: string;
}

/** The fleet check (see the module comment). Never throws. */
export async function fleetCheck(o: FleetDoctorInput): Promise<Check> {
  const { connectFleetRedis, FleetUnreachableError } = await import('../fleet/redis.ts');
  const { fleetKeys } = await import('../fleet/fleet-keys.ts');
  const { readLiveMembers } = await import('../fleet/market-leases.ts');
  const { memberStatusKey, parseMemberStatus } = await import('../fleet/member-status.ts');
  let redis: Awaited<ReturnType<typeof connectFleetRedis>>;
  try {
    redis = await connectFleetRedis(o.redisUrl);
  } catch (e) {
    const unreachable = e instanceof FleetUnreachableError;
    return fail(
      ID,
      TITLE,
      (e as Error).message,
      "start the fleet's Redis or fix fleet.redisUrl (MMKIT_REDIS_URL); a member that cannot reach it refuses to start",
      unreachable,
    );
  }
  try {
    const keys = fleetKeys(o.account);
    const live = await readLiveMembers(redis, keys);
    if (o.markets.length === 0)
      return fail(
        ID,
        TITLE,
        "bot.markets is empty: a fleet member needs the fleet's markets",
        "set bot.markets (--markets) to the fleet's list",
      );
    const recorded = (await redis.hget(keys.riskLimits, 'markets')) ?? '';
    const theirs = recorded === '' ? [] : recorded.split(',').filter((m) => m !== '');
    const mine = [...o.markets].map((m) => m.toLowerCase()).sort();
    const same =
      theirs.length === 0 || JSON.stringify([...theirs].map((m) => m.toLowerCase()).sort()) === JSON.stringify(mine);
    if (!same)
      return fail(
        ID,
        TITLE,
        `the fleet runs ${theirs.length} market(s), bot.markets names ${mine.length} others or more: ${theirs.join(',')}`,
        'every member needs the same bot.markets (a member with another list refuses to start)',
      );
    if (o.member !== '') {
      const raw = await redis.get(memberStatusKey(keys, o.member));
      if (raw !== null) {
        let ledger: string | undefined;
        try {
          ledger = parseMemberStatus(raw).ledger;
        } catch {
          ledger = undefined;
        }
        const file = join(o.dataDir, 'fleet-ledger.id');
        const own = existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
        if (ledger !== undefined && ledger !== own)
          return fail(
            ID,
            TITLE,
            `a live fleet member named ${o.member} runs on another data dir`,
            'give this daemon another name (fleet.member, MMKIT_FLEET_MEMBER), or stop that one first',
          );
      }
    }
    return pass(
      ID,
      TITLE,
      `Redis answered; ${live.length} member(s) alive${live.length > 0 ? ` (${live.join(', ')})` : ''}; ${theirs.length === 0 ? 'no markets recorded yet' : "the fleet's markets are bot.markets"}`,
    );
  } catch (e) {
    return fail(ID, TITLE, `the fleet's Redis: ${(e as Error).message}`, 'check fleet.redisUrl and Redis', true);
  } finally {
    redis.disconnect();
  }
}
