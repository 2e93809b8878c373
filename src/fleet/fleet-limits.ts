/**
 * The account limits a fleet runs with (issue 21): `risk.maxNotionalGlobal`, `maxOpenOrdersGlobal`
 * and `maxLoss` are the account's, enforced together through Redis (./risk-reserve.ts,
 * ./fleet-loss.ts), so every member must be configured with the same values: a member whose grant
 * script or loss check used other caps would let the fleet exceed the tighter ones.
 *
 * The fleet's values are a HASH (`<prefix>risk:limits`). A member joining checks its own against
 * it in one script: when no other member is live (seen within `deadMs`, Redis TIME) it writes its
 * values (a fleet started anew, or restarted with new limits); otherwise values that differ are
 * refused, nothing written. So changing the account limits means stopping every member (or
 * `mmkit kill --fleet`) and starting them with the new values.
 */
import type { Redis } from 'ioredis';
import { Script } from './lease.ts';
import type { FleetKeys } from './fleet-keys.ts';

/** The account limits, integers: notional µ-collateral, open orders, max loss µ-collateral. */
export interface FleetLimits {
  readonly maxNotionalGlobal: number;
  readonly maxOpenOrdersGlobal: number;
  readonly maxLoss: number;
}

const FIELDS = ['maxNotionalGlobal', 'maxOpenOrdersGlobal', 'maxLoss'] as const;

// KEYS: limits, members; ARGV: member, deadMs, then the values in FIELDS order
// -> {} when accepted (written or equal), else {field, fleet's value, ...} of those that differ
const CHECK = new Script(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local live = redis.call('ZRANGEBYSCORE', KEYS[2], now - tonumber(ARGV[2]), '+inf')
local others = 0
for _, m in ipairs(live) do if m ~= ARGV[1] then others = others + 1 end end
local fields = {'maxNotionalGlobal', 'maxOpenOrdersGlobal', 'maxLoss'}
if others > 0 and redis.call('EXISTS', KEYS[1]) == 1 then
  local out = {}
  for i, f in ipairs(fields) do
    local v = redis.call('HGET', KEYS[1], f)
    if v ~= ARGV[2 + i] then out[#out + 1] = f; out[#out + 1] = v or '' end
  end
  return out
end
for i, f in ipairs(fields) do redis.call('HSET', KEYS[1], f, ARGV[2 + i]) end
return {}
`);

/** One account limit this member has otherwise than the fleet's live members. */
export interface LimitMismatch {
  readonly key: (typeof FIELDS)[number];
  /** The fleet's value (the stored integer, as a string). */
  readonly fleet: string;
  readonly mine: number;
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
  deadMs = 3000,
): Promise<LimitMismatch[]> {
  const r = (await CHECK.run(
    redis,
    [keys.riskLimits, keys.members],
    [member, deadMs, ...FIELDS.map((f) => String(Math.round(limits[f])))],
  )) as string[];
  const out: LimitMismatch[] = [];
  for (let i = 0; i + 1 < r.length; i += 2) {
    const key = r[i] as LimitMismatch['key'];
    out.push({ key, fleet: String(r[i + 1]), mine: limits[key] });
  }
  return out;
}
