/**
 * @module stores/cluster/redis-projection-scripts
 * The Lua scripts the projector's Redis writer runs (redis-projection-writer.ts): each applies a
 * document or a batch's usage in one step, so a crash between two commands cannot count a request
 * twice or move a document backwards.
 */

/** KEYS: document, index, secondary index key (or ''), old secondary key (or ''); ARGV: json, eventId, id */
export const putDocumentScript = `
local current = redis.call('GET', KEYS[1])
if current then
  local applied = cjson.decode(current)['_eventId']
  if applied and applied >= ARGV[2] then return 0 end
end
if ARGV[1] == '' then
  redis.call('DEL', KEYS[1])
  redis.call('SREM', KEYS[2], ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[1])
  redis.call('SADD', KEYS[2], ARGV[3])
end
if KEYS[4] ~= '' and KEYS[4] ~= KEYS[3] then redis.call('DEL', KEYS[4]) end
if KEYS[3] ~= '' then redis.call('SET', KEYS[3], ARGV[3]) end
return 1`;

/**
 * A batch's usage in one script. KEYS: per request, its partition's usage offset key (the log
 * position of the last request counted from that partition), its key's usage hash and its account's
 * spend hash; ARGV: per request, its tokens, its start time, its cost in nano-dollars, the starts of
 * its day, week and month (projector/read-models/spend), its log position (logPosition in
 * redis-projection-writer.ts) and the position of the request before it from the same partition in
 * the same write ('' for the first). A period's counter restarts at a newer period and ignores an
 * older one, as `addSpend` does. Returns, per request, 1 when it was counted now and 0 when its
 * partition's offset said it already was.
 *
 * A request is counted only if its position is past its partition's offset, and the offsets move in
 * the same script as the counts: a batch delivered again (the projector stopped before Kafka took its
 * offsets) counts nothing twice, with one key per partition instead of a marker per request. A
 * partition's requests reach the script in log order; a chunk whose earlier chunk in the same write
 * did not run (its `before` is past the stored offset) is refused whole, so the write fails and is
 * retried rather than moving an offset over requests never counted.
 *
 * The requests counted now are summed in the script first, per usage hash and per spend hash and
 * periods, and each sum written once: a request costs a few table updates instead of up to
 * eighteen Redis commands, which made Redis the slowest part of a projector write. The sums give
 * what one request at a time gives: a counter ends at its newest period with the costs of that
 * period's requests, whatever their order.
 */
export const countUsageScript = `
local periods = {'daily', 'weekly', 'monthly'}
local function spend(key, cost, first)
  redis.call('HINCRBY', key, 'total:nano', cost)
  for p = 1, 3 do
    local start = ARGV[first + p - 1]
    local current = redis.call('HGET', key, periods[p] .. ':start')
    if (not current) or current < start then
      redis.call('HSET', key, periods[p] .. ':start', start, periods[p] .. ':nano', cost)
    elseif current == start then
      redis.call('HINCRBY', key, periods[p] .. ':nano', cost)
    end
  end
end
local offsets, offsetOrder = {}, {}
local function offsetOf(key)
  local offset = offsets[key]
  if offset == nil then
    offset = redis.call('GET', key) or ''
    offsets[key] = offset
    offsetOrder[#offsetOrder + 1] = key
  end
  return offset
end
local used, usedOrder = {}, {}
local spent, spentOrder = {}, {}
local function addSpend(key, cost, first)
  local group = key .. '|' .. ARGV[first] .. '|' .. ARGV[first + 1] .. '|' .. ARGV[first + 2]
  local sum = spent[group]
  if sum then sum[2] = sum[2] + cost
  else
    spent[group] = {key, cost, first}
    spentOrder[#spentOrder + 1] = group
  end
end
local counted = {}
for i = 1, #KEYS, 3 do
  local n = (i + 2) / 3
  local a = 8 * (n - 1)
  local offset = offsetOf(KEYS[i])
  local position, before = ARGV[a + 7], ARGV[a + 8]
  if before ~= '' and offset < before then
    return redis.error_reply('usage offset ' .. KEYS[i] .. ' is behind this write: an earlier chunk did not run')
  end
  if position > offset then
    offsets[KEYS[i]] = position
    local key = KEYS[i + 1]
    local sum = used[key]
    if not sum then
      sum = {0, ''}
      used[key] = sum
      usedOrder[#usedOrder + 1] = key
    end
    sum[1] = sum[1] + tonumber(ARGV[a + 1])
    if ARGV[a + 2] > sum[2] then sum[2] = ARGV[a + 2] end
    local cost = tonumber(ARGV[a + 3])
    if cost > 0 then
      addSpend(key, cost, a + 4)
      addSpend(KEYS[i + 2], cost, a + 4)
    end
    counted[n] = 1
  else
    counted[n] = 0
  end
end
for _, key in ipairs(usedOrder) do
  local sum = used[key]
  redis.call('HINCRBY', key, 'used', string.format('%d', sum[1]))
  local last = redis.call('HGET', key, 'lastUsedAt')
  if (not last) or last < sum[2] then redis.call('HSET', key, 'lastUsedAt', sum[2]) end
end
for _, group in ipairs(spentOrder) do
  local sum = spent[group]
  spend(sum[1], string.format('%d', sum[2]), sum[3])
end
for _, key in ipairs(offsetOrder) do redis.call('SET', key, offsets[key]) end
return counted`;

/** KEYS: usage hashes; ARGV: the latest request start of each. Returns 1 per hash it moved forward. */
export const touchScript = `
local touched = {}
for i = 1, #KEYS do
  local last = redis.call('HGET', KEYS[i], 'lastUsedAt')
  if (not last) or last < ARGV[i] then
    redis.call('HSET', KEYS[i], 'lastUsedAt', ARGV[i])
    touched[i] = 1
  else
    touched[i] = 0
  end
end
return touched`;
