#!/usr/bin/env bash
# Hostile clients against a release trips-server with short timeouts (--header-timeout 2
# --body-timeout 2 --idle-timeout 5), loopback only, about two minutes:
#
#   1. slowhttptest in slow headers (-H), slow body (-B) and slow read (-X) modes, CONNS
#      connections each (default 300); meanwhile a normal client (curl, every 0.2 s) asks
#      GET /trips/2 and must get a 200 within 1 s every time. The server's CPU over the
#      attack must stay below 50% of a core (it must not spin on slow sockets), and in the
#      -H and -B modes the server must close every slow socket by its deadline.
#   2. A connection flood past the descriptor limit: the server under
#      `prlimit --nofile=256:256`, FLOOD (default 1000) connections held for 5 s
#      (scripts/drills/hostile_flood.py); the server must not spin meanwhile, must survive,
#      and the normal client must get prompt answers once the flood ends.
#
# Needs slowhttptest, curl, bc, python3 and prlimit: installed with apt-get when run as root,
# otherwise named (scripts/lib/require.sh). Builds in the release folder the other drills
# share (scripts/lib/build.sh). Exits non-zero on any failure; every process it starts is
# stopped on exit. KEEP=1 keeps its temp folder.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/require.sh
source scripts/lib/build.sh
source scripts/lib/server.sh
conns=${CONNS:-300}
flood=${FLOOD:-1000}

require_tool slowhttptest slowhttptest
require_tool curl curl
require_tool bc bc
require_tool python3 python3
require_tool prlimit util-linux
require_tool timeout coreutils
binary="$(build_release_server)"
work=$(mktemp -d /tmp/trips-hostile.XXXXXX)
pid=""
children=()
failures=()
summary=()

stop_server() {
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid"
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
    pid=""
}
cleanup() {
    for child in "${children[@]}"; do kill "$child" 2>/dev/null || true; done
    stop_server
    [[ "${KEEP:-0}" == 1 ]] && echo "kept $work" || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_server [prefix...]: starts the server (behind an optional prlimit), sets pid and url.
start_server() {
    : >"$work/stdout"
    run_server "$@" -- "$binary" --port 0 --data "$work/data" --log-level warning \
        --header-timeout 2 --body-timeout 2 --idle-timeout 5 >"$work/stdout" 2>>"$work/stderr" &
    pid=$!
    url=$(wait_until_listening "$pid" "$work/stdout" "$work/stderr") || exit 1
}

cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
ticks_per_second=$(getconf CLK_TCK)

# probe FILE SECONDS: GET /trips/2 every 0.2 s for SECONDS, one "code seconds" line each.
probe() {
    local end=$(( $(date +%s) + $2 ))
    while (( $(date +%s) < end )); do
        curl -s -o /dev/null --max-time 1 -w '%{http_code} %{time_total}\n' "$url/trips/2" >>"$1" || echo "000 1" >>"$1"
        sleep 0.2
    done
}

# latency FILE: "n=.. failed=.. p50=..ms max=..ms"; fails the run if any probe failed or took >= 1 s.
latency() {
    sort -k2 -n "$1" | awk '
        { n++; t[n] = $2; if ($1 != "200" || $2 >= 1) bad++ }
        END { printf "n=%d failed=%d p50=%.1fms p99=%.1fms max=%.1fms\n", n, bad, t[int(n*0.5)+1]*1000, t[int(n*0.99)+1]*1000, t[n]*1000 }'
}

start_server
echo "trips-server pid $pid on $url (header 2 s, body 2 s, idle 5 s)"

attack() {
    local mode=$1 length=$2
    shift 2
    local probes="$work/probe.$mode" before after started elapsed cpu
    : >"$probes"
    probe "$probes" $((length + 2)) &
    children+=($!)
    local prober=$!
    before=$(cpu_ticks)
    started=$(date +%s.%N)
    # In the background (as below), so that INT or TERM reach the trap at once.
    timeout $((length + 30)) slowhttptest "-$mode" -c "$conns" -r 150 -l "$length" -p 2 -g -o "$work/slow.$mode" \
        "$@" >"$work/slow.$mode.out" 2>&1 &
    children+=($!)
    wait $! || true
    after=$(cpu_ticks)
    elapsed=$(echo "$(date +%s.%N) - $started" | bc)
    wait "$prober" || true
    cpu=$(echo "($after - $before) / $ticks_per_second / $elapsed * 100" | bc -l)
    # slowhttptest's CSV (seconds,closed,pending,connected,service available) gives the peak;
    # its last lines say when and why the test ended ("No open connections left" when the
    # server closed every socket before the test's length ran out).
    local csv="$work/slow.$mode.csv" out="$work/slow.$mode.out" peak ended reason
    peak=$(awk -F, 'NR > 1 && $4 > m { m = $4 } END { print m + 0 }' "$csv" 2>/dev/null || echo 0)
    ended=$(sed 's/\x1b\[[0-9;]*m//g' "$out" | sed -n 's/^Test ended on \([0-9]*\)th second.*/\1/p' | tail -1)
    reason=$(sed 's/\x1b\[[0-9;]*m//g' "$out" | sed -n 's/^Exit status: *//p' | tail -1)
    local stats
    stats=$(latency "$probes")
    summary+=("$(printf -- '-%s  normal client: %s; server CPU %.1f%% over %.0f s; slow sockets: peak %s connected; test ended at %s s: %s' \
        "$mode" "$stats" "$cpu" "$elapsed" "$peak" "${ended:-?}" "${reason:-no report}")")
    [[ "$stats" == *"failed=0 "* ]] || failures+=("-$mode: the normal client failed or waited >= 1 s: $stats")
    (( $(echo "$cpu < 50" | bc) )) || failures+=("-$mode: server CPU ${cpu}% while only slow clients were connected")
    kill -0 "$pid" 2>/dev/null || failures+=("-$mode: the server died")
    if [[ "$mode" != X ]]; then
        # Opening $conns at 150/s takes conns/150 s; each must be closed within its deadline
        # (2 s) plus the sweep (1 s) plus slack for slowhttptest's one-second sampling.
        local limit=$(( conns / 150 + 2 + 1 + 2 ))
        [[ "$reason" == "No open connections left" && -n "$ended" ]] && (( ended <= limit )) && (( peak > 0 )) \
            || failures+=("-$mode: the server did not close the $peak slow sockets within ${limit} s (ended at ${ended:-?} s: ${reason:-no report})")
    fi
}

# Slow headers: a header line every second; the section's 2 s deadline counts from the first byte.
attack H 20 -i 1 -u "$url/trips/2"
# Slow body: a chunk every 3 s, past the 2 s limit on a pause inside a body.
attack B 20 -i 3 -s 8192 -t POST -f application/json -u "$url/trips"
# Slow read: 10 pipelined GET /trips per connection, read 16 bytes every 2 s through a
# window of 1-16 bytes. These clients make progress, so no deadline applies (the write-stall
# limit is 30 s without progress); what counts is that nobody else waits and nothing spins.
attack X 20 -k 10 -n 2 -w 1 -y 16 -z 16 -u "$url/trips"

# Connection flood past the descriptor limit.
stop_server
start_server prlimit --nofile=256:256
limit=$(awk '/Max open files/ {print $4}' "/proc/$pid/limits")
timeout 60 python3 scripts/drills/hostile_flood.py 127.0.0.1 "${url##*:}" "$pid" "$flood" 5 >"$work/flood.out" &
children+=($!)
wait $! || echo "FLOOD failed" >>"$work/flood.out"
flood_line=$(cat "$work/flood.out")
alive=yes
kill -0 "$pid" 2>/dev/null || alive=no
: >"$work/probe.flood"
for _ in $(seq 20); do
    curl -s -o /dev/null --max-time 1 -w '%{http_code} %{time_total}\n' "$url/trips/2" >>"$work/probe.flood" || echo "000 1" >>"$work/probe.flood"
done
stats=$(latency "$work/probe.flood")
hold_cpu=$(sed -n 's/.*hold_cpu=\([0-9.]*\).*/\1/p' <<<"$flood_line")
summary+=("flood  nofile $limit, $flood connections: ${flood_line#FLOOD }; server alive: $alive; normal client after: $stats")
[[ "$alive" == yes ]] || failures+=("flood: the server died: $(tail -3 "$work/stderr")")
[[ -n "$hold_cpu" ]] && (( $(echo "$hold_cpu < 0.5" | bc) )) || failures+=("flood: the server used ${hold_cpu:-?} of a core while the flood sat idle")
[[ "$stats" == *"failed=0 "* ]] || failures+=("flood: the normal client failed after the flood: $stats")
stop_server

echo "== hostile clients"
printf '%s\n' "${summary[@]}"
if (( ${#failures[@]} )); then
    echo "FAILED:"
    printf '  %s\n' "${failures[@]}"
    exit 1
fi
echo "hostile clients: passed"
