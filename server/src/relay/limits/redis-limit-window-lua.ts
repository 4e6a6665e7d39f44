/**
 * The Lua helpers of a window of one-second buckets in a Redis hash (see redis-limit-scripts.ts):
 * `roll` drops what left and answers the sum and oldest bucket, `change` adds to a bucket. The same
 * steps as bucket-window.ts in memory.
 */
export const LIMIT_WINDOW_LUA = `
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
