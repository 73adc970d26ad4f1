#!/usr/bin/env bash
# scripts/bench/page.sh - the list page a browser gets for a long list (#29: a 100,000-trip
# list's first page in under 20 ms and under 150 KB), against a release build of trips-server,
# in memory, for each list size in SIZES (default 1,000 and 100,000 trips).
#
# Each size: a fresh server, its trips loaded through POST /trips (arrays of 1,000 on one
# keep-alive connection, as bench/scale.sh loads them), then GET /trips with Accept: text/html
# (the page: its first 200 rows, the chips, the header, a "Next page" link). Four cases:
#   cold    the first page after the trips were loaded: every row rendered, the countries
#           found (ROUNDS fresh servers)
#   change  after a change to one trip of the first page: a new revision, so the page is
#           rendered again (the changed row anew, the others copied) and the countries found again
#   far     after a change to a trip far down the list: a new revision, every row copied
#   warm    nothing changed: the page as cached for the revision
# Server time per request comes from the access log (duration_ms); the client's total time
# (curl, over loopback) is printed beside it for the cold page. Prints p50, p99 and max per
# case, the page's bytes (alone and with the assets it names, as a first visit loads them),
# then a table of the figures for a closing note.
#
#   scripts/bench/page.sh
#   SIZES=100000 REQUESTS=50 scripts/bench/page.sh
#
# Environment: SIZES ("1000 100000"), REQUESTS (100), ROUNDS (3), TRIPS_RELEASE_SCRATCH /
# TRIPS_NO_BUILD=1 (scripts/lib/build.sh). Needs curl and python3.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/require.sh
source scripts/lib/build.sh
source scripts/lib/server.sh

sizes="${SIZES:-1000 100000}"
requests="${REQUESTS:-100}"
rounds="${ROUNDS:-3}"
for size in $sizes; do
  (( size >= 201 && size <= 1000000 )) || die "each of SIZES must be from 201 (more than a page) to 1000000"
done
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

# start_server SIZE: a fresh in-memory server holding SIZE trips, its access log in $work/log.N.
servers=0
start_server() {
  servers=$(( servers + 1 ))
  run_server "$binary" --in-memory --no-samples --port 0 --threads 1 >"$work/log.$servers" 2>"$work/stderr" &
  server_pid=$!
  url=$(wait_until_listening "$server_pid" "$work/log.$servers" "$work/stderr")
  python3 - "${url#http://}" "$1" <<'PYTHON'
import http.client, json, sys

address, count = sys.argv[1], int(sys.argv[2])
connection = http.client.HTTPConnection(address)
cities = ["Vancouver", "Zürich", "Kyoto", "São Paulo", "Reykjavík", "New York", "Atacama", "Lisbon"]
number = 0
while number < count:
    drafts = []
    for _ in range(min(1000, count - number)):
        i = number
        number += 1
        drafts.append({"city": f"{cities[i % len(cities)]} {i}", "country": f"Country {i % 40}", "nights": 1 + i % 30,
                       "price": f"{100 + i % 900}.{i % 100:02d}", "start": f"2027-{1 + i % 12:02d}-{1 + i % 28:02d}",
                       "notes": "A note with <markup> & \"quotes\" to escape." if i % 3 == 0 else "", "isFavorite": i % 7 == 0})
    body = json.dumps(drafts).replace('"price": "', '"price": ').replace('", "start"', ', "start"').encode()
    connection.request("POST", "/trips", body, {"Content-Type": "application/json", "Prefer": "return=minimal"})
    answer = connection.getresponse()
    answer.read()
    if answer.status != 201:
        sys.exit(f"bench/page.sh: POST /trips answered {answer.status} after {number} trips")
PYTHON
}

# ask CASE: one GET of the page, its access-log line tagged with CASE; prints curl's total time.
ask() {
  curl -s -o /dev/null -w '%{time_total}\n' -H 'Accept: text/html' -H "X-Request-ID: $1-$RANDOM$RANDOM" "$url/trips"
}

# page_weights: the page's bytes, then with every asset it names (stylesheet, script, words, icon).
page_weights() {
  python3 - "${url#http://}" <<'PYTHON'
import http.client, re, sys

connection = http.client.HTTPConnection(sys.argv[1])
def get(target, accept):
    connection.request("GET", target, headers={"Accept": accept})
    answer = connection.getresponse()
    body = answer.read()
    if answer.status != 200:
        sys.exit(f"bench/page.sh: GET {target} answered {answer.status}")
    return body
page = get("/trips", "text/html")
assets = sorted(set(re.findall(rb'(?:href|src)="(/assets/[^"]+)"', page)))
print(len(page), len(page) + sum(len(get(asset.decode().replace("&amp;", "&"), "*/*")) for asset in assets))
PYTHON
}

# change ID: a change to one trip (a new revision of the list).
change() {
  curl -s -o /dev/null -X PATCH "$url/trips/$1" -H 'Content-Type: application/json' -H 'Prefer: return=minimal' \
    -d "{\"nights\":$(( 1 + RANDOM % 300 ))}"
}

report="$work/report"
: >"$report"
for size in $sizes; do
  first_log=$(( servers + 1 ))
  client_ms=()
  for _ in $(seq "$rounds"); do
    start_server "$size"
    client_ms+=("$(ask cold | awk '{printf "%.3f", $1 * 1000}')")
    stop_server
  done
  start_server "$size"
  for i in $(seq "$requests"); do
    change "$(( 1 + i % 200 ))"
    ask change >/dev/null
  done
  for i in $(seq "$requests"); do
    change "$(( size - i % 1000 ))"
    ask far >/dev/null
  done
  for _ in $(seq "$requests"); do ask warm >/dev/null; done
  weights=$(page_weights)
  stop_server
  for n in $(seq "$first_log" "$servers"); do cat "$work/log.$n"; done >"$work/log"
  python3 - "$work/log" "$size" "$weights" "${client_ms[*]}" "$work/summary" >>"$report" <<'PYTHON'
import re, sys
times = {"cold": [], "change": [], "far": [], "warm": []}
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    match = re.search(r"id=(cold|change|far|warm)-\S+ .*duration_ms=([0-9.]+)", line)
    if match:
        times[match.group(1)].append(float(match.group(2)))
def q(values, fraction):
    values = sorted(values)
    return values[min(len(values) - 1, int(fraction * len(values)))]
size, client = int(sys.argv[2]), [float(v) for v in sys.argv[4].split()]
page_bytes, with_assets = (int(v) for v in sys.argv[3].split())
print(f"GET /trips as text/html, {size:,} trips: {page_bytes:,} bytes, {with_assets:,} with its assets;"
      " server time from the access log, ms")
for kind, values in times.items():
    print(f"  {kind:6}  n={len(values):<4} p50={q(values, .5):7.3f}  p99={q(values, .99):7.3f}  max={max(values):7.3f}")
print(f"  cold, as curl saw it (total, loopback): {', '.join(f'{v:.3f}' for v in client)} ms")
with open(sys.argv[5], "a", encoding="utf-8") as summary:
    print(f"| {size:,} | {q(times['cold'], .5):.2f} | {q(times['change'], .5):.2f} / {q(times['change'], .99):.2f} "
          f"| {q(times['far'], .5):.2f} | {q(times['warm'], .5):.3f} | {page_bytes:,} | {with_assets:,} |", file=summary)
PYTHON
done
cat "$report"
echo
echo "For the closing note (server time in ms, p50; after a change p50 / p99; bytes uncompressed):"
echo "| trips | cold | after a change | change far down | warm | page bytes | with assets |"
echo "|---|---|---|---|---|---|---|"
cat "$work/summary"
