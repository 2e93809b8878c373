/**
 * `mmkit kill --fleet`: trip the kill switch of every daemon of a fleet (issue 21) through its
 * Redis (fleet.redisUrl / MMKIT_REDIS_URL), not through one daemon's status server. The trip is a
 * persistent key plus a message (src/fleet/kill.ts): every member pulls its quotes within 2 s,
 * cancels its orders and exits with the risk-stop code (4); a member started later refuses to
 * quote until the fleet is re-armed with `mmkit kill --fleet --rearm`.
 *
 * The fleet is the account's: `--account <address>`, else the wallet of the configuration (as
 * `mmkit orders` finds it; a paper daemon's wallet in its data dir; ./fleet-account.ts). The command
 * waits until no member is left in the fleet's membership, up to `--timeout`: each member leaves it
 * once it has cancelled its orders and seen none left, a dead one drops out after 3 s. Its process
 * exits moments later, after its last fill check and summary: the daemons of this machine (their
 * status records name host and pid) are waited for until they exited, within the same timeout
 * (trial 14 F7: a shutdown that hung after leaving was reported as done); those of other machines
 * are named, not seen.
 *
 * Exit codes: 0 tripped (or re-armed), no member left alive and the daemons of this machine
 * exited; 1 members still alive, or daemons of this machine still running, at the timeout (listed);
 * 2 bad flags or configuration (no fleet.redisUrl); 3 Redis unreachable.
 * The Redis URL is never printed (it may carry a password).
 */
import { hostname } from 'node:os';
import { loadConfig } from './config.ts';
import { printJson } from './common.ts';
import { CliError, ExitCode, usageError } from './exit-codes.ts';
import { fleetAccount } from './fleet-account.ts';

export interface FleetKillOptions {
  config?: string;
  dataDir?: string;
  reason?: string;
  account?: string;
  rearm?: boolean;
  timeout?: number;
  json?: boolean;
}

/** Runs `mmkit kill --fleet` (see the module comment) and returns its exit code. */
export async function fleetKillCommand(o: FleetKillOptions, env: NodeJS.ProcessEnv = process.env): Promise<ExitCode> {
  const cfg = loadConfig(o.config, { 'bot.dataDir': o.dataDir }, env);
  if (cfg.fleet.redisUrl === '')
    throw usageError("mmkit kill --fleet needs the fleet's Redis: set fleet.redisUrl (MMKIT_REDIS_URL)");
  if (o.reason !== undefined && o.reason.trim() === '') throw usageError('--reason must not be empty');
  const { fleetKeys } = await import('../fleet/fleet-keys.ts');
  const { connectFleetRedis, redactRedisUrl } = await import('../fleet/redis.ts');
  const { clearFleetKill, tripFleetKill } = await import('../fleet/kill.ts');
  const { readLiveMembers } = await import('../fleet/market-leases.ts');
  const account = await fleetAccount(o.account, cfg.bot, env, cfg.venue.funder);
  let keys: ReturnType<typeof fleetKeys>;
  try {
    keys = fleetKeys(account);
  } catch (e) {
    throw usageError(`--account: ${(e as Error).message}`);
  }
  let redis: Awaited<ReturnType<typeof connectFleetRedis>>;
  try {
    redis = await connectFleetRedis(cfg.fleet.redisUrl);
  } catch (e) {
    throw new CliError((e as Error).message, ExitCode.UNREACHABLE, 'UNREACHABLE');
  }
  const where = redactRedisUrl(cfg.fleet.redisUrl);
  try {
    if (o.rearm) {
      const was = await clearFleetKill(redis, keys);
      if (o.json) printJson({ account: account.toLowerCase(), rearmed: true, wasTripped: was });
      else
        process.stdout.write(
          was
            ? `fleet of ${account} re-armed: its members may quote again once restarted\n`
            : `fleet of ${account} was not tripped\n`,
        );
      return ExitCode.OK;
    }
    // the members' daemons (their status records name machine and pid): once they left the fleet,
    // those on this machine are waited for until their processes exited (a shutdown may hang after it)
    const { readMemberStatuses } = await import('../fleet/member-status.ts');
    const daemons = await readMemberStatuses(redis, keys, await readLiveMembers(redis, keys));
    const rec = await tripFleetKill(redis, keys, {
      reason: o.reason ?? 'mmkit kill --fleet',
      by: `cli:${hostname()}`.slice(0, 100),
      at: Date.now(),
    });
    const until = Date.now() + (o.timeout ?? 60_000);
    let live = await readLiveMembers(redis, keys);
    while (live.length > 0 && Date.now() < until) {
      await new Promise((res) => setTimeout(res, 250));
      live = await readLiveMembers(redis, keys);
    }
    const host = hostname();
    const here = daemons.filter((d) => d.host === host && d.pid !== undefined);
    const elsewhere = daemons.filter((d) => d.host !== host || d.pid === undefined).map((d) => d.member);
    let running = live.length === 0 ? here.filter((d) => processAlive(d.pid!)) : [];
    while (running.length > 0 && Date.now() < until) {
      await new Promise((res) => setTimeout(res, 250));
      running = running.filter((d) => processAlive(d.pid!));
    }
    const processes = running.map((d) => ({ member: d.member, pid: d.pid! }));
    const timeout = `${(o.timeout ?? 60_000) / 1000} s`;
    if (o.json)
      printJson({
        account: account.toLowerCase(),
        tripped: rec,
        liveMembers: live,
        processesRunning: processes,
        otherMachines: elsewhere,
      });
    else if (live.length > 0)
      process.stdout.write(
        `fleet kill switch tripped for ${account}, but ${live.length} member(s) still alive after ${timeout}: ${live.join(', ')}\n`,
      );
    else if (processes.length > 0)
      process.stdout.write(
        `fleet kill switch tripped for ${account}: every member has cancelled its orders and left the fleet, but ${processes.length} daemon process(es) on this machine have not exited after ${timeout} (a shutdown that hangs): ${processes.map((p) => `${p.member} (pid ${p.pid})`).join(', ')}\n`,
      );
    else
      process.stdout.write(
        `fleet kill switch tripped for ${account} (${rec.reason}, by ${rec.by}): every member has cancelled its orders and left the fleet${here.length > 0 ? `; the daemons on this machine have exited (${here.map((d) => d.member).join(', ')})` : ''}${elsewhere.length > 0 ? `; ${elsewhere.length} on other machines (${elsewhere.join(', ')}) exit moments later, not seen from here` : ''}\n`,
      );
    return live.length === 0 && processes.length === 0 ? ExitCode.OK : ExitCode.FAILURE;
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`fleet Redis at ${where}: ${(e as Error).message}`, ExitCode.UNREACHABLE, 'UNREACHABLE');
  } finally {
    redis.disconnect();
  }
}

/** Whether process `pid` of this machine runs (a process of another user counts: EPERM). */
function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
