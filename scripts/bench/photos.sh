#!/usr/bin/env bash
# scripts/bench/photos.sh - GET /photos/<sha256>.png of a ~200 KB photo from a release
# trips-server against nginx serving the same bytes from a file, with wrk; then the time of a
# 5 MB PUT /trips/{id}/photo. On 127.0.0.1 only.
#
#   scripts/bench/photos.sh                         # 64 connections, 10 s, 3 rounds, 5 PUTs
#   scripts/bench/photos.sh --conns 16 --duration 3 --rounds 1 --puts 3
#
# What it does: makes the photos (PNGs of random pixels, written with python3's zlib: no
# metadata, so the server keeps them byte for byte), starts trips-server on a new data folder
# in a temp folder (--threads 1, --no-samples) and nginx (one worker, no master, a throwaway
# config in the temp folder, the photo as a file with the headers trips-server sends: its
# strong ETag, `immutable`, nosniff, the CSP), both pinned to CPU 0 (one core each, measured
# in turn, as ../shared/bench/peers.sh does), creates a trip, PUTs the photo, and checks that
# both serve the same bytes. Then, per round, a 1 s warm-up and `wrk -t1 -cN -dS --latency`
# (pinned to CPU 1) against each, alternating; it prints req/s, MB/s, p50, p99, the server's
# CPU use (/proc/PID/stat; 100% = one core) and CPU time per request, and how busy wrk's core
# was, per run; then the medians and the ratios trips/nginx. At 200 KB a response, wrk's
# core (reading the bytes) saturates first: req/s then measures the client, and CPU per
# request is the fairer comparison of the servers. Last, PUTs distinct 5 MB photos on that
# trip with curl (each a real write: a file synced and renamed, then the journal record
# synced) and prints each one's time (curl's time_total) and the median.
#
# Options: --conns N (64), --duration S (10), --rounds N (3), --puts N (5), --no-install
# (as TRIPS_NO_INSTALL=1). Environment: TRIPS_RELEASE_SCRATCH, TRIPS_NO_BUILD=1
# (scripts/lib/build.sh).
#
# Needs wrk, curl, nginx, taskset (util-linux) and python3: installed with apt-get when run as
# root, otherwise named (scripts/lib/require.sh). Stops both servers and wrk and removes its
# temp folder on any exit.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
source "$ROOT/scripts/lib/require.sh"
source "$ROOT/scripts/lib/build.sh"
source "$ROOT/scripts/lib/server.sh"

CONNS=64
DURATION=10
ROUNDS=3
PUTS=5
SERVER_CPU=0
CLIENT_CPU=1
PHOTO_SIDE=260   # 260 x 260 random RGB pixels: about 200 KB
LARGE_SIDE=1292  # about 5 MB

usage() {
  die "takes --conns N, --duration S, --rounds N, --puts N and --no-install${1:+ (not $1)}"
}
while (($# > 0)); do
  case "$1" in
    --conns | --duration | --rounds | --puts) [[ $# -ge 2 && "$2" =~ ^[1-9][0-9]*$ ]] || usage "$1 ${2:-}" ;;&
    --conns) CONNS="$2"; shift 2 ;;
    --duration) DURATION="$2"; shift 2 ;;
    --rounds) ROUNDS="$2"; shift 2 ;;
    --puts) PUTS="$2"; shift 2 ;;
    --no-install) export TRIPS_NO_INSTALL=1; shift ;;
    *) usage "$1" ;;
  esac
done

require_tool wrk wrk
require_tool curl curl
require_tool nginx nginx
require_tool taskset util-linux
require_tool python3 python3
(($(nproc) >= 2)) || die "needs 2 CPUs: one for the servers, one for wrk"
NGINX="$(tool_path nginx)"
BINARY="$(build_release_server)"

WORK=""
TRIPS_PID=""
NGINX_PID=""
CLIENT_PID=""

stop_pid() {  # stop_pid PID: TERM, then KILL after 5 s, then reap
  local pid="$1"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  stop_pid "$CLIENT_PID"
  stop_pid "$NGINX_PID"
  stop_pid "$TRIPS_PID"
  [[ -z "$WORK" ]] || rm -rf "$WORK"
}
WORK="$(mktemp -d "${TMPDIR:-/tmp}/trips-photos.XXXXXX")"
trap cleanup EXIT
trap 'exit 130' INT TERM
ulimit -n 65536 2>/dev/null || ulimit -n 8192 2>/dev/null || true

# client SECONDS COMMAND...: COMMAND pinned to the client CPU, killed after SECONDS at the
# latest; in the background, so that INT or TERM reach the trap (which stops it) at once.
client() {
  local seconds="$1"
  shift
  timeout -k 2 "$seconds" taskset -c "$CLIENT_CPU" "$@" &
  CLIENT_PID=$!
  local status=0
  wait "$CLIENT_PID" || status=$?
  CLIENT_PID=""
  return "$status"
}

# make_png FILE SIDE SEED: a SIDE x SIDE PNG of random pixels (a seeded generator: distinct
# seeds, distinct photos), written by hand with zlib and crc32.
make_png() {
  python3 - "$@" <<'PYTHON'
import binascii, random, sys, zlib
path, side, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
pixels = random.Random(seed).randbytes(side * side * 3)
rows = b"".join(b"\0" + pixels[y * side * 3:(y + 1) * side * 3] for y in range(side))
def chunk(kind, data):
    return len(data).to_bytes(4, "big") + kind + data + binascii.crc32(kind + data).to_bytes(4, "big")
header = side.to_bytes(4, "big") * 2 + bytes([8, 2, 0, 0, 0])
with open(path, "wb") as file:
    file.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 1)) + chunk(b"IEND", b""))
PYTHON
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
NEXT_PORT=18380
pick_port() {  # sets PORT to a loopback port nothing listens on
  while ! port_free "$NEXT_PORT"; do NEXT_PORT=$((NEXT_PORT + 1)); done
  PORT=$NEXT_PORT
  NEXT_PORT=$((NEXT_PORT + 1))
}

# ---------------------------------------------------------------- trips-server
make_png "$WORK/photo.png" "$PHOTO_SIDE" 1
run_server taskset -c "$SERVER_CPU" -- "$BINARY" --port 0 --data "$WORK/data" --no-samples --threads 1 \
  --log-level warning >"$WORK/trips.out" 2>"$WORK/trips.err" &
TRIPS_PID=$!
TRIPS_URL="$(wait_until_listening "$TRIPS_PID" "$WORK/trips.out" "$WORK/trips.err")" || die "trips-server did not start"
trip="$(curl -sf --max-time 10 -H 'Content-Type: application/json' \
  -d '{"city":"Lisbon","country":"Portugal","nights":4,"price":900,"start":"2027-05-01"}' "$TRIPS_URL/trips")" \
  || die "POST /trips failed"
TRIP_ID="$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["id"])' "$trip")"
answer="$(curl -sf --max-time 10 -X PUT -H 'Content-Type: image/png' --data-binary "@$WORK/photo.png" \
  "$TRIPS_URL/trips/$TRIP_ID/photo")" || die "PUT /trips/$TRIP_ID/photo failed"
PHOTO_PATH="$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["photo"]["url"])' "$answer")"
DIGEST="$(sha256sum "$WORK/photo.png" | cut -d' ' -f1)"
[[ "$PHOTO_PATH" == "/photos/$DIGEST.png" ]] || die "the photo's URL is $PHOTO_PATH, not /photos/$DIGEST.png: the server changed its bytes"
curl -sf --max-time 10 -D "$WORK/trips.head" -o "$WORK/trips.body" "$TRIPS_URL$PHOTO_PATH" || die "GET $PHOTO_PATH failed"
cmp -s "$WORK/trips.body" "$WORK/photo.png" || die "GET $PHOTO_PATH served other bytes than were PUT"

# ---------------------------------------------------------------- nginx
# header NAME: the value of NAME in trips-server's answer, so that nginx sends the same.
header() {
  sed -n "s/^$1: *\\(.*\\)\\r\$/\\1/Ip" "$WORK/trips.head" | head -n 1
}
mkdir -p "$WORK/www/photos" "$WORK/nginx/tmp"
cp "$WORK/photo.png" "$WORK/www/photos/$DIGEST.png"
pick_port
NGINX_URL="http://127.0.0.1:$PORT$PHOTO_PATH"
write_nginx_conf() {  # write_nginx_conf full|min (min: nginx-light has no uwsgi, scgi)
  local temps="client_body_temp_path $WORK/nginx/tmp/body; proxy_temp_path $WORK/nginx/tmp/proxy;"
  [[ "$1" == min ]] || temps="$temps fastcgi_temp_path $WORK/nginx/tmp/fastcgi;
    uwsgi_temp_path $WORK/nginx/tmp/uwsgi; scgi_temp_path $WORK/nginx/tmp/scgi;"
  cat >"$WORK/nginx/nginx.conf" <<EOF
# Throwaway: one process on loopback, the photo as a static file with trips-server's headers.
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
    # How nginx serves files: sendfile from the page cache, the open file kept.
    sendfile on;
    tcp_nopush on;
    open_file_cache max=16 inactive=60s;
    open_file_cache_valid 60s;
    $temps
    types { image/png png; }
    server {
        listen 127.0.0.1:$PORT backlog=4096;
        root $WORK/www;
        location /photos/ {
            etag off;
            add_header ETag '$(header etag)';
            add_header Cache-Control '$(header cache-control)';
            add_header X-Content-Type-Options '$(header x-content-type-options)';
            add_header Content-Security-Policy "$(header content-security-policy)";
        }
    }
}
EOF
}
write_nginx_conf full
if ! "$NGINX" -t -q -p "$WORK/nginx" -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" 2>/dev/null; then
  write_nginx_conf min
fi
taskset -c "$SERVER_CPU" "$NGINX" -p "$WORK/nginx" -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" \
  >/dev/null 2>"$WORK/nginx.err" &
NGINX_PID=$!
for _ in $(seq 100); do
  kill -0 "$NGINX_PID" 2>/dev/null || die "nginx exited at start-up: $(cat "$WORK/nginx.err" "$WORK/nginx/error.log" 2>/dev/null)"
  curl -sf -o /dev/null --max-time 1 "$NGINX_URL" && break
  sleep 0.1
done
curl -sf --max-time 10 -D "$WORK/nginx.head" -o "$WORK/nginx.body" "$NGINX_URL" || die "GET $NGINX_URL failed"
cmp -s "$WORK/nginx.body" "$WORK/photo.png" || die "nginx served other bytes than the photo"

# ---------------------------------------------------------------- GET
# process_ticks PID: the CPU time (user + system, every thread) of process PID, in clock ticks.
process_ticks() {
  awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"
}

# core_ticks CPU: "busy total" clock ticks of CPU so far (/proc/stat; idle and iowait are not busy).
core_ticks() {
  awk -v c="cpu$1" '$1 == c { t = 0; for (i = 2; i <= 9; i++) t += $i; print t - $5 - $6, t }' /proc/stat
}

# measure ROUND NAME URL PID: one wrk run against the server PID; prints its row (with the
# server's CPU use, 100% = one core, its CPU time per request, and how busy wrk's core was)
# and appends it to $WORK/results.
measure() {
  local out="$WORK/wrk-$1-$2.txt" ticks0 ticks1 core0 core1 start end
  ticks0="$(process_ticks "$4")"
  core0="$(core_ticks "$CLIENT_CPU")"
  start="$(date +%s.%N)"
  client $((DURATION + 15)) wrk -t1 -c"$CONNS" -d"${DURATION}s" --timeout 2s --latency "$3" >"$out" 2>&1 || true
  end="$(date +%s.%N)"
  ticks1="$(process_ticks "$4")"
  core1="$(core_ticks "$CLIENT_CPU")"
  awk -v r="$1" -v n="$2" -v ticks=$((ticks1 - ticks0)) -v hz="$(getconf CLK_TCK)" -v wall="$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" \
    -v core0="$core0" -v core1="$core1" '
    function mb(v) { return v ~ /GB$/ ? v * 1024 : v ~ /KB$/ ? v / 1024 : v + 0 }
    /^Requests\/sec:/ { rps = $2 }
    /^Transfer\/sec:/ { rate = mb($2) }
    $1 == "50%" { p50 = $2 }
    $1 == "99%" { p99 = $2 }
    /Socket errors:/ { gsub(",", ""); errors += $4 + $6 + $8 + $10 }
    /Non-2xx or 3xx responses:/ { errors += $NF }
    END {
      split(core0, a, " "); split(core1, b, " ")
      cpu = ticks / hz / wall * 100
      print r, n, (rps == "" ? "FAILED" : rps), (rate == "" ? "-" : sprintf("%.0f", rate)), (p50 == "" ? "-" : p50), (p99 == "" ? "-" : p99), errors + 0,
        sprintf("%.0f%%", cpu), (rps > 0 ? sprintf("%.0f", ticks / hz / (rps * wall) * 1e6) : "-"),
        (b[2] > a[2] ? sprintf("%.0f%%", (b[1] - a[1]) * 100 / (b[2] - a[2])) : "-")
    }' "$out" | tee -a "$WORK/results" | awk "{ printf \"$ROW\", \$1, \$2, \$3, \$4, \$5, \$6, \$7, \$8, \$9, \$10 }"
}

ROW='%-6s %-7s %10s %8s %9s %9s %7s %11s %9s %9s\n'
echo "== GET $PHOTO_PATH: $(wc -c <"$WORK/photo.png") bytes (PNG, ${PHOTO_SIDE}x$PHOTO_SIDE); wrk -t1 -c$CONNS -d${DURATION}s --latency, $ROUNDS round(s), 1 s warm-up each"
echo "== $(nproc) CPUs; servers pinned to CPU $SERVER_CPU (measured in turn), wrk to CPU $CLIENT_CPU; loopback, keep-alive"
echo "== trips: $BINARY --data (temp folder) --threads 1 --no-samples"
echo "== nginx: $("$NGINX" -v 2>&1 | sed 's/^nginx version: //'), one process, the same bytes from a file (sendfile), the same headers"
echo "== response heads: trips $(wc -c <"$WORK/trips.head") bytes ($(cut -d: -f1 "$WORK/trips.head" | sed 1d | tr -d '\r' | grep . | sort | paste -sd, -))"
echo "==                 nginx $(wc -c <"$WORK/nginx.head") bytes ($(cut -d: -f1 "$WORK/nginx.head" | sed 1d | tr -d '\r' | grep . | sort | paste -sd, -))"
# shellcheck disable=SC2059 # the row's format, shared with measure
printf "$ROW" round server req/s MB/s p50 p99 errors "server CPU" "us/req" "wrk core"
for round in $(seq "$ROUNDS"); do
  for target in "nginx $NGINX_PID $NGINX_URL" "trips $TRIPS_PID $TRIPS_URL$PHOTO_PATH"; do
    read -r name pid url <<<"$target"
    client 16 wrk -t1 -c16 -d1s "$url" >/dev/null 2>&1 || true
    measure "$round" "$name" "$url" "$pid"
  done
done
awk -v rounds="$ROUNDS" '
  function median(values, name,   n, i, j, t, v) {
    n = count[name]
    for (i = 1; i <= n; i++) v[i] = values[name, i]
    for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
    return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  $3 != "FAILED" { rps[$2, ++count[$2]] = $3; cost[$2, count[$2]] = $9 }
  END {
    if (!count["trips"] || !count["nginx"]) { print "trips/nginx: no result"; exit }
    printf "trips/nginx: %.2fx req/s (medians of %d round(s): trips %.0f, nginx %.0f)\n", median(rps, "trips") / median(rps, "nginx"), rounds, median(rps, "trips"), median(rps, "nginx")
    printf "server CPU per request: trips %.0f us, nginx %.0f us (%.2fx); with the wrk core near 100%%, req/s measures wrk and this is the fairer figure\n", median(cost, "trips"), median(cost, "nginx"), median(cost, "trips") / median(cost, "nginx")
  }' "$WORK/results"
stop_pid "$NGINX_PID"
NGINX_PID=""

# ---------------------------------------------------------------- PUT
echo "== PUT /trips/$TRIP_ID/photo of distinct 5 MB photos (PNG, ${LARGE_SIDE}x$LARGE_SIDE), curl (pinned to CPU $CLIENT_CPU), $PUTS run(s)"
for run in $(seq "$PUTS"); do
  make_png "$WORK/large.png" "$LARGE_SIDE" $((run + 1))
  result="$(client 60 curl -s -o "$WORK/put.body" -w '%{http_code} %{time_total}' -X PUT -H 'Content-Type: image/png' \
    --data-binary "@$WORK/large.png" "$TRIPS_URL/trips/$TRIP_ID/photo")" || die "PUT of a 5 MB photo failed: $result"
  [[ "$result" == "200 "* ]] || die "PUT of a 5 MB photo answered ${result%% *}: $(head -c 300 "$WORK/put.body")"
  printf '%-6s %s bytes in %.3f s\n' "$run" "$(wc -c <"$WORK/large.png")" "${result#* }"
  echo "${result#* }" >>"$WORK/puts"
done
sort -n "$WORK/puts" | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "PUT 5 MB: median %.3f s (%d runs, min %.3f, max %.3f)\n", m, NR, v[1], v[NR] }'

kill -0 "$TRIPS_PID" 2>/dev/null || die "trips-server died during the runs: $(tail -3 "$WORK/trips.err")"
