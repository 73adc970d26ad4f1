-- scripts/bench-writes.lua - wrk script for scripts/bench-writes.sh: every request is a
-- POST /trips with a JSON draft (a different city each time), and the summary counts the
-- answers that acknowledged a create (201) apart from everything else.
--
--   wrk -t1 -c64 -d10s -s scripts/bench-writes.lua http://127.0.0.1:8080/trips

local threads = {}

function setup(thread)
  thread:set("thread_number", #threads)
  table.insert(threads, thread)
end

function init(args)
  created = 0
  refused = 0
  sequence = 0
end

function request()
  sequence = sequence + 1
  local body = string.format(
    '{"city":"Bench %d-%d","country":"Benchland","nights":%d,"price":%d.%02d,"start":"2027-05-01","notes":"written by wrk"}',
    thread_number, sequence, sequence % 30 + 1, 100 + sequence % 900, sequence % 100)
  return wrk.format("POST", "/trips", { ["Content-Type"] = "application/json" }, body)
end

function response(status, headers, body)
  if status == 201 then
    created = created + 1
  else
    refused = refused + 1
  end
end

function done(summary, latency, requests)
  local total_created, total_refused = 0, 0
  for _, thread in ipairs(threads) do
    total_created = total_created + thread:get("created")
    total_refused = total_refused + thread:get("refused")
  end
  local seconds = summary.duration / 1e6
  io.write(string.format("acknowledged creates: %d in %.2f s = %.0f/s; other answers: %d; socket errors: %d\n",
    total_created, seconds, total_created / seconds, total_refused,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
  io.write(string.format("latency p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
