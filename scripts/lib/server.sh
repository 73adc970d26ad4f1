#!/usr/bin/env bash
# scripts/lib/server.sh - the one way the scripts start trips-server: run_server below. Sourced
# by the shell scripts (run_server, wait_until_listening, the scratch helpers); run as a
# command by what cannot source it (the Python drills and checks, the benchmark harness):
#
#   scripts/lib/server.sh [WRAPPER... --] BINARY [ARGS...]
#
# which becomes the server itself (exec), so its process id, signals and output are the
# server's.

# run_server [WRAPPER... --] BINARY [ARGS...]: replaces the current (sub)shell with BINARY on
# 127.0.0.1 with ARGS (--port, --data or --in-memory, ...), loopback only whatever TRIPS_HOST
# says; behind WRAPPER when one is given (taskset -c 0, prlimit --nofile=256:256, valgrind
# --tool=callgrind: each execs what follows it). Called in the background, so `$!` is the
# server's process id and the call's redirections and variables are the server's alone:
#
#   TRIPS_DATABASE_URL="$url" run_server taskset -c 0 -- "$binary" --port 0 >"$out" 2>"$err" &
#   server_pid=$!
run_server() {
    local wrapper=() index
    for ((index = 1; index <= $#; index++)); do
        if [[ "${!index}" == -- ]]; then
            wrapper=("${@:1:index-1}")
            shift "$index"
            break
        fi
    done
    exec "${wrapper[@]}" "$1" --host 127.0.0.1 "${@:2}"
}

# wait_until_listening PID STDOUT_FILE STDERR_FILE
# Waits up to 10 s for the server's "trips-server listening on URL" line and prints URL;
# fails, showing the server's standard error, if it does not come or the server exits.
wait_until_listening() {
    local pid=$1 out=$2 err=$3 url=""
    for _ in $(seq 100); do
        url=$(sed -n 's|^trips-server listening on \(http://.*\)$|\1|p' "$out" 2>/dev/null | head -n 1)
        if [[ -n "$url" ]]; then
            echo "$url"
            return 0
        fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "the server did not start: $(cat "$err" 2>/dev/null)" >&2
    return 1
}

# make_scratch: a temporary folder in $work for a script's files and server, removed on exit
# after the server started by serve_scratch (if it still runs) is stopped.
make_scratch() {
    work="$(mktemp -d)"
    server_pid=""
    trap stop_scratch EXIT
    trap 'exit 130' INT TERM
}

stop_scratch() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}

# serve_scratch BINARY: BINARY on a free port over a new data folder in $work (the sample
# trips); sets server_pid and url once it listens.
serve_scratch() {
    run_server "$1" --port 0 --data "$work/data" --log-level warning >"$work/stdout" 2>"$work/stderr" &
    server_pid=$!
    url=$(wait_until_listening "$server_pid" "$work/stdout" "$work/stderr") || return 1
}

# Run as a command rather than sourced: become the server.
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
    [[ $# -ge 1 ]] || { echo "usage: scripts/lib/server.sh [WRAPPER... --] BINARY [ARGS...]" >&2; exit 2; }
    run_server "$@"
fi
