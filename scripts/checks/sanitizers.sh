#!/usr/bin/env bash
# Runs the test suite under ThreadSanitizer and AddressSanitizer, each in its own scratch
# folder (.build-tsan, .build-asan), and prints the wall time of each.
#
#   scripts/checks/sanitizers.sh            # both
#   scripts/checks/sanitizers.sh thread     # one of them: thread or address
#   CLEAN=1 scripts/checks/sanitizers.sh    # from empty scratch folders (what the timings
#                                           # in the notes measure)
#   scripts/checks/sanitizers.sh --build-only [thread|address]
#                                           # only the builds (.ci/run makes them behind the
#                                           # checks from outside, which mostly wait)
#
# TSan: the test processes get scripts/checks/tsan-mutex.c preloaded, which tells TSan about
# the contended handoff inside Synchronization.Mutex (see that file for why; without it every
# contended `withLock` is reported as a race). No TSan report is suppressed.
# ASan: LeakSanitizer is on; scripts/checks/lsan.supp names the only leaks let through, all in
# the toolchain's Foundation Process and XCTest (see that file). The crash test's `trips-server`
# children are built with the same sanitizer and inherit the environment, so they are
# checked too (a leak or race report at a clean exit fails that test).
#
# A whole run that fails with no sanitizer report and at most three failed tests (a wait that
# passed its bound on a busy machine) runs those tests again alone, once; the summary names
# them. Any report fails the run.
#
# Needs the Swift toolchain's clang and its TSan/ASan runtimes (a full toolchain from
# swift.org has them; nothing to install from Debian), and bc: installed with apt-get when
# run as root, otherwise named (scripts/lib/require.sh). The scratch folders are these
# builds' own (scripts/lib/build.sh). On INT or TERM it stops the build or test it started.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/require.sh
source scripts/lib/build.sh

build_only=0
if [[ "${1:-}" == "--build-only" ]]; then build_only=1; shift; fi
kinds=("$@")
[[ ${#kinds[@]} -eq 0 ]] && kinds=(thread address)
status=0
summary=()

for kind in "${kinds[@]}"; do
    case "$kind" in
    thread) clang="$(require_toolchain_clang)" ;;
    address) ;;
    *) echo "unknown sanitizer: $kind (thread or address)" >&2; exit 2 ;;
    esac
    require_clang_runtime "$kind"
done
require_tool bc bc

# run LOG COMMAND...: COMMAND in the background, its output appended to LOG; waiting with
# `wait` lets INT or TERM reach the trap at once, and the trap stops the command.
child=""
cleanup() {
    [[ -z "$child" ]] || { kill -TERM "$child" 2>/dev/null || true; wait "$child" 2>/dev/null || true; }
}
trap cleanup EXIT
trap 'exit 130' INT TERM
run() {
    local log="$1" code=0
    shift
    "$@" >>"$log" 2>&1 &
    child=$!
    wait "$child" || code=$?
    child=""
    return "$code"
}

# test_under KIND SCRATCH LOG [ARGUMENTS...]: swift test under the sanitizer KIND, built in
# SCRATCH, its output appended to LOG; ARGUMENTS go to swift test (a --filter).
test_under() {
    local kind="$1" scratch="$2" log="$3"
    shift 3
    if [[ "$kind" == thread ]]; then
        LD_PRELOAD="$PWD/$scratch/tsan-mutex.so" TSAN_OPTIONS="halt_on_error=0 exitcode=66 ${TSAN_OPTIONS:-}" \
            run "$log" swift test --skip-build --sanitize=thread --scratch-path "$scratch" "$@"
    else
        # print_suppressions=0: a child server's stderr, which tests read, stays free of
        # LeakSanitizer's "Suppressions used" table when a suppression applied.
        ASAN_OPTIONS="detect_leaks=1 ${ASAN_OPTIONS:-}" \
            LSAN_OPTIONS="suppressions=$PWD/scripts/checks/lsan.supp print_suppressions=0 ${LSAN_OPTIONS:-}" \
            run "$log" swift test --skip-build --sanitize="$kind" --scratch-path "$scratch" "$@"
    fi
}

# The names of the tests LOG says failed, one per line (`name` of `✘ Test name(…) … failed`).
failed_tests() {
    { grep -E "^✘ Test [A-Za-z0-9_]+\(.*failed after" "$1" || true; } | sed -E 's/^✘ Test ([A-Za-z0-9_]+)\(.*/\1/' | sort -u
}

# A sanitizer slows the code 2-15 times, and on a busy machine a test that waits for an answer
# can pass its (already scaled) bound. So when a whole run failed with no sanitizer report and
# at most this many tests failed, those tests run again alone, once: the run passes if they do,
# and the summary names them. A report, or a test that fails again, fails the run.
retry_limit=3

for kind in "${kinds[@]}"; do
    case "$kind" in
    thread) scratch=$TSAN_SCRATCH ;;
    address) scratch=$ASAN_SCRATCH ;;
    esac
    [[ "${CLEAN:-0}" == 1 ]] && rm -rf "$scratch"
    mkdir -p "$scratch"
    log="$scratch/sanitizer.log"
    started=$(date +%s.%N)
    echo "== swift test --sanitize=$kind --scratch-path $scratch (log: $log)"
    result=0
    retried=""
    : >"$log"
    if run "$log" swift build --build-tests --sanitize="$kind" --scratch-path "$scratch"; then
        if ((!build_only)); then
            if [[ "$kind" == thread ]]; then
                "$clang" -O2 -shared -fPIC -fdollars-in-identifiers -o "$scratch/tsan-mutex.so" scripts/checks/tsan-mutex.c -ldl
            fi
            test_under "$kind" "$scratch" "$log" || result=$?
        fi
    else
        result=$?
        echo "build failed" >>"$log"
    fi
    reports=$(grep -cE "^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: (Address|Leak)Sanitizer)" "$log" || true)
    verdict=$(grep -E "^(✔|✘) Test run with" "$log" | tail -1 || true)
    ((build_only)) && verdict="built"
    if [[ $result -ne 0 || $reports -ne 0 ]]; then
        grep -E "^(WARNING: ThreadSanitizer|SUMMARY:|==[0-9]+==ERROR)" "$log" | head -20 || true
        # The failed tests and what they recorded, so that CI's log names them.
        grep -E "^✘ Test .*(failed|recorded an issue)" "$log" | head -20 || true
    fi
    failed="$(failed_tests "$log")"
    failed_count=$(grep -c . <<<"$failed" || true)
    if [[ $result -ne 0 && $reports -eq 0 && $failed_count -ge 1 && $failed_count -le $retry_limit ]]; then
        retried="$(paste -sd'|' <<<"$failed")"
        retry_log="$scratch/sanitizer-retry.log"
        : >"$retry_log"
        echo "== $kind: $failed_count failed with no report; again alone, once: $retried"
        result=0
        test_under "$kind" "$scratch" "$retry_log" --filter "/($retried)\\(" || result=$?
        retry_reports=$(grep -cE "^(WARNING: ThreadSanitizer|==[0-9]+==ERROR: (Address|Leak)Sanitizer)" "$retry_log" || true)
        reports=$((reports + retry_reports))
        grep -E "^(✘ Test .*(failed|recorded an issue)|WARNING: ThreadSanitizer|SUMMARY:|==[0-9]+==ERROR)" "$retry_log" | head -20 || true
        verdict="$(grep -E "^(✔|✘) Test run with" "$retry_log" | tail -1 || true) (retried alone: $retried)"
    fi
    [[ $result -eq 0 && $reports -eq 0 ]] || status=1
    elapsed=$(echo "$(date +%s.%N) - $started" | bc)
    summary+=("$(printf '%-8s exit %-3s reports %-3s %6.1f s  %s' "$kind" "$result" "$reports" "$elapsed" "${verdict:-no test summary}")")
done

echo "== sanitizers"
printf '%s\n' "${summary[@]}"
exit $status
