#!/usr/bin/env bash
# scripts/lib/tagged-tests.sh TAG... - a regular expression for `swift test --skip` (or
# --filter) that matches every suite and test carrying one of the Swift Testing tags TAG
# (Tests/TripsTestSupport/Tags.swift), and nothing else:
#
#   swift build --build-tests
#   swift test --skip-build --skip "$(scripts/lib/tagged-tests.sh live)"         # .ci/run's fast stage
#   swift test --skip-build --skip "$(scripts/lib/tagged-tests.sh live slow)"    # quicker still
#
# Why a script: Swift 6.3's `swift test` cannot choose tests by tag (swift-testing takes
# `--skip tag:live` only after 6.3; in 6.3 that is a regular expression that matches no
# test). So this asks the built test bundle: listed with Swift Testing's event stream
# (version 6.3, with SWT_EXPERIMENTAL_EVENT_STREAM_FIELDS_ENABLED=1 for its experimental
# `_tags` field), each suite and test record names its own tags; a suite's expression
# matches its tests too. Test ids are matched whole (a function's id ends in its source
# location). Fails when a TAG is on no test (a misspelt tag would otherwise skip nothing).
#
# Needs the tests built (swift build --build-tests) and python3 (installed with apt-get when
# run as root; scripts/lib/require.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/require.sh

[[ $# -ge 1 ]] || { echo "usage: scripts/lib/tagged-tests.sh TAG..." >&2; exit 2; }
require_swift
require_tool python3 python3
bundle="$(swift build --show-bin-path)/TripsPackageTests.xctest"
[[ -x "$bundle" ]] || die "no test bundle at $bundle; build it first: swift build --build-tests"

stream="$(mktemp "${TMPDIR:-/tmp}/trips-tests.XXXXXX")"
trap 'rm -f "$stream"' EXIT
SWT_EXPERIMENTAL_EVENT_STREAM_FIELDS_ENABLED=1 "$bundle" --testing-library swift-testing --list-tests \
  --event-stream-output-path "$stream" --event-stream-version 6.3 >/dev/null \
  || die "listing the tests of $bundle failed"

python3 - "$stream" "$@" <<'PYTHON'
import json, re, sys

stream, tags = sys.argv[1], sys.argv[2:]
ids, found = [], set()
for line in open(stream, encoding="utf-8"):
    record = json.loads(line)
    if record.get("kind") != "test":
        continue
    own = {tag.lstrip(".") for tag in record["payload"].get("_tags", [])}
    if own & set(tags):
        ids.append(record["payload"]["id"])
        found |= own & set(tags)
missing = [tag for tag in tags if tag not in found]
if missing:
    sys.exit(f"tagged-tests.sh: no suite or test is tagged {', '.join(missing)} (or this toolchain's event stream has no _tags)")
print("^(?:" + "|".join(re.escape(test_id) for test_id in sorted(ids)) + ")$")
PYTHON
