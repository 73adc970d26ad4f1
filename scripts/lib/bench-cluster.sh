# scripts/lib/bench-cluster.sh - the throwaway PostgreSQL cluster a benchmark runs on, with the
# durability the test cluster trades for speed back on (fsync, synchronous_commit,
# full_page_writes), and the cleanup of what the benchmark started. Sourced by the scripts in
# scripts/bench after require.sh, build.sh and server.sh:
#
#   bench_cluster_start statements "shared_preload_libraries = 'pg_stat_statements'"
#   run_server "$BINARY" ... & PIDS+=($!)     # killed, with the cluster stopped, on any exit
#   psql_admin -c "SELECT 1"                  # a superuser session on the cluster's database
#
# bench_cluster_start NAME [SETTING...]: makes WORK (the benchmark's folder) and POSTGRES_DIR
# (the cluster's: its owner, postgres, cannot enter WORK, which is root's alone), starts the
# cluster and exports its TRIPS_TEST_DATABASE_* URLs, sets PG_BIN, and turns durability on with
# SETTINGs on top (ALTER SYSTEM; a restart when there are any, which some settings need).
PIDS=()

bench_cluster_start() {
  local name="$1" setting exports
  shift
  WORK="$(mktemp -d "/tmp/trips-bench-$name.XXXXXX")"
  POSTGRES_DIR="$(mktemp -d "/tmp/trips-bench-$name-pg.XXXXXX")"
  trap bench_cluster_cleanup EXIT
  trap 'exit 130' INT TERM
  exports="$("$TRIPS_ROOT/scripts/lib/postgres.sh" start "$POSTGRES_DIR")"
  eval "$exports"
  # shellcheck disable=SC2012 # the versions are numbers
  PG_BIN="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
  local statements=()
  for setting in "fsync = on" "synchronous_commit = on" "full_page_writes = on" "$@"; do
    statements+=(-c "ALTER SYSTEM SET $setting")
  done
  psql_admin "${statements[@]}" >/dev/null
  if (($# == 0)); then
    psql_admin -c "SELECT pg_reload_conf()" >/dev/null
  else
    "$TRIPS_ROOT/scripts/lib/postgres.sh" restart "$POSTGRES_DIR" >/dev/null
  fi
}

psql_admin() {
  local as=(runuser -u postgres --)
  [[ "$(id -u)" == 0 ]] || as=()
  "${as[@]}" psql -X -q -h "$POSTGRES_DIR/socket" -p "${TRIPS_TEST_DATABASE_SOCKET_URL##*port=}" -d trips "$@"
}

bench_cluster_cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  [[ ! -e "$POSTGRES_DIR/.trips-postgres" ]] || "$TRIPS_ROOT/scripts/lib/postgres.sh" stop "$POSTGRES_DIR" >/dev/null 2>&1 || true
  rm -rf "$WORK" "$POSTGRES_DIR"
}
