#!/usr/bin/env bash
# kill -9 drill and full-disk drill against a release build (scripts/drills/crash_drill.py
# says what each checks).
#
#   scripts/drills/crash.sh [rounds]    # default 20 rounds, then the full-disk drill
#
# Environment: SEED (the round's random choices; printed), FSIZE (the file size limit of
# the full-disk drill, default 65536 bytes), COMPACT_AFTER (the server's --compact-after in
# the kill rounds, default 200: small, so that kills land during compactions; each round
# says when one did). Exits non-zero on any failure.
# Needs python3 and prlimit (util-linux): installed with apt-get when run as root, otherwise
# named (scripts/lib/require.sh). Builds in the release folder the other drills share
# (scripts/lib/build.sh). crash_drill.py kills every server it starts when it exits.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/require.sh
source scripts/lib/build.sh
rounds=${1:-20}
[[ "$rounds" =~ ^[0-9]+$ ]] || { echo "usage: scripts/drills/crash.sh [rounds]" >&2; exit 2; }

require_tool python3 python3
require_tool prlimit util-linux
require_tool timeout coreutils
server="$(build_release_server)"

seed_args=()
[[ -n "${SEED:-}" ]] && seed_args=(--seed "$SEED")
# Bounded: each round takes a few seconds; the whole drill must not hang CI or a terminal.
exec timeout --kill-after=10 $((60 + rounds * 30)) \
    python3 scripts/drills/crash_drill.py --server "$server" --rounds "$rounds" --fsize "${FSIZE:-65536}" \
    --compact-after "${COMPACT_AFTER:-200}" "${seed_args[@]}"
