#!/usr/bin/env bash
# scripts/bench/page.sh - server time to render the list page for a list of TRIPS trips
# (default 1,000), against a release build of trips-server, in memory.
#
# Asks HEAD /trips?limit=TRIPS (the whole list in stored order, by the paged path, which is
# rendered for every request; the unpaged list is cached whole per revision), so the time is
# the render, not the transfer. Each request's server time comes from the access log
# (duration_ms). Four cases:
#   cold    the first page after start: every row rendered (ROUNDS fresh servers)
#   change  after a change to one trip: that row rendered again, the rest copied
#   warm    nothing changed: every row copied
#   json    the same list as JSON, for comparison
# Prints p50, p99 and max per case, and the page's size.
#
#   scripts/bench/page.sh
#   TRIPS=200 REQUESTS=100 scripts/bench/page.sh
#
# Environment: TRIPS (1000, at most 1000: the largest page), REQUESTS (200), ROUNDS (5),
# TRIPS_RELEASE_SCRATCH / TRIPS_NO_BUILD=1 (scripts/lib/build.sh). Needs curl and python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/require.sh
source scripts/lib/build.sh
source scripts/lib/server.sh

trips="${TRIPS:-1000}"
requests="${REQUESTS:-200}"
rounds="${ROUNDS:-5}"
(( trips >= 1 && trips <= 1000 )) || die "TRIPS must be from 1 to 1000 (the largest page)"
require_tool curl curl
require_tool python3 python3
binary="$(build_release_server)"

work="$(mktemp -d "${TMPDIR:-/tmp}/trips-bench-page.XXXXXX")"
server_pid=""
stop_server() {
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=""
}
trap 'stop_server; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

python3 - "$trips" >"$work/drafts.json" <<'PYTHON'
import json, sys
count = int(sys.argv[1])
cities = ["Vancouver", "Zürich", "Kyoto", "São Paulo", "Reykjavík", "New York", "Atacama", "Lisbon"]
drafts = [
    {"city": f"{cities[i % len(cities)]} {i}", "country": f"Country {i % 40}", "nights": 1 + i % 30,
     "price": 100 + i + (i % 100) / 100, "start": f"2027-{1 + i % 12:02d}-{1 + i % 28:02d}",
     "notes": "A note with <markup> & \"quotes\" to escape." if i % 3 == 0 else "", "isFavorite": i % 7 == 0}
    for i in range(count)]
print(json.dumps(drafts))
PYTHON

# start_server: a fresh in-memory server with the trips, its access log in $work/log.N.
servers=0
start_server() {
  servers=$(( servers + 1 ))
  run_server "$binary" --in-memory --no-samples --port 0 --threads 1 >"$work/log.$servers" 2>"$work/stderr" &
  server_pid=$!
  url=$(wait_until_listening "$server_pid" "$work/log.$servers" "$work/stderr")
  local status
  status=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$url/trips" -H 'Content-Type: application/json' --data-binary @"$work/drafts.json")
  [[ "$status" == 201 ]] || die "creating $trips trips answered $status"
}

# ask CASE ACCEPT: one HEAD of the list, its access-log line tagged with CASE.
ask() {
  curl -s -o /dev/null --head -H "Accept: $2" -H "X-Request-ID: $1-$RANDOM$RANDOM" "$url/trips?limit=$trips"
}

for _ in $(seq "$rounds"); do
  start_server
  ask cold text/html
  stop_server
done
start_server
for i in $(seq "$requests"); do
  curl -s -o /dev/null -X PATCH "$url/trips/$(( 1 + i % trips ))" -H 'Content-Type: application/json' -d "{\"nights\":$(( 1 + i % 300 ))}"
  ask change text/html
done
for _ in $(seq "$requests"); do ask warm text/html; done
for _ in $(seq "$requests"); do ask json application/json; done
page_bytes=$(curl -s -H 'Accept: text/html' "$url/trips?limit=$trips" | wc -c)
stop_server

cat "$work"/log.* >"$work/log"
python3 - "$work/log" "$trips" "$page_bytes" <<'PYTHON'
import re, sys
times = {"cold": [], "change": [], "warm": [], "json": []}
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    match = re.search(r"id=(cold|change|warm|json)-\S+ .*duration_ms=([0-9.]+)", line)
    if match:
        times[match.group(1)].append(float(match.group(2)))
def q(values, fraction):
    values = sorted(values)
    return values[min(len(values) - 1, int(fraction * len(values)))]
print(f"list page of {sys.argv[2]} trips ({int(sys.argv[3]):,} bytes); server time from the access log, ms")
for kind, values in times.items():
    print(f"  {kind:6}  n={len(values):<4} p50={q(values, .5):7.3f}  p99={q(values, .99):7.3f}  max={max(values):7.3f}")
PYTHON
