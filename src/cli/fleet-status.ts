/**
 * `mmkit fleet status [--json]`: a fleet's state as its Redis holds it (issue 21, "Operating a
 * fleet"): the members alive (the membership, by Redis's clock), the markets each holds, its open
 * orders and fills this session, PnL by member and in total (from each member's status record,
 * src/fleet/member-status.ts), the shared budgets' use (from the freshest record: the windows are
 * the fleet's), the members' grants of the account's risk caps and the PnL the fleet's loss limit
 * sums (src/fleet/risk-reserve.ts, fleet-loss.ts), the heartbeat lease holder and the fleet kill switch.
 *
 * The fleet is the account's: `--account <address>`, else the configured wallet (as `mmkit kill
 * --fleet` finds it). Exit codes: 0 shown; 2 bad flags or no fleet.redisUrl; 3 Redis unreachable.
 * The Redis URL is never printed (it may carry a password).
 */
import type { Command } from 'commander';
import { action, printJson } from './common.ts';
import { CliError, EXIT_CODES_HELP, ExitCode, usageError } from './exit-codes.ts';
import { fleetAccount } from './fleet-account.ts';

export interface FleetStatusOptions {
  config?: string;
  dataDir?: string;
  account?: string;
  json?: boolean;
}

/** What `--json` prints (money as decimal strings). */
export interface FleetStatusReport {
  account: string;
  /** Members alive per the membership, sorted. */
  members: string[];
  /** Their status records (a member alive without one yet is missing here). */
  records: import('../fleet/member-status.ts').MemberStatusRecord[];
  total: import('../fleet/member-status.ts').MemberPnl;
  budgets: Record<string, { used: number; limit: number }>;
  heartbeat: { holder: string; fence: number } | null;
  kill: import('../fleet/kill.ts').FleetKillRecord | null;
  /** The account's risk limits in the fleet: each member's grant, and the PnL the loss limit sums. */
  risk: {
    grants: Array<{ member: string; notional: string; orders: number }>;
    /** Every member's last PnL written (dead ones included), and their sum. */
    pnl: Record<string, string>;
    pnlSum: string;
    /** The account's risk.maxLoss the fleet runs with (decimal USDC; "0": off), null when none is recorded. */
    maxLoss: string | null;
    /** The members' summed PnL of the UTC day (the daily loss limit's), and its limit (as maxLoss). */
    day: { date: string; pnl: string; maxDailyLoss: string | null };
    /** The account's caps the grants are shares of (null when none is recorded). */
    maxNotionalGlobal: string | null;
    maxOpenOrdersGlobal: number | null;
  };
}

/** Reads the fleet's state (see the module comment). */
export async function readFleetStatus(
  redis: import('ioredis').Redis,
  account: string,
  now: number = Date.now(),
): Promise<FleetStatusReport> {
  const { fleetKeys } = await import('../fleet/fleet-keys.ts');
  const { readLiveMembers } = await import('../fleet/market-leases.ts');
  const { readFleetKill } = await import('../fleet/kill.ts');
  const { parseLeaseValue } = await import('../fleet/lease.ts');
  const { fleetBudgetUse, readMemberStatuses, totalPnl } = await import('../fleet/member-status.ts');
  const { formatAmount } = await import('../core/units.ts');
  const { readFleetDayPnl, readFleetPnl } = await import('../fleet/fleet-loss.ts');
  const { parseGrant } = await import('../fleet/risk-reserve.ts');
  const keys = fleetKeys(account);
  const members = await readLiveMembers(redis, keys);
  const grants = Object.entries(await redis.hgetall(keys.riskGrants))
    .map(([m, v]) => parseGrant(m, v))
    .filter((g) => g !== null)
    .sort((a, b) => (a.member < b.member ? -1 : a.member > b.member ? 1 : 0))
    .map((g) => ({ member: g.member, notional: formatAmount(g.notional), orders: g.orders }));
  const pnlMicro = await readFleetPnl(redis, keys);
  const pnl: Record<string, string> = {};
  for (const m of Object.keys(pnlMicro).sort()) pnl[m] = formatAmount(pnlMicro[m]!);
  const records = await readMemberStatuses(redis, keys, members);
  const [maxLoss, maxDailyLoss, maxNotional, maxOrders] = await redis.hmget(
    keys.riskLimits,
    'maxLoss',
    'maxDailyLoss',
    'maxNotionalGlobal',
    'maxOpenOrdersGlobal',
  );
  const date = new Date(now).toISOString().slice(0, 10);
  const dayPnl = await readFleetDayPnl(redis, keys, date);
  const amount = (v: string | null | undefined): string | null =>
    v == null || !/^\d+$/.test(v) ? null : formatAmount(Number(v));
  const hb = await redis.get(keys.heartbeatLease);
  const lease = hb === null ? null : parseLeaseValue(hb);
  return {
    account: account.toLowerCase(),
    members,
    records,
    total: totalPnl(records),
    budgets: fleetBudgetUse(records),
    heartbeat: lease === null ? null : { holder: lease.member, fence: lease.fence },
    kill: await readFleetKill(redis, keys),
    risk: {
      grants,
      pnl,
      pnlSum: formatAmount(Object.values(pnlMicro).reduce((a, b) => a + b, 0)),
      maxLoss: amount(maxLoss),
      day: { date, pnl: formatAmount(dayPnl), maxDailyLoss: amount(maxDailyLoss) },
      maxNotionalGlobal: amount(maxNotional),
      maxOpenOrdersGlobal: maxOrders == null || !/^\d+$/.test(maxOrders) ? null : Number(maxOrders),
    },
  };
}

/** " at <ISO time>" of a trip, "" when its record has no readable time (an unreadable record reads 0). */
function tripTime(at: number): string {
  const d = new Date(at);
  return at > 0 && Number.isFinite(d.getTime()) ? ` at ${d.toISOString()}` : '';
}

/** The report as text. */
export function formatFleetStatus(r: FleetStatusReport): string {
  const lines = [`fleet of ${r.account}: ${r.members.length} member(s) alive`];
  lines.push(
    r.kill === null
      ? 'kill switch: armed'
      : `kill switch: TRIPPED (${r.kill.reason}, by ${r.kill.by}${tripTime(r.kill.at)})`,
  );
  lines.push(`heartbeat: ${r.heartbeat === null ? 'no holder' : `held by ${r.heartbeat.holder}`}`);
  const byName = new Map(r.records.map((x) => [x.member, x]));
  for (const m of r.members) {
    const x = byName.get(m);
    if (x === undefined) {
      lines.push(`  ${m}: (no status record yet)`);
      continue;
    }
    lines.push(
      `  ${m}: ${x.markets.length} market(s), ${x.openOrders} open order(s), ${x.fills} fill(s) this session, ledger pnl ${x.pnl.total} (realized ${x.pnl.realized}, unrealized ${x.pnl.unrealized}, fees ${x.pnl.fees}, rewards ${x.pnl.rewards})`,
    );
    for (const mk of x.markets) lines.push(`      ${mk}`);
  }
  if (r.risk.grants.length > 0)
    lines.push(
      `risk grants: ${r.risk.grants.map((g) => `${g.member} ${g.notional} notional / ${g.orders} orders`).join(', ')}${r.risk.maxNotionalGlobal !== null || r.risk.maxOpenOrdersGlobal !== null ? ` (of the account's ${r.risk.maxNotionalGlobal ?? '?'} notional / ${r.risk.maxOpenOrdersGlobal ?? '?'} orders)` : ''}`,
    );
  // (trial 14 F3, F10: the two PnL lines differed without a word, and the limit was not shown)
  if (Object.keys(r.risk.pnl).length > 0)
    lines.push(
      `loss limit on the summed pnl: ${r.risk.pnlSum}${r.risk.maxLoss === null ? '' : r.risk.maxLoss === '0' ? ' (risk.maxLoss off)' : ` (trips below -${r.risk.maxLoss})`}; the last figure of every member, those no longer alive too: ${Object.entries(
        r.risk.pnl,
      )
        .map(([m, v]) => `${m} ${v}`)
        .join(', ')}`,
    );
  // (trial 22 F9: the daily limit's sum was nowhere)
  const d = r.risk.day;
  lines.push(
    `daily loss limit on the summed pnl of UTC ${d.date}: ${d.pnl}${d.maxDailyLoss === null || d.maxDailyLoss === '0' ? ' (risk.maxDailyLoss off)' : ` (trips below -${d.maxDailyLoss})`}`,
  );
  lines.push(
    `total pnl of the members alive ${r.total.total} (realized ${r.total.realized}, unrealized ${r.total.unrealized}, fees ${r.total.fees}, rewards ${r.total.rewards})`,
  );
  const rules = Object.entries(r.budgets);
  if (rules.length > 0) {
    lines.push('budgets (fleet-wide):');
    for (const [n, u] of rules) lines.push(`  ${n}: ${u.used}/${u.limit}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Runs `mmkit fleet status` and returns its exit code. */
export async function fleetStatusCommand(
  o: FleetStatusOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ExitCode> {
  const { loadConfig } = await import('./config.ts');
  const cfg = loadConfig(o.config, { 'bot.dataDir': o.dataDir }, env);
  if (cfg.fleet.redisUrl === '')
    throw usageError("mmkit fleet status needs the fleet's Redis: set fleet.redisUrl (MMKIT_REDIS_URL)");
  const account = await fleetAccount(o.account, cfg.bot, env, cfg.venue.funder);
  const { fleetKeys } = await import('../fleet/fleet-keys.ts');
  try {
    fleetKeys(account);
  } catch (e) {
    throw usageError(`--account: ${(e as Error).message}`);
  }
  const { connectFleetRedis, redactRedisUrl } = await import('../fleet/redis.ts');
  let redis: Awaited<ReturnType<typeof connectFleetRedis>>;
  try {
    redis = await connectFleetRedis(cfg.fleet.redisUrl);
  } catch (e) {
    throw new CliError((e as Error).message, ExitCode.UNREACHABLE, 'UNREACHABLE');
  }
  try {
    const r = await readFleetStatus(redis, account);
    if (o.json) printJson(r);
    else process.stdout.write(formatFleetStatus(r));
    return ExitCode.OK;
  } catch (e) {
    throw new CliError(
      `fleet Redis at ${redactRedisUrl(cfg.fleet.redisUrl)}: ${(e as Error).message}`,
      ExitCode.UNREACHABLE,
      'UNREACHABLE',
    );
  } finally {
    redis.disconnect();
  }
}

/** `mmkit fleet status`. */
export function register(program: Command): void {
  const fleet = program.command('fleet').description('operate a fleet of daemons sharing one account through Redis');
  fleet.addHelpText(
    'after',
    `
A fleet is started with \`mmkit run\` and fleet.redisUrl (README "Scaling out"); it is stopped with
\`mmkit kill --fleet\`.

Examples:
  MMKIT_REDIS_URL=redis://redis.internal:6379 mmkit fleet status
  MMKIT_REDIS_URL=redis://redis.internal:6379 mmkit fleet status --json | jq .total
  MMKIT_REDIS_URL=redis://redis.internal:6379 mmkit kill --fleet --reason "bad fills"
${EXIT_CODES_HELP}`,
  );
  fleet
    .command('status')
    .description(
      "the fleet's members alive, the markets each holds, PnL by member and total, budget use, heartbeat holder, kill switch",
    )
    .option(
      '--config <file>',
      'JSON config file merged over config/default.json (the wallet; the Redis URL comes from MMKIT_REDIS_URL only)',
    )
    .option('--data-dir <dir>', "a member's data directory (its paper wallet) [bot.dataDir]")
    .option('--account <address>', "the fleet's wallet address (default: the configured wallet's)")
    .option('--json', 'print one JSON document on stdout')
    .addHelpText(
      'after',
      `
Reads the fleet's Redis: fleet.redisUrl, a secret set by MMKIT_REDIS_URL only (never read from a file,
never printed). Each member publishes a status record every 2 s; a member dead for 6 s drops out.
The fleet is --account's, else the configured wallet's (a machine without it: give --account 0x…).

Exit codes: 0 shown; 2 bad flags, no fleet.redisUrl or no wallet to name the fleet; 3 Redis unreachable.

Examples:
  MMKIT_REDIS_URL=redis://redis.internal:6379 mmkit fleet status
  MMKIT_REDIS_URL=redis://redis.internal:6379 mmkit fleet status --account 0xabc... --json | jq .total
`,
    )
    .action(action(async (o: FleetStatusOptions) => fleetStatusCommand(o)));
}
