/**
 * The Redis side of the limiter: one Lua script (EVALSHA) that runs a batch of checks and ends, in
 * order, each as its own function (ACQUIRE, SETTLE, HOLD and GIVE below), so that every instance sharing the
 * Redis sees one set of windows and no two checks interleave: a script runs atomically.
 *
 * Per subject four keys: `rb` and `tb`, the requests' and the tokens' windows, each a hash of
 * one-second buckets (field: the bucket's number; `#n` their sum; `#o` the oldest bucket with
 * anything in it; see limit-store.ts), then `cs`, the slots in flight by holder (an instance; `#n`
 * their sum) and `cz`, when each holder was last heard from (a sorted set). A check reads two fields
 * of each window and adds to two; once a second the window's buckets that left are dropped and the
 * rest summed again. The steps are bucket-window.ts's.
 *
 * A check may ask for a lease beside its own request: more requests and tokens in the current
 * second and more slots, which the instance then admits without Redis (redis-limit-leases.ts). A
 * lease is granted from a sixteenth of the room left at most, so near a limit every request comes
 * here and the verdicts are exact.
 */

import { LIMIT_WINDOW_LUA } from './redis-limit-window-lua.js';

/**
 * A check. KEYS: 4 per subject (rb, tb, cs, cz). ARGV: now, window ms, bucket ms, stale ms, holder,
 * estimate, then 6 per subject (rpm, tpm, concurrency, 0 unset; then the lease asked for: requests,
 * tokens, slots). Answers {refused kind or '', retry ms, then per subject: requests, requests reset
 * ms, tokens, tokens reset ms, in flight (all before this request), then the lease granted:
 * requests, tokens, slots}.
 */
const ACQUIRE = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local size = tonumber(ARGV[3])
local stale = tonumber(ARGV[4])
local holder = ARGV[5]
local estimate = tonumber(ARGV[6])
local first = math.floor((now - window) / size)
local current = math.floor(now / size)
local ttl = window + 2 * size
local function leavesIn(bucket) return (bucket + 1) * size + window - now end
local function lease(want, room) return math.max(0, math.min(want, math.floor(room / 16))) end
local subjects = #KEYS / 4
local refused = ''
local retry = 0
local out = {}
local function refuse(kind, wait)
  if refused == '' then refused = kind end
  if wait > retry then retry = wait end
end
for i = 0, subjects - 1 do
  local r, t, cs, cz = KEYS[i * 4 + 1], KEYS[i * 4 + 2], KEYS[i * 4 + 3], KEYS[i * 4 + 4]
  local at = 7 + i * 6
  local rpm, tpm, concurrency = tonumber(ARGV[at]), tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
  local requests, oldest = roll(r, first)
  local requestsReset = 0
  if requests > 0 and oldest then requestsReset = leavesIn(oldest) end
  if rpm > 0 and requests >= rpm then refuse('rpm', requestsReset) end
  local tokens, oldestTokens = roll(t, first)
  local tokensReset = 0
  if tokens > 0 and oldestTokens then tokensReset = leavesIn(oldestTokens) end
  if tpm > 0 and tokens > 0 and tokens + estimate > tpm then
    -- Refused: until enough of the oldest tokens have left the window for this estimate.
    local all = redis.call('HGETALL', t)
    local buckets = {}
    for j = 1, #all, 2 do
      local bucket = tonumber(all[j])
      if bucket and bucket >= first and tonumber(all[j + 1]) > 0 then
        buckets[#buckets + 1] = {bucket, tonumber(all[j + 1])}
      end
    end
    table.sort(buckets, function(a, b) return a[1] < b[1] end)
    local left, wait, room = tokens, 0, math.max(0, tpm - estimate)
    for j = 1, #buckets do
      left = left - buckets[j][2]
      wait = leavesIn(buckets[j][1])
      if left <= room then break end
    end
    refuse('tpm', wait)
  end
  local inFlight = 0
  if concurrency > 0 then
    -- Holders not heard from for the stale time (an instance killed) lose their slots.
    local gone = redis.call('ZRANGEBYSCORE', cz, '-inf', now - stale, 'LIMIT', 0, 16)
    for j = 1, #gone do
      local held = tonumber(redis.call('HGET', cs, gone[j]) or '0')
      redis.call('HDEL', cs, gone[j])
      redis.call('HINCRBY', cs, '#n', -held)
      redis.call('ZREM', cz, gone[j])
    end
    inFlight = math.max(0, tonumber(redis.call('HGET', cs, '#n') or '0'))
    if inFlight >= concurrency then refuse('concurrency', 1000) end
  end
  out[#out + 1] = {requests, requestsReset, tokens, tokensReset, inFlight}
end
local answer = {refused, retry}
for i = 0, subjects - 1 do
  local reading = out[i + 1]
  for j = 1, 5 do answer[#answer + 1] = reading[j] end
  local granted = {0, 0, 0}
  if refused == '' then
    local r, t, cs, cz = KEYS[i * 4 + 1], KEYS[i * 4 + 2], KEYS[i * 4 + 3], KEYS[i * 4 + 4]
    local at = 7 + i * 6
    local rpm, tpm, concurrency = tonumber(ARGV[at]), tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
    if rpm > 0 then
      granted[1] = lease(tonumber(ARGV[at + 3]), rpm - reading[1] - 1)
      change(r, current, 1 + granted[1], ttl)
    end
    if tpm > 0 then
      granted[2] = lease(tonumber(ARGV[at + 4]), tpm - reading[3] - estimate)
      change(t, current, estimate + granted[2], ttl)
    end
    if concurrency > 0 then
      granted[3] = lease(tonumber(ARGV[at + 5]), concurrency - reading[5] - 1)
      redis.call('HINCRBY', cs, holder, 1 + granted[3])
      redis.call('HINCRBY', cs, '#n', 1 + granted[3])
      redis.call('ZADD', cz, now, holder)
      redis.call('PEXPIRE', cs, stale)
      redis.call('PEXPIRE', cz, stale)
    end
  end
  for j = 1, 3 do answer[#answer + 1] = granted[j] end
end
return answer
`;

/**
 * A request's tokens settled. KEYS: 1 per subject (tb). ARGV: now, window ms, bucket ms, tokens,
 * when it was counted (ms), its estimate. The estimate leaves its second and the tokens count in
 * this one.
 */
const SETTLE = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local size = tonumber(ARGV[3])
local tokens = tonumber(ARGV[4])
local started = math.floor(tonumber(ARGV[5]) / size)
local estimate = tonumber(ARGV[6])
local first = math.floor((now - window) / size)
local current = math.floor(now / size)
local ttl = window + 2 * size
for i = 1, #KEYS do
  if started == current then
    change(KEYS[i], current, tokens - estimate, ttl)
  else
    -- Nothing to take back when the estimate's second has left the window (a long request).
    if started >= first then change(KEYS[i], started, -estimate, ttl) end
    change(KEYS[i], current, tokens, ttl)
  end
end
return 1
`;

/**
 * A holder's slots. KEYS: 2 per subject (cs, cz). ARGV: now, stale ms, holder, whether the holder
 * knows its slots exactly (1: no check of its is on the way, so `keeps` is set as it is), then 2 per
 * subject: the slots it gives back, and the slots it holds after that (set when exact, or when the
 * holder was dropped as stale while Redis could not hear from it). Its time heard from is now.
 */
const HOLD = `
local now = tonumber(ARGV[1])
local stale = tonumber(ARGV[2])
local holder = ARGV[3]
local exact = tonumber(ARGV[4]) == 1
for i = 0, #KEYS / 2 - 1 do
  local cs, cz = KEYS[i * 2 + 1], KEYS[i * 2 + 2]
  local freed, keeps = tonumber(ARGV[5 + i * 2]), tonumber(ARGV[6 + i * 2])
  local held = tonumber(redis.call('HGET', cs, holder))
  local after = keeps
  if held and not exact then after = math.max(0, held - freed) end
  if after > 0 then
    redis.call('HSET', cs, holder, after)
    redis.call('ZADD', cz, now, holder)
    redis.call('PEXPIRE', cs, stale)
    redis.call('PEXPIRE', cz, stale)
  else
    redis.call('HDEL', cs, holder)
    redis.call('ZREM', cz, holder)
  end
  if after ~= (held or 0) then redis.call('HINCRBY', cs, '#n', after - (held or 0)) end
end
return 1
`;

/**
 * A lease's rest given back once its second is over. KEYS: 2 per subject (rb, tb). ARGV: now,
 * window ms, bucket ms, the lease's bucket, then 2 per subject: requests and tokens not used.
 */
const GIVE = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local size = tonumber(ARGV[3])
local bucket = tonumber(ARGV[4])
if bucket >= math.floor((now - window) / size) then
  for i = 0, #KEYS / 2 - 1 do
    change(KEYS[i * 2 + 1], bucket, -tonumber(ARGV[5 + i * 2]), 0)
    change(KEYS[i * 2 + 2], bucket, -tonumber(ARGV[6 + i * 2]), 0)
  end
end
return 1
`;

/**
 * The batch: KEYS are the distinct subjects of its operations, each as the prefix its four keys share
 * (its hash tag in braces, so a cluster's slot of the prefix is its keys' slot too); ARGV[1] is the
 * operations in JSON, in order: `[kind, [subject indexes in KEYS], [arguments]]`, kind 'a' a check,
 * 's' a settlement, 'h' slots given back and 'g' a lease's rest given back. Answers in JSON one
 * entry per operation: a check's answer, 1 for the others, or the error's text when it failed (the others run all the same: one request's error is not another's).
 * One string each way: a batch of many requests costs the client two arguments to encode and one
 * reply to parse.
 */
export const LIMIT_BATCH_SCRIPT = `
${LIMIT_WINDOW_LUA}
local KINDS = {
  a = {function(KEYS, ARGV)
${ACQUIRE}
  end, {'rb', 'tb', 'cs', 'cz'}},
  s = {function(KEYS, ARGV)
${SETTLE}
  end, {'tb'}},
  h = {function(KEYS, ARGV)
${HOLD}
  end, {'cs', 'cz'}},
  g = {function(KEYS, ARGV)
${GIVE}
  end, {'rb', 'tb'}},
}
local operations = cjson.decode(ARGV[1])
local answers = {}
for op = 1, #operations do
  local kind, subjects, args = operations[op][1], operations[op][2], operations[op][3]
  local run, suffixes = KINDS[kind][1], KINDS[kind][2]
  local keys = {}
  for _, subject in ipairs(subjects) do
    for _, suffix in ipairs(suffixes) do keys[#keys + 1] = KEYS[subject] .. suffix end
  end
  local ok, answer = pcall(run, keys, args)
  if ok then
    answers[op] = answer
  elseif type(answer) == 'table' and answer.err then
    answers[op] = answer.err
  else
    answers[op] = tostring(answer)
  end
end
return cjson.encode(answers)
`;
