package replicas

import "github.com/redis/go-redis/v9"

// luaHelpers are the functions both player scripts use. A count is stored as
// "<version> <players>"; put writes one only over an older version, so a heartbeat that read
// the counts before a join does not undo the join's write. others sums the live replicas'
// counts but the caller's, and drops the fields of replicas that are not live any more.
const luaHelpers = `
local function ms_now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function live_set(key, live_ms)
  local set = {}
  for _, r in ipairs(redis.call('ZRANGEBYSCORE', key, ms_now() - live_ms, '+inf')) do set[r] = true end
  return set
end
local function put(key, id, version, count)
  local cur = redis.call('HGET', key, id)
  if cur and tonumber(string.match(cur, '^(%d+)')) > tonumber(version) then return end
  redis.call('HSET', key, id, version .. ' ' .. count)
  redis.call('PEXPIRE', key, 86400000)
end
local function others(key, id, live)
  local sum = 0
  local all = redis.call('HGETALL', key)
  for j = 1, #all, 2 do
    if all[j] ~= id then
      if live[all[j]] then
        sum = sum + tonumber(string.match(all[j + 1], ' (%d+)$'))
      else
        redis.call('HDEL', key, all[j])
      end
    end
  end
  return sum
end
`

// egressScript marks the replica live among those of one egress address and answers how many
// are. KEYS: the egress' set; ARGV: id, liveness (ms).
var egressScript = redis.NewScript(luaHelpers + `
local now = ms_now()
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], 100 * tonumber(ARGV[2]))
return redis.call('ZCARD', KEYS[1])
`)

// saveRoutesScript writes the routes API's routes when the version the writer last saw is
// still the stored one, and answers the new version, or -1 when another replica wrote since.
// KEYS: the routes hash; ARGV: the version seen ("0" for none), the routes' text.
var saveRoutesScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'version') or '0'
if v ~= ARGV[1] then return -1 end
redis.call('HSET', KEYS[1], 'text', ARGV[2])
return redis.call('HINCRBY', KEYS[1], 'version', 1)
`)

// attackScript writes the replica's attack mode rates and answers the other live replicas'
// summed, as text (Lua numbers would reach Redis' answer as integers). KEYS: the rates hash, the
// replicas set; ARGV: id, liveness (ms), "<connections> <pings> <logins>".
var attackScript = redis.NewScript(luaHelpers + `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], 100 * tonumber(ARGV[2]))
local live = live_set(KEYS[2], tonumber(ARGV[2]))
local sum = {0, 0, 0}
local all = redis.call('HGETALL', KEYS[1])
for j = 1, #all, 2 do
  if all[j] ~= ARGV[1] and live[all[j]] then
    local i = 1
    for n in string.gmatch(all[j + 1], '%S+') do
      if i <= 3 then sum[i] = sum[i] + (tonumber(n) or 0) end
      i = i + 1
    end
  end
end
return {tostring(sum[1]), tostring(sum[2]), tostring(sum[3])}
`)

// heartbeatScript marks the replica live and writes its count on each route, and answers the
// other replicas' players on each. KEYS: the replicas set, then one players hash per route;
// ARGV: id, liveness (ms), version, then one count per route.
var heartbeatScript = redis.NewScript(luaHelpers + `
local now = ms_now()
local live_ms = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 100 * live_ms)
local live = live_set(KEYS[1], live_ms)
local out = {}
for i = 2, #KEYS do
  put(KEYS[i], ARGV[1], ARGV[3], ARGV[i + 2])
  out[i - 1] = others(KEYS[i], ARGV[1], live)
end
return out
`)

// seatScript admits one more player on a route when the live replicas' players with this
// replica's new count are within the route's max_players, and then writes that count. KEYS:
// the replicas set, the route's players hash; ARGV: id, liveness (ms), version, this
// replica's count with the new player, max_players. It answers {1 admitted or 0, the others'
// players}. An admission marks the replica live, as a heartbeat does, so that a join before
// the replica's first heartbeat counts.
var seatScript = redis.NewScript(luaHelpers + `
local sum = others(KEYS[2], ARGV[1], live_set(KEYS[1], tonumber(ARGV[2])))
if sum + tonumber(ARGV[4]) > tonumber(ARGV[5]) then return {0, sum} end
redis.call('ZADD', KEYS[1], ms_now(), ARGV[1])
put(KEYS[2], ARGV[1], ARGV[3], ARGV[4])
return {1, sum}
`)
