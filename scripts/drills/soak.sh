#!/usr/bin/env bash
# Soak: a release trips-server on a temporary data folder under wrk's mixed workload
# (scripts/drills/soak.lua: ~85% reads in JSON and text, ~15% writes) for SECONDS (default 600),
# run as 60 s slices. Every 10 s it samples the server's RSS and open descriptors from /proc;
# it prints a table of the samples and each slice's req/s and latency percentiles.
#
#   scripts/drills/soak.sh [seconds]
#
# Fails when: any request errs (status >= 400, connect/read/write errors, timeouts); RSS
# after the first slice (warm-up) rises more than RSS_GROWTH_MB (default 32) above the
# warm-up's highest sample; the open descriptors with no client connected differ after any
# slice from before the first; a slice's p99 is above P99_FACTOR (default 5) times the
# median slice p99 (and above 20 ms); or the server dies.
# Environment: CONNECTIONS (default 32), SOAK_THREADS (wrk threads, default 1), SLICE (60).
# Needs wrk and bc: installed with apt-get when run as root, otherwise named
# (scripts/lib/require.sh). Builds in the release folder the other drills share
# (scripts/lib/build.sh). Stops the server and the sampler it started on any exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/require.sh
source scripts/lib/build.sh
source scripts/lib/server.sh
total=${1:-600}
slice=${SLICE:-60}
connections=${CONNECTIONS:-32}
[[ "$total" =~ ^[0-9]+$ && "$slice" =~ ^[1-9][0-9]*$ ]] || { echo "usage: scripts/drills/soak.sh [seconds]" >&2; exit 2; }

require_tool wrk wrk
require_tool bc bc
require_tool timeout coreutils
server="$(build_release_server)"
work=$(mktemp -d /tmp/trips-soak.XXXXXX)
pid=""
sampler=""
load=""
cleanup() {
    [[ -n "$load" ]] && kill "$load" 2>/dev/null || true
    [[ -n "$sampler" ]] && kill "$sampler" 2>/dev/null || true
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid"
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

run_server "$server" --port 0 --data "$work/data" --log-level warning >"$work/stdout" 2>"$work/stderr" &
pid=$!
url=$(wait_until_listening "$pid" "$work/stdout" "$work/stderr") || exit 1

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$pid/status"; }
fds() { ls "/proc/$pid/fd" | wc -l; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }

idle_fds_before=$(fds)
echo "trips-server pid $pid on $url; data in $work/data; $total s in ${slice} s slices, $connections connections"
echo "idle: RSS $(($(rss_kib) / 1024)) MiB, $idle_fds_before descriptors"

# The sampler sleeps in the background and waits for it, so that the TERM that stops the
# sampler stops its sleep too (a sleep left behind would hold this script's output open).
(
    nap=""
    trap '[[ -z "$nap" ]] || kill "$nap" 2>/dev/null; exit 0' TERM
    start=$(date +%s)
    while kill -0 "$pid" 2>/dev/null; do
        echo "$(( $(date +%s) - start )) $(rss_kib) $(fds) $(cpu_ticks)" >>"$work/samples"
        sleep 10 &
        nap=$!
        wait "$nap" || true
    done
) &
sampler=$!

failures=()
slices=$(( (total + slice - 1) / slice ))
printf '%-6s %10s %8s %9s %9s %9s %9s %6s %9s\n' slice requests req/s p50_ms p90_ms p99_ms max_ms errors idle_fds
for index in $(seq "$slices"); do
    length=$(( total - (index - 1) * slice < slice ? total - (index - 1) * slice : slice ))
    # In the background, so that INT or TERM reach the trap at once rather than after the slice.
    timeout $((length + 30)) wrk -t"${SOAK_THREADS:-1}" -c"$connections" -d"${length}s" --timeout 5s \
        -s scripts/drills/soak.lua "$url" >"$work/wrk.$index" 2>&1 &
    load=$!
    wait "$load" || true
    load=""
    line=$(grep '^SOAK ' "$work/wrk.$index" || true)
    if [[ -z "$line" ]]; then
        failures+=("slice $index: wrk printed no summary: $(tail -3 "$work/wrk.$index")")
        break
    fi
    eval "$(echo "${line#SOAK }" | tr ' ' '\n' | sed 's/^/w_/')"
    errors=$(( w_status_errors + w_connect + w_read + w_write + w_timeout ))
    # Let the server see every client close before counting its descriptors.
    for _ in $(seq 50); do [[ $(fds) -le $idle_fds_before ]] && break; sleep 0.1; done
    idle=$(fds)
    printf '%-6s %10d %8d %9.2f %9.2f %9.2f %9.2f %6d %9d\n' "$index" "$w_requests" \
        $(( w_requests * 1000000 / w_duration_us )) "$(echo "$w_p50_us/1000" | bc -l)" \
        "$(echo "$w_p90_us/1000" | bc -l)" "$(echo "$w_p99_us/1000" | bc -l)" "$(echo "$w_max_us/1000" | bc -l)" \
        "$errors" "$idle"
    echo "$w_p99_us" >>"$work/p99"
    (( errors == 0 )) || failures+=("slice $index: $errors errors ($line)")
    (( idle == idle_fds_before )) || failures+=("slice $index: $idle descriptors open with no client, $idle_fds_before before")
    kill -0 "$pid" 2>/dev/null || { failures+=("the server died: $(tail -5 "$work/stderr")"); break; }
done
kill "$sampler" 2>/dev/null || true
wait "$sampler" 2>/dev/null || true
sampler=""

echo
echo "samples (every 10 s):"
printf '%6s %9s %6s %8s\n' t_s rss_mib fds cpu_s
awk '{printf "%6d %9.1f %6d %8.1f\n", $1, $2/1024, $3, $4/100}' "$work/samples"

# RSS: after warm-up (the first slice) it must stay within RSS_GROWTH_MB of the warm-up peak.
read -r warm_peak later_peak <<<"$(awk -v w="$slice" '$1 <= w { if ($2 > a) a = $2 } $1 > w { if ($2 > b) b = $2 } END { print a+0, b+0 }' "$work/samples")"
growth=$(( (later_peak - warm_peak) / 1024 ))
echo "RSS: warm-up peak $((warm_peak / 1024)) MiB, later peak $((later_peak / 1024)) MiB (growth ${growth} MiB, bound ${RSS_GROWTH_MB:-32} MiB)"
(( later_peak == 0 || growth <= ${RSS_GROWTH_MB:-32} )) || failures+=("RSS grew ${growth} MiB after warm-up")

median=$(sort -n "$work/p99" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
bound=$(( median * ${P99_FACTOR:-5} > 20000 ? median * ${P99_FACTOR:-5} : 20000 ))
while read -r p99; do
    (( p99 <= bound )) || failures+=("a slice's p99 ${p99} us is above ${bound} us (median ${median} us)")
done <"$work/p99"
echo "p99: median over slices $(echo "$median/1000" | bc -l | xargs printf '%.2f') ms, bound $(echo "$bound/1000" | bc -l | xargs printf '%.2f') ms"
[[ -s "$work/stderr" ]] && { echo "server stderr:"; tail -5 "$work/stderr"; }

if (( ${#failures[@]} )); then
    echo "SOAK FAILED:"
    printf '  %s\n' "${failures[@]}"
    exit 1
fi
echo "soak passed"
