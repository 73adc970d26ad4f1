#!/usr/bin/env bash
# scripts/bench/postgres.sh - trips-server on PostgreSQL (two and four instances on one
# database) against the database's own ceiling (pgbench) and the embedded journal, on this
# machine (issue #17's speed figures, and #33's goals).
#
#   1. Acknowledged creates per second at 64 connections, in one run on one database:
#      - pgbench: single-row INSERT transactions into a table shaped like `trips` (LIKE trips,
#        its indexes and checks), 64 clients, -j 2, -M prepared: the rate at which the
#        database commits one row per transaction, with its p99 from the per-transaction log;
#      - wrk (scripts/bench/writes.lua) with all 64 on one instance (the other idle: it meets
#        no other writer at the lock, and holds no batch back, `BatchGathering`), then 32
#        connections on each of two instances at once, then 16 on each of four, and the ratio
#        of each to pgbench;
#      - pgbench again once the instances' steps are done: the ratios are to the mean of its
#        two rates, as the machine's pace drifts during a run (pgbench alone swung from
#        15,800 to 21,900/s between runs of one day);
#      - one instance on a data folder with all 64 (the journal).
#      PostgreSQL runs with fsync, synchronous_commit and full_page_writes on, as the journal
#      syncs every answer. p99 is the worst instance's.
#   2. GET /trips/2 per instance (served from memory), against the journal's server.
#   3. The delay from a write's answer on one instance to its event on the other's change
#      feed, p50 and p99, for 200 writes (one every 10 ms) while both instances take the
#      creates of step 1.
#   4. Mixed changes on two instances, 32 connections each (BENCH_MIX=changes: creates, merge
#      patches, reorders of one trip, favorite drops, in turn), and the ratio to pgbench.
#   5. Start-up with 1,000,000 trips in the tables (written straight with SQL), from exec to
#      the "listening" line, three times, with the process's CPU time then, and the server's
#      resident memory: what an instance added behind the balancer takes to join.
#   With steps 1 and 4, the CPU time each change cost the instances and PostgreSQL's processes
#   (and each pgbench transaction, PostgreSQL's): on a machine that all of them share, the
#   changes/s are bounded by these sums, and they vary far less from run to run than the rates.
#   And each of those steps' write transactions, from the instances' /metrics
#   (trips_postgres_write_transaction_seconds_total): how many, their changes, and how long
#   each waited for the state row's lock and then held it (catching up, planning, committing),
#   which every other instance's writer waits for: what several instances' writes are bounded by.
#   6. BENCH_REPLAY_ONLY=1: the instructions another instance spends on each change it
#      replays (its follower's catching up, its list, history and feed): one instance takes
#      creates at 8 connections for BENCH_DURATION seconds while a second, under callgrind with
#      one event loop and no requests, follows; callgrind counts from after a warm-up to when
#      the second reaches the first's revision. Exact, unlike the rates: compare it before and
#      after a change to the replay. BENCH_CALLGRIND_OUT=FILE keeps the profile (where the
#      instructions go: callgrind_annotate FILE).
#   7. BENCH_WRITER_ONLY=1: the instructions an instance spends on each create it writes (the
#      request, the transaction's statements, their answers, the list and the reply): one
#      instance under callgrind takes creates on one connection for BENCH_DURATION seconds
#      after a warm-up, so that each is a transaction of its own (with more, how many share a
#      transaction, and so the count, swung with the timing); the count is divided by the
#      creates acknowledged. BENCH_CALLGRIND_OUT as in 6. BENCH_WRITER_MIX=changes counts the mixed
#      changes of step 4 instead (creates, merge patches, reorders, favorite drops, in turn).
#
#   scripts/bench/postgres.sh
#   BENCH_DURATION=5 scripts/bench/postgres.sh
#   BENCH_WRITES_ONLY=1 scripts/bench/postgres.sh   # steps 1 (without the journal), 3 and 4
#   BENCH_WRITES_ONLY=1 BENCH_CONNECTION_STEPS=1 scripts/bench/postgres.sh
#                                                   # and two instances with 16 connections each,
#                                                   # four with 32: the connections, or the instances?
#   BENCH_STARTUP_ONLY=1 scripts/bench/postgres.sh  # step 5 alone
#   BENCH_REPLAY_ONLY=1 scripts/bench/postgres.sh   # step 6 alone
#   BENCH_WRITER_ONLY=1 scripts/bench/postgres.sh   # step 7 alone
#   BENCH_STARTUP_ONLY=1 BENCH_STARTUP_TRIPS=100000 BENCH_CALLGRIND=1 scripts/bench/postgres.sh
#                                                   # and one more start-up under callgrind:
#                                                   # instructions to the listening line
#
# Nothing is pinned: the instances, PostgreSQL, pgbench and wrk share the machine's cores, and
# the journal's server gets the same. Needs wrk, curl, python3 and PostgreSQL with pgbench
# (installed with apt-get when run as root; scripts/lib/require.sh). Stops everything it
# started, and removes its folders, on any exit.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/lib/require.sh"
source "$ROOT/scripts/lib/build.sh"
source "$ROOT/scripts/lib/server.sh"
source "$ROOT/scripts/lib/callgrind.sh"
source "$ROOT/scripts/lib/bench-cluster.sh"
DURATION="${BENCH_DURATION:-10}"
WRITES_ONLY="${BENCH_WRITES_ONLY:-0}"
STARTUP_ONLY="${BENCH_STARTUP_ONLY:-0}"
STARTUP_TRIPS="${BENCH_STARTUP_TRIPS:-1000000}"
CALLGRIND="${BENCH_CALLGRIND:-0}"
REPLAY_ONLY="${BENCH_REPLAY_ONLY:-0}"
WRITER_ONLY="${BENCH_WRITER_ONLY:-0}"
WRITER_MIX="${BENCH_WRITER_MIX:-creates}"
CONNECTION_STEPS="${BENCH_CONNECTION_STEPS:-0}"
[[ "$CALLGRIND" != 1 && "$REPLAY_ONLY" != 1 && "$WRITER_ONLY" != 1 ]] || require_tool valgrind valgrind

require_tool wrk wrk
require_tool curl curl
require_tool python3 python3
cd "$ROOT"
BINARY="$(build_release_server)"

# PostgreSQL's default shared_buffers (the test cluster's 32 MB would leave the later steps,
# on tables of several hundred thousand rows, writing evicted pages out themselves).
bench_cluster_start postgres "shared_buffers = '128MB'"

# start ARGS...: a release server on a free port, behind WRAPPER when it is set (run_server's
# WRAPPER... --); sets PORT once it listens. Not to be run in a subshell ($(start …)): its
# process id must reach PIDS here, for the cleanup.
WRAPPER=()
start() {
  local log="$WORK/server-$RANDOM.log"
  PORT=""
  run_server "${WRAPPER[@]}" "$BINARY" --port 0 --log-level warning --no-samples "$@" >"$log" 2>&1 &
  PIDS+=($!)
  # A minute; ten under a wrapper (callgrind runs the server some 50 times slower).
  for _ in $(seq $((${#WRAPPER[@]} == 0 ? 600 : 6000))); do
    PORT="$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\)$/\1/p' "$log")"
    [[ -z "$PORT" ]] || break
    sleep 0.1
  done
  [[ -n "$PORT" ]] || { cat "$log" >&2; echo "bench/postgres.sh: a server did not start" >&2; exit 1; }
}

# changes MIX PORT CONNECTIONS OUT: wrk with BENCH_MIX=MIX for DURATION seconds, its summary
# in OUT.
changes() {
  BENCH_MIX="$1" wrk -t1 -c"$3" -d"${DURATION}s" -s scripts/bench/writes.lua "http://127.0.0.1:$2/trips" >"$4" 2>&1
}
rate() { grep -o '= [0-9]*/s' "$1" | head -1 | tr -d '= /s'; }
p99() { sed -n 's/.*p99 \([0-9.]*\) ms.*/\1/p' "$1" | head -1; }
latency() { grep '^latency' "$1"; }
reads() { wrk -t1 -c64 -d"${DURATION}s" "http://127.0.0.1:$1/trips/2" | awk '/^Requests\/sec:/ { printf "%.0f", $2 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# cpu_ticks PID...: the user and system CPU time the processes have used, in clock ticks.
cpu_ticks() {
  local pid total=0
  for pid in "$@"; do
    total=$((total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}
# postgres_ticks: the cluster's CPU time, in clock ticks: its postmaster's and its children's
# (backends, the WAL writer, ...), those that have exited too (pgbench's backends: the
# postmaster's cutime and cstime), and no other cluster's.
postgres_ticks() {
  local postmaster
  postmaster="$(head -1 "$POSTGRES_DIR/data/postmaster.pid")"
  echo $(($(awk '{ print $16 + $17 }' "/proc/$postmaster/stat") + $(cpu_ticks "$postmaster" $(pgrep -P "$postmaster"))))
}
# per_change TICKS CHANGES: microseconds of CPU per change.
per_change() { awk -v ticks="$1" -v changes="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.0f", ticks * 1e6 / hz / changes }'; }

# checkpoint: every step starts just after a checkpoint, so that each writes the same full
# page images (full_page_writes: the first change to a page after a checkpoint logs the whole
# page) rather than whichever step a checkpoint falls in.
checkpoint() {
  psql_admin -c "CHECKPOINT" >/dev/null
}

# at_once MIX CONNECTIONS NAME PORT...: wrk with CONNECTIONS on each instance at once; sets
# TOTAL (acknowledged changes/s, summed), WORST (the highest p99 of them, ms), and
# CPU_INSTANCES and CPU_POSTGRES (µs of CPU per change: every running instance's, and the
# cluster's), the summaries in WORK/NAME-<index>.out.
# write_transactions PORT...: the instances' write transactions so far, summed from their
# /metrics: "transactions changes replayed", the seconds of each phase (lock, catch_up,
# plan, commit) and how many were append transactions.
write_transactions() {
  local port
  for port in "$@"; do curl -fsS "http://127.0.0.1:$port/metrics"; done | awk '
    $1 == "trips_postgres_write_transactions_total" { t += $2 }
    $1 == "trips_postgres_append_transactions_total" { x += $2 }
    $1 == "trips_postgres_written_changes_total" { c += $2 }
    $1 == "trips_postgres_replayed_changes_total" { r += $2 }
    $1 ~ /^trips_postgres_write_transaction_seconds_total\{phase="/ { split($1, p, "\""); s[p[2]] += $2 }
    END { printf "%d %d %d %.9f %.9f %.9f %.9f %d\n", t, c, r, s["lock"], s["catch_up"], s["plan"], s["commit"], x }'
}

# transactions_row BEFORE AFTER: a row of the transactions table, from two write_transactions:
# how many, of them append transactions, their changes and replayed changes each, and each
# phase's milliseconds each.
transactions_row() {
  awk -v before="$1" -v after="$2" 'BEGIN {
    split(before, b, " "); split(after, a, " ")
    n = a[1] - b[1]; if (n <= 0) { print "| 0 | | | | | | | |"; exit }
    for (i = 1; i <= 8; i++) d[i] = a[i] - b[i]
    printf "| %d | %d | %.1f | %.1f | %.2f | %.2f | %.2f | %.2f |\n", n, d[8], d[2] / n, d[3] / n,
      d[4] * 1000 / n, d[5] * 1000 / n, d[6] * 1000 / n, d[7] * 1000 / n
  }'
}

at_once() {
  local mix="$1" connections="$2" name="$3" index=0 port waits=() instances_before postgres_before transactions_before
  shift 3
  checkpoint
  instances_before="$(cpu_ticks "${PIDS[@]}")"
  postgres_before="$(postgres_ticks)"
  transactions_before="$(write_transactions "$@")"
  for port in "$@"; do
    changes "$mix" "$port" "$connections" "$WORK/$name-$index.out" &
    waits+=($!)
    index=$((index + 1))
  done
  wait "${waits[@]}"
  TOTAL=0
  WORST=0
  for ((index = 0; index < $#; index++)); do
    TOTAL=$((TOTAL + $(rate "$WORK/$name-$index.out")))
    WORST="$(awk -v a="$WORST" -v b="$(p99 "$WORK/$name-$index.out")" 'BEGIN { print (b > a ? b : a) }')"
  done
  CPU_INSTANCES="$(per_change $(($(cpu_ticks "${PIDS[@]}") - instances_before)) $((TOTAL * DURATION)))"
  CPU_POSTGRES="$(per_change $(($(postgres_ticks) - postgres_before)) $((TOTAL * DURATION)))"
  TRANSACTIONS="$(transactions_row "$transactions_before" "$(write_transactions "$@")")"
}

# seed PORT: the two trips the reorders and merge patches of the mixes start from.
seed() {
  curl -fsS -X POST "http://127.0.0.1:$1/trips" -H 'Content-Type: text/plain' -d 'Lisbon, Portugal: 2 nights from May 1, 2027' >/dev/null
  curl -fsS -X POST "http://127.0.0.1:$1/trips" -H 'Content-Type: text/plain' -d 'Porto, Portugal: 2 nights from May 2, 2027' >/dev/null
}

# measure_startup: step 5. Stops the instances running, fills a database of its own with
# STARTUP_TRIPS trips, starts an instance on it three times; sets STARTUPS (ms to the listening
# line, each), CPU (the process's CPU ms then, each) and RESIDENT (MiB, the last); with
# CALLGRIND=1, starts it once more under callgrind and sets INSTRUCTIONS (to the listening
# line, every thread).
INSTRUCTIONS=""
measure_startup() {
  echo "== PostgreSQL: start-up with $STARTUP_TRIPS trips" >&2
  local pid began large_url
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  PIDS=()
  psql_admin -c "CREATE DATABASE trips_large OWNER trips" >/dev/null
  large_url="${TRIPS_TEST_DATABASE_URL/\/trips\?/\/trips_large?}"
  # The first start makes the tables; then a million rows go in as the server would write them.
  TRIPS_DATABASE_URL="$large_url" start
  kill -TERM "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true
  psql_admin -d trips_large -c "INSERT INTO trips (id, position, version, city, country, nights, is_favorite, image_name, price, start, notes)
    SELECT g, g::bigint * 65536, 1, 'City ' || g, 'Country ' || (g % 200), 1 + g % 30, g % 7 = 0, 'image-' || (g % 12),
      (g % 5000) + 0.99, 820454400 + g * 60.0, CASE WHEN g % 3 = 0 THEN 'Notes about trip ' || g ELSE '' END
    FROM generate_series(1, $STARTUP_TRIPS) AS g" \
    -c "UPDATE trips_state SET revision = 1, last_issued_id = $STARTUP_TRIPS" -c "VACUUM ANALYZE trips" >/dev/null
  STARTUPS=() CPU=()
  for _ in 1 2 3; do
    began="$(date +%s%N)"
    TRIPS_DATABASE_URL="$large_url" start
    STARTUPS+=("$(( ($(date +%s%N) - began) / 1000000 ))")
    # utime + stime, in clock ticks.
    CPU+=("$(awk -v hz="$(getconf CLK_TCK)" '{ printf "%d", ($14 + $15) * 1000 / hz }' "/proc/${PIDS[-1]}/stat")")
    RESIDENT="$(awk '/^VmRSS/ { printf "%d", $2 / 1024 }' "/proc/${PIDS[-1]}/status")"
    kill -TERM "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true
  done
  if [[ "$CALLGRIND" == 1 ]]; then
    WRAPPER=(valgrind --tool=callgrind --callgrind-out-file="$WORK/callgrind.out" --)
    TRIPS_DATABASE_URL="$large_url" start
    WRAPPER=()
    kill -TERM "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true
    INSTRUCTIONS="$(callgrind_annotate "$WORK/callgrind.out" 2>/dev/null | awk '/PROGRAM TOTALS/ { print $1 }')"
  fi
}
startup_line() {
  echo "start-up with $STARTUP_TRIPS trips on PostgreSQL: ${STARTUPS[*]} ms (the process's CPU ${CPU[*]} ms; resident ${RESIDENT} MiB once listening; start() looks for the line every 0.1 s)"
  [[ -z "$INSTRUCTIONS" ]] || echo "under callgrind: $INSTRUCTIONS instructions to the listening line (and its stop)"
}

# revision_of PORT: the revision the instance's list is at.
revision_of() {
  curl -fsS -o /dev/null -D - "http://127.0.0.1:$1/trips?limit=1" | tr -d '\r' | awk -F': ' 'tolower($1) == "trips-revision" { print $2 }'
}

# follow PORT TARGET: waits (ten minutes at most: callgrind is slow) until the instance on
# PORT has replayed up to revision TARGET.
follow() {
  local reached=""
  for _ in $(seq 3000); do
    reached="$(revision_of "$1")"
    [[ "$reached" != "$2" ]] || return 0
    sleep 0.2
  done
  echo "bench/postgres.sh: the follower stayed at $reached, the writer at $2" >&2
  exit 1
}

# settle: lets the follower finish what it does after its reads reach a revision: its second
# copy of the state takes the same changes after the swap (PostgresTripStore.publish), and
# under callgrind a batch of thousands takes seconds. Without it the count took in or left
# out a batch's second half at either end, and swung by a fifth between runs.
settle() {
  sleep 5
}

# measure_replay: step 6.
measure_replay() {
  echo "== PostgreSQL: the changes one instance replays, under callgrind" >&2
  local writer follower follower_pid from to dump
  TRIPS_DATABASE_URL="$TRIPS_TEST_DATABASE_URL" start --threads 1
  writer="$PORT"
  WRAPPER=(valgrind --tool=callgrind --callgrind-out-file="$WORK/replay.%p" --dump-instr=no --)
  TRIPS_DATABASE_URL="$TRIPS_TEST_DATABASE_URL" start --threads 1
  WRAPPER=()
  follower="$PORT" follower_pid="${PIDS[-1]}"
  changes creates "$writer" 8 "$WORK/replay-warm-up.out"  # the follower's tables and caches grown
  from="$(revision_of "$writer")"
  follow "$follower" "$from"
  settle
  callgrind_control --zero "$follower_pid" >/dev/null
  changes creates "$writer" 8 "$WORK/replay.out"
  to="$(revision_of "$writer")"
  follow "$follower" "$to"
  settle
  callgrind_control --dump=replay "$follower_pid" >/dev/null
  dump="$(ls "$WORK"/replay."$follower_pid".* | head -1)"
  REPLAYED=$((to - from))
  REPLAY_IR=$(($(callgrind_total "$dump") / REPLAYED))
  [[ -z "${BENCH_CALLGRIND_OUT:-}" ]] || cp "$dump" "$BENCH_CALLGRIND_OUT"
}

# measure_writer: step 7.
measure_writer() {
  echo "== PostgreSQL: the $WRITER_MIX one instance writes, under callgrind" >&2
  local writer_pid dump
  WRAPPER=(valgrind --tool=callgrind --callgrind-out-file="$WORK/writer.%p" --dump-instr=no --)
  TRIPS_DATABASE_URL="$TRIPS_TEST_DATABASE_URL" start --threads 1
  WRAPPER=()
  writer_pid="${PIDS[-1]}"
  DURATION=2 changes "$WRITER_MIX" "$PORT" 1 "$WORK/writer-warm-up.out"
  callgrind_control --zero "$writer_pid" >/dev/null
  changes "$WRITER_MIX" "$PORT" 1 "$WORK/writer.out"
  callgrind_control --dump=writer "$writer_pid" >/dev/null
  dump="$(ls "$WORK"/writer."$writer_pid".* | head -1)"
  WRITTEN="$(grep -o 'acknowledged [a-z]*: [0-9]*' "$WORK/writer.out" | grep -o '[0-9]*$')"
  WRITER_IR=$(($(callgrind_total "$dump") / WRITTEN))
  [[ -z "${BENCH_CALLGRIND_OUT:-}" ]] || cp "$dump" "$BENCH_CALLGRIND_OUT"
}

if [[ "$WRITER_ONLY" == 1 ]]; then
  measure_writer
  echo
  echo "trips-server $(git rev-parse --short HEAD 2>/dev/null || echo '?') (+ working tree), release, PostgreSQL $("$PG_BIN/postgres" --version | awk '{ print $3 }')"
  echo "$WRITER_MIX one instance writes: $WRITTEN acknowledged, $WRITER_IR instructions per change (every thread)"
  exit 0
fi

if [[ "$REPLAY_ONLY" == 1 ]]; then
  measure_replay
  echo
  echo "trips-server $(git rev-parse --short HEAD 2>/dev/null || echo '?') (+ working tree), release, PostgreSQL $("$PG_BIN/postgres" --version | awk '{ print $3 }')"
  echo "another instance's creates, replayed: $REPLAYED changes, $REPLAY_IR instructions per change (every thread of the follower)"
  exit 0
fi

if [[ "$STARTUP_ONLY" == 1 ]]; then
  measure_startup
  echo
  echo "trips-server $(git rev-parse --short HEAD 2>/dev/null || echo '?') (+ working tree), release, $(nproc) cores, PostgreSQL $("$PG_BIN/postgres" --version | awk '{ print $3 }')"
  startup_line
  exit 0
fi

journal_rate="" journal_reads=""
if [[ "$WRITES_ONLY" != 1 ]]; then
  echo "== journal: one instance, 64 connections" >&2
  start --data "$WORK/journal"
  journal_port="$PORT"
  seed "$journal_port"
  changes creates "$journal_port" 64 "$WORK/journal.out"
  journal_rate="$(rate "$WORK/journal.out")"
  journal_reads="$(reads "$journal_port")"
  kill -TERM "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true
  unset 'PIDS[-1]'
fi

echo "== PostgreSQL: pgbench, single-row INSERT transactions, 64 clients" >&2
TRIPS_DATABASE_URL="$TRIPS_TEST_DATABASE_URL" start  # in the environment: ps shows a command line
first="$PORT"
TRIPS_DATABASE_URL="$TRIPS_TEST_DATABASE_URL" start
second="$PORT"
seed "$first"
# The instances made the tables; pgbench writes a copy of `trips` (its indexes, checks and
# generated column; not its rows), over TCP as the instances' role does.
psql_admin -c "CREATE TABLE bench_trips (LIKE trips INCLUDING ALL)" -c "CREATE SEQUENCE bench_trips_id" \
  -c "ALTER TABLE bench_trips OWNER TO trips" -c "ALTER SEQUENCE bench_trips_id OWNER TO trips" >/dev/null
cat >"$WORK/pgbench.sql" <<'SQL'
INSERT INTO bench_trips (id, position, version, city, country, nights, is_favorite, image_name, price, start, notes)
VALUES (nextval('bench_trips_id'), currval('bench_trips_id') * 65536, 1, 'Bench ' || :client_id, 'Benchland', 3, false, '',
  199.99, 820454400, 'written by pgbench');
SQL
# pgbench_run NAME: pgbench for DURATION seconds; sets PGBENCH_RATE (transactions/s),
# PGBENCH_P99 (ms, from its per-transaction log) and PGBENCH_POSTGRES (µs of the cluster's CPU
# a transaction).
pgbench_run() {
  local name="$1" before
  checkpoint
  before="$(postgres_ticks)"
  "$PG_BIN/pgbench" -n -c 64 -j 2 -M prepared -T "$DURATION" -f "$WORK/pgbench.sql" \
    -l --log-prefix="$WORK/$name" "$TRIPS_TEST_DATABASE_URL" >"$WORK/$name.out" 2>&1 \
    || { cat "$WORK/$name.out" >&2; echo "bench/postgres.sh: pgbench failed" >&2; exit 1; }
  PGBENCH_RATE="$(awk '/^tps = / { printf "%.0f", $3 }' "$WORK/$name.out")"
  PGBENCH_POSTGRES="$(per_change $(($(postgres_ticks) - before)) $((PGBENCH_RATE * DURATION)))"
  # Each log line: client, transaction, latency in µs, script, epoch seconds, µs.
  PGBENCH_P99="$(cat "$WORK/$name".[0-9]* 2>/dev/null | awk 'NF >= 6 { print $3 }' | sort -n \
    | awk '{ latency[NR] = $1 } END { printf "%.2f", latency[int(NR * 0.99)] / 1000 }')"
}
pgbench_run pgbench-before
before_rate="$PGBENCH_RATE" before_p99="$PGBENCH_P99" before_postgres="$PGBENCH_POSTGRES"

echo "== PostgreSQL: one instance, 64 connections" >&2
at_once creates 64 one "$first"
one_rate="$TOTAL" one_p99="$WORST" one_cpu="$CPU_INSTANCES | $CPU_POSTGRES" one_transactions="$TRANSACTIONS"

echo "== PostgreSQL: two instances, 32 connections each" >&2
python3 - "$first" "$second" "$DURATION" >"$WORK/delay.out" <<'PYTHON' &
import http.client, socket, sys, threading, time
writer, follower, duration = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
stream = socket.create_connection(("127.0.0.1", follower))
stream.sendall(b"GET /trips/changes HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
arrivals = {}
def read():
    buffer = b""
    while True:
        chunk = stream.recv(65536)
        if not chunk:
            return
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        now = time.monotonic()
        for line in lines:
            if line.startswith(b"id: "):
                arrivals[int(line[4:])] = now
threading.Thread(target=read, daemon=True).start()
time.sleep(0.5)  # the creates of wrk are under way
answered = {}
for index in range(200):
    connection = http.client.HTTPConnection("127.0.0.1", writer, timeout=10)
    connection.request("POST", "/trips", body="Oslo, Norway: 2 nights from June 1, 2027", headers={"Content-Type": "text/plain"})
    response = connection.getresponse()
    response.read()
    if response.status == 201:
        answered[int(response.getheader("Trips-Revision"))] = time.monotonic()
    connection.close()
    time.sleep(0.01)
time.sleep(1)
delays = sorted((arrivals[revision] - at) * 1000 for revision, at in answered.items() if revision in arrivals)
missing = len(answered) - len(delays)
print(f"{len(delays)} events heard, {missing} missing; p50 {delays[len(delays) // 2]:.1f} ms, p99 {delays[int(len(delays) * 0.99)]:.1f} ms")
PYTHON
delay_pid=$!
at_once creates 32 two "$first" "$second"
wait "$delay_pid"
two_rate="$TOTAL" two_p99="$WORST" two_cpu="$CPU_INSTANCES | $CPU_POSTGRES" two_transactions="$TRANSACTIONS"
first_reads="$(reads "$first")"
second_reads="$(reads "$second")"

echo "== PostgreSQL: mixed changes on two instances, 32 connections each" >&2
at_once changes 32 mixed "$first" "$second"
mixed_rate="$TOTAL" mixed_p99="$WORST" mixed_cpu="$CPU_INSTANCES | $CPU_POSTGRES" mixed_transactions="$TRANSACTIONS"

# With BENCH_CONNECTION_STEPS=1: whether the instances or the connections each has decide four
# instances' rate (a batch holds at most an instance's connections): two with 16 each, before
# the others start, and four with 32 each, after.
connection_steps=() connection_rates=() connection_p99s=() connection_rest=() connection_transactions=()
connection_step() {
  local name="$1" connections="$2"
  shift 2
  echo "== PostgreSQL: $name, $connections connections each" >&2
  at_once creates "$connections" "c${connections}x$#" "$@"
  connection_steps+=("creates, $name ($connections each, $(($# * connections)) in all)")
  connection_rates+=("$TOTAL")
  connection_p99s+=("$WORST")
  connection_rest+=("$CPU_INSTANCES | $CPU_POSTGRES |")
  connection_transactions+=("| creates, $name ($connections each) $TRANSACTIONS")
}
[[ "$CONNECTION_STEPS" != 1 ]] || connection_step "two instances" 16 "$first" "$second"

echo "== PostgreSQL: four instances, 16 connections each" >&2
TRIPS_DATABASE_URL="$TRIPS_TEST_DATABASE_URL" start
third="$PORT"
TRIPS_DATABASE_URL="$TRIPS_TEST_DATABASE_URL" start
fourth="$PORT"
at_once creates 16 four "$first" "$second" "$third" "$fourth"
four_rate="$TOTAL" four_p99="$WORST" four_cpu="$CPU_INSTANCES | $CPU_POSTGRES" four_transactions="$TRANSACTIONS"
[[ "$CONNECTION_STEPS" != 1 ]] || connection_step "four instances" 32 "$first" "$second" "$third" "$fourth"

echo "== PostgreSQL: pgbench again" >&2
pgbench_run pgbench-after
after_rate="$PGBENCH_RATE" after_p99="$PGBENCH_P99" after_postgres="$PGBENCH_POSTGRES"
pgbench_rate=$(((before_rate + after_rate) / 2))

[[ "$WRITES_ONLY" == 1 ]] || measure_startup

echo
echo "trips-server $(git rev-parse --short HEAD 2>/dev/null || echo '?') (+ working tree), release, $(nproc) cores, PostgreSQL $("$PG_BIN/postgres" --version | awk '{ print $3 }') with fsync on, ${DURATION} s each"
echo "| what, 64 connections | changes/s | p99 | x pgbench | instances' CPU, µs a change | PostgreSQL's |"
echo "| --- | --- | --- | --- | --- | --- |"
echo "| pgbench, single-row INSERT transactions (the mean of the two below) | ${pgbench_rate} | | 1.00 | | |"
echo "| pgbench, before the instances' steps | ${before_rate} | ${before_p99} ms | $(ratio "$before_rate" "$pgbench_rate") | | ${before_postgres} |"
echo "| pgbench, after them | ${after_rate} | ${after_p99} ms | $(ratio "$after_rate" "$pgbench_rate") | | ${after_postgres} |"
echo "| creates, one instance (64) | ${one_rate} | ${one_p99} ms | $(ratio "$one_rate" "$pgbench_rate") | ${one_cpu} |"
echo "| creates, two instances (32 each) | ${two_rate} | ${two_p99} ms | $(ratio "$two_rate" "$pgbench_rate") | ${two_cpu} |"
echo "| creates, four instances (16 each) | ${four_rate} | ${four_p99} ms | $(ratio "$four_rate" "$pgbench_rate") | ${four_cpu} |"
echo "| mixed changes, two instances (32 each) | ${mixed_rate} | ${mixed_p99} ms | $(ratio "$mixed_rate" "$pgbench_rate") | ${mixed_cpu} |"
for index in "${!connection_steps[@]}"; do
  echo "| ${connection_steps[$index]} | ${connection_rates[$index]} | ${connection_p99s[$index]} ms | $(ratio "${connection_rates[$index]}" "$pgbench_rate") | ${connection_rest[$index]}"
done
[[ -z "$journal_rate" ]] || echo "| creates, one instance on its journal | ${journal_rate} | $(p99 "$WORK/journal.out") ms | $(ratio "$journal_rate" "$pgbench_rate") | | |"
echo
echo "The instances' write transactions in those steps (from their /metrics), each on average. A transaction of the present path waits for the state row's lock, then, with it held, catches up on the other instances' changes, plans, and sends the statements, flush and COMMIT. An append transaction (lone creates at the end) plans first, then sends everything at once: the wait for the lock (and the changes before the batch read) in lock wait, PostgreSQL's writing, flush and COMMIT in commit; it catches up last, without the lock:"
echo "| what | transactions | appends | changes | replayed | lock wait, ms | catch-up, ms | plan, ms | commit, ms |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
echo "| creates, one instance ${one_transactions}"
echo "| creates, two instances ${two_transactions}"
echo "| creates, four instances ${four_transactions}"
echo "| mixed changes, two instances ${mixed_transactions}"
((${#connection_transactions[@]} == 0)) || printf '%s\n' "${connection_transactions[@]}"
echo "per instance: $(for out in "$WORK"/one-*.out "$WORK"/two-*.out "$WORK"/four-*.out "$WORK"/mixed-*.out; do printf '%s: %s/s, %s, %s; ' "$(basename "$out" .out)" "$(rate "$out")" "$(grep -o 'other answers: [0-9]*' "$out")" "$(latency "$out")"; done)"
echo "a write on the first instance to its event on the second's feed, under the creates of two instances: $(cat "$WORK/delay.out")"
[[ -z "$journal_reads" ]] || echo "GET /trips/2, 64 connections: journal ${journal_reads}/s; PostgreSQL first ${first_reads}/s, second ${second_reads}/s"
[[ "$WRITES_ONLY" == 1 ]] || startup_line
