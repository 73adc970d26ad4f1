#!/usr/bin/env bash
# scripts/bench/profile.sh - instructions per request for GET /trips/2 (JSON), and where they go,
# beside nginx's `return 200` of a body of the same size (#32 goal 1: at or below nginx's).
#
#   scripts/bench/profile.sh callgrind       # valgrind --tool=callgrind: Ir/request, the ratio to
#                                            # nginx, and the top functions
#   scripts/bench/profile.sh callgrind all   # the same for four cases, one table
#   scripts/bench/profile.sh perf [all]      # perf stat at full speed: server CPU time per request,
#                                            # and user/kernel instructions per request where the
#                                            # CPU counts them (many VMs show "<not supported>")
#
# Cases: by default one, GET TRIPS_PROFILE_URL_PATH (/trips/2) with TRIPS_PROFILE_HEADER (none:
# JSON; 'Accept: text/plain' profiles the sentence); `all` runs json (GET /trips/2), text
# (Accept: text/plain), html (Accept: text/html) and list (GET /trips?limit=50) on one server.
#
# trips-server runs in memory on one event loop with the access log off (TRIPS_PROFILE_ACCESS_LOG=1
# turns it on), holding the sample trips and 50 more, so a list of 50 is full. The peer
# (TRIPS_PROFILE_PEER=nginx, the default; `none` skips it) is Debian's nginx in one process
# (master_process off, daemon off, so callgrind follows the process that answers), access log off,
# keep-alive, answering every request with `return 200` of a JSON body as long as trips-server's
# answer to the first case. Each server and case is measured the same way (measure below): a check
# request, a 1 s wrk warm-up (caches filled, buffers grown), then one counted wrk run: callgrind's
# counters are zeroed before it and dumped after it, perf attaches for its duration. Instruction
# counts are stable from run to run, unlike req/s, so compare these before and after a change;
# but they move with how many requests one wake-up reads, which other load on the machine
# changes (60+ a GET beside a CI run): there, compare with TRIPS_PROFILE_CONNS=1 (steady within
# a few), and quote the default's figures from a quiet machine.
#
# Output: one line per case as it runs, then a table (figure per request, and trips / nginx), then
# the top 15 functions (self Ir) of the first case; in TRIPS_PROFILE_OUT: each case's callgrind
# dump (callgrind.out.PID.N), its top functions (top-CASE.txt), wrk's output (wrk-CASE.txt).
#
# Environment: TRIPS_PROFILE_SECONDS (default 3), TRIPS_PROFILE_CONNS (default 16),
# TRIPS_PROFILE_URL_PATH (default /trips/2), TRIPS_PROFILE_HEADER (default none),
# TRIPS_PROFILE_PEER (nginx or none, default nginx), TRIPS_PROFILE_OUT (default /tmp/trips-profile),
# TRIPS_PROFILE_IO (the server's --io: epoll, the default, or uring),
# TRIPS_RELEASE_SCRATCH and TRIPS_NO_BUILD=1 (the release build that the benchmarks and drills
# share: scripts/lib/build.sh).
#
# Needs curl, wrk, nginx (with the peer) and valgrind (callgrind) or perf (Debian's linux-perf):
# installed with apt-get when run as root, otherwise named (scripts/lib/require.sh).
# Stops every server it started (by pid) on any exit.
set -euo pipefail

MODE="${1:-callgrind}"
WHICH="${2:-one}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=scripts/lib/require.sh
source "$ROOT/scripts/lib/require.sh"
# shellcheck source=scripts/lib/build.sh
source "$ROOT/scripts/lib/build.sh"
# shellcheck source=scripts/lib/server.sh
source "$ROOT/scripts/lib/server.sh"
# shellcheck source=scripts/lib/callgrind.sh
source "$ROOT/scripts/lib/callgrind.sh"
SECONDS_RUN="${TRIPS_PROFILE_SECONDS:-3}"
CONNS="${TRIPS_PROFILE_CONNS:-16}"
PEER="${TRIPS_PROFILE_PEER:-nginx}"
OUT="${TRIPS_PROFILE_OUT:-/tmp/trips-profile}"
LOG_LEVEL=warning
[[ "${TRIPS_PROFILE_ACCESS_LOG:-0}" == 1 ]] && LOG_LEVEL=info

# The cases, each NAME|PATH|HEADER (HEADER empty: none).
case "$WHICH" in
  one) CASES=("trips|${TRIPS_PROFILE_URL_PATH:-/trips/2}|${TRIPS_PROFILE_HEADER:-}") ;;
  all) CASES=("json|/trips/2|" "text|/trips/2|Accept: text/plain" "html|/trips/2|Accept: text/html"
    "list|/trips?limit=50|") ;;
  *) echo "usage: $0 [callgrind|perf] [one|all]" >&2; exit 2 ;;
esac
[[ "$PEER" == nginx || "$PEER" == none ]] || die "TRIPS_PROFILE_PEER is nginx or none, not $PEER"

require_tool curl curl
require_tool wrk wrk
[[ "$PEER" == none ]] || require_tool nginx nginx
case "$MODE" in
  callgrind)
    require_tool valgrind valgrind
    require_tool callgrind_control valgrind
    # What each measured server runs behind: one output file per process, numbered per dump.
    WRAPPER=(valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out.%p" --dump-instr=no)
    ;;
  perf)
    require_tool perf linux-perf
    perf stat -e task-clock true >/dev/null 2>&1 \
      || die "perf cannot count here (kernel.perf_event_paranoid is $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unknown));" \
        "as root: sysctl kernel.perf_event_paranoid=1, or use scripts/bench/profile.sh callgrind"
    WRAPPER=()
    ;;
  *) echo "usage: $0 [callgrind|perf] [one|all]" >&2; exit 2 ;;
esac

cd "$ROOT"
BINARY="$(build_release_server)"
mkdir -p "$OUT"
rm -rf "$OUT"/callgrind.out.* "$OUT"/top-*.txt "$OUT"/wrk-*.txt "$OUT"/*.perf "$OUT/nginx"

PID=""
stop_measured() {
  if [[ -n "$PID" ]] && kill -0 "$PID" 2>/dev/null; then
    kill -TERM "$PID" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
  fi
  PID=""
}
trap stop_measured EXIT
trap 'exit 130' INT TERM

# self_costs DUMP REQUESTS: every function of a callgrind dump by its own instructions (inlined
# code included), per request, most first, demangled when swift is at hand. callgrind_annotate
# shows the frames that were running when the counters were zeroed (the event loop's) with
# the whole run's cost as their own, so the dump is read here: a cost line is the current fn's,
# but the one after a calls= line, which is that call's inclusive cost.
self_costs() {
  local demangle=(cat)
  command -v swift >/dev/null 2>&1 && demangle=(swift demangle --simplified)
  awk -v requests="$2" '
    function named(spec) {  # fn=(ID) NAME defines ID, fn=(ID) alone reuses it; cfn= shares the IDs
      if (!match(spec, /^\([0-9]+\)/)) return spec
      if (length(spec) > RLENGTH) names[substr(spec, 1, RLENGTH)] = substr(spec, RLENGTH + 2)
      return names[substr(spec, 1, RLENGTH)]
    }
    /^fn=/ { function_name = named(substr($0, 4)); next }
    /^cfn=/ { named(substr($0, 5)); next }
    /^calls=/ { call_cost_follows = 1; next }
    /^[0-9+*-]/ { if (call_cost_follows) call_cost_follows = 0; else own[function_name] += $2 }
    END { for (name in own) printf "%9.1f  %s\n", own[name] / requests, name }
  ' "$1" | sort -rn | "${demangle[@]}"
}

# measure LABEL URL [HEADER]: one case of the server running as $PID. Checks that URL answers,
# warms up, counts one wrk run, prints a line and adds "LABEL|figure" to RESULTS (Ir per request
# for callgrind, server CPU microseconds per request for perf).
RESULTS=()
DUMPS=0
measure() {
  local label="$1" url="$2" header=() requests figure dump
  [[ -n "${3:-}" ]] && header=(-H "$3")
  curl -sf -o /dev/null --max-time 30 "${header[@]}" "$url" || die "$label: GET $url failed"
  wrk -t1 -c"$CONNS" -d1s "${header[@]}" "$url" >/dev/null
  case "$MODE" in
    callgrind)
      callgrind_control --zero "$PID" >/dev/null 2>&1 || die "$label: callgrind_control --zero failed"
      wrk -t1 -c"$CONNS" -d"${SECONDS_RUN}s" "${header[@]}" "$url" >"$OUT/wrk-$label.txt"
      callgrind_control --dump="$label" "$PID" >/dev/null 2>&1 || die "$label: callgrind_control --dump failed"
      DUMPS=$((DUMPS + 1))
      dump="$OUT/callgrind.out.$PID.$DUMPS"
      [[ -s "$dump" ]] || die "$label: callgrind wrote no $dump"
      ;;
    perf)
      perf stat -x, -e task-clock,instructions:u,instructions:k -p "$PID" -o "$OUT/$label.perf" -- \
        wrk -t1 -c"$CONNS" -d"${SECONDS_RUN}s" "${header[@]}" "$url" >"$OUT/wrk-$label.txt"
      ;;
  esac
  requests="$(awk '/requests in/ {print $1}' "$OUT/wrk-$label.txt")"
  [[ "$requests" =~ ^[1-9][0-9]*$ ]] || die "$label: wrk made no requests ($(cat "$OUT/wrk-$label.txt"))"
  case "$MODE" in
    callgrind)
      figure=$(($(callgrind_total "$dump") / requests))
      self_costs "$dump" "$requests" >"$OUT/top-$label.txt"
      echo "$label: $requests requests, $figure Ir per request ($dump)"
      ;;
    perf)
      figure="$(awk -F, -v n="$requests" '/task-clock/ {printf "%.2f", $1 * 1000 / n}' "$OUT/$label.perf")"
      awk -F, -v n="$requests" -v label="$label" -v us="$figure" '
        /instructions:u/ {user = $1} /instructions:k/ {kernel = $1}
        END {
          printf "%s: %d requests, server CPU %s us per request", label, n, us
          if (user ~ /^[0-9]+$/) printf ", instructions per request: user %d, kernel %d\n", user / n, kernel / n
          else printf ", instructions not counted on this CPU (%s)\n", user
        }' "$OUT/$label.perf"
      ;;
  esac
  RESULTS+=("$label|$figure")
}

# ---------------------------------------------------------------- trips-server
run_server "${WRAPPER[@]}" -- "$BINARY" --in-memory --port 0 --threads 1 --io "${TRIPS_PROFILE_IO:-epoll}" --log-level "$LOG_LEVEL" \
  >"$OUT/server.out" 2>"$OUT/server.err" &
PID=$!
PORT=""
for _ in $(seq 600); do
  PORT="$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$OUT/server.out" 2>/dev/null | grep -o '[0-9]*$' || true)"
  [[ -n "$PORT" ]] && break
  kill -0 "$PID" 2>/dev/null || break
  sleep 0.1
done
[[ -n "$PORT" ]] || die "trips-server did not start: $(cat "$OUT/server.err")"
TRIPS="http://127.0.0.1:$PORT"

drafts=""
for i in $(seq 50); do
  drafts+="${drafts:+,}{\"city\":\"City $i\",\"country\":\"Country $((i % 7))\",\"nights\":$((1 + i % 9)),"
  drafts+="\"price\":$((100 + i)).50,\"start\":\"2027-$(printf %02d $((1 + i % 12)))-10\",\"notes\":\"Note $i.\"}"
done
curl -sf -o /dev/null --max-time 60 -H 'Content-Type: application/json' -H 'Prefer: return=minimal' \
  -d "[$drafts]" "$TRIPS/trips" || die "POST /trips of 50 trips failed"

# The body nginx answers: as many bytes as trips-server's answer to the first case.
IFS='|' read -r _ path header <<<"${CASES[0]}"
BODY_BYTES="$(curl -sf --max-time 30 ${header:+-H "$header"} -o /dev/null -w '%{size_download}' "$TRIPS$path")"

for entry in "${CASES[@]}"; do
  IFS='|' read -r label path header <<<"$entry"
  measure "$label" "$TRIPS$path" "$header"
done
stop_measured
DUMPS=0

# ---------------------------------------------------------------- nginx
if [[ "$PEER" == nginx ]]; then
  NGINX="$(tool_path nginx)"
  port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
  PORT=18480
  while ! port_free "$PORT"; do PORT=$((PORT + 1)); done
  mkdir -p "$OUT/nginx/tmp"
  # A JSON string of BODY_BYTES bytes in all: nothing nginx's config or variables would read.
  body="{\"body\":\"$(head -c $((BODY_BYTES - 11)) /dev/zero | tr '\0' x)\"}"
  write_nginx_conf() {  # write_nginx_conf full|min (min: nginx-light has no uwsgi, scgi)
    local temps="client_body_temp_path $OUT/nginx/tmp/body; proxy_temp_path $OUT/nginx/tmp/proxy;"
    [[ "$1" == min ]] || temps="$temps fastcgi_temp_path $OUT/nginx/tmp/fastcgi;
    uwsgi_temp_path $OUT/nginx/tmp/uwsgi; scgi_temp_path $OUT/nginx/tmp/scgi;"
    cat >"$OUT/nginx/nginx.conf" <<EOF
# Throwaway: one process on loopback (the one callgrind follows), one fixed JSON answer.
daemon off;
master_process off;
worker_processes 1;
pid $OUT/nginx/nginx.pid;
error_log $OUT/nginx/error.log warn;
events {
    worker_connections 4096;
}
http {
    access_log off;
    server_tokens off;
    keepalive_timeout 65;
    keepalive_requests 10000000;
    $temps
    server {
        listen 127.0.0.1:$PORT;
        location / {
            default_type application/json;
            return 200 '$body';
        }
    }
}
EOF
  }
  write_nginx_conf full
  if ! "$NGINX" -t -q -p "$OUT/nginx" -e "$OUT/nginx/error.log" -c "$OUT/nginx/nginx.conf" 2>/dev/null; then
    write_nginx_conf min
  fi
  "${WRAPPER[@]}" "$NGINX" -p "$OUT/nginx" -e "$OUT/nginx/error.log" -c "$OUT/nginx/nginx.conf" \
    >"$OUT/nginx.out" 2>"$OUT/nginx.err" &
  PID=$!
  for _ in $(seq 600); do
    kill -0 "$PID" 2>/dev/null || die "nginx exited at start-up: $(cat "$OUT/nginx.err" "$OUT/nginx/error.log" 2>/dev/null)"
    curl -sf -o /dev/null --max-time 1 "http://127.0.0.1:$PORT/" && break
    sleep 0.1
  done
  got="$(curl -sf --max-time 30 -o /dev/null -w '%{size_download}' "http://127.0.0.1:$PORT/")" || die "nginx did not answer"
  [[ "$got" == "$BODY_BYTES" ]] || die "nginx answered $got bytes, not $BODY_BYTES"
  measure nginx "http://127.0.0.1:$PORT/trips/2"
  stop_measured
fi

# ---------------------------------------------------------------- the table
unit="Ir per request"
[[ "$MODE" == perf ]] && unit="server CPU us per request"
NGINX_FIGURE=""
[[ "${RESULTS[-1]}" == nginx\|* ]] && NGINX_FIGURE="${RESULTS[-1]#nginx|}"
echo
echo "| case | request | $unit | x nginx |"
echo "| --- | --- | ---: | ---: |"
for entry in "${RESULTS[@]}"; do
  IFS='|' read -r label figure <<<"$entry"
  request="return 200 of $BODY_BYTES bytes"
  for case_entry in "${CASES[@]}"; do
    IFS='|' read -r name path header <<<"$case_entry"
    [[ "$name" == "$label" ]] && request="GET $path${header:+, $header}"
  done
  awk -v label="$label" -v request="$request" -v figure="$figure" -v peer="$NGINX_FIGURE" 'BEGIN {
    printf "| %s | %s | %s | %s |\n", label, request, figure, peer == "" ? "-" : sprintf("%.2fx", figure / peer)
  }'
done

if [[ "$MODE" == callgrind ]]; then
  first="${CASES[0]%%|*}"
  echo
  echo "Top 15 functions of $first by their own Ir per request (all: $OUT/top-$first.txt;"
  echo "callers and callees: callgrind_annotate --tree=both DUMP, the dumps named above):"
  head -n 15 "$OUT/top-$first.txt" | cut -c1-160
fi
