/**
 * The Lua scripts of the fleet's shared per-signer token buckets (./signer-gate.ts): the venue's
 * buckets are per signer, and every member of a fleet signs with the same key, so the members must
 * draw from one bucket. The algorithm is the local one's (src/api/http/signer-budget.ts, the bucket
 * src/core/signer-limits.ts TokenBucket) moved into Redis: integers only (milli-tokens, ms).
 *
 * Keys of one signer, under one hash tag, prefix `P = mmkit:{<signer>}:s:`: `P..'clock'` (the last
 * now: a monotonic clamp), `P..'tier'` (the tier in force for the fleet), per bucket `b`:
 * `P..b` (HASH m = milli-tokens, at = ms of the last refill, r = rate/s, b = burst, n = 1 when it may
 * go negative, p = paused until ms, x = the post-charged ticket holding the bucket alone),
 * `P..b..':live'` (ZSET ticket -> in-flight deadline ms), `P..b..':cost'` (HASH ticket -> cost).
 *
 * `now` is Redis TIME in ms (one clock for the fleet), or ARGV[1] in tests; never earlier than the
 * last one used. A ticket past its deadline (its member died mid-request) is charged then.
 */

/** "Never by time alone": wait for a release (2^53 - 1). */
export const NEVER = 9007199254740991;

const NOW = `
local now
if ARGV[1] ~= '' then now = tonumber(ARGV[1]) else
  local t = redis.call('TIME'); now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if now < last then now = last else redis.call('SET', KEYS[1], now) end
`;

// refill a bucket's hash to now; returns m, r, b, n
const FNS = `
local function load(k)
  local v = redis.call('HMGET', k, 'm', 'at', 'r', 'b', 'n')
  local m, at, r, b, n = tonumber(v[1]), tonumber(v[2]), tonumber(v[3]), tonumber(v[4]), tonumber(v[5])
  if now > at then
    if m < b * 1000 then m = math.min(b * 1000, m + r * (now - at)) end
    at = now
  end
  redis.call('HSET', k, 'm', m, 'at', at)
  return m, r, b, n
end
local function charge(k, cost)
  if cost <= 0 then return end
  local m, r, b, n = load(k)
  m = m - cost * 1000
  if n == 0 and m < 0 then m = 0 end
  redis.call('HSET', k, 'm', m)
end
local function expire(k, live, costs)
  local ex = redis.call('ZRANGEBYSCORE', live, '-inf', now)
  for i = 1, #ex do
    local c = tonumber(redis.call('HGET', costs, ex[i]) or '0')
    redis.call('ZREM', live, ex[i]); redis.call('HDEL', costs, ex[i])
    if redis.call('HGET', k, 'x') == ex[i] then redis.call('HDEL', k, 'x') end
    charge(k, c)
  end
end
`;

// KEYS[2] tier, KEYS[3] order state, KEYS[4] cancel state; ARGV[2..7] the caller's tier: name,
// order rate, order burst, cancel rate, cancel burst, cancel negative; the LAST ARGV 'E' when the
// caller has used the buckets before. The fleet's tier and the buckets are created from it when
// absent: full on first use, EMPTY when a caller that used them before finds them gone (a Redis
// restarted empty: the venue's buckets may be drained by what the fleet just sent, so they refill
// from zero, as the venue's would).
const INIT = `
local tier = redis.call('GET', KEYS[2])
if not tier then redis.call('SET', KEYS[2], ARGV[2]); tier = ARGV[2] end
local full = 1
if ARGV[#ARGV] == 'E' then full = 0 end
if redis.call('EXISTS', KEYS[3]) == 0 then
  redis.call('HSET', KEYS[3], 'm', full * tonumber(ARGV[4]) * 1000, 'at', now, 'r', ARGV[3], 'b', ARGV[4], 'n', 0, 'p', 0)
end
if redis.call('EXISTS', KEYS[4]) == 0 then
  redis.call('HSET', KEYS[4], 'm', full * tonumber(ARGV[6]) * 1000, 'at', now, 'r', ARGV[5], 'b', ARGV[6], 'n', ARGV[7], 'p', 0)
end
`;

/**
 * KEYS: clock, tier, order state, cancel state, live, cost (of the request's bucket).
 * ARGV: nowOverride, the caller's tier (name, order rate, order burst, cancel rate, cancel burst,
 * cancel negative 1|0), ticket, cost, postCharged (1|0), ttlMs, bucket (1 order | 2 cancel).
 * Returns {now, 1, 0} granted; {now, 0, at} wait until `at` (NEVER: a release); {now, -2, tier}
 * the fleet budgets another tier (adopt it and retry); {now, -3, burst} the cost exceeds the burst.
 */
export const ACQUIRE = `
${NOW}
${FNS}
${INIT}
if tier ~= ARGV[2] then return {now, -2, tier} end
local k = KEYS[2 + tonumber(ARGV[12])]
expire(k, KEYS[5], KEYS[6])
local m, r, b, n = load(k)
local cost, post = tonumber(ARGV[9]), ARGV[10] == '1'
if cost > b then return {now, -3, b} end
if redis.call('HEXISTS', k, 'x') == 1 then return {now, 0, ${NEVER}} end
local count = redis.call('ZCARD', KEYS[5])
if post and count > 0 then return {now, 0, ${NEVER}} end
local inflight = 0
for _, c in ipairs(redis.call('HVALS', KEYS[6])) do inflight = inflight + tonumber(c) end
local at = 0
local p = tonumber(redis.call('HGET', k, 'p') or '0')
if p > now then at = p end
if cost + inflight > b then return {now, 0, ${NEVER}} end
local missing = (cost + inflight) * 1000 - m
if missing > 0 then
  local w = now + math.ceil(missing / r)
  if w > at then at = w end
end
if at > 0 then return {now, 0, at} end
redis.call('ZADD', KEYS[5], now + tonumber(ARGV[11]), ARGV[8])
redis.call('HSET', KEYS[6], ARGV[8], cost)
if post then redis.call('HSET', k, 'x', ARGV[8]) end
return {now, 1, 0}
`;

/**
 * KEYS: clock, tier, order state, cancel state, live, cost (of the ticket's bucket).
 * ARGV: nowOverride, the caller's tier (6, as ACQUIRE's), bucket (1 order | 2 cancel), ticket
 * ('' none), charge (1|0: its cost), postCount, the tier named by the venue ('' none) and its order
 * rate, order burst, cancel rate, cancel burst, cancel negative (1|0), lowerTo ('' none), retryMs
 * (0 none), resetMs (unix ms, 0 none), pause (1|0).
 * In the local budget's order: the ticket leaves the in-flight set, its cost is charged (unless a
 * 429), a cancel-all's count is post-charged, the named tier is adopted (a lower one empties both
 * buckets), a 429 of these buckets lowers the level and pauses the bucket. Returns {now, tier}.
 */
export const RELEASE = `
${NOW}
${FNS}
${INIT}
local k = KEYS[2 + tonumber(ARGV[8])]
local ticket = ARGV[9]
if ticket ~= '' then
  local c = redis.call('HGET', KEYS[6], ticket)
  if c then
    redis.call('ZREM', KEYS[5], ticket); redis.call('HDEL', KEYS[6], ticket)
    if ARGV[10] == '1' then charge(k, tonumber(c)) end
  end
  if redis.call('HGET', k, 'x') == ticket then redis.call('HDEL', k, 'x') end
end
charge(k, tonumber(ARGV[11]))
if ARGV[12] ~= '' and tier ~= ARGV[12] then
  local _, _, ob = load(KEYS[3])
  local lower = tonumber(ARGV[14]) < ob
  for i = 0, 1 do
    local key = KEYS[3 + i]
    local m = load(key)
    local nr, nb, nn = tonumber(ARGV[13 + 2 * i]), tonumber(ARGV[14 + 2 * i]), 0
    if i == 1 then nn = tonumber(ARGV[17]) end
    m = math.min(m, nb * 1000)
    if nn == 0 and m < 0 then m = 0 end
    if lower and m > 0 then m = 0 end
    redis.call('HSET', key, 'm', m, 'r', nr, 'b', nb, 'n', nn)
  end
  redis.call('SET', KEYS[2], ARGV[12]); tier = ARGV[12]
end
if ARGV[18] ~= '' then
  local m = load(k)
  local l = math.floor(tonumber(ARGV[18]) * 1000)
  if l < m then redis.call('HSET', k, 'm', l) end
end
if ARGV[21] == '1' then
  local untilMs = now
  local retry, reset = tonumber(ARGV[19]), tonumber(ARGV[20])
  if retry > 0 and now + retry > untilMs then untilMs = now + retry end
  if reset > 0 and reset > untilMs then untilMs = reset end
  local p = tonumber(redis.call('HGET', k, 'p') or '0')
  if untilMs > p then redis.call('HSET', k, 'p', untilMs) end
end
return {now, tier}
`;

/** KEYS: clock, then live ZSETs. ARGV: nowOverride, ttlMs, then tickets: deadlines pushed to now+ttl. */
export const RENEW = `
${NOW}
local ttl = tonumber(ARGV[2])
for i = 2, #KEYS do
  for j = 3, #ARGV do redis.call('ZADD', KEYS[i], 'XX', 'GT', now + ttl, ARGV[j]) end
end
return now
`;

/**
 * KEYS: clock, tier, then per bucket: state, live, cost. ARGV: nowOverride.
 * Returns {now, tier, then per bucket: milli, rate, burst, inflight, count, pausedUntil} (zeros for
 * a bucket not created yet).
 */
export const STATE = `
${NOW}
${FNS}
local out = {now, redis.call('GET', KEYS[2]) or ''}
for i = 0, 1 do
  local k, live, costs = KEYS[3 + 3 * i], KEYS[4 + 3 * i], KEYS[5 + 3 * i]
  if redis.call('EXISTS', k) == 1 then
    expire(k, live, costs)
    local m, r, b = load(k)
    local inflight = 0
    for _, c in ipairs(redis.call('HVALS', costs)) do inflight = inflight + tonumber(c) end
    out[#out + 1] = m; out[#out + 1] = r; out[#out + 1] = b; out[#out + 1] = inflight
    out[#out + 1] = redis.call('ZCARD', live); out[#out + 1] = tonumber(redis.call('HGET', k, 'p') or '0')
  else
    for j = 1, 6 do out[#out + 1] = 0 end
  end
end
return out
`;
