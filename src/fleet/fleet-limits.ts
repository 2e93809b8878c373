/**
 * The account limits a fleet runs with (issue 21): `risk.maxNotionalGlobal`, `maxOpenOrdersGlobal`,
 * `maxLoss` and `maxDailyLoss` are the account's, enforced together through Redis (./risk-reserve.ts,
 * ./fleet-loss.ts), so every member must be configured with the same values: a member whose grant
 * script or loss check used other caps would let the fleet exceed the tighter ones. The fleet's
 * markets (`bot.markets`, sorted) are recorded and checked the same way: a member with another list
 * would see a mate's orders on a market outside its own list as foreign ones (and, with
 * `bot.foreignOrders: cancel`, cancel them).
 *
 * The fleet's values are a HASH (`<prefix>risk:limits`). A member joining checks its own against
 * it in one script: when no other member is live (seen within `deadMs`, Redis TIME) it writes its
 * values (a fleet started anew, or restarted with new limits); otherwise values that differ are
 * refused, nothing written. So changing the account limits means stopping every member (or
 * `mmkit kill --fleet`) and starting them with the new values.
 *
 * A Redis restarted empty (no persistence, or a failover to an empty replica) loses the record while
 * members are live; the first member then started would record ITS values unchecked. So the live
 * members re-assert theirs (`FleetLimitsKeeper`: every second and at once on a reconnect, writing them
 * only when the record is missing), and a member joining while others are live but no record exists
 * waits (up to `waitMs`) for them to re-record it before it checks; after that wait it records its own
 * values only if still none exist (members started together on a fresh fleet), else it is checked.
 * A joiner's record can still beat the keepers' in the moment after the loss: a live member whose
 * keeper then finds other values than its own (`onMismatch`) trips the fleet's kill switch
 * (src/cli/run-fleet-limits.ts), so a fleet never trades with mixed caps.
 */
import type { Redis } from 'ioredis';
import type { Clock, TimerHandle } from '../core/clock.ts';
import { Script } from './lua-script.ts';
import type { FleetKeys } from './fleet-keys.ts';

/** The account limits, integers: notional µ-collateral, open orders, max loss µ-collateral. */
export interface FleetLimits {
  readonly maxNotionalGlobal: number;
  readonly maxOpenOrdersGlobal: number;
  readonly maxLoss: number;
  /** The fleet's markets (bot.markets), any order; absent: recorded as none. */
  readonly markets?: readonly string[];
  /** The UTC day's loss limit, µ-collateral (absent: 0, off; a record written before it existed reads 0). */
  readonly maxDailyLoss?: number;
}

const FIELDS = ['maxNotionalGlobal', 'maxOpenOrdersGlobal', 'maxLoss', 'markets', 'maxDailyLoss'] as const;

// KEYS: limits, members; ARGV: member, deadMs, mode, then the values in FIELDS order
// mode 'join': no other live member -> written, {}; others live and no record -> {'pending'}
// mode 'live' (a live member's keeper): touches the membership, then as 'assert'
// mode 'assert' (a joiner after its wait): no record -> written, {'written'}
// otherwise -> {} when equal, else {field, fleet's value, ...} of those that differ (nothing written)
const CHECK = new Script(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local fields = {'maxNotionalGlobal', 'maxOpenOrdersGlobal', 'maxLoss', 'markets', 'maxDailyLoss'}
local exists = redis.call('EXISTS', KEYS[1]) == 1
if ARGV[3] == 'join' then
  local live = redis.call('ZRANGEBYSCORE', KEYS[2], now - tonumber(ARGV[2]), '+inf')
  local others = 0
  for _, m in ipairs(live) do if m ~= ARGV[1] then others = others + 1 end end
  if others == 0 then
    -- the record anew, whole (a field an older version's record kept must not outlive it)
    redis.call('DEL', KEYS[1])
    for i, f in ipairs(fields) do redis.call('HSET', KEYS[1], f, ARGV[3 + i]) end
    return {}
  end
  if not exists then return {'pending'} end
elseif ARGV[3] == 'live' then
  redis.call('ZADD', KEYS[2], now, ARGV[1])
end
if not exists then
  for i, f in ipairs(fields) do redis.call('HSET', KEYS[1], f, ARGV[3 + i]) end
  return {'written'}
end
local out = {}
for i, f in ipairs(fields) do
  -- (a record of a version without maxDailyLoss: off)
  local v = redis.call('HGET', KEYS[1], f) or (f == 'maxDailyLoss' and '0' or '')
  if v ~= ARGV[3 + i] then out[#out + 1] = f; out[#out + 1] = v end
end
return out
`);

/** One account limit (or the market list) this member has otherwise than the fleet's live members. */
export interface LimitMismatch {
  readonly key: (typeof FIELDS)[number];
  /** The fleet's value (the stored integer, or the comma-joined sorted markets, as a string). */
  readonly fleet: string;
  /** This member's (for `markets`: the comma-joined sorted list). */
  readonly mine: number | string;
}

/** The values as the script takes them (FIELDS order). */
function values(limits: FleetLimits): string[] {
  return FIELDS.map((f) =>
    f === 'markets'
      ? [...(limits.markets ?? [])]
          .map((m) => m.toLowerCase())
          .sort()
          .join(',')
      : String(Math.round(limits[f] ?? 0)),
  );
}

function mismatches(r: string[], limits: FleetLimits): LimitMismatch[] {
  const mine = values(limits);
  const out: LimitMismatch[] = [];
  for (let i = 0; i + 1 < r.length; i += 2) {
    const key = r[i] as LimitMismatch['key'];
    out.push({ key, fleet: String(r[i + 1]), mine: key === 'markets' ? mine[3]! : (limits[key] ?? 0) });
  }
  return out;
}

async function run(
  redis: Redis,
  keys: FleetKeys,
  member: string,
  mode: 'join' | 'assert' | 'live',
  limits: FleetLimits,
  deadMs: number,
): Promise<string[]> {
  return (await CHECK.run(
    redis,
    [keys.riskLimits, keys.members],
    [member, deadMs, mode, ...values(limits)],
  )) as string[];
}

/** How a joiner checks (all optional). */
export interface CheckFleetLimitsOptions {
  /** A member unseen this long is dead, ms (default 3000: ./market-leases.ts). */
  readonly deadMs?: number;
  /** With live members but no record, wait this long for them to re-record theirs, ms (default 2500). */
  readonly waitMs?: number;
  /** Times the wait (default: the global timers). */
  readonly clock?: Pick<Clock, 'setTimeout'>;
}

/**
 * Checks (or, alone, records) this member's account limits against the fleet's (see the module
 * comment). Returns the mismatches; empty when accepted.
 * @throws what the Redis call throws (unreachable)
 */
export async function checkFleetLimits(
  redis: Redis,
  keys: FleetKeys,
  member: string,
  limits: FleetLimits,
  o: CheckFleetLimitsOptions = {},
): Promise<LimitMismatch[]> {
  const deadMs = o.deadMs ?? 3000;
  const waitMs = o.waitMs ?? 2500;
  const step = 250;
  const sleep = (ms: number) =>
    new Promise<void>((res) => {
      if (o.clock !== undefined) o.clock.setTimeout(res, ms);
      else setTimeout(res, ms);
    });
  for (let waited = 0; ; waited += step) {
    const r = await run(redis, keys, member, waited >= waitMs ? 'assert' : 'join', limits, deadMs);
    if (r[0] === 'pending') {
      await sleep(step);
      continue;
    }
    return r[0] === 'written' ? [] : mismatches(r, limits);
  }
}

/** What a live member's keeper reports. */
export interface FleetLimitsKeeperOptions {
  readonly redis: Redis;
  readonly keys: FleetKeys;
  readonly member: string;
  /** This member's (accepted) limits. */
  readonly limits: FleetLimits;
  readonly clock: Clock;
  /** Period, ms (default 1000). */
  readonly everyMs?: number;
  /** The record was missing (Redis lost it) and this member wrote its values again. */
  readonly onRewritten?: () => void;
  /** The record holds other values than this member's (each round while so). */
  readonly onMismatch?: (bad: LimitMismatch[]) => void;
}

/**
 * A live member re-asserts the fleet's limits record (see the module comment): every `everyMs` and
 * at once when its connection is ready again. Redis errors are ignored (the fail-closed guard acts on
 * an unreachable Redis). `start()` once, `stop()` before leaving.
 */
export class FleetLimitsKeeper {
  readonly #o: FleetLimitsKeeperOptions;
  #timer: TimerHandle | undefined;
  #busy = false;
  readonly #onReady = () => void this.round();

  constructor(o: FleetLimitsKeeperOptions) {
    this.#o = o;
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = this.#o.clock.setInterval(() => void this.round(), this.#o.everyMs ?? 1000);
    this.#o.redis.on('ready', this.#onReady);
  }

  stop(): void {
    if (this.#timer !== undefined) this.#o.clock.clearInterval(this.#timer);
    this.#timer = undefined;
    this.#o.redis.off('ready', this.#onReady);
  }

  /** One re-assertion (exported for tests); never throws. */
  async round(): Promise<void> {
    if (this.#busy) return;
    this.#busy = true;
    try {
      const o = this.#o;
      const r = await run(o.redis, o.keys, o.member, 'live', o.limits, 3000);
      if (r[0] === 'written') o.onRewritten?.();
      else if (r.length > 0) o.onMismatch?.(mismatches(r, o.limits));
    } catch {
      /* Redis unreachable: retried next round */
    } finally {
      this.#busy = false;
    }
  }
}
