/**
 * The Lua scripts of the fleet's shared sliding windows (src/fleet/window-gate.ts; the design:
 * /work/notes/issue21-research.md §1.3). Inlined as strings so that the build ships them.
 *
 * Keys of one account, all under one hash tag (they also work on Redis Cluster), prefix
 * `P = mmkit:{<account>}:w:`: `P..'clock'` (the last `now`, a monotonic clamp), and per rule `n`:
 * `P..'done:'..n` (ZSET slot -> answer ms), `P..'live:'..n` (ZSET slot -> in-flight deadline ms),
 * `P..'pause:'..n` (paused until ms), `P..'limit:'..n` (the learned limit, never above the table's).
 *
 * `now` is Redis `TIME` in ms (one clock for every member, no sync needed), or ARGV's override in
 * tests; never earlier than the last one used.
 *
 * `acquire` is `WindowGate#pump` (src/api/http/budgets.ts) over a batch of requests in FIFO order:
 * a request is granted only when every rule it needs has a free slot now AND no earlier request of
 * the batch is blocked on one of them; then it holds an in-flight slot in each (deadline now+ttl).
 * A slot that outlives its deadline (its member died) counts as answered at the deadline.
 * A slot frees `windowMs + marginMs` after its stamp, exactly as locally.
 */

/** "Never by time alone" (only in-flight slots block: wait for a release): 2^53 - 1. */
export const NEVER = 9007199254740991;

const NOW = `
local now
if ARGV[3] ~= '' then now = tonumber(ARGV[3]) else
  local t = redis.call('TIME'); now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
if now < last then now = last else redis.call('SET', KEYS[1], now) end
`;

/**
 * KEYS: clock, epoch, hold, then per rule r: done, live, pause, limit.
 * ARGV: ttlMs, marginMs, nowOverride ('' = Redis TIME), R, knownEpoch, newEpoch, graceMs, then per
 * rule: limit, windowMs, then per request: slotId, k, k rule indices (1-based).
 * Returns {now, granted_1, at_1, granted_2, at_2, ...}: granted 1|0; at = when the blocking rule
 * frees (0: held behind an earlier request, NEVER: only in-flight slots block).
 * Or {now, -1, epoch} when the caller must first re-add its own stamps (`RESEED`): Redis lost the
 * windows (the epoch key is gone: a new epoch starts, and every grant is held for graceMs while the
 * members re-add theirs) or the caller has not re-added them under the current epoch yet.
 */
export const ACQUIRE = `
local ttl, margin, R = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[4])
${NOW}
local NEVER = ${NEVER}
local epoch = redis.call('GET', KEYS[2])
if not epoch then
  redis.call('SET', KEYS[2], ARGV[6])
  if tonumber(ARGV[7]) > 0 then redis.call('SET', KEYS[3], '1', 'PX', tonumber(ARGV[7])) end
  return {now, -1, ARGV[6]}
end
if epoch ~= ARGV[5] then return {now, -1, epoch} end
local hold = redis.call('PTTL', KEYS[3])
if hold > 0 then
  local out, q = {now}, 8 + 2 * R
  while q <= #ARGV do out[#out + 1] = 0; out[#out + 1] = now + hold; q = q + 2 + tonumber(ARGV[q + 1]) end
  return out
end
local limit, span, stamped, inflight, paused, ready = {}, {}, {}, {}, {}, {}
local function prep(r)
  if ready[r] then return end
  ready[r] = true
  local b = 3 + 4 * (r - 1)
  local done, live, lim = KEYS[b + 1], KEYS[b + 2], KEYS[b + 4]
  local l = tonumber(ARGV[6 + 2 * r])
  span[r] = tonumber(ARGV[7 + 2 * r]) + margin
  local learned = redis.call('GET', lim)
  if learned and tonumber(learned) < l then l = tonumber(learned) end
  limit[r] = l
  local ex = redis.call('ZRANGEBYSCORE', live, '-inf', now, 'WITHSCORES')
  for j = 1, #ex, 2 do
    redis.call('ZADD', done, 'GT', ex[j + 1], ex[j]); redis.call('ZREM', live, ex[j])
  end
  if #ex > 0 then redis.call('PEXPIRE', done, ttl + span[r]) end
  redis.call('ZREMRANGEBYSCORE', done, '-inf', now - span[r])
  stamped[r] = redis.call('ZCARD', done)
  inflight[r] = redis.call('ZCARD', live)
  paused[r] = tonumber(redis.call('GET', KEYS[b + 3]) or '0')
end
local function readyAt(r)
  local excess = stamped[r] + inflight[r] + 1 - limit[r]
  local at = 0
  if excess > 0 then
    if excess <= stamped[r] then
      at = tonumber(redis.call('ZRANGE', KEYS[4 + 4 * (r - 1)], excess - 1, excess - 1, 'WITHSCORES')[2]) + span[r]
    else at = NEVER end
  end
  if paused[r] > now and paused[r] > at then at = paused[r] end
  return at
end
local blocked, out, p = {}, {now}, 8 + 2 * R
while p <= #ARGV do
  local slot, k = ARGV[p], tonumber(ARGV[p + 1])
  local wait, held = 0, false
  for j = 1, k do
    local r = tonumber(ARGV[p + 1 + j])
    if blocked[r] then held = true end
    prep(r)
    local at = readyAt(r)
    if at > 0 then blocked[r] = true; if at > wait then wait = at end end
  end
  if wait == 0 and not held then
    for j = 1, k do
      local r = tonumber(ARGV[p + 1 + j]); local b = 3 + 4 * (r - 1)
      local keep = ttl + span[r]
      redis.call('ZADD', KEYS[b + 2], now + ttl, slot); inflight[r] = inflight[r] + 1
      redis.call('PEXPIRE', KEYS[b + 2], keep); redis.call('PEXPIRE', KEYS[b + 1], keep)
    end
    out[#out + 1] = 1; out[#out + 1] = 0
  else
    out[#out + 1] = 0; out[#out + 1] = wait
  end
  p = p + 2 + k
end
return out
`;

/**
 * KEYS: clock, epoch, hold. ARGV: newEpoch, graceMs, nowOverride. The epoch in force, started
 * (with grants held for graceMs, 0: not held) when Redis lost it.
 */
export const EPOCH = `
${NOW}
local e = redis.call('GET', KEYS[2])
if e then return e end
redis.call('SET', KEYS[2], ARGV[1])
if tonumber(ARGV[2]) > 0 then redis.call('SET', KEYS[3], '1', 'PX', tonumber(ARGV[2])) end
return ARGV[1]
`;

/**
 * A member re-adds its own recent stamps and in-flight slots after Redis lost them.
 * KEYS: clock, epoch, then per rule: done, live. ARGV: epoch, ttlMs, nowOverride, then per rule:
 * keepMs, n, n pairs (slot, stamp), m, m slots in flight (deadline now + ttl).
 * Returns {1, epoch} done, or {0, epoch in force} when the epoch changed meanwhile.
 */
export const RESEED = `
${NOW}
local e = redis.call('GET', KEYS[2])
if e ~= ARGV[1] then return {0, e or ''} end
local ttl, p = tonumber(ARGV[2]), 4
for i = 1, (#KEYS - 2) / 2 do
  local done, live = KEYS[1 + 2 * i], KEYS[2 + 2 * i]
  local keep, n = tonumber(ARGV[p]), tonumber(ARGV[p + 1]); p = p + 2
  for j = 1, n do redis.call('ZADD', done, 'GT', ARGV[p + 1], ARGV[p]); p = p + 2 end
  if n > 0 then redis.call('PEXPIRE', done, keep + ttl) end
  local m = tonumber(ARGV[p]); p = p + 1
  for j = 1, m do redis.call('ZADD', live, 'GT', now + ttl, ARGV[p]); p = p + 1 end
  if m > 0 then redis.call('PEXPIRE', live, keep + ttl) end
end
return {1, e}
`;

/**
 * KEYS: clock, then per rule: done, live. ARGV: slotId, _, nowOverride, then per rule keepMs.
 * The slot leaves the in-flight set and is stamped now; `GT`: a repeated or late release only
 * moves a stamp later (conservative, idempotent). Returns now.
 */
export const RELEASE = `
${NOW}
for i = 1, (#KEYS - 1) / 2 do
  local done, live = KEYS[2 * i], KEYS[2 * i + 1]
  redis.call('ZREM', live, ARGV[1])
  redis.call('ZADD', done, 'GT', now, ARGV[1])
  redis.call('PEXPIRE', done, tonumber(ARGV[3 + i]))
end
return now
`;

/**
 * KEYS: clock, then live sets. ARGV: ttlMs, _, nowOverride, then slot ids.
 * Pushes the deadline of slots still in flight to now+ttl (only those still there: XX).
 */
export const RENEW = `
${NOW}
local ttl = tonumber(ARGV[1])
for i = 2, #KEYS do
  for j = 4, #ARGV do redis.call('ZADD', KEYS[i], 'XX', 'GT', now + ttl, ARGV[j]) end
  redis.call('PEXPIRE', KEYS[i], ttl * 3)
end
return now
`;

/**
 * KEYS: clock, pause key. ARGV: untilMs, _, nowOverride. Pause = max(old, until). Returns now.
 * Readers compare the key's VALUE with the time (a past value pauses nothing); its TTL only collects
 * it, a minute after the pause ends: Redis expires keys by its own clock, which an injected time
 * (nowOverride, in tests) does not move, so a TTL of exactly the pause could end it early.
 */
export const PAUSE = `
${NOW}
local untilMs = tonumber(ARGV[1])
local old = tonumber(redis.call('GET', KEYS[2]) or '0')
if untilMs > old and untilMs > now then redis.call('SET', KEYS[2], untilMs, 'PX', untilMs - now + 60000) end
return now
`;

/** KEYS: limit key. ARGV: limit. Limit = min(old, limit). Returns the limit in force. */
export const LOWER = `
local l = tonumber(ARGV[1])
local old = redis.call('GET', KEYS[1])
if old and tonumber(old) <= l then return tonumber(old) end
redis.call('SET', KEYS[1], l)
return l
`;

/**
 * KEYS: clock, then per rule: done, live, pause, limit. ARGV: ttlMs, marginMs, nowOverride, then per
 * rule windowMs. Evicts as acquire does; returns {now, stamped_1, inflight_1, pausedUntil_1,
 * learned_1 (0: none), ...}.
 */
export const STATE = `
${NOW}
local margin, out = tonumber(ARGV[2]), {now}
for i = 1, (#KEYS - 1) / 4 do
  local b = 1 + 4 * (i - 1)
  local done, live = KEYS[b + 1], KEYS[b + 2]
  local ex = redis.call('ZRANGEBYSCORE', live, '-inf', now, 'WITHSCORES')
  for j = 1, #ex, 2 do
    redis.call('ZADD', done, 'GT', ex[j + 1], ex[j]); redis.call('ZREM', live, ex[j])
  end
  local span = tonumber(ARGV[3 + i]) + margin
  if #ex > 0 then redis.call('PEXPIRE', done, tonumber(ARGV[1]) + span) end
  redis.call('ZREMRANGEBYSCORE', done, '-inf', now - span)
  out[#out + 1] = redis.call('ZCARD', done)
  out[#out + 1] = redis.call('ZCARD', live)
  out[#out + 1] = tonumber(redis.call('GET', KEYS[b + 3]) or '0')
  out[#out + 1] = tonumber(redis.call('GET', KEYS[b + 4]) or '0')
end
return out
`;

/**
 * KEYS: the table key. ARGV: the rule table's digest, ttlMs. The first member writes it; the
 * others must carry the same one. Returns the digest in force.
 */
export const TABLE = `
local cur = redis.call('GET', KEYS[1])
if not cur then redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[2])); return ARGV[1] end
if cur == ARGV[1] then redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2])) end
return cur
`;

/**
 * KEYS: clock, members ZSET. ARGV: member, staleMs, nowOverride, maxMembers (0: no cap), leave (1|0).
 * Drops members not seen for staleMs; refuses a new member when maxMembers are there already
 * (returns {0, count}); else records this one as seen now (or removes it when leaving): {1, count}.
 */
export const MEMBERS = `
${NOW}
local stale, cap = tonumber(ARGV[2]), tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - stale)
if ARGV[5] == '1' then redis.call('ZREM', KEYS[2], ARGV[1]); return {1, redis.call('ZCARD', KEYS[2])} end
local n = redis.call('ZCARD', KEYS[2])
if cap > 0 and not redis.call('ZSCORE', KEYS[2], ARGV[1]) and n >= cap then return {0, n} end
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('PEXPIRE', KEYS[2], stale)
return {1, redis.call('ZCARD', KEYS[2])}
`;
