#!/usr/bin/env bash
# Two trips-server instances on one PostgreSQL, behind Debian's nginx with the config deploy/
# ships (deploy/trips.conf.template): writes and reads through the balancer, the change feed
# across instances, a conditional race, kill -9 of an instance and a restart of PostgreSQL
# under writes, and the history every instance's change feed told against the acknowledged writes
# (scripts/drills/balancer_drill.py says what each checks).
#
#   scripts/drills/balancer.sh
#
# Starts a throwaway cluster (scripts/lib/postgres.sh; the instances log in with
# scram-sha-256 over TCP) and stops it at the end. Needs python3 and nginx: installed with
# apt-get when run as root, otherwise named (scripts/lib/require.sh). Builds in the release
# folder the other drills share (scripts/lib/build.sh). Exits non-zero when a check fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/require.sh
source scripts/lib/build.sh

require_tool python3 python3
require_tool nginx nginx
require_tool timeout coreutils
server="$(build_release_server)"

postgres_dir="$(mktemp -d /tmp/trips-balancer-pg.XXXXXX)"
trap 'scripts/lib/postgres.sh stop "$postgres_dir" >/dev/null 2>&1 || true' EXIT
# In two steps: eval "$(…)" alone would hide a failed start behind eval's own success.
postgres_exports="$(scripts/lib/postgres.sh start "$postgres_dir")"
eval "$postgres_exports"

# -B: no __pycache__ left beside the drill for the module it imports (feed_history.py).
timeout --kill-after=10 300 python3 -B scripts/drills/balancer_drill.py --server "$server" \
  --database "$TRIPS_TEST_DATABASE_URL" --template deploy/trips.conf.template \
  --restart-command "scripts/lib/postgres.sh restart $postgres_dir"
