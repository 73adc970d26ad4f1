#!/usr/bin/env python3
"""Two trips-server instances on one PostgreSQL database, with nginx in front of them as
deploy/ configures it (scripts/drills/balancer.sh starts the database and passes its URL).

Each check prints one line and the drill exits non-zero when any fails:

  balancer   writes and reads through nginx: a read that carries the revision its write
             answered (Trips-Revision) sees the write, whichever instance answers
  feed       a change feed followed through nginx hears every write made on one instance;
             the delay from a write's answer to its event, p50 and p99
  race       the same conditional change (If-Match) sent to both instances at once: exactly
             one wins, the other gets 412
  restart    PostgreSQL restarted while both instances take writes: changes are refused
             (503) meanwhile, reads go on, and both write again afterwards without a restart;
             every acknowledged write is kept
  kill       kill -9 of one instance while both take writes, then the instance started again
             on its port: every acknowledged write is in the list the other instance serves
  history    every instance's change feed, followed from revision 0 for the whole drill
             (reconnecting with Last-Event-ID across the kill and the restart), against every
             acknowledged write (its Trips-Revision): each feed tells 1, 2, ..., n once each,
             in order, never a reset; every feed tells the same event at a revision; every
             acknowledged write is in every feed at its revision, as the change it was, and no
             two share one; no id is issued twice; replaying the history gives the list each
             instance serves (ids, order, favorites, cities) (feed_history.py)

The writers of restart and kill make a mix (writers): creates, favorite drops, reorders of one
trip and deletes, so that the history check has orders and deletions to get wrong.
"""

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from feed_history import Acknowledged, FeedFollower, history_problems, wait_until_caught_up

# The one way the scripts start trips-server (on 127.0.0.1); it execs, so the pid is the server's.
SERVER_SH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib", "server.sh")
DRAFT = '{"city":"%s","country":"Drilland","nights":2,"price":10.5,"start":"2027-05-01"}'
failures = []
# Every write any check was answered 2xx for, with its Trips-Revision (the history check).
acknowledged = Acknowledged()


def check(name, ok, detail):
    print(f"{name:9}  {'ok' if ok else 'FAILED'}: {detail}", flush=True)
    if not ok:
        failures.append(name)


class Server:
    """trips-server on the database at URL (TRIPS_DATABASE_URL), on a free port of 127.0.0.1."""

    def __init__(self, binary, url, port=0):
        self.process = subprocess.Popen(
            [SERVER_SH, binary, "--port", str(port), "--log-level", "warning", "--no-samples"],
            env={**os.environ, "TRIPS_DATABASE_URL": url},  # not on the command line, where ps shows it
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.time() + 60
        for line in self.process.stdout:
            if "listening on http://127.0.0.1:" in line:
                self.port = int(line.rsplit(":", 1)[1])
                break
            if time.time() > deadline:
                break
        else:
            raise SystemExit(f"balancer-drill: the server did not start: {line}")
        # Keep reading its output, so that it never blocks on a full pipe.
        threading.Thread(target=lambda: [None for _ in self.process.stdout], daemon=True).start()

    def kill(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


def request(port, method, target, body=None, headers=None, timeout=10):
    """One request on a new connection: (status, headers as a dict, body text)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        sent = dict(headers or {})
        if body is not None:
            sent.setdefault("Content-Type", "application/json")
        connection.request(method, target, body=body, headers=sent)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
    finally:
        connection.close()


def create(port, city):
    status, headers, body = request(port, "POST", "/trips", DRAFT % city)
    trip = json.loads(body)["id"] if status == 201 else None
    if trip is not None:
        acknowledged.add("created", [trip], headers)
    return status, headers, trip


def ids(port):
    status, _, body = request(port, "GET", "/trips")
    assert status == 200, f"GET /trips answered {status}"
    return {trip["id"] for trip in json.loads(body)}


def start_nginx(template, upstreams, work):
    port = free_port()
    with open(template) as file:
        server = file.read()
    for name, value in {"TRIPS_UPSTREAM_1": upstreams[0], "TRIPS_UPSTREAM_2": upstreams[1], "TRIPS_LISTEN": f"127.0.0.1:{port}"}.items():
        server = server.replace("${%s}" % name, value)
    config = os.path.join(work, "nginx.conf")
    with open(config, "w") as file:
        file.write("worker_processes 1;\npid %s/nginx.pid;\nerror_log %s/error.log warn;\n"
                   "events { worker_connections 256; }\nhttp {\naccess_log off;\n"
                   "client_body_temp_path %s;\nproxy_temp_path %s;\n%s\n}\n" % (work, work, work, work, server))
    process = subprocess.Popen(["nginx", "-c", config, "-p", work, "-g", "daemon off;"])
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, port
        except OSError:
            time.sleep(0.05)
    raise SystemExit("balancer-drill: nginx did not start (see %s/error.log)" % work)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def check_balancer(nginx):
    status, headers, trip = create(nginx, "Through nginx")
    revision = headers.get("trips-revision")
    seen = []
    for _ in range(20):
        got, _, body = request(nginx, "GET", f"/trips/{trip}", headers={"Trips-Revision": revision})
        seen.append(got == 200 and json.loads(body)["city"] == "Through nginx")
    check("balancer", status == 201 and all(seen), f"a write, then 20 reads through nginx with Trips-Revision {revision}: {sum(seen)} saw it")


def check_feed(nginx, writer):
    stream = socket.create_connection(("127.0.0.1", nginx), timeout=10)
    stream.sendall(b"GET /trips/changes HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n")
    arrivals = {}
    done = threading.Event()

    def read():
        buffer = b""
        while not done.is_set():
            try:
                chunk = stream.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if line.startswith(b"id: "):
                    arrivals[int(line[4:])] = time.monotonic()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    time.sleep(0.3)  # the stream is open before the first write
    delays, missing = [], 0
    for index in range(50):
        status, headers, _ = create(writer, f"Feed {index}")
        answered = time.monotonic()
        revision = int(headers["trips-revision"])
        deadline = answered + 2
        while revision not in arrivals and time.monotonic() < deadline:
            time.sleep(0.001)
        if revision in arrivals:
            delays.append(max(0.0, arrivals[revision] - answered) * 1000)
        else:
            missing += 1
    done.set()
    stream.close()
    delays.sort()
    p99 = delays[min(len(delays) - 1, int(len(delays) * 0.99))] if delays else float("nan")
    check("feed", missing == 0 and p99 < 100,
          f"50 writes on one instance, heard through nginx: {missing} missing; delay p50 {statistics.median(delays):.1f} ms, p99 {p99:.1f} ms")


def check_race(ports):
    wins = 0
    for round_ in range(10):
        _, created, trip = create(ports[0], f"Race {round_}")
        # Read through the other instance, once it has caught up to the write.
        _, headers, _ = request(ports[1], "GET", f"/trips/{trip}", headers={"Trips-Revision": created["trips-revision"]})
        etag = headers["etag"]
        results = [None, None]

        def change(index):
            status, headers, _ = request(ports[index], "PATCH", f"/trips/{trip}", '{"nights": %d}' % (index + 3),
                                         headers={"Content-Type": "application/merge-patch+json", "If-Match": etag})
            if status == 200:
                acknowledged.add("updated", [trip], headers)
            results[index] = status

        threads = [threading.Thread(target=change, args=(index,)) for index in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wins += sorted(results) == [200, 412]
    check("race", wins == 10, f"10 rounds of the same If-Match change on both instances at once: {wins} with exactly one winner")


def writers(ports, kept, refused, stop):
    """Eight writers, four on each instance, each making a mix until `stop`: a create (its id
    into `kept` until its delete is sent), a favorite drop of it, then with the writer's
    previous trip (in front of it in the list, and moved by no one else) a reorder of the new
    one in front of it, a reorder of it back in front, and its delete: each a real change. A
    step refused or cut off (its outcome unknown) makes the writer forget both trips and start
    again with a create."""
    def attempt(port, method, target, body, name, ids, headers=None):
        try:
            status, answer_headers, text = request(port, method, target, body, headers)
        except OSError:
            refused.append("connection")
            time.sleep(0.01)
            return None
        if status // 100 != 2:
            refused.append(status)
            time.sleep(0.01)
            return None
        if name == "favorites" and json.loads(text).get("added") != ids:
            refused.append(f"favorites {text[:80]}")
            return None
        acknowledged.add(name, ids, answer_headers)
        return status

    def write(port, number):
        count, previous = 0, None
        minimal = {"Prefer": "return=minimal"}
        while not stop.is_set():
            count += 1
            try:
                status, _, trip = create(port, f"Writer {number}-{count}")
            except OSError:
                status, trip = "connection", None
            if trip is None:
                refused.append(status)
                time.sleep(0.01)
                previous = None
                continue
            kept.append(trip)
            steps = [("POST", "/favorites", "[%d]" % trip, "favorites", [trip])]
            if previous is not None:
                steps += [("PATCH", "/trips", '{"sources":[%d],"destination":{"before":%d}}' % (trip, previous), "reordered", [trip]),
                          ("PATCH", "/trips", '{"sources":[%d],"destination":{"before":%d}}' % (previous, trip), "reordered", [previous]),
                          ("DELETE", f"/trips/{previous}", None, "deleted", [previous])]
            previous = trip
            for method, target, body, name, ids in steps:
                if name == "deleted":
                    kept.remove(ids[0])  # whatever the answer: a delete cut off may have been made
                if stop.is_set() or attempt(port, method, target, body, name, ids, minimal) is None:
                    previous = None
                    break

    threads = [threading.Thread(target=write, args=(ports[index % 2], index), daemon=True) for index in range(8)]
    for thread in threads:
        thread.start()
    return threads


def check_kill(servers, start_again):
    kept, refused, stop = [], [], threading.Event()
    threads = writers([server.port for server in servers], kept, refused, stop)
    time.sleep(1.0)
    servers[0].kill()
    killed = time.monotonic()
    # On the same port: nginx and the feed follower find it again.
    servers[0] = start_again(servers[0].port)
    back = time.monotonic() - killed
    time.sleep(1.0)
    stop.set()
    for thread in threads:
        thread.join()
    missing, caught_up = wait_until_shown(servers, kept)
    lost = sorted(set(missing[0]) | set(missing[1]))
    check("kill", not lost and len(kept) > 0,
          f"kill -9 of one instance under 8 writers, started again {back:.2f} s later: {len(kept)} trips acknowledged "
          f"and not deleted, {len(lost)} lost {lost[:10] if lost else ''}(missing on instance 1: {len(missing[0])}, "
          f"on instance 2: {len(missing[1])}; both showed every one {caught_up:.2f} s after the writers stopped), "
          f"{len(refused)} refused or cut off")


def wait_until_shown(servers, kept, seconds=5):
    """An instance hears the other's last writes through the feed a moment later: gives every
    instance up to `seconds` to show every acknowledged write. Returns what each still misses
    (lost, then) and how long the wait took."""
    stopped = time.monotonic()
    while True:
        shown = [set(ids(server.port)) for server in servers]
        missing = [[trip for trip in kept if trip not in seen] for seen in shown]
        if not any(missing) or time.monotonic() - stopped > seconds:
            return missing, time.monotonic() - stopped
        time.sleep(0.05)


def check_history(servers, followers):
    changes, without_revision = acknowledged.all()
    # The newest revision anyone was answered or told; every feed must get there.
    newest = max([revision for revision, _, _ in changes] + [follower.last() for follower in followers])
    behind = wait_until_caught_up(followers, newest, 10)
    lists = []
    for server in servers:
        status, _, body = request(server.port, "GET", "/trips")
        lists.append(json.loads(body) if status == 200 else [])
    feeds = [list(follower.events) for follower in followers]
    problems = history_problems(feeds, (changes, without_revision), lists)
    if behind:
        problems.insert(0, f"instances {[index + 1 for index in behind]} never told revision {newest}")
    kinds = {}
    for _, name, _ in changes:
        kinds[name] = kinds.get(name, 0) + 1
    streams = ", ".join(f"instance {index + 1}: {len(follower.events)} events in {follower.streams} streams"
                        + (f" ({len(follower.refused)} refused: {follower.refused[:3]})" if follower.refused else "")
                        for index, follower in enumerate(followers))
    check("history", not problems,
          f"{len(changes)} acknowledged writes ({', '.join(f'{n} {name}' for name, n in sorted(kinds.items()))}) in one "
          f"order of {newest} changes; {streams}; {len(lists[0])} trips, as the history implies on both"
          + (f"; {len(problems)} problems: " + " | ".join(problems[:6]) if problems else ""))


def check_restart(servers, restart_database):
    kept, refused, stop = [], [], threading.Event()
    threads = writers([server.port for server in servers], kept, refused, stop)
    time.sleep(0.5)
    restarted = time.monotonic()
    restart_database()
    ready = time.monotonic()  # pg_ctl restart -w returns once the database takes connections
    restart_seconds = ready - restarted
    # Reads go on from memory while writes recover.
    reads = [request(server.port, "GET", "/trips/1")[0] for server in servers]
    # How long after the database was ready each instance took its first write again.
    writing_again = [None, None]
    deadline = ready + 15
    while None in writing_again and time.monotonic() < deadline:
        for index, server in enumerate(servers):
            if writing_again[index] is None and create(server.port, "After the restart")[0] == 201:
                writing_again[index] = time.monotonic() - ready
        time.sleep(0.01)
    recovered = [seconds is not None for seconds in writing_again]
    after_ready = ", ".join("never" if seconds is None else f"{seconds:.2f} s" for seconds in writing_again)
    time.sleep(0.5)
    stop.set()
    for thread in threads:
        thread.join()
    missing, caught_up = wait_until_shown(servers, kept)
    lost = sorted(set(missing[0]) | set(missing[1]))
    refusals = sorted({str(status) for status in refused})
    check("restart", all(recovered) and not lost and reads == [200, 200] and set(refusals) <= {"503", "connection"},
          f"PostgreSQL restarted in {restart_seconds:.1f} s under 8 writers: {len(kept)} trips acknowledged and not deleted, {len(lost)} lost "
          f"{lost[:10] if lost else ''}(missing on instance 1: {len(missing[0])}, on instance 2: {len(missing[1])}; both showed "
          f"every one {caught_up:.2f} s after the writers stopped), {len(refused)} refused ({', '.join(refusals) or 'none'}), "
          f"reads during it {reads}, writing again after the database was ready: {after_ready}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--database", required=True, help="the URL both instances use")
    parser.add_argument("--restart-command", required=True, help="restarts PostgreSQL")
    parser.add_argument("--template", required=True, help="deploy/trips.conf.template")
    arguments = parser.parse_args()

    servers = [Server(arguments.server, arguments.database) for _ in range(2)]
    # From revision 0 (the database is new), for the whole drill: the history check.
    followers = [FeedFollower(server.port) for server in servers]
    work = tempfile.mkdtemp(prefix="trips-balancer-")
    nginx, nginx_port = start_nginx(arguments.template, [f"127.0.0.1:{server.port}" for server in servers], work)
    try:
        check_balancer(nginx_port)
        check_feed(nginx_port, servers[0].port)
        check_race([server.port for server in servers])
        check_restart(servers, lambda: subprocess.run(arguments.restart_command, shell=True, check=True))
        check_kill(servers, lambda port: Server(arguments.server, arguments.database, port))
        check_history(servers, followers)
    finally:
        for follower in followers:
            follower.stop()
        nginx.terminate()
        nginx.wait()
        for server in servers:
            server.stop()
        subprocess.run(["rm", "-rf", work])
    if failures:
        print(f"balancer drill: FAILED: {', '.join(failures)}")
        sys.exit(1)
    print("balancer drill: every check passed")


if __name__ == "__main__":
    main()
