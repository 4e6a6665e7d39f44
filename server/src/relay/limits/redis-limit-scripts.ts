/**
 * The Redis side of the limiter: one Lua script (EVALSHA) that runs a batch of checks and ends, in
 * order, each as its own function (ACQUIRE and FINISH below), so that every instance sharing the
 * Redis sees one set of windows and no two checks interleave: a script runs atomically.
 *
 * Per subject three keys: `rb` and `tb`, the requests' and the tokens' windows, each a hash of
 * one-second buckets (field: the bucket's number; `#n` their sum; `#o` the oldest bucket with
 * anything in it; see limit-store.ts), and `c`, the requests in flight (a sorted set scored by their
 * start). A check reads two fields of each window and adds to two; once a second the window's
 * buckets that left are dropped and the rest summed again. The steps are bucket-window.ts's.
 */

/** The windows' helpers: `roll` (drop what left, answer the sum and oldest bucket) and `change`. */
const WINDOW = `
local function roll(key, first)
  local head = redis.call('HMGET', key, '#n', '#o')
  local sum, oldest = tonumber(head[1]) or 0, tonumber(head[2])
  if oldest == nil or oldest >= first then return sum, oldest end
  -- At most once a second: drop the buckets that left and sum the rest again (no drift).
  local all = redis.call('HGETALL', key)
  local dead = {}
  sum, oldest = 0, nil
  for j = 1, #all, 2 do
    local field = all[j]
    if string.sub(field, 1, 1) ~= '#' then
      local bucket, amount = tonumber(field), tonumber(all[j + 1])
      if bucket < first or amount <= 0 then
        dead[#dead + 1] = field
      else
        sum = sum + amount
        if oldest == nil or bucket < oldest then oldest = bucket end
      end
    end
  end
  if oldest == nil then
    redis.call('DEL', key)
    return 0, nil
  end
  for from = 1, #dead, 500 do
    redis.call('HDEL', key, unpack(dead, from, math.min(from + 499, #dead)))
  end
  redis.call('HSET', key, '#n', string.format('%d', sum), '#o', string.format('%d', oldest))
  return sum, oldest
end
local function change(key, bucket, amount, ttl)
  if amount == 0 then return end
  -- Written as integers: Redis would write a Lua number of 15 digits or more as 1e+15.
  bucket = string.format('%d', bucket)
  local value = redis.call('HINCRBY', key, bucket, string.format('%d', amount))
  local delta = amount
  if value <= 0 then
    redis.call('HDEL', key, bucket)
    delta = amount - value
    if tonumber(redis.call('HGET', key, '#o')) == tonumber(bucket) then
      -- The oldest emptied (a settled estimate): the next oldest, for the window's reset.
      local all, oldest = redis.call('HGETALL', key), nil
      for j = 1, #all, 2 do
        local other = tonumber(all[j])
        if other and (oldest == nil or other < oldest) then oldest = other end
      end
      if oldest then redis.call('HSET', key, '#o', string.format('%d', oldest)) else redis.call('HDEL', key, '#o') end
    end
  end
  redis.call('HINCRBY', key, '#n', string.format('%d', delta))
  if value == amount and amount > 0 then
    -- A bucket begun: the oldest may be this one, and the key lives until it leaves the window.
    local oldest = tonumber(redis.call('HGET', key, '#o'))
    if oldest == nil or tonumber(bucket) < oldest then redis.call('HSET', key, '#o', bucket) end
    redis.call('PEXPIRE', key, ttl)
  end
end
`;

/**
 * A check. KEYS: 3 per subject (rb, tb, c). ARGV: now, window ms, bucket ms, stale ms, request id,
 * estimate, then 3 per subject (rpm, tpm, concurrency; 0 unset). Answers {refused kind or '', retry
 * ms, then per subject: requests, requests reset ms, tokens, tokens reset ms, in flight}.
 */
const ACQUIRE = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local size = tonumber(ARGV[3])
local stale = tonumber(ARGV[4])
local id = ARGV[5]
local estimate = tonumber(ARGV[6])
local first = math.floor((now - window) / size)
local current = math.floor(now / size)
local ttl = window + 2 * size
local function leavesIn(bucket) return (bucket + 1) * size + window - now end
local subjects = #KEYS / 3
local refused = ''
local retry = 0
local out = {}
local function refuse(kind, wait)
  if refused == '' then refused = kind end
  if wait > retry then retry = wait end
end
for i = 0, subjects - 1 do
  local r, t, c = KEYS[i * 3 + 1], KEYS[i * 3 + 2], KEYS[i * 3 + 3]
  local rpm = tonumber(ARGV[7 + i * 3])
  local tpm = tonumber(ARGV[8 + i * 3])
  local concurrency = tonumber(ARGV[9 + i * 3])
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
  redis.call('ZREMRANGEBYSCORE', c, '-inf', now - stale)
  local inFlight = redis.call('ZCARD', c)
  if concurrency > 0 and inFlight >= concurrency then refuse('concurrency', 1000) end
  out[#out + 1] = requests
  out[#out + 1] = requestsReset
  out[#out + 1] = tokens
  out[#out + 1] = tokensReset
  out[#out + 1] = inFlight
end
if refused == '' then
  for i = 0, subjects - 1 do
    local r, t, c = KEYS[i * 3 + 1], KEYS[i * 3 + 2], KEYS[i * 3 + 3]
    if tonumber(ARGV[7 + i * 3]) > 0 then change(r, current, 1, ttl) end
    if tonumber(ARGV[8 + i * 3]) > 0 then change(t, current, estimate, ttl) end
    if tonumber(ARGV[9 + i * 3]) > 0 then
      redis.call('ZADD', c, now, id)
      redis.call('PEXPIRE', c, stale)
    end
  end
end
local answer = {refused, retry}
for j = 1, #out do answer[#answer + 1] = out[j] end
return answer
`;

/**
 * An end. KEYS: 2 per subject (tb, c). ARGV: now, window ms, bucket ms, request id, tokens (-1:
 * unchanged), release (1 or 0), when it was counted (ms), its estimate, then 1 per subject: whether
 * it has a TPM limit (1 or 0). The estimate leaves its second and the tokens count in this one; the
 * slot in flight is freed.
 */
const FINISH = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local size = tonumber(ARGV[3])
local id = ARGV[4]
local tokens = tonumber(ARGV[5])
local release = tonumber(ARGV[6]) == 1
local started = math.floor(tonumber(ARGV[7]) / size)
local estimate = tonumber(ARGV[8])
local first = math.floor((now - window) / size)
local current = math.floor(now / size)
local ttl = window + 2 * size
for i = 0, #KEYS / 2 - 1 do
  local t, c = KEYS[i * 2 + 1], KEYS[i * 2 + 2]
  if tokens >= 0 and tonumber(ARGV[9 + i]) == 1 then
    if started == current then
      change(t, current, tokens - estimate, ttl)
    else
      -- Nothing to take back when the estimate's second has left the window (a long request).
      if started >= first then change(t, started, -estimate, ttl) end
      change(t, current, tokens, ttl)
    end
  end
  if release then redis.call('ZREM', c, id) end
end
return 1
`;

/**
 * The batch: KEYS are the distinct subjects of its operations, each as the prefix its four keys share
 * (its hash tag in braces, so a cluster's slot of the prefix is its keys' slot too); ARGV[1] is the
 * operations in JSON, in order: `[kind, [subject indexes in KEYS], [arguments]]`, kind 'a' a check
 * and 'f' an end. Answers in JSON one entry per operation: a check's answer, 1 for an end, or the
 * error's text when it failed (the others run all the same: one request's error is not another's).
 * One string each way: a batch of many requests costs the client two arguments to encode and one
 * reply to parse.
 */
export const LIMIT_BATCH_SCRIPT = `
${WINDOW}
local function acquire(KEYS, ARGV)
${ACQUIRE}
end
local function finish(KEYS, ARGV)
${FINISH}
end
local CHECK_KEYS, END_KEYS = {'rb', 'tb', 'c'}, {'tb', 'c'}
local operations = cjson.decode(ARGV[1])
local answers = {}
for op = 1, #operations do
  local kind, subjects, args = operations[op][1], operations[op][2], operations[op][3]
  local suffixes = kind == 'a' and CHECK_KEYS or END_KEYS
  local keys = {}
  for _, subject in ipairs(subjects) do
    for _, suffix in ipairs(suffixes) do keys[#keys + 1] = KEYS[subject] .. suffix end
  end
  local ok, answer = pcall(kind == 'a' and acquire or finish, keys, args)
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
