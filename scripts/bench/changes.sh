#!/usr/bin/env bash
# scripts/bench/changes.sh - the change feed under load, against a release build of
# trips-server on a real data folder (every change is fdatasync'ed before it is announced).
#
#   1. Delivery: SUBSCRIBERS event streams while one writer makes RATE changes a second for
#      SECONDS (scripts/bench/changes_client.c, one epoll loop for all the streams). Every
#      event must reach every subscriber, in order; prints delivery latency, from the
#      writer's acknowledgement to each receipt: p50, p99, max.
#   2. Memory: the server's resident memory before and with IDLE idle streams attached.
#   3. Reads: GET /trips/2 requests/s with wrk, without streams and with SUBSCRIBERS idle
#      streams attached, in alternating rounds, and the ratio of the medians.
#
#   scripts/bench/changes.sh                     # 1,000 streams, 200 changes/s for 30 s, 10,000 idle
#   SECONDS_TO_RUN=5 SUBSCRIBERS=200 IDLE=2000 scripts/bench/changes.sh
#
# Environment: SUBSCRIBERS (1000), RATE (200), SECONDS_TO_RUN (30), IDLE (10000),
# WRK_SECONDS (10), WRK_CONNECTIONS (64), ROUNDS (3: alternating runs, medians compared), TRIPS_RELEASE_SCRATCH / TRIPS_NO_BUILD=1
# (scripts/lib/build.sh). Needs gcc, wrk and curl: installed with apt-get when run as root,
# otherwise named (scripts/lib/require.sh). Traffic goes to 127.0.0.1 only; every process
# it starts is stopped on any exit, and its data folder removed.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/require.sh
source scripts/lib/build.sh
source scripts/lib/server.sh

subscribers="${SUBSCRIBERS:-1000}"
rate="${RATE:-200}"
seconds="${SECONDS_TO_RUN:-30}"
idle="${IDLE:-10000}"
wrk_seconds="${WRK_SECONDS:-10}"
wrk_connections="${WRK_CONNECTIONS:-64}"
rounds="${ROUNDS:-3}"

require_tool gcc gcc
require_tool wrk wrk
require_tool curl curl
binary="$(build_release_server)"

work="$(mktemp -d "${TMPDIR:-/tmp}/trips-bench-changes.XXXXXX")"
server_pid=""
client_pid=""
cleanup() {
  [[ -z "$client_pid" ]] || kill "$client_pid" 2>/dev/null || true
  if [[ -n "$server_pid" ]]; then kill -TERM "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

gcc -O2 -Wall -o "$work/changes_client" scripts/bench/changes_client.c -lpthread

run_server "$binary" --port 0 --data "$work/data" --log-level warning --max-subscribers $((idle + subscribers + 100)) \
  >"$work/stdout" 2>"$work/stderr" &
server_pid=$!
url=$(wait_until_listening "$server_pid" "$work/stdout" "$work/stderr")
port="${url##*:}"
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$server_pid/status"; }
echo "== server at $url (pid $server_pid)"

echo "== 1. delivery: $subscribers streams, $rate changes/s for $seconds s"
"$work/changes_client" deliver 127.0.0.1 "$port" "$subscribers" "$seconds" "$rate"

echo "== 2. memory: $idle idle streams"
before=$(rss)
"$work/changes_client" idle 127.0.0.1 "$port" "$idle" 30 >"$work/idle.out" &
client_pid=$!
until grep -q "open" "$work/idle.out" 2>/dev/null; do sleep 0.2; done
sleep 2  # every stream's head and backlog written
with=$(rss)
streams=$(curl -s -o /dev/null -w '%{http_code}' "$url/health")
echo "resident memory: ${before} KiB without streams, ${with} KiB with $idle (+$(( (with - before) / 1024 )) MiB, $(( (with - before) * 1024 / idle )) bytes a stream); /health $streams"
kill "$client_pid" 2>/dev/null || true
wait "$client_pid" 2>/dev/null || true
client_pid=""

echo "== 3. GET /trips/2 with wrk, $wrk_connections connections, $wrk_seconds s a run, $rounds rounds without and with streams"
requests() { wrk -t1 -c"$wrk_connections" -d"${wrk_seconds}s" "$url/trips/2" | awk '/Requests\/sec/ { print $2 }'; }
median() { sort -n | awk '{ values[NR] = $1 } END { print values[int((NR + 1) / 2)] }'; }
without=()
attached=()
for round in $(seq "$rounds"); do
  without+=("$(requests)")
  "$work/changes_client" idle 127.0.0.1 "$port" "$subscribers" $((wrk_seconds + 30)) >"$work/idle.out" &
  client_pid=$!
  until grep -q "open" "$work/idle.out" 2>/dev/null; do sleep 0.2; done
  attached+=("$(requests)")
  kill "$client_pid" 2>/dev/null || true
  wait "$client_pid" 2>/dev/null || true
  client_pid=""
  echo "round $round: ${without[-1]} requests/s without streams, ${attached[-1]} with $subscribers attached"
done
a=$(printf '%s\n' "${attached[@]}" | median)
b=$(printf '%s\n' "${without[@]}" | median)
echo "median requests/s: $b without streams, $a with $subscribers attached (ratio $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }'))"
