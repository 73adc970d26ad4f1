#!/usr/bin/env bash
# scripts/bench/scale.sh - trips-server with a very long list, against the same server with
# the six sample trips (issue #16's scale figures).
#
#   1. Loads BENCH_SCALE_TRIPS trips (default 1,000,000) through the API: POST /trips with
#      arrays of 1,000 drafts, on one keep-alive connection. The server compacts on its own as
#      the journal grows; a restart that compacts at once folds what is left, so the folder
#      holds a snapshot alone.
#   2. Start-up from that snapshot: from just before the process starts to its "listening"
#      line, median of BENCH_STARTS runs; resident memory (VmRSS) once listening, and its peak
#      (VmHWM) during the start-up.
#   3. GET /trips/2 and reorders of one trip (PATCH /trips, Prefer: return=minimal, between
#      random trips among the first 100,000 ids), BENCH_DURATION seconds each at 64
#      connections with scripts/bench/writes.lua, on the long list and on the six samples;
#      prints requests per second, p50 and p99, and the ratio long/short. Reorders among the
#      first six ids of the long list too: the same work as on the six samples, so its ratio
#      shows what the list's length alone costs (random trips among 100,000 also miss the
#      CPU's caches on every change).
#
#   scripts/bench/scale.sh
#   BENCH_SCALE_TRIPS=200000 BENCH_DURATION=5 scripts/bench/scale.sh
#   BENCH_SCALE_TRIPS=100000 BENCH_STARTUP_ONLY=1 BENCH_CALLGRIND=1 scripts/bench/scale.sh
#
# BENCH_STARTUP_ONLY=1 stops after step 2. BENCH_CALLGRIND=1 adds one more start-up under
# valgrind's callgrind and prints its instructions to the listening line (and the stop), every
# thread: unlike times, the count does not move with the machine's load (needs valgrind);
# BENCH_CALLGRIND_OUT=FILE keeps its profile there (for callgrind_annotate).
#
# The server runs on CPU 0, wrk and the loader on CPU 1. Needs wrk, curl, taskset, python3
# (installed with apt-get when run as root; scripts/lib/require.sh). Everything it starts is
# stopped on any exit, and its folders removed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/lib/require.sh"
source "$ROOT/scripts/lib/build.sh"
source "$ROOT/scripts/lib/server.sh"
TRIPS="${BENCH_SCALE_TRIPS:-1000000}"
DURATION="${BENCH_DURATION:-10}"
STARTS="${BENCH_STARTS:-3}"
STARTUP_ONLY="${BENCH_STARTUP_ONLY:-0}"
CALLGRIND="${BENCH_CALLGRIND:-0}"

require_tool wrk wrk
require_tool curl curl
require_tool taskset util-linux
require_tool python3 python3
if [[ "$CALLGRIND" == 1 ]]; then
  require_tool valgrind valgrind
  require_tool callgrind_annotate valgrind
fi

cd "$ROOT"
BINARY="$(build_release_server)"
WORK="$(mktemp -d "${BENCH_DATA_ROOT:-${TMPDIR:-/tmp}}/trips-bench-scale.XXXXXX")"
SERVER_PID=""

cleanup() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  exec 3<&- 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now_ns() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# What start_server runs the server under (callgrind, once); nothing by default.
WRAPPER=()
# start_server FOLDER [ARGS...]: trips-server on CPU 0; waits for "listening". Sets
# SERVER_PID, PORT and STARTUP_MS.
start_server() {
  local folder="$1" fifo="$WORK/stdout.fifo" line started
  shift
  rm -f "$fifo"
  mkfifo "$fifo"
  started=$(now_ns)
  run_server taskset -c 0 "${WRAPPER[@]}" -- "$BINARY" --port 0 --data "$folder" --log-level warning "$@" >"$fifo" 2>>"$WORK/server-stderr" &
  SERVER_PID=$!
  exec 3<"$fifo"
  while true; do
    if ! read -r -t 600 -u 3 line; then
      echo "bench/scale.sh: trips-server did not start on $folder:" >&2
      cat "$WORK/server-stderr" >&2
      exit 1
    fi
    [[ "$line" =~ listening\ on\ http://127\.0\.0\.1:([0-9]+)$ ]] && break
  done
  STARTUP_MS=$((($(now_ns) - started) / 1000000))
  PORT="${BASH_REMATCH[1]}"
}

# stop_server: SIGTERM (waits for a compaction still running), then reap it.
stop_server() {
  kill -TERM "$SERVER_PID"
  local status=0
  wait "$SERVER_PID" || status=$?
  exec 3<&-
  SERVER_PID=""
  [[ $status == 0 ]] || { echo "bench/scale.sh: trips-server exited with $status" >&2; cat "$WORK/server-stderr" >&2; exit 1; }
}

memory_kib() { awk -v field="$1:" '$1 == field { print $2 }' "/proc/$SERVER_PID/status"; }

trip_count() {
  curl -fsS "http://127.0.0.1:$PORT/health" | python3 -c 'import json, sys; print(json.load(sys.stdin)["trips"])'
}

# load_trips COUNT: POSTs COUNT drafts in arrays of 1,000 to the running server.
load_trips() {
  taskset -c 1 python3 - "$PORT" "$1" <<'PYTHON'
import http.client, json, sys

port, count = int(sys.argv[1]), int(sys.argv[2])
connection = http.client.HTTPConnection("127.0.0.1", port)
number = 0
while number < count:
    drafts = []
    for _ in range(min(1000, count - number)):
        number += 1
        drafts.append({"city": f"City {number}", "country": f"Country {number % 150}", "nights": number % 30 + 1,
                       "isFavorite": number % 7 == 0, "price": f"{100 + number % 900}.{number % 100:02d}",
                       "start": f"2027-{number % 12 + 1:02d}-{number % 28 + 1:02d}", "notes": "loaded by bench/scale.sh"})
    body = json.dumps(drafts).replace('"price": "', '"price": ').replace('", "start"', ', "start"').encode()
    connection.request("POST", "/trips", body, {"Content-Type": "application/json", "Prefer": "return=minimal"})
    answer = connection.getresponse()
    answer.read()
    if answer.status != 201:
        sys.exit(f"bench/scale.sh: POST /trips answered {answer.status} after {number} trips")
PYTHON
}

RESULTS=()

# measure NAME IDS [MIXES]: GET /trips/2 (reads) and reorders among ids 1..IDS on the running
# server, or only the MIXES named.
declare -A RATE P50 P99
measure() {
  local name="$1" ids="$2" mixes="${3:-reads reorders}" mix output
  for mix in $mixes; do
    if [[ $mix == reads ]]; then
      taskset -c 1 wrk -t1 -c64 -d"${DURATION}s" --latency "http://127.0.0.1:$PORT/trips/2" >"$WORK/wrk.out" 2>&1
      output="$(cat "$WORK/wrk.out")"
      RATE[$name-$mix]=$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' <<<"$output")
      P50[$name-$mix]=$(awk '$1 == "50%" { print $2 }' <<<"$output")
      P99[$name-$mix]=$(awk '$1 == "99%" { print $2 }' <<<"$output")
    else
      BENCH_MIX=reorders BENCH_IDS="$ids" taskset -c 1 wrk -t1 -c64 -d"${DURATION}s" -s "$ROOT/scripts/bench/writes.lua" \
        "http://127.0.0.1:$PORT/trips" >"$WORK/wrk.out" 2>&1
      output="$(cat "$WORK/wrk.out")"
      RATE[$name-$mix]=$(grep -o 'all answers [0-9]*/s' <<<"$output" | grep -o '[0-9]*')
      P50[$name-$mix]=$(sed -n 's/^latency p50 \([0-9.]*\) ms.*/\1ms/p' <<<"$output")
      P99[$name-$mix]=$(sed -n 's/.*p99 \([0-9.]*\) ms.*/\1ms/p' <<<"$output")
    fi
    echo "== $name, $mix: $(tail -3 "$WORK/wrk.out" | tr '\n' ' ')" >&2
  done
}

folder="$WORK/long"
echo "== loading $TRIPS trips through POST /trips" >&2
start_server "$folder" --no-samples
started=$(now_ns)
load_trips "$TRIPS"
RESULTS+=("loaded $TRIPS trips through the API in $((($(now_ns) - started) / 1000000)) ms")
[[ "$(trip_count)" == "$TRIPS" ]] || { echo "bench/scale.sh: the server does not hold $TRIPS trips" >&2; exit 1; }
stop_server
# The journal left over is smaller than the snapshot, so the server would keep it; one start
# that compacts after any record folds it, and the start-ups below read a snapshot alone.
start_server "$folder" --no-samples --compact-after 1
stop_server
[[ ! -s "$(ls "$folder"/journal-* | tail -1)" ]] || { echo "bench/scale.sh: the journal was not folded into the snapshot" >&2; exit 1; }
echo "== the folder: $(du -sh "$folder" | cut -f1): $(ls -l "$folder" | awk 'NR > 1 { printf "%s %s, ", $9, $5 }')" >&2

times=()
for ((i = 0; i < STARTS; i++)); do
  start_server "$folder" --no-samples
  times+=("$STARTUP_MS")
  rss=$(memory_kib VmRSS)
  peak=$(memory_kib VmHWM)
  stop_server
done
RESULTS+=("start-up with $TRIPS trips: median $(printf '%s\n' "${times[@]}" | median) ms of ${times[*]}; resident $((rss / 1024)) MiB once listening, peak $((peak / 1024)) MiB")

if [[ "$CALLGRIND" == 1 ]]; then
  WRAPPER=(valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.out" --dump-instr=no)
  start_server "$folder" --no-samples
  WRAPPER=()
  # Under valgrind, a SIGTERM sent as the listening line appears was seen to be lost: sent
  # again each second until the server has stopped.
  while kill -0 "$SERVER_PID" 2>/dev/null; do
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    sleep 1
  done
  wait "$SERVER_PID" || true
  exec 3<&-
  SERVER_PID=""
  [[ -n "${BENCH_CALLGRIND_OUT:-}" ]] && cp "$WORK/callgrind.out" "$BENCH_CALLGRIND_OUT"
  RESULTS+=("start-up with $TRIPS trips under callgrind: $(callgrind_annotate "$WORK/callgrind.out" 2>/dev/null | awk '/PROGRAM TOTALS/ { print $1 }') instructions to the listening line (and its stop), every thread")
fi

report() {
  echo
  echo "trips-server $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?') (+ working tree), release, $(nproc) cores, data on $(df -T "$WORK" | awk 'NR == 2 { print $2 " " $1 }')"
  printf '%s\n' "${RESULTS[@]}"
}
if [[ "$STARTUP_ONLY" == 1 ]]; then
  report
  exit 0
fi

start_server "$folder" --no-samples
measure long 100000
measure long-first-six 6 reorders
RESULTS+=("resident after the runs with $TRIPS trips: $(($(memory_kib VmRSS) / 1024)) MiB")
stop_server
start_server "$WORK/short"
measure short 6
stop_server

for mix in reads reorders; do
  label="GET /trips/2"
  [[ $mix == reads ]] || label="reorder of one trip (204)"
  ratio=$(awk -v a="${RATE[long-$mix]}" -v b="${RATE[short-$mix]}" 'BEGIN { printf "%.2f", a / b }')
  RESULTS+=("$label, 64 connections: $TRIPS trips ${RATE[long-$mix]}/s (p50 ${P50[long-$mix]}, p99 ${P99[long-$mix]}); 6 trips ${RATE[short-$mix]}/s (p50 ${P50[short-$mix]}, p99 ${P99[short-$mix]}); ratio $ratio")
done
ratio=$(awk -v a="${RATE[long-first-six-reorders]}" -v b="${RATE[short-reorders]}" 'BEGIN { printf "%.2f", a / b }')
RESULTS+=("reorder of one trip among the first six ids, 64 connections: $TRIPS trips ${RATE[long-first-six-reorders]}/s (p50 ${P50[long-first-six-reorders]}, p99 ${P99[long-first-six-reorders]}); ratio to 6 trips $ratio")

report
