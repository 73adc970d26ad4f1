#!/usr/bin/env bash
# scripts/bench/writes.sh - durable write throughput and start-up time of trips-server.
#
#   1. Acknowledged creates per second over HTTP: wrk (scripts/bench/writes.lua) POSTs JSON
#      drafts to /trips with 1 and with 64 connections, against a release build on a real
#      data folder (every answer waits for its fdatasync). The server is pinned to CPU 0,
#      wrk to CPU 1; each run gets a fresh folder.
#      The same again on a folder that already holds BENCH_TRIPS trips (a change costs more
#      as the list grows).
#   2. Start-up time with BENCH_TRIPS trips (default 100,000) replayed from the journal, and
#      loaded from a snapshot: from just before the process starts to its "listening" line,
#      median of BENCH_STARTS runs on fresh copies of the folder (files in the page cache).
#      The journal case is generated here (the running server compacts after 10,000 records,
#      so it never leaves a journal that long); the snapshot case is what the server itself
#      writes when it compacts that journal.
#
#   3. Compaction under load (`compaction`): on a copy of the BENCH_TRIPS-trip snapshot, 64
#      connections for BENCH_COMPACTION_DURATION seconds each of creates, mixed traffic (90%
#      GET /trips/2, 10% creates) and reorders of one trip; prints p50, p99, p99.9 and max and
#      how many compactions finished during the run.
#
#   4. Instructions per create (`callgrind`): the server under callgrind on an empty folder,
#      8 connections of creates for BENCH_DURATION seconds, counted after a 2 s warm-up, every
#      thread; exact where the rates swing with the machine: compare it before and after a
#      change to the create path. BENCH_CALLGRIND_OUT=FILE keeps the profile.
#
#   scripts/bench/writes.sh                        # 1 and 2, 10 s per wrk run
#   BENCH_DURATION=5 BENCH_CONNECTIONS="1 16 64" scripts/bench/writes.sh writes
#   BENCH_TRIPS=20000 scripts/bench/writes.sh startup   # more than 10,000, so the server compacts
#   scripts/bench/writes.sh compaction             # 3: 30 s per traffic mix
#   BENCH_DURATION=5 scripts/bench/writes.sh callgrind   # 4
#
# Environment:
#   BENCH_DURATION      seconds per wrk run (default 10)
#   BENCH_CONNECTIONS   connection counts (default "1 64")
#   BENCH_THREADS       server event loops (default 1: it has one core)
#   BENCH_TRIPS         trips for the start-up case (default 100000)
#   BENCH_STARTS        start-ups timed per case (default 5)
#   BENCH_COMPACTION_DURATION, BENCH_COMPACT_AFTER   for `compaction` (default 30 s, and the
#                       server's own threshold: 10,000 records, and at least the trips stored)
#   BENCH_MIXES         the traffic mixes for `compaction` (default "creates mixed reorders")
#   BENCH_DATA_ROOT     where data folders go (default: a new folder under $TMPDIR or /tmp);
#                       put it on the disk you want to measure
#   TRIPS_RELEASE_SCRATCH, TRIPS_NO_BUILD=1   the release build that the benchmarks and the
#                       drills share, and using the binary already there (scripts/lib/build.sh)
#
# Needs wrk, curl, taskset and python3 (to write the long journal): installed with apt-get
# when run as root, otherwise named (scripts/lib/require.sh).
# Every process this script starts is stopped on any exit, and its data folders are removed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/lib/require.sh"
source "$ROOT/scripts/lib/build.sh"
source "$ROOT/scripts/lib/server.sh"
source "$ROOT/scripts/lib/callgrind.sh"
DURATION="${BENCH_DURATION:-10}"
CONNECTIONS="${BENCH_CONNECTIONS:-1 64}"
THREADS="${BENCH_THREADS:-1}"
TRIPS="${BENCH_TRIPS:-100000}"
STARTS="${BENCH_STARTS:-5}"
COMPACTION_DURATION="${BENCH_COMPACTION_DURATION:-30}"
COMPACT_AFTER="${BENCH_COMPACT_AFTER:-}"
MIXES="${BENCH_MIXES:-creates mixed reorders}"
SERVER_ARGS=()
# What the server runs under (valgrind, for `callgrind`), inside its taskset.
WRAPPER=()
WHAT="${1:-all}"
case "$WHAT" in all | writes | startup | compaction | callgrind) ;; *) echo "usage: $0 [all|writes|startup|compaction|callgrind]" >&2; exit 2 ;; esac

require_tool wrk wrk
require_tool curl curl
require_tool taskset util-linux
require_tool python3 python3

cd "$ROOT"
BINARY="$(build_release_server)"

WORK="$(mktemp -d "${BENCH_DATA_ROOT:-${TMPDIR:-/tmp}}/trips-bench-writes.XXXXXX")"
SERVER_PID=""
WRK_PID=""

cleanup() {
  local pid
  for pid in "$WRK_PID" "$SERVER_PID"; do
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
      kill -KILL "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  exec 3<&- 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now_ns() { date +%s%N; }

# start_server FOLDER: starts trips-server on CPU 0 and waits for its "listening" line.
# Sets SERVER_PID, PORT and STARTUP_MS (from just before the fork to the line).
start_server() {
  local folder="$1" fifo="$WORK/stdout.fifo" line started
  rm -f "$fifo"
  mkfifo "$fifo"
  started=$(now_ns)
  run_server taskset -c 0 "${WRAPPER[@]}" -- "$BINARY" --port 0 --data "$folder" --threads "$THREADS" --log-level warning --no-samples \
    "${SERVER_ARGS[@]}" >"$fifo" 2>>"$WORK/server-stderr" &
  SERVER_PID=$!
  exec 3<"$fifo"
  while true; do
    if ! read -r -t 120 -u 3 line; then
      echo "bench/writes.sh: trips-server did not start on $folder:" >&2
      cat "$WORK/server-stderr" >&2
      exit 1
    fi
    [[ "$line" =~ listening\ on\ http://127\.0\.0\.1:([0-9]+)$ ]] && break
  done
  STARTUP_MS=$(( ($(now_ns) - started) / 1000 ))
  STARTUP_MS="$((STARTUP_MS / 1000)).$(printf '%03d' $((STARTUP_MS % 1000)))"
  PORT="${BASH_REMATCH[1]}"
}

# stop_server: SIGTERM (the server finishes what is in flight), then reap it.
stop_server() {
  kill -TERM "$SERVER_PID"
  local status=0
  wait "$SERVER_PID" || status=$?
  exec 3<&-
  SERVER_PID=""
  [[ $status == 0 ]] || { echo "bench/writes.sh: trips-server exited with $status" >&2; cat "$WORK/server-stderr" >&2; exit 1; }
}

trip_count() {
  curl -fsS "http://127.0.0.1:$PORT/health" | python3 -c 'import json, sys; print(json.load(sys.stdin)["trips"])'
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

RESULTS=()

# run_wrk CONNECTIONS SECONDS: wrk on CPU 1 with scripts/bench/writes.lua (BENCH_MIX and
# BENCH_IDS pass through), against the running server; its output goes to $WORK/wrk.out.
run_wrk() {
  taskset -c 1 wrk -t1 -c"$1" -d"$2s" -s "$ROOT/scripts/bench/writes.lua" "http://127.0.0.1:$PORT/trips" >"$WORK/wrk.out" 2>&1 &
  WRK_PID=$!
  wait "$WRK_PID"
  WRK_PID=""
}

# bench_writes [LAYOUT]: wrk against an empty folder, or against a copy of LAYOUT.
bench_writes() {
  local layout="${1:-}" connections folder output stored=0
  [[ -z "$layout" ]] || stored="$TRIPS"
  for connections in $CONNECTIONS; do
    folder="$WORK/writes-$connections-$stored"
    [[ -z "$layout" ]] || cp -a "$layout" "$folder"
    start_server "$folder"
    echo "== POST /trips, $connections connection(s), ${DURATION}s, $stored trips stored before, data in $folder" >&2
    run_wrk "$connections" "$DURATION"
    output="$(cat "$WORK/wrk.out")"
    echo "$output" >&2
    echo "trips on the server afterwards: $(trip_count)" >&2
    stop_server
    RESULTS+=("creates, $connections connection(s), $stored trips stored: $(grep -o '= [0-9]*/s' <<<"$output" | tr -d '= ') acknowledged; $(grep '^latency' <<<"$output")")
    rm -rf "$folder"
  done
}

# write_journal_folder FOLDER COUNT: a snapshot of an empty list that continues with
# journal 1, holding COUNT "add" records, in the format Sources/TripsStore/Journal writes
# (RecordFrame: little-endian length, CRC-32C of length and payload, JSON payload).
write_journal_folder() {
  python3 - "$1" "$2" <<'PYTHON'
import json, os, struct, sys

folder, count = sys.argv[1], int(sys.argv[2])
table = []
for index in range(256):
    value = index
    for _ in range(8):
        value = (value >> 1) ^ 0x82F63B78 if value & 1 else value >> 1
    table.append(value)

def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF

def frame(record):
    payload = json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode()
    length = struct.pack("<I", len(payload))
    return length + struct.pack("<I", crc32c(payload, crc32c(length))) + payload

os.makedirs(folder, exist_ok=True)
with open(os.path.join(folder, "snapshot"), "wb") as snapshot:
    snapshot.write(frame({"format": 1, "journal": 1, "revision": 0, "lastIssuedID": 0, "trips": 0}))
with open(os.path.join(folder, "journal-0000000001"), "wb") as journal:
    for number in range(1, count + 1):
        draft = {"city": f"City {number}", "country": "Benchland", "nights": number % 30 + 1, "isFavorite": number % 7 == 0,
                 "imageName": "", "price": float(f"{100 + number % 900}.{number % 100:02d}"),
                 "start": f"2027-{number % 12 + 1:02d}-{number % 28 + 1:02d}T00:00:00Z", "notes": "written by bench/writes.sh"}
        journal.write(frame({"revision": number, "op": "add", "draft": draft}))
PYTHON
}

# make_layouts: $WORK/layout-journal (TRIPS creates in the journal) and $WORK/layout-snapshot
# (the same list as the snapshot the server wrote when it compacted that journal).
make_layouts() {
  local journal_layout="$WORK/layout-journal" snapshot_layout="$WORK/layout-snapshot"
  [[ ! -d "$snapshot_layout" ]] || return 0
  (( TRIPS > 10000 )) || { echo "bench/writes.sh: BENCH_TRIPS must exceed 10000, the journal length that makes the server compact" >&2; exit 2; }
  echo "== writing a journal of $TRIPS creates" >&2
  write_journal_folder "$journal_layout" "$TRIPS"
  # The server compacts a long journal as soon as it starts; a clean stop waits for that.
  cp -a "$journal_layout" "$snapshot_layout"
  start_server "$snapshot_layout"
  [[ "$(trip_count)" == "$TRIPS" ]] || { echo "bench/writes.sh: the server did not load $TRIPS trips" >&2; exit 1; }
  stop_server
  [[ -f "$snapshot_layout/journal-0000000002" && ! -s "$snapshot_layout/journal-0000000002" && ! -e "$snapshot_layout/journal-0000000001" ]] || {
    echo "bench/writes.sh: compaction did not leave a snapshot and an empty journal:" >&2; ls -l "$snapshot_layout" >&2; exit 1; }
  echo "journal case:  $(du -sh "$journal_layout" | cut -f1) ($(ls "$journal_layout" | tr '\n' ' '))" >&2
  echo "snapshot case: $(du -sh "$snapshot_layout" | cut -f1) ($(ls "$snapshot_layout" | tr '\n' ' '))" >&2
}

bench_startup() {
  local layout times i run="$WORK/startup-run"
  make_layouts
  for layout in journal snapshot; do
    times=()
    for ((i = 0; i < STARTS; i++)); do
      rm -rf "$run"
      cp -a "$WORK/layout-$layout" "$run"
      cat "$run"/* >/dev/null  # in the page cache, like the copy's source
      start_server "$run"
      times+=("$STARTUP_MS")
      [[ "$(trip_count)" == "$TRIPS" ]] || { echo "bench/writes.sh: start-up lost trips" >&2; exit 1; }
      stop_server
    done
    echo "start-up, $TRIPS trips in the $layout (ms): ${times[*]}" >&2
    RESULTS+=("start-up, $TRIPS trips in the $layout: median $(printf '%s\n' "${times[@]}" | median) ms of ${times[*]}")
  done
}

# bench_compaction: each traffic mix for COMPACTION_DURATION s at 64 connections on a copy of
# the snapshot layout, compacting after COMPACT_AFTER records; counts the compactions.
bench_compaction() {
  local mix folder output compactions
  make_layouts
  [[ -z "$COMPACT_AFTER" ]] || SERVER_ARGS=(--compact-after "$COMPACT_AFTER")
  for mix in $MIXES; do
    folder="$WORK/compaction-$mix"
    cp -a "$WORK/layout-snapshot" "$folder"
    start_server "$folder"
    echo "== $mix, 64 connections, ${COMPACTION_DURATION}s, $TRIPS trips stored, compacting after ${COMPACT_AFTER:-the default}" >&2
    BENCH_MIX="$mix" BENCH_IDS="$TRIPS" run_wrk 64 "$COMPACTION_DURATION"
    output="$(cat "$WORK/wrk.out")"
    echo "$output" >&2
    compactions=$(curl -fsS "http://127.0.0.1:$PORT/metrics" | awk '/^trips_compactions_total / { print $2 }')
    stop_server  # waits for a compaction still running
    RESULTS+=("$mix under compaction, 64 connections, $TRIPS trips stored: $(grep -o '= [0-9]*/s' <<<"$output" | head -1 | tr -d '= ') acknowledged; $(grep '^latency' <<<"$output"); compactions finished during the run: $compactions")
    rm -rf "$folder"
  done
  SERVER_ARGS=()
}

# bench_callgrind: step 4.
bench_callgrind() {
  require_tool valgrind valgrind
  require_tool callgrind_control valgrind
  local creates dump pid
  WRAPPER=(valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.%p" --dump-instr=no)
  start_server "$WORK/callgrind-folder"
  WRAPPER=()
  pid="$SERVER_PID"
  BENCH_MIX=creates run_wrk 8 2
  callgrind_control --zero "$pid" >/dev/null 2>&1
  BENCH_MIX=creates run_wrk 8 "$DURATION"
  callgrind_control --dump=creates "$pid" >/dev/null 2>&1
  stop_server
  creates="$(grep -o 'acknowledged creates: [0-9]*' "$WORK/wrk.out" | grep -o '[0-9]*$')"
  dump="$(ls "$WORK"/callgrind."$pid".* | head -1)"
  [[ -z "${BENCH_CALLGRIND_OUT:-}" ]] || cp "$dump" "$BENCH_CALLGRIND_OUT"
  RESULTS+=("creates under callgrind, 8 connections, an empty folder: $creates acknowledged, $(($(callgrind_total "$dump") / creates)) instructions per create (every thread)")
}

case "$WHAT" in
  callgrind) bench_callgrind ;;
  compaction) bench_compaction ;;
  *)
    if [[ "$WHAT" != startup ]]; then
      bench_writes
      make_layouts
      bench_writes "$WORK/layout-snapshot"
    fi
    [[ "$WHAT" == writes ]] || bench_startup
    ;;
esac

echo
echo "trips-server $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?') (+ working tree), release, $(nproc) cores, data on $(df -T "$WORK" | awk 'NR == 2 { print $2 " " $1 }')"
printf '%s\n' "${RESULTS[@]}"
