# Sourced by the scripts that start trips-server and need its address.

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
