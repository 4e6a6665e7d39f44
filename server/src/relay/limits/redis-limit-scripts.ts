/**
 * The Redis side of the limiter: one Lua script (EVALSHA) that runs a batch of checks and ends, in
 * order, each as its own function (ACQUIRE and FINISH below), so that every instance sharing the
 * Redis sees one set of windows and no two checks interleave: a script runs atomically.
 *
 * Per subject four keys: `r` (a sorted set of the last minute's requests, scored by time), `t` and
 * `h` (the last minute's requests scored by time, and their tokens by request with their sum in the
 * field `#sum`, so that a check reads one number), `c` (the requests in flight, scored by their
 * start). A sliding window log, not GCRA: a limit of N a minute admits at
 * most N in any 60 s, exactly, and a request's tokens can be replaced by its real usage when it
 * ends (GCRA keeps one number, from which a request's share cannot be taken back).
 */

/**
 * A check. KEYS: 4 per subject (r, t, h, c). ARGV: now, window ms, stale ms, request id, estimate,
 * then 3 per subject (rpm, tpm, concurrency; 0 unset). Answers {refused kind or '', retry ms, then
 * per subject: requests, requests reset ms, tokens, tokens reset ms, in flight}.
 */
const ACQUIRE = `
local SUM = '#sum'
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local stale = tonumber(ARGV[3])
local id = ARGV[4]
local estimate = tonumber(ARGV[5])
local subjects = #KEYS / 4
local refused = ''
local retry = 0
local out = {}
local function refuse(kind, wait)
  if refused == '' then refused = kind end
  if wait > retry then retry = wait end
end
for i = 0, subjects - 1 do
  local r, t, h, c = KEYS[i * 4 + 1], KEYS[i * 4 + 2], KEYS[i * 4 + 3], KEYS[i * 4 + 4]
  local rpm = tonumber(ARGV[6 + i * 3])
  local tpm = tonumber(ARGV[7 + i * 3])
  local concurrency = tonumber(ARGV[8 + i * 3])
  redis.call('ZREMRANGEBYSCORE', r, '-inf', now - window)
  local requests = redis.call('ZCARD', r)
  local oldest = redis.call('ZRANGE', r, 0, 0, 'WITHSCORES')
  local requestsReset = 0
  if oldest[2] then requestsReset = tonumber(oldest[2]) + window - now end
  if rpm > 0 and requests >= rpm then refuse('rpm', requestsReset) end
  local gone = redis.call('ZRANGEBYSCORE', t, '-inf', now - window)
  if #gone > 0 then
    local removed = 0
    for j = 1, #gone do removed = removed + tonumber(redis.call('HGET', h, gone[j]) or '0') end
    -- In slices: unpack() of thousands of values overflows Lua's stack.
    for first = 1, #gone, 500 do
      redis.call('HDEL', h, unpack(gone, first, math.min(first + 499, #gone)))
    end
    redis.call('HINCRBY', h, SUM, -removed)
    redis.call('ZREMRANGEBYSCORE', t, '-inf', now - window)
  end
  -- The window's tokens are kept as a sum beside the requests' amounts: each check reads one field.
  local tokens = tonumber(redis.call('HGET', h, SUM) or '0')
  local first = redis.call('ZRANGE', t, 0, 0, 'WITHSCORES')
  local tokensReset = 0
  if first[2] then tokensReset = tonumber(first[2]) + window - now end
  if tpm > 0 and tokens > 0 and tokens + estimate > tpm then
    -- Refused: until enough of the oldest tokens have left the window for this estimate.
    local spent = redis.call('ZRANGE', t, 0, -1, 'WITHSCORES')
    local left = tokens
    local wait = 0
    for j = 1, #spent, 2 do
      left = left - tonumber(redis.call('HGET', h, spent[j]) or '0')
      wait = tonumber(spent[j + 1]) + window - now
      if left <= 0 or left + estimate <= tpm then break end
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
    local r, t, h, c = KEYS[i * 4 + 1], KEYS[i * 4 + 2], KEYS[i * 4 + 3], KEYS[i * 4 + 4]
    if tonumber(ARGV[6 + i * 3]) > 0 then
      redis.call('ZADD', r, now, id)
      redis.call('PEXPIRE', r, window)
    end
    if tonumber(ARGV[7 + i * 3]) > 0 then
      redis.call('ZADD', t, now, id)
      redis.call('HSET', h, id, estimate)
      redis.call('HINCRBY', h, SUM, estimate)
      redis.call('PEXPIRE', t, window)
      redis.call('PEXPIRE', h, window)
    end
    if tonumber(ARGV[8 + i * 3]) > 0 then
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
 * An end. KEYS: 3 per subject (t, h, c). ARGV: now, window ms, request id, tokens (-1: unchanged),
 * release (1 or 0), then 1 per subject: whether it has a TPM limit (1 or 0). The request's estimate
 * is replaced by its tokens, counted now; its slot in flight is freed.
 */
const FINISH = `
local SUM = '#sum'
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local id = ARGV[3]
local tokens = tonumber(ARGV[4])
local release = tonumber(ARGV[5]) == 1
for i = 0, #KEYS / 3 - 1 do
  local t, h, c = KEYS[i * 3 + 1], KEYS[i * 3 + 2], KEYS[i * 3 + 3]
  if tokens >= 0 and tonumber(ARGV[6 + i]) == 1 then
    -- Nothing before when the estimate left the window already (a request longer than a minute).
    local before = tonumber(redis.call('HGET', h, id) or '0')
    if tokens > 0 then
      -- Counted now: its time in the window moves (ZADD updates the score).
      redis.call('ZADD', t, now, id)
      redis.call('HSET', h, id, tokens)
      redis.call('HINCRBY', h, SUM, tokens - before)
      redis.call('PEXPIRE', t, window)
      redis.call('PEXPIRE', h, window)
    else
      redis.call('ZREM', t, id)
      if before ~= 0 then
        redis.call('HDEL', h, id)
        redis.call('HINCRBY', h, SUM, -before)
      end
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
local function acquire(KEYS, ARGV)
${ACQUIRE}
end
local function finish(KEYS, ARGV)
${FINISH}
end
local CHECK_KEYS, END_KEYS = {'r', 't', 'h', 'c'}, {'t', 'h', 'c'}
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
