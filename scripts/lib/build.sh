# shellcheck shell=bash
# scripts/lib/build.sh - sourced by the scripts that build: which SwiftPM scratch folder each
# kind of build uses, and the release build of trips-server they share. Needs lib/require.sh.
#
# Builds with the same flags share a folder, so what one script built the next one reuses;
# builds with other flags get their own (one folder holds one set of flags: switching flags
# in place rebuilds everything, every time). SwiftPM locks a folder while it builds, so two
# scripts building in the same folder at once take turns.
#
#   .build-release  swift build -c release --product trips-server: every script in bench/
#                   and drills/, and checks/outside.sh, browser.sh, generated-client-tour.sh.
#                   TRIPS_RELEASE_SCRATCH moves it.
#   .build-fuzz     swift build --sanitize=fuzzer (debug), one product per target: checks/fuzz.sh
#   .build-tsan     swift build --build-tests --sanitize=thread: checks/sanitizers.sh thread
#   .build-asan     swift build --build-tests --sanitize=address: checks/sanitizers.sh address
#   .build          a developer's own swift build / swift test, and .ci/run's: no script
#                   builds there, so a script never waits for (or disturbs) that build.
#
# TRIPS_NO_BUILD=1 uses the release binary already in the folder.

TRIPS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RELEASE_SCRATCH="${TRIPS_RELEASE_SCRATCH:-.build-release}"
# shellcheck disable=SC2034 # used by the scripts that source this file
FUZZ_SCRATCH=.build-fuzz
# shellcheck disable=SC2034
TSAN_SCRATCH=.build-tsan
# shellcheck disable=SC2034
ASAN_SCRATCH=.build-asan

# build_release_server: builds trips-server in release mode in RELEASE_SCRATCH (its output on
# standard error) and prints the absolute path of the binary.
build_release_server() {
  local scratch="$RELEASE_SCRATCH" no_build="${TRIPS_NO_BUILD:-0}"
  [[ "$scratch" == /* ]] || scratch="$TRIPS_ROOT/$scratch"
  if [[ "$no_build" != 1 ]]; then
    require_swift
    echo "== swift build -c release --product trips-server --scratch-path $RELEASE_SCRATCH" >&2
    (cd "$TRIPS_ROOT" && swift build -c release --product trips-server --scratch-path "$scratch" >&2) \
      || die "the release build failed"
  fi
  [[ -x "$scratch/release/trips-server" ]] \
    || die "$scratch/release/trips-server was not built$([[ "$no_build" == 1 ]] && echo '; building is off (TRIPS_NO_BUILD=1)')"
  echo "$scratch/release/trips-server"
}
