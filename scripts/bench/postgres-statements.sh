#!/usr/bin/env bash
# scripts/bench/postgres-statements.sh - where two instances' writes spend the database's time:
# a throwaway cluster with fsync on and pg_stat_statements loaded, two release instances on it,
# wrk with 32 connections on each (scripts/bench/writes.lua, BENCH_MIX), then the statements by
# total time (calls, ms, mean, rows, buffer hits) and the tables' scans. What #33's notes quote
# ("UPDATE trips 6,079 calls, 1.79 s"); run it before and after a change to the write path.
#
#   scripts/bench/postgres-statements.sh                      # creates, 10 s
#   BENCH_MIX=changes BENCH_DURATION=15 scripts/bench/postgres-statements.sh
#   BENCH_PORTS="18601 18602" ...                             # the instances' ports (defaults)
#
# Needs wrk, curl and PostgreSQL (installed with apt-get when run as root; its
# pg_stat_statements comes with it). Stops the instances and the cluster on any exit.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/lib/require.sh"
source "$ROOT/scripts/lib/build.sh"
source "$ROOT/scripts/lib/server.sh"
source "$ROOT/scripts/lib/bench-cluster.sh"
require_tool wrk wrk
require_tool curl curl
cd "$ROOT"
BINARY="$(build_release_server)"
MIX="${BENCH_MIX:-creates}"
DURATION="${BENCH_DURATION:-10}"
read -r -a PORTS <<<"${BENCH_PORTS:-18601 18602}"

bench_cluster_start statements "shared_preload_libraries = 'pg_stat_statements'"
psql_admin -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null

for port in "${PORTS[@]}"; do
  TRIPS_DATABASE_URL="$TRIPS_TEST_DATABASE_URL" run_server "$BINARY" --port "$port" --log-level warning --no-samples \
    >"$WORK/server-$port.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.1; done
done
# The two trips the mixes' reorders and merge patches start from.
for city in "Lisbon, Portugal: 2 nights from May 1, 2027" "Porto, Portugal: 2 nights from May 2, 2027"; do
  curl -fsS -X POST "http://127.0.0.1:${PORTS[0]}/trips" -H 'Content-Type: text/plain' -d "$city" >/dev/null
done
psql_admin -c "SELECT pg_stat_statements_reset()" >/dev/null
waits=()
for port in "${PORTS[@]}"; do
  BENCH_MIX="$MIX" wrk -t1 -c32 -d"${DURATION}s" -s scripts/bench/writes.lua "http://127.0.0.1:$port/trips" >"$WORK/wrk-$port.out" 2>&1 &
  waits+=($!)
done
wait "${waits[@]}"
for port in "${PORTS[@]}"; do echo "instance on $port: $(grep acknowledged "$WORK/wrk-$port.out")"; done
psql_admin -c "SELECT calls, round(total_exec_time::numeric, 1) AS ms, round(mean_exec_time::numeric, 3) AS mean, rows,
    shared_blks_hit AS hit, left(regexp_replace(query, '\s+', ' ', 'g'), 110) AS query
  FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 14"
psql_admin -c "SELECT relname, n_live_tup, n_dead_tup, seq_scan, seq_tup_read, idx_scan FROM pg_stat_user_tables
  ORDER BY seq_tup_read DESC"
