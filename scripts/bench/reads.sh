#!/usr/bin/env bash
# scripts/bench/reads.sh - GET /trips/2 (JSON) from a release trips-server, side by side with
# nginx (and Node.js), with wrk, on 127.0.0.1 only.
#
# With the shared harness ../shared/bench/peers.sh (see its README): builds the release
# binary, then runs the harness with our server as the candidate (in memory, on the port the
# harness picks, pinned to one core by the harness). Every argument goes to the harness:
#
#   scripts/bench/reads.sh                                 # nginx, node, ours at 1/16/64/256 conns
#   scripts/bench/reads.sh --rounds 3 --out /tmp/bench.md  # medians over 3 interleaved rounds
#   scripts/bench/reads.sh --peers none --conns 64 --duration 2  # quick look at ours alone
#   TRIPS_BENCH_ACCESS_LOG=1 scripts/bench/reads.sh        # with the access log on (to /dev/null)
#
# Without the harness (no ../shared/bench, or TRIPS_BENCH_HARNESS=none): a built-in
# comparison with nginx alone. It starts trips-server (in memory) and nginx (serving a static
# copy of the body trips-server gives for GET /trips/2, from a throwaway config in a temp
# folder), both on loopback and pinned to CPU 0, warms each up for 1 s, runs
# `wrk -t1 -cN -dS --latency` (pinned to CPU 1) against each, and prints req/s, p50, p99 and
# errors per run and the ratio trips/nginx. It takes these options (the harness's names):
#
#   --conns "64"      connection counts (default 64)       --duration S   seconds per run (5)
#   --rounds N        runs per server and count (1); the ratio uses the medians
#   --peers nginx|none   none: trips-server alone            --out FILE     also write the report
#   --no-install      install nothing (as TRIPS_NO_INSTALL=1)
#
#   TRIPS_BENCH_HARNESS=none scripts/bench/reads.sh --conns 16 --duration 3
#
# Environment:
#   TRIPS_BENCH_HARNESS        the harness (default ../shared/bench/peers.sh; "none": built in)
#   TRIPS_BENCH_ACCESS_LOG=1   log every request (--log-level info), as in production;
#                              the default is --log-level warning, like nginx's `access_log off`.
#   TRIPS_BENCH_THREADS        event loops (default 1: every server gets one core, as nginx
#                              gets one worker; two loops on one core measured the same req/s
#                              with a 2-3x worse p99)
#   TRIPS_BENCH_PEERS          the harness's peers when no --peers is given (default nginx,node)
#   TRIPS_RELEASE_SCRATCH, TRIPS_NO_BUILD=1   where the release build goes (scripts/lib/build.sh)
#
# Needs wrk, curl and nginx (and, for the harness, taskset, setsid, pgrep, python3 and node):
# installed with apt-get when run as root, otherwise named (scripts/lib/require.sh). The
# harness stops every server and wrk it starts, by process group, on any exit; the built-in
# comparison stops both servers and removes its temp folder on any exit.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/lib/require.sh"
source "$ROOT/scripts/lib/build.sh"
source "$ROOT/scripts/lib/server.sh"

DEFAULT_HARNESS="$ROOT/../shared/bench/peers.sh"
HARNESS="${TRIPS_BENCH_HARNESS:-$DEFAULT_HARNESS}"
if [[ "$HARNESS" != none && ! -f "$HARNESS" ]]; then
  [[ -z "${TRIPS_BENCH_HARNESS:-}" ]] || die "no harness at $HARNESS (TRIPS_BENCH_HARNESS=none runs the built-in comparison)"
  echo "reads.sh: no harness at $HARNESS; running the built-in comparison with nginx" >&2
  HARNESS=none
fi

THREADS="${TRIPS_BENCH_THREADS:-1}"
LOG_LEVEL=warning
NAME=trips
if [[ "${TRIPS_BENCH_ACCESS_LOG:-0}" == 1 ]]; then
  LOG_LEVEL=info
  NAME=trips-logging
fi

# ---------------------------------------------------------------- with the harness
run_harness() {
  # Peers default to nginx and node (uvicorn is slow to install and not a goal here),
  # unless the caller names them.
  local peers="${TRIPS_BENCH_PEERS:-nginx,node}" peer_args=() args=("$@") i
  peer_args=(--peers "$peers")
  for i in "${!args[@]}"; do
    case "${args[$i]}" in
      --peers) peers="${args[$((i + 1))]:-}"; peer_args=() ;;
      --no-install) export TRIPS_NO_INSTALL=1 ;;
    esac
  done
  # What the harness calls, checked (and installed) by the same rule as every script; the
  # harness makes its own virtual environment for uvicorn.
  require_tool wrk wrk
  require_tool curl curl
  require_tool taskset util-linux
  require_tool setsid util-linux
  require_tool pgrep procps
  require_tool python3 python3
  [[ ",$peers," != *,nginx,* ]] || require_tool nginx nginx
  [[ ",$peers," != *,node,* ]] || require_tool node nodejs

  local binary
  binary="$(build_release_server)"
  # The harness runs the command as `bash -c "exec CMD"`: scripts/lib/server.sh, which becomes
  # the server. The access log goes to stdout, which goes to /dev/null: we measure formatting
  # and writing the lines, not a disk.
  exec bash "$HARNESS" "${peer_args[@]}" \
    --candidate-cmd "'$ROOT/scripts/lib/server.sh' '$binary' --in-memory --port {PORT} --threads $THREADS --log-level $LOG_LEVEL >/dev/null" \
    --candidate-url 'http://127.0.0.1:{PORT}/trips/2' \
    --candidate-name "$NAME" \
    "$@"
}

# ---------------------------------------------------------------- built in
CONNS=64
DURATION=5
ROUNDS=1
PEERS=nginx
OUT=""
WORK=""
TRIPS_PID=""
NGINX_PID=""
WRK_PID=""

usage() {
  die "the built-in comparison takes --conns \"N ...\", --duration S, --rounds N, --peers nginx|none," \
    "--out FILE and --no-install${1:+ (not $1)}"
}

stop_pid() {  # stop_pid PID: TERM, then KILL after 5 s, then reap
  local pid="$1"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  stop_pid "$WRK_PID"
  stop_pid "$NGINX_PID"
  stop_pid "$TRIPS_PID"
  [[ -z "$WORK" ]] || rm -rf "$WORK"
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
NEXT_PORT=18280
pick_port() {  # sets PORT to a loopback port nothing listens on
  while ! port_free "$NEXT_PORT"; do NEXT_PORT=$((NEXT_PORT + 1)); done
  PORT=$NEXT_PORT
  NEXT_PORT=$((NEXT_PORT + 1))
}

wait_ready() {  # wait_ready NAME PID URL: up to 10 s for a 200 from URL
  local name="$1" pid="$2" url="$3"
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || { cat "$WORK/$name.err" >&2 2>/dev/null || true; die "$name exited at start-up"; }
    curl -sf -o /dev/null --max-time 1 "$url" && return 0
    sleep 0.1
  done
  die "$name did not answer $url within 10 s"
}

write_nginx_conf() {  # write_nginx_conf PORT full|min (min: nginx-light has no uwsgi, scgi)
  local temps="client_body_temp_path $WORK/nginx/tmp/body; proxy_temp_path $WORK/nginx/tmp/proxy;"
  [[ "$2" == min ]] || temps="$temps fastcgi_temp_path $WORK/nginx/tmp/fastcgi;
    uwsgi_temp_path $WORK/nginx/tmp/uwsgi; scgi_temp_path $WORK/nginx/tmp/scgi;"
  cat >"$WORK/nginx/nginx.conf" <<EOF
# Throwaway: one process on loopback, GET /trips/2 from a static copy of trips-server's body.
daemon off;
master_process off;
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events {
    worker_connections 4096;
    multi_accept on;
}
http {
    access_log off;
    server_tokens off;
    keepalive_timeout 65;
    keepalive_requests 10000000;
    # A body this small goes faster with read and writev than with sendfile; the open file
    # stays cached, so a request costs no open or stat.
    sendfile off;
    open_file_cache max=16 inactive=60s;
    open_file_cache_valid 60s;
    $temps
    types { }
    default_type application/json;
    server {
        listen 127.0.0.1:$1 backlog=4096;
        root $WORK/www;
        location / { }
    }
}
EOF
}

# run_wrk OUTPUT SECONDS ARGS...: wrk, pinned, killed SECONDS + 15 s after it starts at the
# latest. In the background, so that INT or TERM reach the trap (which stops it) at once.
run_wrk() {
  local out="$1" seconds="$2"
  shift 2
  timeout -k 2 $((seconds + 15)) "${CLIENT_PIN[@]}" wrk -t1 -d"${seconds}s" "$@" >"$out" 2>&1 &
  WRK_PID=$!
  wait "$WRK_PID" || true
  WRK_PID=""
}

# measure ROUND NAME URL CONNS: one measured wrk run; prints its row and appends
# "round name conns req/s p50 p99 errors" to $WORK/results.
measure() {
  local round="$1" name="$2" url="$3" conns="$4" out="$WORK/wrk-$1-$2-$4.txt"
  run_wrk "$out" "$DURATION" -c"$conns" --timeout 2s --latency "$url"
  awk -v r="$round" -v n="$name" -v c="$conns" '
    /^Requests\/sec:/ { rps = $2 }
    $1 == "50%" { p50 = $2 }
    $1 == "99%" { p99 = $2 }
    /Socket errors:/ { gsub(",", ""); errors += $4 + $6 + $8 + $10 }
    /Non-2xx or 3xx responses:/ { errors += $NF }
    END { print r, n, c, (rps == "" ? "FAILED" : rps), (p50 == "" ? "-" : p50), (p99 == "" ? "-" : p99), errors + 0 }
  ' "$out" | tee -a "$WORK/results" | awk '{ printf "%-6s %-14s %6s %12s %10s %10s %7s\n", $1, $2, $3, $4, $5, $6, $7 }' \
    | tee -a "$WORK/report"
}

run_builtin() {
  while (($# > 0)); do
    case "$1" in
      --conns | --duration | --rounds | --peers | --out) [[ $# -ge 2 ]] || usage "$1 without a value" ;;&
      --conns) CONNS="$2"; shift 2 ;;
      --duration) DURATION="$2"; shift 2 ;;
      --rounds) ROUNDS="$2"; shift 2 ;;
      --peers) PEERS="$2"; shift 2 ;;
      --out) OUT="$2"; shift 2 ;;
      --no-install) export TRIPS_NO_INSTALL=1; shift ;;
      *) usage "$1" ;;
    esac
  done
  [[ "$DURATION" =~ ^[1-9][0-9]*$ ]] || usage "--duration $DURATION"
  [[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || usage "--rounds $ROUNDS"
  for c in $CONNS; do [[ "$c" =~ ^[1-9][0-9]*$ ]] || usage "--conns $CONNS"; done
  case "$PEERS" in
    nginx | none) ;;
    *nginx*) echo "reads.sh: the built-in comparison has nginx only; leaving out the rest of --peers $PEERS" >&2; PEERS=nginx ;;
    *) usage "--peers $PEERS" ;;
  esac

  require_tool wrk wrk
  require_tool curl curl
  [[ "$PEERS" == none ]] || require_tool nginx nginx
  SERVER_PIN=()
  CLIENT_PIN=()
  if (($(nproc) >= 2)); then
    require_tool taskset util-linux
    SERVER_PIN=(taskset -c 0)
    CLIENT_PIN=(taskset -c 1)
  fi

  local binary
  binary="$(build_release_server)"

  WORK="$(mktemp -d "${TMPDIR:-/tmp}/trips-bench.XXXXXX")"
  trap cleanup EXIT
  trap 'exit 130' INT TERM
  ulimit -n 65536 2>/dev/null || ulimit -n 8192 2>/dev/null || true

  pick_port
  local trips_url="http://127.0.0.1:$PORT/trips/2"
  # The access log goes to stdout, and stdout to /dev/null, as with the harness.
  run_server "${SERVER_PIN[@]}" -- "$binary" --in-memory --port "$PORT" --threads "$THREADS" \
    --log-level "$LOG_LEVEL" >/dev/null 2>"$WORK/$NAME.err" &
  TRIPS_PID=$!
  wait_ready "$NAME" "$TRIPS_PID" "$trips_url"
  mkdir -p "$WORK/www/trips" "$WORK/nginx/tmp"
  curl -sf --max-time 5 -o "$WORK/www/trips/2" "$trips_url" || die "GET $trips_url failed"
  local bytes
  bytes="$(wc -c <"$WORK/www/trips/2")"

  local targets=("$NAME $trips_url")
  if [[ "$PEERS" == nginx ]]; then
    local nginx nginx_url
    nginx="$(tool_path nginx)"
    pick_port
    nginx_url="http://127.0.0.1:$PORT/trips/2"
    write_nginx_conf "$PORT" full
    if ! "$nginx" -t -q -p "$WORK/nginx" -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" 2>/dev/null; then
      write_nginx_conf "$PORT" min
    fi
    "${SERVER_PIN[@]}" "$nginx" -p "$WORK/nginx" -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" \
      >/dev/null 2>"$WORK/nginx.err" &
    NGINX_PID=$!
    wait_ready nginx "$NGINX_PID" "$nginx_url"
    curl -sf --max-time 5 -o "$WORK/nginx.body" "$nginx_url" || die "GET $nginx_url failed"
    cmp -s "$WORK/nginx.body" "$WORK/www/trips/2" || die "nginx's body differs from trips-server's"
    targets=("nginx $nginx_url" "${targets[@]}")
  fi

  local target
  for target in "${targets[@]}"; do  # warm-up: caches filled, buffers grown
    run_wrk /dev/null 1 -c16 "${target#* }"
  done

  {
    echo "== GET /trips/2: $bytes bytes of JSON; wrk -t1 -c{$(tr ' ' ',' <<<"$CONNS")} -d${DURATION}s --latency, $ROUNDS round(s)"
    echo "== $(nproc) CPUs; ${SERVER_PIN[*]:-no pinning} for the servers, ${CLIENT_PIN[*]:-no pinning} for wrk; loopback, keep-alive"
    echo "== $NAME: $binary --in-memory --threads $THREADS --log-level $LOG_LEVEL"
    [[ "$PEERS" == none ]] || echo "== nginx: $("$nginx" -v 2>&1 | sed 's/^nginx version: //'), one process, static file"
  } | tee "$WORK/report"
  printf '%-6s %-14s %6s %12s %10s %10s %7s\n' round server conns req/s p50 p99 errors | tee -a "$WORK/report"
  local round conns
  for round in $(seq "$ROUNDS"); do
    for conns in $CONNS; do
      for target in "${targets[@]}"; do
        measure "$round" "${target%% *}" "${target#* }" "$conns"
      done
    done
  done

  # Medians over the rounds, and the ratio to nginx.
  awk -v name="$NAME" -v rounds="$ROUNDS" '
    function median(key,   n, i, j, t, v) {
      n = count[key]
      for (i = 1; i <= n; i++) v[i] = rps[key, i]
      for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    $4 != "FAILED" { key = $2 SUBSEP $3; rps[key, ++count[key]] = $4 }
    !seen[$3]++ { order[++conns] = $3 }
    END {
      for (i = 1; i <= conns; i++) {
        c = order[i]
        ours = (name SUBSEP c) in count ? median(name SUBSEP c) : 0
        theirs = ("nginx" SUBSEP c) in count ? median("nginx" SUBSEP c) : 0
        if (ours && theirs)
          printf "%s/nginx at %s connections: %.2fx (req/s %s %.0f, nginx %.0f; medians of %d round(s))\n", name, c, ours / theirs, name, ours, theirs, rounds
        else if (ours)
          printf "%s at %s connections: %.0f req/s (median of %d round(s))\n", name, c, ours, rounds
        else
          printf "%s at %s connections: no result\n", name, c
      }
    }' "$WORK/results" | tee -a "$WORK/report"

  [[ -z "$OUT" ]] || { mkdir -p "$(dirname "$OUT")"; cp "$WORK/report" "$OUT"; echo "report written to $OUT" >&2; }
  kill -0 "$TRIPS_PID" 2>/dev/null || die "trips-server died during the runs: $(tail -3 "$WORK/$NAME.err")"
  ! grep -q FAILED "$WORK/results" || die "a wrk run printed no result (see the rows marked FAILED)"
}

if [[ "$HARNESS" == none ]]; then
  run_builtin "$@"
else
  run_harness "$@"
fi
