#!/usr/bin/env bash
# kill -9 drill and full-disk drill against a release build (scripts/crash_drill.py says what
# each checks).
#
#   scripts/crash-drill.sh [rounds]     # default 20 rounds, then the full-disk drill
#
# Environment: SEED (the round's random choices; printed), FSIZE (the file size limit of
# the full-disk drill, default 65536 bytes). Exits non-zero on any failure.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-20}
scratch=.build-drill-release

swift build -c release --product trips-server --scratch-path "$scratch" >/dev/null
server="$(swift build -c release --scratch-path "$scratch" --show-bin-path)/trips-server"

seed_args=()
[[ -n "${SEED:-}" ]] && seed_args=(--seed "$SEED")
# Bounded: each round takes a few seconds; the whole drill must not hang CI or a terminal.
exec timeout --kill-after=10 $((60 + rounds * 30)) \
    python3 scripts/crash_drill.py --server "$server" --rounds "$rounds" --fsize "${FSIZE:-65536}" "${seed_args[@]}"
