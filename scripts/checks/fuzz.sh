#!/usr/bin/env bash
# Builds every fuzz target with libFuzzer and runs each for a while over a copy of its seed
# corpus in Fuzz/Corpus/<target>/.
#
#   scripts/checks/fuzz.sh [seconds-per-target]           # default 30
#   FUZZ_TARGETS="FuzzAccept" scripts/checks/fuzz.sh 600  # only some targets
#   FUZZ_JOBS=2 scripts/checks/fuzz.sh 600                # two targets at a time (default 1)
#   scripts/checks/fuzz.sh --merge 600                    # afterwards, merge new coverage into
#                                                         # the repo corpus
#   scripts/checks/fuzz.sh --build-only                   # only the builds (.ci/run makes them
#                                                         # behind the checks from outside)
#   FUZZ_SEED=1 scripts/checks/fuzz.sh 30                 # a fixed libFuzzer seed (CI): the
#                                                         # same inputs first, so a short run
#                                                         # does not pass one day and fail the
#                                                         # next; explore with no seed
#
# Prints the executions per target; exits non-zero on any crash, timeout, leak or OOM, and
# keeps the failing input and the log in the run folder it names (under $TMPDIR).
# Each build is its own product from its own scratch folder (.build-fuzz, scripts/lib/build.sh),
# as this toolchain needs; a run needs SWIFT_BACKTRACE=enable=no or libFuzzer writes no
# crash file. Needs the Swift toolchain's libFuzzer runtime (a full toolchain from swift.org
# has it; nothing to install from Debian): checked first (scripts/lib/require.sh). Stops the
# targets it started on any exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/require.sh
source scripts/lib/build.sh

merge=0
build_only=0
case "${1:-}" in
--merge) merge=1; shift ;;
--build-only) build_only=1; shift ;;
esac
seconds="${1:-30}"
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "usage: scripts/checks/fuzz.sh [--merge|--build-only] [seconds-per-target]" >&2; exit 2; }
jobs="${FUZZ_JOBS:-1}"
targets=(${FUZZ_TARGETS:-FuzzRequestParser FuzzAccept FuzzJSONBodies FuzzTextImport FuzzPostgresMessages FuzzImages})
scratch=$FUZZ_SCRATCH
for target in "${targets[@]}"; do
  [[ -d "Fuzz/Corpus/$target" ]] || { echo "fuzz.sh: no seed corpus Fuzz/Corpus/$target" >&2; exit 2; }
done
require_clang_runtime fuzzer

run_dir="$(mktemp -d "${TMPDIR:-/tmp}/trips-fuzz.XXXXXX")"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

started=$SECONDS
for target in "${targets[@]}"; do
  echo "building $target" >&2
  # In the background, so that INT or TERM reach the trap (which stops it) at once.
  swift build --product "$target" --sanitize=fuzzer --scratch-path "$scratch" >"$run_dir/build-$target.log" 2>&1 &
  pids=("$!")
  wait "${pids[0]}" || { cat "$run_dir/build-$target.log" >&2; exit 1; }
  pids=()
done
echo "built ${#targets[@]} targets in $((SECONDS - started)) s" >&2
if ((build_only)); then rm -rf "$run_dir"; exit 0; fi
bin="$(swift build --sanitize=fuzzer --scratch-path "$scratch" --show-bin-path)"

run_target() {
  local target="$1" dir="$run_dir/$1"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  cp Fuzz/Corpus/"$target"/* "$dir/corpus/"
  local options=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
    -artifact_prefix="$dir/artifacts/")
  [[ -f Fuzz/Corpus/$target.dict ]] && options+=(-dict="Fuzz/Corpus/$target.dict")
  [[ -n "${FUZZ_SEED:-}" ]] && options+=(-seed="$FUZZ_SEED")
  SWIFT_BACKTRACE=enable=no "$bin/$target" "${options[@]}" "$dir/corpus" >"$dir/log" 2>&1
}

status=0
report() {
  local target="$1" code="$2" dir="$run_dir/$1"
  local runs
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)"
  [[ -n "$runs" ]] || runs="$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$dir/log" | tail -1)"
  local found
  found="$(ls "$dir/artifacts" 2>/dev/null | tr '\n' ' ')"
  if [[ "$code" -ne 0 || -n "$found" ]]; then
    status=1
    printf '%-18s FAILED after %s executions: %s(log: %s)\n' "$target" "${runs:-?}" "$found" "$dir/log"
    grep -m3 -E 'Precondition failed|Fatal error|ERROR: libFuzzer|SUMMARY' "$dir/log" | sed 's/^/    /' || true
  else
    printf '%-18s %s executions in %s s, corpus %s files\n' "$target" "${runs:-?}" "$seconds" "$(ls "$dir/corpus" | wc -l)"
  fi
}

# Run `jobs` targets at a time; report each as it finishes, in order.
queue=("${targets[@]}")
while ((${#queue[@]} > 0)); do
  batch=("${queue[@]:0:$jobs}")
  queue=("${queue[@]:$jobs}")
  pids=()
  for target in "${batch[@]}"; do
    run_target "$target" &
    pids+=("$!")
  done
  for index in "${!batch[@]}"; do
    code=0
    wait "${pids[$index]}" || code=$?
    report "${batch[$index]}" "$code"
  done
  pids=()
done

if ((merge)); then
  for target in "${targets[@]}"; do
    SWIFT_BACKTRACE=enable=no "$bin/$target" -merge=1 "Fuzz/Corpus/$target" "$run_dir/$target/corpus" \
      >"$run_dir/merge-$target.log" 2>&1
    echo "merged into Fuzz/Corpus/$target: $(ls "Fuzz/Corpus/$target" | wc -l) files" >&2
  done
fi

if ((status)); then echo "fuzzing found problems; inputs and logs are in $run_dir" >&2; else rm -rf "$run_dir"; fi
exit "$status"
