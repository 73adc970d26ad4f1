"""The history check of scripts/drills/balancer_drill.py, from outside: every instance's change
feed followed for the whole drill, every acknowledged write recorded with the revision its answer
gave, and at the end the history each feed told checked against both (`history_problems`).
"""

import json
import socket
import threading
import time


class Acknowledged:
    """Every write the drill was answered 2xx for: (revision, event name, ids), from every thread.
    The event name and ids are what the feed must tell at that revision: created [new id],
    updated [id], deleted [id], reordered [moved id], favorites [newly added ids]."""

    def __init__(self):
        self.lock = threading.Lock()
        self.changes = []
        self.without_revision = []

    def add(self, name, ids, headers):
        revision = headers.get("trips-revision")
        with self.lock:
            if revision is None or not revision.isdigit():
                self.without_revision.append(f"{name} {ids}")
            else:
                self.changes.append((int(revision), name, list(ids)))

    def all(self):
        with self.lock:
            return list(self.changes), list(self.without_revision)


class FeedFollower:
    """Follows one instance's GET /trips/changes (server-sent events) from revision 0 on, for as
    long as the drill runs: when the stream breaks (a kill -9, a restart, the database gone), it
    connects again with Last-Event-ID, the last revision it heard, as EventSource does. Records
    every event as it came, (revision, name, data), and how many streams it opened."""

    def __init__(self, port):
        self.port = port
        self.events = []
        self.streams = 0
        self.refused = []  # statuses of answers that were no stream
        self.changed = threading.Condition()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def last(self):
        with self.changed:
            return self.events[-1][0] if self.events else 0

    def wait_for(self, revision, seconds):
        """True once an event at `revision` or later came, within `seconds`."""
        with self.changed:
            return self.changed.wait_for(lambda: self.events and self.events[-1][0] >= revision, timeout=seconds)

    def stop(self):
        self.stopped.set()
        self.thread.join(timeout=5)

    def _run(self):
        while not self.stopped.is_set():
            try:
                self._follow()
            except OSError:
                pass
            self.stopped.wait(0.05)  # as EventSource's retry, only shorter

    def _follow(self):
        with socket.create_connection(("127.0.0.1", self.port), timeout=1) as stream:
            stream.sendall(("GET /trips/changes HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n"
                            f"Last-Event-ID: {self.last()}\r\n\r\n").encode())
            reader = _Reader(stream, self.stopped)
            status = reader.line()
            headers = {}
            while line := reader.line():
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip().lower()
            if status.split(" ")[1:2] != ["200"]:
                self.refused.append(status)
                return
            self.streams += 1
            event = {}
            for line in reader.body_lines(headers.get("transfer-encoding") == "chunked"):
                if line.startswith(":") or line.startswith("retry:"):
                    continue
                if line:
                    name, _, value = line.partition(": ")
                    event[name] = value
                    continue
                if "id" in event:
                    with self.changed:
                        self.events.append((int(event["id"]), event.get("event", "message"), event.get("data", "")))
                        self.changed.notify_all()
                event = {}


class _Reader:
    """What a socket sends, by lines or exact lengths, until it closes (ConnectionError) or
    `stopped` is set."""

    def __init__(self, stream, stopped):
        self.stream, self.stopped, self.buffer = stream, stopped, b""

    def _fill(self):
        while not self.stopped.is_set():
            try:
                chunk = self.stream.recv(65536)
            except socket.timeout:
                continue
            if not chunk:
                raise ConnectionError("the server closed the stream")
            self.buffer += chunk
            return
        raise ConnectionError("stopped")

    def line(self):
        while b"\n" not in self.buffer:
            self._fill()
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.rstrip(b"\r").decode()

    def exactly(self, count):
        while len(self.buffer) < count:
            self._fill()
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def body_lines(self, chunked):
        """The body's lines, without their ends, taken out of its chunks when it is chunked."""
        if not chunked:
            while True:
                yield self.line()
        pending = b""
        while size := int(self.line().split(";")[0], 16):
            pending += self.exactly(size)
            self.line()  # the chunk's own end
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                yield line.rstrip(b"\r").decode()


def told(name, data):
    """The ids an event is about, as `Acknowledged` names them."""
    body = json.loads(data)
    return {
        "created": lambda: [trip["id"] for trip in body["trips"]],
        "updated": lambda: [body["trip"]["id"]],
        "deleted": lambda: body["ids"],
        "reordered": lambda: body["sources"],
        "sorted": lambda: body["order"],
        "favorites": lambda: body["added"] + body["removed"],
    }.get(name, lambda: [])()


def replay(events):
    """The list (trip objects in order) replaying `events` from an empty list gives, by the
    rules a client applies them with (TripsClient's Array+TripChanges.swift, trips.js)."""
    trips = []
    for _, name, data in events:
        body = json.loads(data)
        if name == "created":
            held = {trip["id"] for trip in trips}
            new = [trip for trip in body["trips"] if trip["id"] not in held]
            at = next((index for index, trip in enumerate(trips) if trip["id"] == body["before"]), len(trips))
            trips[at:at] = new
        elif name == "updated":
            trips = [body["trip"] if trip["id"] == body["trip"]["id"] else trip for trip in trips]
        elif name == "deleted":
            trips = [trip for trip in trips if trip["id"] not in set(body["ids"])]
        elif name == "reordered":
            moving = set(body["sources"])
            destination = body["destination"]
            anchor = None
            if destination != "end":
                start = next((index for index, trip in enumerate(trips) if trip["id"] == destination["before"]), None)
                if start is not None:
                    anchor = next((trip["id"] for trip in trips[start:] if trip["id"] not in moving), None)
            block = [trip for trip in trips if trip["id"] in moving]
            trips = [trip for trip in trips if trip["id"] not in moving]
            at = next((index for index, trip in enumerate(trips) if trip["id"] == anchor), len(trips))
            trips[at:at] = block
        elif name == "sorted":
            rank = {trip_id: index for index, trip_id in enumerate(body["order"])}
            trips.sort(key=lambda trip: rank.get(trip["id"], len(rank)))
        elif name == "favorites":
            for trip in trips:
                if trip["id"] in body["added"]:
                    trip["isFavorite"] = True
                elif trip["id"] in body["removed"]:
                    trip["isFavorite"] = False
    return trips


def history_problems(feeds, acknowledged, lists):
    """What is wrong with the history the feeds told (empty: nothing), checked against the
    acknowledged writes and each instance's list (`lists[i]`: the trips instance i serves now):

    - each feed tells revisions 1, 2, ..., n once each, in order, across its reconnections,
      and never a reset;
    - every feed tells the same event at the same revision (one order);
    - no two acknowledged writes share a revision, and each is in every feed at its revision,
      as the change it was (a write cut off before its answer may be there unacknowledged);
    - no id is issued twice;
    - replaying the history gives each instance's list: the same ids in the same order, the
      same favorites and the same cities.
    """
    problems = []
    for index, events in enumerate(feeds):
        resets = [revision for revision, name, _ in events if name == "reset"]
        if resets:
            problems.append(f"instance {index + 1}'s feed told a reset at {resets[:5]}")
        revisions = [revision for revision, _, _ in events]
        step = next((at for at, revision in enumerate(revisions) if revision != at + 1), None)
        if step is not None:
            problems.append(f"instance {index + 1}'s feed told {revisions[max(0, step - 2):step + 3]} "
                            f"at positions {max(0, step - 2) + 1}..., where {step + 1} was due")
    longest = max(feeds, key=len)
    told_at = {revision: (name, data) for revision, name, data in longest}
    for index, events in enumerate(feeds):
        differing = [revision for revision, name, data in events if told_at.get(revision) != (name, data)]
        if differing:
            problems.append(f"instance {index + 1}'s feed differs from the longest at revisions {differing[:5]}")
    changes, without_revision = acknowledged
    if without_revision:
        problems.append(f"{len(without_revision)} acknowledged writes had no Trips-Revision: {without_revision[:5]}")
    by_revision = {}
    for revision, name, ids in changes:
        by_revision.setdefault(revision, []).append((name, ids))
    shared = {revision: writes for revision, writes in by_revision.items() if len(writes) > 1}
    if shared:
        problems.append(f"{len(shared)} revisions were answered to several writes: {list(shared.items())[:3]}")
    for index, events in enumerate(feeds):
        told_here = {revision: (name, told(name, data)) for revision, name, data in events}
        missing = [(revision, name, ids) for revision, name, ids in changes if told_here.get(revision) != (name, ids)]
        if missing:
            shown = [f"{name} {ids} at {revision}: told {told_here.get(revision)}" for revision, name, ids in missing[:5]]
            problems.append(f"{len(missing)} acknowledged writes are not in instance {index + 1}'s feed as made: {shown}")
    issued = [trip["id"] for _, name, data in longest if name == "created" for trip in json.loads(data)["trips"]]
    if len(issued) != len(set(issued)):
        problems.append(f"ids issued twice: {sorted({i for i in issued if issued.count(i) > 1})[:10]}")
    implied = [(trip["id"], trip["isFavorite"], trip["city"]) for trip in replay(longest)]
    for index, trips in enumerate(lists):
        served = [(trip["id"], trip["isFavorite"], trip["city"]) for trip in trips]
        if served != implied:
            at = next((at for at, (a, b) in enumerate(zip(served, implied)) if a != b), min(len(served), len(implied)))
            problems.append(f"instance {index + 1} serves {len(served)} trips, the history implies {len(implied)}; "
                            f"first difference at position {at}: {served[at:at + 2]} against {implied[at:at + 2]}")
    return problems


def wait_until_caught_up(followers, revision, seconds):
    """Waits up to `seconds` for every follower to hear `revision`; the followers that did not."""
    deadline = time.monotonic() + seconds
    return [index for index, follower in enumerate(followers)
            if not follower.wait_for(revision, max(0.0, deadline - time.monotonic()))]
