#!/usr/bin/env bash
# scripts/bench.sh - GET /trips/2 (JSON) from trips-server, side by side with nginx and
# Node.js, through the shared harness ../shared/bench/peers.sh (see its README).
#
# Builds the release binary, then runs the harness with our server as the candidate:
# in memory, on the port the harness picks, pinned to one core by the harness. Every
# argument is passed through to the harness:
#
#   scripts/bench.sh                                  # nginx, node, ours at 1/16/64/256 conns
#   scripts/bench.sh --rounds 3 --out /tmp/bench.md   # medians over 3 interleaved rounds
#   scripts/bench.sh --peers none --conns 64 --duration 2   # quick look at ours alone
#   TRIPS_BENCH_ACCESS_LOG=1 scripts/bench.sh         # with the access log on (to /dev/null)
#
# Environment:
#   TRIPS_BENCH_ACCESS_LOG=1   log every request (--log-level info), as in production;
#                              the default is --log-level warning, like nginx's `access_log off`.
#   TRIPS_BENCH_THREADS        event loops (default 1: the harness gives every server one core,
#                              as nginx gets `worker_processes 1`; two loops on one core measured
#                              the same req/s with a 2-3x worse p99)
#   TRIPS_BENCH_PEERS          peers when no --peers is given (default nginx,node)
#   TRIPS_BENCH_SCRATCH        SwiftPM scratch path (default .build-perf-release)
#   TRIPS_BENCH_NO_BUILD=1     use the binary already built
#
# The harness starts every server and wrk in its own session and stops each of them, by
# process group, on any exit; this script starts nothing else that outlives it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HARNESS="$ROOT/../shared/bench/peers.sh"
SCRATCH="${TRIPS_BENCH_SCRATCH:-.build-perf-release}"
[[ -x "$HARNESS" || -f "$HARNESS" ]] || { echo "bench.sh: no harness at $HARNESS" >&2; exit 2; }

cd "$ROOT"
if [[ "${TRIPS_BENCH_NO_BUILD:-0}" != 1 ]]; then
  swift build -c release --product trips-server --scratch-path "$SCRATCH" >&2
fi
BINARY="$ROOT/$SCRATCH/release/trips-server"
[[ -x "$BINARY" ]] || { echo "bench.sh: $BINARY was not built" >&2; exit 2; }

LOG_LEVEL=warning
NAME=trips
if [[ "${TRIPS_BENCH_ACCESS_LOG:-0}" == 1 ]]; then
  LOG_LEVEL=info
  NAME=trips-logging
fi

# Peers default to nginx and node (uvicorn is slow to install and not a goal here),
# unless the caller names them.
PEER_ARGS=(--peers "${TRIPS_BENCH_PEERS:-nginx,node}")
for arg in "$@"; do
  [[ "$arg" == --peers ]] && PEER_ARGS=()
done

# The harness runs the command as `bash -c "exec CMD"`. The access log goes to stdout, which
# goes to /dev/null: we measure formatting and writing the lines, not a disk.
exec bash "$HARNESS" "${PEER_ARGS[@]}" \
  --candidate-cmd "'$BINARY' --in-memory --host 127.0.0.1 --port {PORT} --threads ${TRIPS_BENCH_THREADS:-1} --log-level $LOG_LEVEL >/dev/null" \
  --candidate-url 'http://127.0.0.1:{PORT}/trips/2' \
  --candidate-name "$NAME" \
  "$@"
