#!/usr/bin/env bash
# scripts/bench/profile.sh - instructions per request for GET /trips/2 (JSON), and where they go.
# TRIPS_PROFILE_HEADER adds one request header ('Accept: text/plain' profiles the sentence).
#
#   scripts/bench/profile.sh callgrind   # valgrind --tool=callgrind; prints Ir/request and the top functions
#   scripts/bench/profile.sh perf        # perf stat at full speed: server CPU time per request, and
#                                  # user/kernel instructions per request where the CPU counts them
#                                  # (many VMs do not: they show "<not supported>")
#
# Builds the release binary (its symbols are enough for callgrind), starts it in memory on one event
# loop with the access log off (TRIPS_PROFILE_ACCESS_LOG=1 turns it on), warms it up, and
# counts only the measured wrk run: callgrind's counters are zeroed before it and dumped after
# it, perf attaches for its duration. Instruction counts are stable from run to run, unlike
# req/s, so compare these before and after a change.
#
# Environment: TRIPS_PROFILE_SECONDS (default 3), TRIPS_PROFILE_CONNS (default 16),
# TRIPS_PROFILE_URL_PATH (default /trips/2), TRIPS_PROFILE_HEADER (default none),
# TRIPS_PROFILE_OUT (default /tmp/trips-profile),
# TRIPS_RELEASE_SCRATCH and TRIPS_NO_BUILD=1 (the release build that the benchmarks and drills
# share: scripts/lib/build.sh).
#
# Needs curl, wrk and valgrind (callgrind) or perf (Debian's linux-perf): installed with
# apt-get when run as root, otherwise named (scripts/lib/require.sh).
# Stops the server it started (by pid) on any exit.
set -euo pipefail

MODE="${1:-callgrind}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/lib/require.sh"
source "$ROOT/scripts/lib/build.sh"
source "$ROOT/scripts/lib/server.sh"
SECONDS_RUN="${TRIPS_PROFILE_SECONDS:-3}"
CONNS="${TRIPS_PROFILE_CONNS:-16}"
URL_PATH="${TRIPS_PROFILE_URL_PATH:-/trips/2}"
HEADER=()
[[ -n "${TRIPS_PROFILE_HEADER:-}" ]] && HEADER=(-H "$TRIPS_PROFILE_HEADER")
OUT="${TRIPS_PROFILE_OUT:-/tmp/trips-profile}"
LOG_LEVEL=warning
[[ "${TRIPS_PROFILE_ACCESS_LOG:-0}" == 1 ]] && LOG_LEVEL=info

require_tool curl curl
require_tool wrk wrk
case "$MODE" in
  callgrind)
    require_tool valgrind valgrind
    require_tool callgrind_control valgrind
    require_tool callgrind_annotate valgrind
    ;;
  perf)
    require_tool perf linux-perf
    perf stat -e task-clock true >/dev/null 2>&1 \
      || die "perf cannot count here (kernel.perf_event_paranoid is $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown));" \
        "as root: sysctl kernel.perf_event_paranoid=1, or use scripts/bench/profile.sh callgrind"
    ;;
  *) echo "usage: $0 callgrind|perf" >&2; exit 2 ;;
esac

cd "$ROOT"
BINARY="$(build_release_server)"
mkdir -p "$OUT"
rm -f "$OUT"/callgrind.out.* "$OUT/server.out"

SERVER_PID=""
cleanup() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

SERVER=("$BINARY" --in-memory --port 0 --threads 1 --log-level "$LOG_LEVEL")
case "$MODE" in
  callgrind)
    run_server valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out.%p" --dump-instr=no -- \
      "${SERVER[@]}" >"$OUT/server.out" 2>"$OUT/valgrind.err" &
    ;;
  perf)
    run_server "${SERVER[@]}" >"$OUT/server.out" 2>&1 &
    ;;
esac
SERVER_PID=$!

PORT=""
for _ in $(seq 300); do
  PORT="$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$OUT/server.out" 2>/dev/null | grep -o '[0-9]*$' || true)"
  [[ -n "$PORT" ]] && break
  sleep 0.1
done
[[ -n "$PORT" ]] || { echo "profile.sh: the server did not start" >&2; cat "$OUT"/*.err >&2 || true; exit 1; }
URL="http://127.0.0.1:$PORT$URL_PATH"
curl -sf -o /dev/null "${HEADER[@]}" "$URL"
wrk -t1 -c"$CONNS" -d1s "${HEADER[@]}" "$URL" >/dev/null  # warm up: caches filled, buffers grown

case "$MODE" in
  callgrind)
    callgrind_control -z "$SERVER_PID" >/dev/null
    wrk -t1 -c"$CONNS" -d"${SECONDS_RUN}s" "${HEADER[@]}" "$URL" >"$OUT/wrk.txt"
    callgrind_control -d "$SERVER_PID" >/dev/null
    ;;
  perf)
    perf stat -x, -e task-clock,instructions:u,instructions:k -p "$SERVER_PID" -o "$OUT/perf.txt" -- \
      wrk -t1 -c"$CONNS" -d"${SECONDS_RUN}s" "${HEADER[@]}" "$URL" >"$OUT/wrk.txt"
    ;;
esac
REQUESTS="$(awk '/requests in/ {print $1}' "$OUT/wrk.txt")"
echo "requests: $REQUESTS ($(grep -o 'Requests/sec:.*' "$OUT/wrk.txt"))"

case "$MODE" in
  callgrind)
    DUMP="$(ls -t "$OUT"/callgrind.out.*.1 2>/dev/null | head -1 || true)"
    [[ -n "$DUMP" ]] || DUMP="$(ls -t "$OUT"/callgrind.out.* | head -1)"
    TOTAL="$(grep -m1 '^summary:\|^totals:' "$DUMP" | awk '{print $2}')"
    echo "instructions (Ir): $TOTAL  per request: $((TOTAL / REQUESTS))"
    callgrind_annotate --inclusive=no "$DUMP" 2>/dev/null | sed -n '1,60p' | cut -c1-200 >"$OUT/top.txt"
    echo "top functions (self): $OUT/top.txt; callgraph: callgrind_annotate --inclusive=yes $DUMP"
    ;;
  perf)
    TASK_MS="$(awk -F, '/task-clock/ {print $1}' "$OUT/perf.txt")"
    awk -v ms="$TASK_MS" -v n="$REQUESTS" 'BEGIN { printf "server CPU: %.0f ms, %.2f us per request\n", ms, ms * 1000 / n }'
    USER_INS="$(awk -F, '/instructions:u/ {print $1}' "$OUT/perf.txt")"
    KERNEL_INS="$(awk -F, '/instructions:k/ {print $1}' "$OUT/perf.txt")"
    if [[ "$USER_INS" =~ ^[0-9]+$ ]]; then
      echo "instructions per request: user $((USER_INS / REQUESTS)), kernel $((${KERNEL_INS:-0} / REQUESTS))"
    else
      echo "instructions: not counted on this CPU ($USER_INS); use callgrind"
    fi
    ;;
esac
