#!/usr/bin/env bash
# scripts/bench/postgres.sh - trips-server on PostgreSQL (two instances on one database)
# against the embedded journal, on this machine (issue #17's speed figures).
#
#   1. Acknowledged creates per second at 64 connections: wrk (scripts/bench/writes.lua) with
#      32 connections on each of the two instances at once, against one instance on a data
#      folder with all 64. PostgreSQL runs with fsync and synchronous_commit on, as the
#      journal syncs every answer.
#   2. GET /trips/2 per instance (served from memory), against the journal's server.
#   3. The delay from a write's answer on one instance to its event on the other's change
#      feed, p50 and p99, for 200 writes (one every 10 ms) while both instances take the
#      creates of step 1.
#   4. Start-up with 1,000,000 trips in the tables (written straight with SQL), from exec to
#      the "listening" line, three times, and the server's resident memory then: what an
#      instance added behind the balancer takes to join.
#
#   scripts/bench/postgres.sh
#   BENCH_DURATION=5 scripts/bench/postgres.sh
#
# Nothing is pinned: the two instances, PostgreSQL and wrk share the machine's cores, and the
# journal's server gets the same. Needs wrk, curl, python3 and PostgreSQL (installed with
# apt-get when run as root; scripts/lib/require.sh). Stops everything it started, and removes
# its folders, on any exit.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/lib/require.sh"
source "$ROOT/scripts/lib/build.sh"
source "$ROOT/scripts/lib/server.sh"
DURATION="${BENCH_DURATION:-10}"

require_tool wrk wrk
require_tool curl curl
require_tool python3 python3
cd "$ROOT"
BINARY="$(build_release_server)"

WORK="$(mktemp -d /tmp/trips-bench-postgres.XXXXXX)"
# A folder of its own: the cluster's owner (postgres) cannot enter WORK, which is root's alone.
POSTGRES_DIR="$(mktemp -d /tmp/trips-bench-pg.XXXXXX)"
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  [[ ! -e "$POSTGRES_DIR/.trips-postgres" ]] || scripts/lib/postgres.sh stop "$POSTGRES_DIR" >/dev/null 2>&1 || true
  rm -rf "$WORK" "$POSTGRES_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

exports="$(scripts/lib/postgres.sh start "$POSTGRES_DIR")"
eval "$exports"
# The test cluster trades durability for speed; the benchmark wants it back.
psql_admin() { runuser -u postgres -- psql -X -q -h "$POSTGRES_DIR/socket" -p "${TRIPS_TEST_DATABASE_SOCKET_URL##*port=}" -d trips "$@"; }
if [[ "$(id -u)" != 0 ]]; then psql_admin() { psql -X -q -h "$POSTGRES_DIR/socket" -p "${TRIPS_TEST_DATABASE_SOCKET_URL##*port=}" -d trips "$@"; }; fi
psql_admin -c "ALTER SYSTEM SET fsync = on" -c "ALTER SYSTEM SET synchronous_commit = on" \
  -c "ALTER SYSTEM SET full_page_writes = on" -c "SELECT pg_reload_conf()" >/dev/null

# start ARGS...: a release server on a free port; sets PORT once it listens. Not to be run
# in a subshell ($(start …)): its process id must reach PIDS here, for the cleanup.
start() {
  local log="$WORK/server-$RANDOM.log"
  PORT=""
  run_server "$BINARY" --port 0 --log-level warning --no-samples "$@" >"$log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 600); do
    PORT="$(sed -n 's/.*listening on http:\/\/127\.0\.0\.1:\([0-9]*\)$/\1/p' "$log")"
    [[ -z "$PORT" ]] || break
    sleep 0.1
  done
  [[ -n "$PORT" ]] || { cat "$log" >&2; echo "bench/postgres.sh: a server did not start" >&2; exit 1; }
}

# creates PORT CONNECTIONS OUT: wrk creates for DURATION seconds, its summary in OUT.
creates() {
  BENCH_MIX=creates wrk -t1 -c"$2" -d"${DURATION}s" -s scripts/bench/writes.lua "http://127.0.0.1:$1/trips" >"$3" 2>&1
}
rate() { grep -o '= [0-9]*/s' "$1" | head -1 | tr -d '= /s'; }
latency() { grep '^latency' "$1"; }
reads() { wrk -t1 -c64 -d"${DURATION}s" "http://127.0.0.1:$1/trips/2" | awk '/^Requests\/sec:/ { printf "%.0f", $2 }'; }

echo "== journal: one instance, 64 connections" >&2
start --data "$WORK/journal"
journal_port="$PORT"
curl -fsS -X POST "http://127.0.0.1:$journal_port/trips" -H 'Content-Type: text/plain' -d 'Lisbon, Portugal: 2 nights from May 1, 2027' >/dev/null
curl -fsS -X POST "http://127.0.0.1:$journal_port/trips" -H 'Content-Type: text/plain' -d 'Porto, Portugal: 2 nights from May 2, 2027' >/dev/null
creates "$journal_port" 64 "$WORK/journal.out"
journal_reads="$(reads "$journal_port")"

echo "== PostgreSQL: two instances, 32 connections each" >&2
TRIPS_DATABASE_URL="$TRIPS_TEST_DATABASE_URL" start  # in the environment: ps shows a command line
first="$PORT"
TRIPS_DATABASE_URL="$TRIPS_TEST_DATABASE_URL" start  # in the environment: ps shows a command line
second="$PORT"
curl -fsS -X POST "http://127.0.0.1:$first/trips" -H 'Content-Type: text/plain' -d 'Lisbon, Portugal: 2 nights from May 1, 2027' >/dev/null
curl -fsS -X POST "http://127.0.0.1:$first/trips" -H 'Content-Type: text/plain' -d 'Porto, Portugal: 2 nights from May 2, 2027' >/dev/null
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
creates "$first" 32 "$WORK/first.out" &
wrk_first=$!
creates "$second" 32 "$WORK/second.out"
wait "$wrk_first"
wait "$delay_pid"
postgres_rate=$(($(rate "$WORK/first.out") + $(rate "$WORK/second.out")))
first_reads="$(reads "$first")"
second_reads="$(reads "$second")"

echo "== PostgreSQL: start-up with 1,000,000 trips" >&2
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
  FROM generate_series(1, 1000000) AS g" \
  -c "UPDATE trips_state SET revision = 1, last_issued_id = 1000000" -c "VACUUM ANALYZE trips" >/dev/null
startups=()
for _ in 1 2 3; do
  began="$(date +%s%N)"
  TRIPS_DATABASE_URL="$large_url" start
  startups+=("$(( ($(date +%s%N) - began) / 1000000 ))")
  resident="$(awk '/^VmRSS/ { printf "%d", $2 / 1024 }' "/proc/${PIDS[-1]}/status")"
  kill -TERM "${PIDS[-1]}"; wait "${PIDS[-1]}" 2>/dev/null || true
done

echo
echo "trips-server $(git rev-parse --short HEAD 2>/dev/null || echo '?') (+ working tree), release, $(nproc) cores, PostgreSQL $("$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/postgres" --version | awk '{ print $3 }') with fsync on"
echo "creates, 64 connections: journal $(rate "$WORK/journal.out")/s ($(latency "$WORK/journal.out")); two instances on PostgreSQL ${postgres_rate}/s: first $(rate "$WORK/first.out")/s ($(latency "$WORK/first.out")), second $(rate "$WORK/second.out")/s ($(latency "$WORK/second.out")); ratio $(awk -v a="$postgres_rate" -v b="$(rate "$WORK/journal.out")" 'BEGIN { printf "%.2f", a / b }')"
echo "GET /trips/2, 64 connections: journal ${journal_reads}/s; PostgreSQL first ${first_reads}/s, second ${second_reads}/s"
echo "a write on the first instance to its event on the second's feed, under those creates: $(cat "$WORK/delay.out")"
echo "start-up with 1,000,000 trips on PostgreSQL: ${startups[*]} ms (resident ${resident} MiB once listening; start() looks for the line every 0.1 s)"
