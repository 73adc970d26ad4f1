#!/usr/bin/env python3
"""Measures costly requests from outside (#26 items 3 and 4), against a trips-server binary
on loopback, each mode on a server of its own, stopped at the end:

  drop LINES   a text favorite drop of LINES lines `Seattle` against 2,001 trips, and the
               slowest GET /trips/2 of another client meanwhile
  journal      journal bytes written by 40 keyed sorts of 2,000 trips (and by 40 without keys)
  memory       resident memory after 40 keyed no-op sorts of 20,000 trips
  bigrss N     resident memory with N trips

usage: python3 scripts/bench/costly_requests.py .build/release/trips-server MODE [N]
"""
import http.client, json, os, re, shutil, socket, subprocess, sys, tempfile, threading, time

# The one way the scripts start trips-server (on 127.0.0.1); it execs, so proc.pid is the server's.
SERVER_SH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib", "server.sh")

def start(binary, *args):
    sock = socket.socket(); sock.bind(("127.0.0.1", 0)); port = sock.getsockname()[1]; sock.close()
    proc = subprocess.Popen([SERVER_SH, binary, "--port", str(port), "--log-level", "warning", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(600):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=600); c.request("GET", "/livez"); c.getresponse().read(); return proc, port
        except OSError:
            time.sleep(0.05)
    raise SystemExit("server did not start")

def request(port, method, target, body=None, headers=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=3600)
    c.request(method, target, body=body, headers=headers or {})
    r = c.getresponse(); data = r.read(); c.close()
    return r.status, data

def create(port, count, city="City", notes=""):
    for first in range(0, count, 1000):
        drafts = [{"city": f"{city} {i}", "country": "Country", "nights": 2, "price": (i * 7919) % 5000, "notes": notes,
                   "start": f"2027-{1 + (i * 5) % 12:02d}-{1 + (i * 11) % 28:02d}"}
                  for i in range(first, min(first + 1000, count))]
        status, _ = request(port, "POST", "/trips", json.dumps(drafts), {"Content-Type": "application/json"})
        assert status == 201, status

def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1)) // 1024

def journal_bytes(port):
    _, data = request(port, "GET", "/metrics")
    match = re.search(rb"^trips_journal_bytes_total (\d+)", data, re.M)
    return int(match.group(1))

binary, mode = sys.argv[1], sys.argv[2]
folder = tempfile.mkdtemp(prefix="ledger-measure-")
try:
    if mode == "drop":
        lines = int(sys.argv[3])
        proc, port = start(binary, "--in-memory", "--no-samples")
        create(port, 2000)
        status, _ = request(port, "POST", "/trips", json.dumps({"city": "Seattle", "country": "United States", "nights": 2, "price": 1, "start": "2027-05-01"}), {"Content-Type": "application/json"})
        latencies, done = [], threading.Event()
        def reader():
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=3600)
            while not done.is_set():
                t = time.perf_counter(); c.request("GET", "/trips/2"); c.getresponse().read(); latencies.append(time.perf_counter() - t)
        thread = threading.Thread(target=reader); thread.start(); time.sleep(0.5)
        body = "Seattle\n" * lines
        t = time.perf_counter()
        status, data = request(port, "POST", "/favorites", body, {"Content-Type": "text/plain"})
        took = time.perf_counter() - t
        time.sleep(0.3); done.set(); thread.join()
        print(f"drop of {lines} lines against 2,001 trips: {status} in {took:.3f} s; "
              f"GET /trips/2 meanwhile: {len(latencies)} requests, max {max(latencies)*1000:.1f} ms")
    elif mode == "journal":
        proc, port = start(binary, "--data", folder + "/data", "--no-samples")
        create(port, 2000)
        before = journal_bytes(port)
        for k in range(40):
            by = "price" if k % 2 == 0 else "start"
            status, _ = request(port, "POST", "/trips/sort", json.dumps({"by": by}), {"Content-Type": "application/json", "Idempotency-Key": f"sort-{k}"})
            assert status == 200, status
        keyed = journal_bytes(port) - before
        before = journal_bytes(port)
        for k in range(40):
            by = "price" if k % 2 == 0 else "start"
            request(port, "POST", "/trips/sort", json.dumps({"by": by}), {"Content-Type": "application/json"})
        print(f"journal bytes written by 40 keyed sorts of 2,000 trips: {keyed:,} (40 without keys: {journal_bytes(port) - before:,})")
    elif mode == "memory":
        proc, port = start(binary, "--in-memory", "--no-samples")
        create(port, 20000)
        request(port, "POST", "/trips/sort", json.dumps({"by": "price"}), {"Content-Type": "application/json"})
        before = rss(proc.pid)
        for k in range(40):
            status, _ = request(port, "POST", "/trips/sort", json.dumps({"by": "price"}), {"Content-Type": "application/json", "Idempotency-Key": f"noop-{k}"})
            assert status == 200, status
        time.sleep(1)
        print(f"RSS after 40 keyed no-op sorts of 20,000 trips: {rss(proc.pid)} MiB (before them: {before} MiB)")
    elif mode == "bigrss":
        proc, port = start(binary, "--in-memory", "--no-samples")
        create(port, int(sys.argv[3]), notes="The driest desert on Earth, with a sky made for stargazing.")
        time.sleep(1)
        print(f"RSS with {int(sys.argv[3]):,} trips (notes of 60 characters): {rss(proc.pid)} MiB")
    proc.terminate(); proc.wait()
finally:
    shutil.rmtree(folder, ignore_errors=True)
