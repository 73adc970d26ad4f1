#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the live tests of the PostgreSQL client.
#
#   eval "$(scripts/lib/postgres.sh start /tmp/trips-pg)" # prints export lines
#   swift test --skip-build --filter PostgresLiveTests
#   scripts/lib/postgres.sh stop /tmp/trips-pg             # stops it and deletes the folder
#
# start DIR: initdb in DIR/data as the unprivileged user postgres (PostgreSQL refuses to run
# as root; run as another user, the cluster is that user's), listening on a Unix socket in
# DIR/socket and on a free port of 127.0.0.1 (a random port; another is tried when one is
# taken). Roles, in pg_hba.conf order:
#   postgres     trust over the Unix socket              TRIPS_TEST_DATABASE_SOCKET_URL
#   trips        scram-sha-256 over TCP, owns "trips"    TRIPS_TEST_DATABASE_URL
#   trips_md5    md5 over TCP (an MD5-stored password)   TRIPS_TEST_DATABASE_MD5_URL (require_auth=md5)
#   trips_plain  password (cleartext) over TCP           TRIPS_TEST_DATABASE_PLAIN_URL (require_auth=password)
# Passwords are random, new for each cluster, and printed only in the export lines. The
# cluster trades durability for speed (fsync off): it is for tests only.
# restart DIR: pg_ctl restart -m fast, on the same port (for drills of a database restart).
# stop DIR: pg_ctl stop -m fast (sessions are ended, no wait for clients), then deletes DIR.
#
# Needs Debian's postgresql (its binaries in /usr/lib/postgresql/VERSION/bin): installed with
# apt-get when run as root, otherwise named (scripts/lib/require.sh). The install starts no
# server. Everything but the export lines goes to standard error.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/require.sh

usage() { echo "usage: scripts/lib/postgres.sh start|restart|stop DIR" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
command="$1"
[[ "$2" == /* ]] || die "DIR must be an absolute path (it is written into the URLs): $2"
dir="${2%/}"
marker="$dir/.trips-postgres"

# pg_bin: the bin folder of the newest PostgreSQL in /usr/lib/postgresql.
pg_bin() {
  local bin found=""
  for bin in /usr/lib/postgresql/*/bin; do
    [[ -x "$bin/initdb" ]] && found+="$bin"$'\n'
  done
  [[ -n "$found" ]] && printf '%s' "$found" | sort -V | tail -1
}

# as_owner COMMAND...: runs COMMAND as the cluster's owner (postgres when we are root).
as_owner() {
  if [[ "$(id -u)" == 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# random_hex: 24 hex digits, for a password that needs no percent-encoding in a URL.
random_hex() { od -An -N12 -tx1 /dev/urandom | tr -d ' \n'; }

start() {
  local bin
  bin="$(pg_bin)" || true
  if [[ -z "$bin" ]]; then
    can_install || die "PostgreSQL is missing (no /usr/lib/postgresql/*/bin/initdb); install it with: sudo apt-get install -y postgresql"
    apt_install postgresql
    bin="$(pg_bin)" || die "PostgreSQL is still missing after apt-get install -y postgresql"
  fi
  if [[ "$(id -u)" == 0 ]]; then
    id postgres >/dev/null 2>&1 || die "there is no user postgres to run the cluster as (Debian's postgresql package makes one)"
  fi
  if [[ -e "$dir" ]]; then
    [[ -z "$(ls -A "$dir")" ]] || die "$dir is not empty; stop the cluster in it (scripts/lib/postgres.sh stop $dir) or pick another folder"
  fi
  mkdir -p "$dir/socket"
  touch "$marker"
  [[ "$(id -u)" == 0 ]] && chown -R postgres: "$dir"
  as_owner test -w "$dir" -a -x "$dir" || die "the user postgres cannot write to $dir (is a parent folder closed to it?); use a folder under /tmp"

  echo "postgres.sh: initdb in $dir/data ($("$bin/postgres" --version))" >&2
  as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth-local=trust --auth-host=reject \
    --encoding=UTF8 --no-locale >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; die "initdb failed"; }

  cat >>"$dir/data/postgresql.conf" <<EOF

# scripts/lib/postgres.sh: a throwaway test cluster
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir/socket'
# The whole suite runs its live tests in parallel: 80 sessions at once were seen, past 100 in one
# CI run ("too many clients"). Each slot costs the cluster a few hundred KB.
max_connections = 300
shared_buffers = 32MB
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
  cat >"$dir/data/pg_hba.conf" <<'EOF'
# scripts/lib/postgres.sh: one authentication method per test user.
# TYPE  DATABASE  USER         ADDRESS       METHOD
local   all       postgres                   trust
host    all       trips        127.0.0.1/32  scram-sha-256
host    all       trips_md5    127.0.0.1/32  md5
host    all       trips_plain  127.0.0.1/32  password
EOF

  local port=""
  for _ in 1 2 3 4 5 6 7 8; do
    local candidate=$((20000 + RANDOM % 12000))
    local socket_path="$dir/socket/.s.PGSQL.$candidate"
    ((${#socket_path} <= 107)) || die "the socket path $socket_path is longer than a Unix socket address holds; use a shorter DIR"
    # Bind and see, rather than probe a port and hope it stays free.
    if as_owner "$bin/pg_ctl" start -D "$dir/data" -l "$dir/server.log" -w -t 30 -o "-p $candidate" >/dev/null 2>&1; then
      port=$candidate
      break
    fi
    grep -q "could not bind\|Address already in use" "$dir/server.log" 2>/dev/null \
      || { tail -n 20 "$dir/server.log" >&2 2>/dev/null; die "pg_ctl start failed (log: $dir/server.log)"; }
    echo "postgres.sh: port $candidate is taken; trying another" >&2
  done
  [[ -n "$port" ]] || die "found no free port in 8 tries"

  local trips_password md5_password plain_password
  trips_password="$(random_hex)"
  md5_password="$(random_hex)"
  plain_password="$(random_hex)"
  "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir/socket" -p "$port" -U postgres -d postgres \
    -v trips_password="$trips_password" -v md5_password="$md5_password" -v plain_password="$plain_password" \
    >"$dir/setup.log" 2>&1 <<'SQL' || { cat "$dir/setup.log" >&2; die "creating the roles and the database failed"; }
CREATE ROLE trips LOGIN PASSWORD :'trips_password';
-- md5 in pg_hba.conf answers with SCRAM for a SCRAM-stored password: store this one as MD5.
SET password_encryption = 'md5';
CREATE ROLE trips_md5 LOGIN PASSWORD :'md5_password';
RESET password_encryption;
CREATE ROLE trips_plain LOGIN PASSWORD :'plain_password';
CREATE DATABASE trips OWNER trips;
SQL
  echo "postgres.sh: running on 127.0.0.1:$port and $dir/socket; stop it with: scripts/lib/postgres.sh stop $dir" >&2

  echo "export TRIPS_TEST_DATABASE_URL='postgres://trips:$trips_password@127.0.0.1:$port/trips?sslmode=disable'"
  echo "export TRIPS_TEST_DATABASE_SOCKET_URL='postgres://postgres@/trips?host=$dir/socket&port=$port'"
  # The client sends an MD5 digest or a cleartext password only when require_auth says so.
  echo "export TRIPS_TEST_DATABASE_MD5_URL='postgres://trips_md5:$md5_password@127.0.0.1:$port/trips?require_auth=md5'"
  echo "export TRIPS_TEST_DATABASE_PLAIN_URL='postgres://trips_plain:$plain_password@127.0.0.1:$port/trips?require_auth=password'"
}

restart() {
  [[ -e "$marker" ]] || die "$dir holds no cluster of scripts/lib/postgres.sh"
  local bin
  bin="$(pg_bin)" || die "PostgreSQL is missing (no /usr/lib/postgresql/*/bin/pg_ctl)"
  as_owner "$bin/pg_ctl" restart -D "$dir/data" -l "$dir/server.log" -m fast -w -t 60 >&2 || die "pg_ctl restart failed"
}

stop() {
  [[ -e "$marker" ]] || die "$dir holds no cluster of scripts/lib/postgres.sh"
  local bin
  bin="$(pg_bin)" || die "PostgreSQL is missing (no /usr/lib/postgresql/*/bin/pg_ctl)"
  if [[ -f "$dir/data/postmaster.pid" ]]; then
    as_owner "$bin/pg_ctl" stop -D "$dir/data" -m fast -w -t 60 >&2 || die "pg_ctl stop failed; the cluster in $dir is left as it is"
  fi
  rm -rf "$dir"
  echo "postgres.sh: stopped; $dir deleted" >&2
}

case "$command" in
  start) start ;;
  restart) restart ;;
  stop) stop ;;
  *) usage ;;
esac
