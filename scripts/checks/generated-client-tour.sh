#!/usr/bin/env bash
# Generates a Python client from openapi.yaml with openapi-python-client, then walks the
# README's tour through it (scripts/checks/generated_client_tour.py) against a live release
# build on a fresh data folder. Fails if the generator fails, prints a warning that is not in
# the allow-list below (README.md, "A client generated from the spec", says why each is
# expected), no longer prints one that is (so the list and the README stay true), or if a
# step of the tour gets an answer it should not. Stops all it starts.
#
# Usage: scripts/checks/generated-client-tour.sh
#
# The generator comes from PyPI into the checks' virtual environment, TRIPS_CHECKS_VENV
# (default .build/checks-venv, shared with scripts/checks/outside.sh, which runs this script
# last); its settings are in scripts/checks/openapi-python-client.yaml. The server is the
# release build the other scripts share (scripts/lib/build.sh; TRIPS_NO_BUILD=1 uses the one
# built).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/require.sh
source scripts/lib/build.sh
source scripts/lib/server.sh

# The warnings openapi.yaml is expected to give, as "HEADER | DETAIL" of each warning the
# generator prints, with the reason (README.md says the same).
declare -A allowed_warnings=(
  ['WARNING parsing POST /trips within trips. | Unsupported content type text/plain']='the generator writes request bodies only as JSON, forms or octet-stream: create_trip takes JSON drafts, not sentences'
  ['WARNING parsing POST /favorites within favorites. | Unsupported content type text/plain']='the same: drop_favorites takes JSON ids and trips, not lines of cities or sentences'
  ['WARNING parsing PATCH /favorites within favorites. | Unsupported content type text/plain']='the same for drop_favorites_with_patch'
)

venv="${TRIPS_CHECKS_VENV:-.build/checks-venv}"
require_pip "$venv" 'openapi-python-client>=0.29,<0.30'

make_scratch

echo "== $("$venv/bin/openapi-python-client" --version) generate --path openapi.yaml"
mkdir -p "$work/client"
status=0
NO_COLOR=1 "$venv/bin/openapi-python-client" generate --path openapi.yaml \
  --config scripts/checks/openapi-python-client.yaml --meta none \
  --output-path "$work/client/trips_client" >"$work/generate.log" 2>&1 || status=$?
if [ "$status" != 0 ]; then
  cat "$work/generate.log"
  echo "openapi-python-client failed (exit $status)"
  exit 1
fi

# Every warning printed must be allowed, and every allowed one printed. The output is a
# header line, a blank line, a detail line, then the part of the spec at fault as indented
# JSON (from "{" to "}" at the start of a line), for each warning.
allowed_file="$work/allowed"
for key in "${!allowed_warnings[@]}"; do printf '%s\t%s\n' "$key" "${allowed_warnings[$key]}"; done >"$allowed_file"
"$venv/bin/python" - "$work/generate.log" "$allowed_file" <<'PYTHON'
import re
import sys

lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
allowed = dict(line.split("\t", 1) for line in open(sys.argv[2], encoding="utf-8").read().splitlines())

warnings, stray = [], []
in_data = False
header = None
for line in lines:
    if in_data:
        in_data = line != "}"
    elif not line.strip() or line.startswith("Generating "):
        continue
    elif line.startswith("Warning(s) encountered") or line.startswith("If you believe this was a mistake"):
        continue
    elif line.startswith("{"):
        in_data = line != "{}"
        if header is not None:
            warnings.append(header)  # a warning without a detail line
            header = None
    elif re.match(r"^(WARNING|ERROR) parsing |^Unable to |^Endpoint |^Failed ", line) and header is None:
        header = line
    elif header is not None:
        # the generator prints some status codes as an object's repr: keep the key stable
        warnings.append(header + " | " + re.sub(r" object at 0x[0-9a-f]+", " object", line))
        header = None
    else:
        stray.append(line)
if header is not None:
    warnings.append(header)

failed = False
for warning in warnings:
    if warning in allowed:
        print(f"allowed warning: {warning}\n  because {allowed[warning]}")
    else:
        print(f"UNEXPECTED warning: {warning}")
        failed = True
for line in stray:
    print(f"UNEXPECTED output: {line}")
    failed = True
for warning in sorted(set(allowed) - set(warnings)):
    print(f"allow-listed but no longer printed (take it out of this script and README.md): {warning}")
    failed = True
if failed:
    print("\nthe generator's whole output:\n" + "\n".join(lines))
    sys.exit(1)
print(f"== the generator gave {len(warnings)} warnings, all explained in README.md")
PYTHON

echo "== building the release server"
binary="$(build_release_server)"
serve_scratch "$binary" || exit 1
echo "== server at $url (a fresh data folder: the sample trips)"

echo "== the README's tour through the generated client"
"$venv/bin/python" scripts/checks/generated_client_tour.py "$work/client" "$url"

kill -TERM "$server_pid"
wait "$server_pid"
server_pid=""
echo "== the generated-client tour passed; graceful shutdown: exit 0"
