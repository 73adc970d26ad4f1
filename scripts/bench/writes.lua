-- scripts/bench/writes.lua - wrk script for scripts/bench/writes.sh. BENCH_MIX picks the traffic:
--   creates   every request a POST /trips with a JSON draft (4,096 cities, in turn)
--   mixed     90% GET /trips/2, 10% such creates
--   reorders  PATCH /trips moving one trip in front of another, both among ids 1..BENCH_IDS
--             (Prefer: return=minimal: a 204, not the whole list back)
--   changes   every request a change, in turn: such a create, a merge patch of one trip's nights,
--             such a reorder, and a favorite drop of the trip this thread created last (a
--             trip not yet a favorite: a change, not a no-op; Prefer: return=minimal, as an
--             app that needs the haptic's trigger sends it, not every favorite back);
--             BENCH_IDS as for reorders
-- The summary counts acknowledged changes (201, 200, 204) apart from everything else, and gives
-- the latency of every request: p50, p99, p99.9 and max.
--
-- wrk shares the machine with what it measures, so it spends as little as it can: creates and
-- reorders, which depend on no answer, are made once (4,096 of them, sent in turn), and no
-- answer is handed to Lua unless the mix needs it (mixed tells creates from reads by status,
-- changes reads the id a create gave). Made per request and read per answer, a create cost wrk
-- 13-14 us of CPU; made once and counted by wrk itself, 8.5 us, as a request wrk repeats alone.
--
--   BENCH_MIX=mixed wrk -t1 -c64 -d10s -s scripts/bench/writes.lua http://127.0.0.1:8080/trips

local threads = {}

function setup(thread)
  thread:set("thread_number", #threads)
  table.insert(threads, thread)
end

local mix = os.getenv("BENCH_MIX") or "creates"
local ids = tonumber(os.getenv("BENCH_IDS") or "6")

function init(args)
  created = 0
  succeeded = 0
  refused = 0
  sequence = 0
  last_created = 1
  math.randomseed(thread_number + 1)
  if mix == "creates" or mix == "reorders" then
    made, sent = {}, 0
    for index = 1, 4096 do made[index] = make_request() end
  end
end

function request()
  if not made then return make_request() end
  sent = sent % #made + 1
  return made[sent]
end

function make_request()
  sequence = sequence + 1
  if mix == "mixed" and sequence % 10 ~= 0 then
    return wrk.format("GET", "/trips/2")
  end
  local turn = mix == "changes" and sequence % 4 or nil
  if turn == 1 then
    local body = string.format('{"nights":%d}', sequence % 30 + 1)
    return wrk.format("PATCH", "/trips/" .. math.random(ids), { ["Content-Type"] = "application/merge-patch+json" }, body)
  end
  if turn == 3 then
    return wrk.format("PATCH", "/favorites", { ["Content-Type"] = "application/json", ["Prefer"] = "return=minimal" }, "[" .. last_created .. "]")
  end
  if mix == "reorders" or turn == 2 then
    local source, before = math.random(ids), math.random(ids)
    if before == source then before = source % ids + 1 end
    local body = string.format('{"sources":[%d],"destination":{"before":%d}}', source, before)
    return wrk.format("PATCH", "/trips", { ["Content-Type"] = "application/json", ["Prefer"] = "return=minimal" }, body)
  end
  local body = string.format(
    '{"city":"Bench %d-%d","country":"Benchland","nights":%d,"price":%d.%02d,"start":"2027-05-01","notes":"written by wrk"}',
    thread_number, sequence, sequence % 30 + 1, 100 + sequence % 900, sequence % 100)
  return wrk.format("POST", "/trips", { ["Content-Type"] = "application/json" }, body)
end

-- Defined only where an answer must be read: wrk hands every answer's head and body to Lua once
-- there is a `response`, and counts the rest itself (every answer, and those of status 400 and up).
if mix == "mixed" or mix == "changes" then
  function response(status, headers, body)
    if status == 201 then
      created = created + 1
      last_created = tonumber(string.match(body, '"id":(%d+)')) or last_created
    elseif status == 200 or status == 204 then
      succeeded = succeeded + 1
    else
      refused = refused + 1
    end
  end
end

function done(summary, latency, requests)
  local total_created, total_succeeded, total_refused = 0, 0, 0
  for _, thread in ipairs(threads) do
    total_created = total_created + thread:get("created")
    total_succeeded = total_succeeded + thread:get("succeeded")
    total_refused = total_refused + thread:get("refused")
  end
  if not response then
    -- Counted by wrk: every answer of a create or a reorder below 400 is its 201 or 204.
    total_refused = summary.errors.status
    local acknowledged = summary.requests - total_refused
    if mix == "creates" then total_created = acknowledged else total_succeeded = acknowledged end
  end
  local seconds = summary.duration / 1e6
  -- "acknowledged" counts the changes: creates (201), and the 200s and 204s when changes are
  -- the traffic (reorders, changes), not reads.
  local changes = total_created + ((mix == "reorders" or mix == "changes") and total_succeeded or 0)
  io.write(string.format(
    "acknowledged %s: %d in %.2f s = %.0f/s; all answers %.0f/s; other answers: %d; socket errors: %d\n",
    mix, changes, seconds, changes / seconds, (total_created + total_succeeded) / seconds, total_refused,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
  io.write(string.format("latency p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency:percentile(99.9) / 1000, latency.max / 1000))
end
