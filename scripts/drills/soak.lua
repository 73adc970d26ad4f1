-- scripts/drills/soak.lua - wrk script for scripts/drills/soak.sh: a mixed workload on the
-- sample trips (ids 1-6; the list never grows). About 85% reads, each in JSON or in text:
-- GET /trips/2, GET /trips, GET /trips?filter=favorites, GET /trips/N; about 15% writes:
-- merge patches of a trip's notes and nights, favorites on and off, one-trip reorders.
-- Every write is valid for every state of the list, so any answer >= 400 is an error.
-- `done` prints one machine-readable SOAK line for the script to parse.

local reads = {
  "/trips/2", "/trips/2", "/trips", "/trips", "/trips?filter=favorites", "/trips/5", "/trips?sort=-price",
}
local accepts = { "application/json", "text/plain" }
local counter = 0

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end

function request()
  counter = counter + 1
  local roll = math.random(100)
  if roll <= 85 then
    local path = reads[math.random(#reads)]
    return wrk.format("GET", path, { ["Accept"] = accepts[math.random(2)] })
  end
  local id = math.random(6)
  if roll <= 90 then
    local body = string.format('{"notes":"soak %d","nights":%d}', counter, counter % 20 + 1)
    return wrk.format("PATCH", "/trips/" .. id, { ["Content-Type"] = "application/merge-patch+json" }, body)
  elseif roll <= 95 then
    return wrk.format(math.random(2) == 1 and "PUT" or "DELETE", "/favorites/" .. id)
  else
    local before = (id % 6) + 1
    local destination = math.random(4) == 1 and '"end"' or string.format('{"before":%d}', before)
    local body = string.format('{"sources":[%d],"destination":%s}', id, destination)
    return wrk.format("POST", "/trips/reorder", { ["Content-Type"] = "application/json" }, body)
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "SOAK requests=%d duration_us=%d status_errors=%d connect=%d read=%d write=%d timeout=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d\n",
    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
