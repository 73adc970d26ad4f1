#!/usr/bin/env python3
"""kill -9 drill and full-disk drill for trips-server; driven by scripts/drills/crash.sh.

Crash rounds: start the server on one data folder, let THREADS writers (one keep-alive
connection each) create, reorder, drop on favorites, toggle favorites, put and delete trips'
photos, and delete trips, recording every 2xx; SIGKILL the server at a random moment;
restart it on the same folder and check that the recovered list holds every acknowledged
change, in commit order, and nothing half-applied. Each writer names only trips it created
itself, so its trips' order and state depend on its own changes alone (the model of
Tests/.../StorageCrashModel.swift): the one request per writer that the kill interrupted may
be applied whole or not at all, never in part. The recovered list is the next round's
starting point.

Photos are PNGs the drill writes itself (zlib, no metadata, so the server keeps them byte
for byte and their URL's digest is known before the PUT): half from a pool of four every
writer picks from, so that many trips share one file, half made for one PUT, up to ~60 KB.
After each restart every trip's `photo` must be what its acknowledged changes say (lost
acknowledged photo = failure), every photo URL must answer 200 with bytes whose SHA-256 is
the URL's (no reference to a missing file), and `photos/` must hold exactly the files of the
photos the trips show: start-up removed what the crash left (files written before their
journal record, photos let go and not yet removed by a compaction, `.tmp`). With a small
--compact-after, kills also land during compactions, which remove the photos no trip shows.

Full disk: the server runs under `prlimit --fsize`, writes go on until they are refused with
507/503, reads must keep working meanwhile; then a small photo (its file fits, its record
not) and one larger than the limit are put, each acknowledged or refused; a restart without
the limit must show exactly the acknowledged data, no photo file more or less, and take
writes again.
"""

import argparse
import binascii
import ctypes
import hashlib
import http.client
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zlib

THREADS = 8
# The one way the scripts start trips-server (on 127.0.0.1); it execs, so the pid is the server's.
SERVER_SH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib", "server.sh")
LIST_TAG = re.compile(r'"list-r(\d+)-json"')
TRIP_TAG = re.compile(r'"trip-\d+-v(\d+)-json"')
PHOTO_URL = re.compile(r"/photos/([0-9a-f]{64})\.png")


def die_with_parent():
    """In the child before exec: SIGKILL it when the drill dies, so no server outlives it."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class Server:
    """A trips-server child; `port` once it said it is listening."""

    def __init__(self, executable, folder, prefix=(), extra=()):
        command = [SERVER_SH, *prefix, "--", executable, "--port", "0", "--data", folder, "--log-level", "warning", "--no-samples", *extra]
        self.errors = tempfile.TemporaryFile()
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self.errors, stdin=subprocess.DEVNULL,
                                        preexec_fn=die_with_parent)
        # Lifecycle lines ("created the data folder ...") come first on stdout; then "listening".
        line, match = "", None
        for _ in range(20):
            line = self.process.stdout.readline().decode()
            match = re.match(r"trips-server listening on http://127\.0\.0\.1:(\d+)", line)
            if match or not line:
                break
        if not match:
            self.process.kill()
            self.process.wait()
            raise RuntimeError(f"server did not start: {line!r} stderr: {self.stderr()}")
        self.port = int(match.group(1))
        # Keep draining stdout so the server never blocks on a full pipe.
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    @property
    def pid(self):
        return self.process.pid

    def stderr(self):
        self.errors.seek(0)
        return self.errors.read().decode(errors="replace")

    def stop(self, sig=signal.SIGTERM, timeout=15):
        if self.process.poll() is None:
            self.process.send_signal(sig)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None


def request(connection, method, target, body=None, content_type="application/json"):
    headers = {"Content-Type": content_type} if body is not None else {}
    if isinstance(body, str):
        body = body.encode()
    connection.request(method, target, body=body, headers=headers)
    response = connection.getresponse()
    data = response.read()
    return response.status, response.getheader("ETag") or "", data


def revision_of(etag):
    match = LIST_TAG.search(etag) or TRIP_TAG.search(etag)
    return int(match.group(1)) if match else None


def png(width, height, pixels):
    """A PNG of `pixels` (RGB, 3 bytes a pixel, row by row), written by hand: signature, IHDR,
    one IDAT, IEND. No text chunks, so the server keeps it byte for byte."""
    def chunk(kind, data):
        return len(data).to_bytes(4, "big") + kind + data + binascii.crc32(kind + data).to_bytes(4, "big")
    stride = width * 3
    rows = b"".join(b"\0" + pixels[y * stride:(y + 1) * stride] for y in range(height))
    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])  # 8-bit RGB
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


class Photo:
    """An image the drill PUTs, and the `photo` a trip shows once it is set."""

    def __init__(self, width, height, pixels):
        self.bytes = png(width, height, pixels)
        self.digest = hashlib.sha256(self.bytes).hexdigest()
        self.json = {"url": f"/photos/{self.digest}.png", "type": "image/png", "width": width, "height": height,
                     "bytes": len(self.bytes)}

    @staticmethod
    def noise(rng, width, height, label=b""):
        """Random pixels (incompressible: about 3 bytes a pixel), `label` first: distinct labels, distinct photos."""
        return Photo(width, height, (label + rng.randbytes(width * height * 3))[:width * height * 3])


def shared_photos(rng):
    """The photos every writer picks from, so that many trips share each file: a flat one, a
    gradient, and noise from 1 KB to about 60 KB."""
    return [
        Photo(8, 8, bytes([200, 40, 40]) * 64),
        Photo(32, 24, bytes((x * 8) % 256 for y in range(24) for x in range(32) for _ in range(3))),
        Photo.noise(rng, 20, 20),
        Photo.noise(rng, 140, 140),
    ]


def fetch_list(port):
    """GET /trips as (order, trips by id, revision)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    status, etag, body = request(connection, "GET", "/trips")
    connection.close()
    if status != 200:
        raise RuntimeError(f"GET /trips answered {status}")
    trips = json.loads(body)
    if isinstance(trips, dict):
        trips = trips.get("trips", trips)
    return {"order": [t["id"] for t in trips], "trips": {t["id"]: t for t in trips}, "revision": revision_of(etag)}


def moving(sources, before, order):
    """The README's reorder rule when the destination is not moving: the block keeps its
    relative order and lands just before `before`, or at the end."""
    moved = set(sources)
    block = [i for i in order if i in moved]
    rest = [i for i in order if i not in moved]
    at = rest.index(before) if before is not None and before in rest else len(rest)
    return rest[:at] + block + rest[at:]


def apply(state, change):
    kind = change[0]
    if kind == "create":
        _, id, trip = change
        state["order"].append(id)
        state["trips"][id] = dict(trip)
    elif kind == "delete":
        state["order"] = [i for i in state["order"] if i != change[1]]
        state["trips"].pop(change[1], None)
    elif kind == "move":
        state["order"] = moving(change[1], change[2], state["order"])
    elif kind == "favorites":
        for id in change[1]:
            if id in state["trips"]:
                state["trips"][id]["isFavorite"] = change[2]
    elif kind == "photo":
        if change[1] in state["trips"]:
            state["trips"][change[1]]["photo"] = change[2]


def copy_state(state):
    return {"order": list(state["order"]), "trips": {k: dict(v) for k, v in state["trips"].items()}, "revision": state["revision"]}


class Writer(threading.Thread):
    """One writer thread: only ever names its own trips; never asks for a no-op."""

    def __init__(self, round, thread, port, own, rng, start_barrier, killed, photos):
        super().__init__(daemon=True)
        self.round, self.thread, self.port = round, thread, port
        self.own = own  # this thread's trips, as its acknowledged changes left them
        self.rng = rng
        self.photos = photos  # the shared ones; each writer also makes photos of its own
        self.start_barrier = start_barrier
        self.killed = killed
        self.acknowledged = []  # (change, revision or None)
        self.in_flight = None
        self.problems = []
        self.sequence = 0

    def next_request(self):
        self.sequence += 1
        ids = self.own["order"]
        favorites = [i for i in ids if self.own["trips"][i].get("isFavorite")]
        plain = [i for i in ids if i not in favorites]
        roll = 0 if len(ids) < 2 else self.rng.randrange(100)
        if roll < 28:
            city = f"D{self.round}-{self.thread}-{self.sequence}"
            nights = 1 + self.rng.randrange(30)
            body = json.dumps({
                "city": city, "country": "Drilland", "nights": nights,
                "price": round(100 + self.rng.random() * 900, 2),
                "start": f"2027-0{1 + self.rng.randrange(9)}-1{self.rng.randrange(10)}",
                "notes": f"round {self.round} \"drill\" ✓",
            })
            return "POST", "/trips", body, ("create?", city, nights)
        if roll < 46:
            sources = self.rng.sample(ids, 1 + self.rng.randrange(min(3, len(ids) - 1)))
            targets = [i for i in ids if i not in sources]
            before = None if self.rng.randrange(3) == 0 else self.rng.choice(targets)
            if moving(sources, before, ids) == ids:
                sources, before = [ids[0]], None  # moving the first to the end always changes the order
            destination = {"before": before} if before is not None else "end"
            return "POST", "/trips/reorder", json.dumps({"sources": sources, "destination": destination}), ("move", sources, before)
        if roll < 55 and plain:
            dropped = self.rng.sample(plain, min(len(plain), 1 + self.rng.randrange(2)))
            return "POST", "/favorites", json.dumps(dropped), ("favorites", dropped, True)
        if roll < 68:
            id = self.rng.choice(ids)
            on = id in favorites
            return ("DELETE" if on else "PUT"), f"/favorites/{id}", None, ("favorites", [id], not on)
        pictured = [i for i in ids if self.own["trips"][i].get("photo")]
        if roll < 82 or (roll < 88 and not pictured):
            id = self.rng.choice(ids)
            current = self.own["trips"][id].get("photo")
            choices = [p for p in self.photos if p.json != current]
            if self.rng.randrange(2) == 0:
                photo = self.rng.choice(choices)
            else:
                width, height = self.rng.choice([(12, 12), (48, 40), (120, 100)])
                photo = Photo.noise(self.rng, width, height, f"{self.round}-{self.thread}-{self.sequence}".encode())
            return "PUT", f"/trips/{id}/photo", photo.bytes, ("photo", id, photo.json)
        if roll < 88:
            id = self.rng.choice(pictured)
            return "DELETE", f"/trips/{id}/photo", None, ("photo", id, None)
        id = self.rng.choice(ids)
        return "DELETE", f"/trips/{id}", None, ("delete", id)

    def run(self):
        try:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            connection.connect()
        except OSError as error:
            self.problems.append(f"cannot connect: {error}")
            self.start_barrier.wait()
            return
        self.start_barrier.wait()
        for _ in range(100_000):
            method, target, body, change = self.next_request()
            try:
                content_type = "image/png" if isinstance(body, bytes) else "application/json"
                status, etag, data = request(connection, method, target, body, content_type)
            except (OSError, http.client.HTTPException) as error:
                self.in_flight = change
                if not self.killed.is_set():
                    self.problems.append(f"{method} {target} failed before the kill: {error!r}")
                return
            if not 200 <= status < 300:
                self.problems.append(f"{method} {target} {body or ''} answered {status}: {data[:200]!r}")
                return
            revision = revision_of(etag)
            if change[0] == "create?":
                trip = json.loads(data)
                if status != 201 or trip.get("city") != change[1] or revision is None:
                    self.problems.append(f"unexpected answer to a create: {status} {etag} {data[:200]!r}")
                    return
                change = ("create", trip["id"], trip)
            elif change[0] == "delete":
                if status != 204:
                    self.problems.append(f"deleting {change[1]} answered {status}")
                    return
                revision = None  # a 204 carries no tag
            elif revision is None:
                self.problems.append(f"{method} {target}: no revision in ETag {etag!r}")
                return
            if change[0] == "photo":
                shown = json.loads(data).get("photo")
                if shown != change[2]:
                    self.problems.append(f"{method} {target} answered photo {shown}, expected {change[2]}")
                    return
            if change[0] == "favorites" and target == "/favorites":
                added = json.loads(data).get("added")
                expected = [i for i in self.own["order"] if i in change[1]]
                if added != expected:
                    self.problems.append(f"drop of {change[1]} answered added={added}, expected {expected}")
            self.acknowledged.append((change, revision))
            apply(self.own, change)
        self.problems.append("the server was never killed")


def brief(id, trip):
    """A trip in a failure message: what the drill changes of it."""
    trip = trip or {}
    photo = (trip.get("photo") or {}).get("url", "/photos/-")
    return (id, trip.get("city"), trip.get("isFavorite"), photo.rsplit("/", 1)[-1][:12])


def verify(recovered, base, owners, writers):
    """Problems with `recovered`, and the owners map for the next round (ported from
    CrashVerification in Tests/TripsServerTests/Storage/StorageCrashModel.swift)."""
    problems = []
    owners = dict(owners)
    acknowledged = [a for w in writers for a in w.acknowledged]

    revisions = [r for _, r in acknowledged if r is not None]
    if len(set(revisions)) != len(revisions):
        problems.append("two acknowledged changes share a revision")
    for w in writers:
        own = [r for _, r in w.acknowledged if r is not None]
        if own != sorted(own) or any(r <= base["revision"] for r in own):
            problems.append(f"thread {w.thread}: acknowledged revisions out of order: {own}")
    in_flight = sum(1 for w in writers if w.in_flight is not None)
    highest = max(revisions, default=base["revision"])
    lowest = max(highest, base["revision"] + len(acknowledged))
    upper = base["revision"] + len(acknowledged) + in_flight
    if recovered["revision"] is None or not lowest <= recovered["revision"] <= upper:
        problems.append(f"recovered revision {recovered['revision']}, expected {lowest}..{upper} "
                        f"(base {base['revision']}, {len(acknowledged)} acknowledged, highest {highest})")

    # Replay in commit order; a delete (no revision) goes right after its thread's previous change.
    events = []
    for w in writers:
        previous, step = base["revision"], 0
        for change, revision in w.acknowledged:
            if revision is not None:
                previous, step = revision, 0
            else:
                step += 1
            events.append((previous, step, w.thread, change))
    events.sort(key=lambda e: e[:3])
    model = copy_state(base)
    for _, _, thread, change in events:
        if change[0] == "create":
            owners[change[1]] = thread
        apply(model, change)

    # Trips nobody acknowledged creating: only an in-flight create may explain one.
    claimed = {}
    for id in recovered["order"]:
        if id in model["trips"]:
            continue
        trip = recovered["trips"][id]
        claimants = [w for w in writers if w.in_flight and w.in_flight[0] == "create?"
                     and trip.get("city") == w.in_flight[1] and trip.get("nights") == w.in_flight[2]
                     and trip.get("isFavorite") is False and trip.get("country") == "Drilland"]
        if len(claimants) != 1 or claimants[0].thread in claimed.values():
            deleted = any(c == ("delete", id) for c, _ in acknowledged)
            problems.append(f"trip {id} {trip.get('city')} is there, but "
                            + ("an acknowledged request deleted it" if deleted else "no request created it"))
            continue
        claimed[id] = claimants[0].thread
    if len(set(recovered["order"])) != len(recovered["order"]):
        problems.append(f"an id appears twice: {recovered['order']}")

    def entries(state, ids):
        return [(i, state["trips"].get(i)) for i in state["order"] if i in ids]

    for w in writers:
        mine = {i for i, t in owners.items() if t == w.thread} | {i for i, t in claimed.items() if t == w.thread}
        found = entries(recovered, mine)
        before = entries(model, mine)
        candidates = [before]
        if w.in_flight and w.in_flight[0] == "create?":
            extra = [i for i, t in claimed.items() if t == w.thread]
            if extra:
                candidates = [before + [(extra[0], recovered["trips"][extra[0]])]]
        elif w.in_flight:
            after = copy_state(model)
            apply(after, w.in_flight)
            candidates.append(entries(after, mine))
        if found not in candidates:
            problems.append(f"thread {w.thread}: recovered {[brief(i, t) for i, t in found]}, "
                            f"expected one of {[[brief(i, t) for i, t in c] for c in candidates]} "
                            f"after {len(w.acknowledged)} acknowledged, in flight: {w.in_flight}")
        for id, t in claimed.items():
            if t == w.thread:
                owners[id] = t

    unsettled = set()
    for w in writers:
        if w.in_flight and w.in_flight[0] == "move":
            unsettled |= set(w.in_flight[1])
        if w.in_flight and w.in_flight[0] == "delete":
            unsettled.add(w.in_flight[1])
    settled = set(model["order"]) - unsettled
    if [i for i in recovered["order"] if i in settled] != [i for i in model["order"] if i in settled]:
        problems.append("the order across threads differs from the commit order")
    owners = {i: t for i, t in owners.items() if i in recovered["trips"]}
    return problems, owners


def compaction_in_progress(folder):
    """Whether a kill left a compaction half done: a snapshot being written, or more than one
    journal generation (the writer had moved on while the old ones were being folded)."""
    names = os.listdir(folder)
    return "snapshot.tmp" in names or sum(name.startswith("journal-") for name in names) > 1


def photo_files(folder):
    """The names in the data folder's `photos/`."""
    path = os.path.join(folder, "photos")
    return set(os.listdir(path)) if os.path.isdir(path) else set()


def check_photos(port, folder, recovered):
    """Problems with the photos of `recovered`, the list a restarted server serves: every
    trip's photo URL answers the bytes its digest names (no dangling reference), and `photos/`
    holds exactly the files of those photos (start-up removed what the crash left: no orphan,
    no `.tmp`). Returns the problems and the distinct photos checked."""
    problems = []
    shown = {}
    for id in recovered["order"]:
        photo = recovered["trips"][id].get("photo")
        if photo:
            shown.setdefault(photo["url"], (id, photo))
    digests = set()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    for url, (id, photo) in shown.items():
        match = PHOTO_URL.fullmatch(url)
        if not match:
            problems.append(f"trip {id}: photo URL {url} is not /photos/<sha256>.png")
            continue
        digests.add(match.group(1))
        status, _, data = request(connection, "GET", url)
        if status != 200:
            problems.append(f"trip {id}: GET {url} answered {status}: a reference to a missing photo")
        elif hashlib.sha256(data).hexdigest() != match.group(1) or len(data) != photo["bytes"]:
            problems.append(f"trip {id}: GET {url} gave {len(data)} bytes that are not the photo the URL names")
    connection.close()
    files = photo_files(folder)
    if files != digests:
        extra, missing = sorted(files - digests), sorted(digests - files)
        problems.append(f"photos/ after start-up: {len(extra)} files no trip refers to {extra[:3]}, "
                        f"{len(missing)} referred to and missing {missing[:3]}")
    return problems, len(digests)


def crash_rounds(executable, folder, rounds, seed, compact_after):
    rng = random.Random(seed)
    extra = ("--compact-after", str(compact_after)) if compact_after else ()
    base = None
    owners = {}
    photos = shared_photos(rng)
    totals = {"acknowledged": 0, "in_flight": 0, "mid_compaction": 0, "photo_puts": 0, "photo_deletes": 0,
              "photos_in_flight": 0, "photos_checked": 0, "files_removed": 0, "temporary_removed": 0}
    failures = 0
    for round in range(rounds):
        server = Server(executable, folder, extra=extra)
        start = fetch_list(server.port)
        if base is not None and start != base:
            print(f"round {round}: the list changed between a clean stop and the next start")
            failures += 1
        base = start
        writers = []
        killed = threading.Event()
        barrier = threading.Barrier(THREADS + 1)
        for thread in range(THREADS):
            mine = [i for i in base["order"] if owners.get(i) == thread]
            own = {"order": mine, "trips": {i: dict(base["trips"][i]) for i in mine}, "revision": base["revision"]}
            writer = Writer(round, thread, server.port, own, random.Random(rng.random()), barrier, killed, photos)
            writer.start()
            writers.append(writer)
        barrier.wait()
        delay = rng.uniform(0.2, 2.5)
        time.sleep(delay)
        killed.set()
        os.kill(server.pid, signal.SIGKILL)
        status = server.process.wait(15)
        for writer in writers:
            writer.join(30)
        problems = [f"thread {w.thread}: {p}" for w in writers for p in w.problems]
        if status != -signal.SIGKILL:
            problems.append(f"the server ended with {status}, not SIGKILL")
        mid_compaction = compaction_in_progress(folder)
        totals["mid_compaction"] += mid_compaction
        left = photo_files(folder)

        try:
            restarted = Server(executable, folder, extra=extra)
        except RuntimeError as error:  # damage (a trip whose photo's file is missing, say) stops the start
            print(f"round {round + 1:2}: killed after {delay:4.2f} s; the server did not start again: {error}")
            return False
        recovered = fetch_list(restarted.port)
        found, owners = verify(recovered, base, owners, writers)
        problems += found
        found, pictured = check_photos(restarted.port, folder, recovered)
        problems += found
        removed = left - photo_files(folder)
        stopped = restarted.stop()
        if stopped != 0:
            problems.append(f"SIGTERM did not stop the restarted server cleanly: {stopped}; {restarted.stderr()[-500:]}")
        acknowledged = sum(len(w.acknowledged) for w in writers)
        in_flight = sum(1 for w in writers if w.in_flight is not None)
        totals["acknowledged"] += acknowledged
        totals["in_flight"] += in_flight
        photo_changes = [c for w in writers for c, _ in w.acknowledged if c[0] == "photo"]
        totals["photo_puts"] += sum(c[2] is not None for c in photo_changes)
        totals["photo_deletes"] += sum(c[2] is None for c in photo_changes)
        photos_in_flight = sum(1 for w in writers if w.in_flight and w.in_flight[0] == "photo")
        totals["photos_in_flight"] += photos_in_flight
        totals["photos_checked"] += pictured
        totals["files_removed"] += len(removed)
        totals["temporary_removed"] += sum(name.endswith(".tmp") for name in removed)
        torn = "torn" in restarted.stderr()
        print(f"round {round + 1:2}: killed after {delay:4.2f} s, {acknowledged:4} acknowledged ({len(photo_changes)} photo), "
              f"{in_flight} in flight ({photos_in_flight} photo), "
              f"revision {base['revision']} -> {recovered['revision']}, {len(recovered['order'])} trips, {pictured} photos"
              f"{f', start-up removed {len(removed)} photo files' if removed else ''}"
              f"{', torn tail dropped' if torn else ''}{', killed mid-compaction' if mid_compaction else ''}"
              f": {'ok' if not problems else 'FAILED'}")
        for problem in problems[:10]:
            print("    " + problem)
        failures += bool(problems)
        base = recovered
    print(f"crash drill: {rounds} rounds, {totals['acknowledged']} acknowledged writes checked "
          f"({totals['photo_puts']} photo puts, {totals['photo_deletes']} photo deletes), "
          f"{totals['in_flight']} interrupted requests ({totals['photos_in_flight']} photo), "
          f"{totals['mid_compaction']} kills mid-compaction, {totals['photos_checked']} photo URLs fetched after restarts, "
          f"{totals['files_removed']} photo files removed at start-up ({totals['temporary_removed']} .tmp), {failures} failed rounds")
    return failures == 0


def full_disk(executable, folder, limit):
    """Fills a file-size limit, then checks reads, refusals, and recovery without the limit."""
    problems = []
    server = Server(executable, folder, prefix=["prlimit", f"--fsize={limit}"])
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    acknowledged = []
    refusals = {}
    for n in range(100_000):
        body = json.dumps({"city": f"Full{n}", "country": "Diskland", "nights": 1 + n % 9, "price": 10.5, "start": "2027-05-01",
                           "notes": "x" * 200})
        status, _, data = request(connection, "POST", "/trips", body)
        if status == 201:
            acknowledged.append(json.loads(data))
            continue
        refusals[status] = refusals.get(status, 0) + 1
        if status not in (503, 507):
            problems.append(f"a write past the limit answered {status}: {data[:200]!r}")
        if sum(refusals.values()) >= 5:
            break
    expected = [t["id"] for t in acknowledged]
    # Smaller changes may still fit in the last bytes below the limit: each is either
    # acknowledged (and then must survive) or refused, until they are refused too.
    for n in range(50):
        sources = [expected[n % len(expected)]]
        status, _, data = request(connection, "POST", "/trips/reorder", json.dumps({"sources": sources, "destination": "end"}))
        if status == 200:
            expected = moving(sources, None, expected)
            continue
        refusals[status] = refusals.get(status, 0) + 1
        if status not in (503, 507):
            problems.append(f"a reorder past the limit answered {status}: {data[:200]!r}")
        if refusals[status] >= 10:
            break
    # Photos past the limit: a small one (its file fits, its journal record may not) and one
    # larger than the limit (its file cannot be written). Each is acknowledged or refused.
    rng = random.Random(limit)
    side = min(1600, int((limit / 3) ** 0.5) + 8)
    photo_statuses = []
    for photo in (Photo.noise(rng, 16, 16), Photo.noise(rng, side, side)):
        status, _, data = request(connection, "PUT", f"/trips/{acknowledged[0]['id']}/photo", photo.bytes, "image/png")
        photo_statuses.append(status)
        if status == 200:
            acknowledged[0]["photo"] = photo.json
        elif status not in (503, 507):
            problems.append(f"a photo of {len(photo.bytes)} bytes past the limit answered {status}: {data[:200]!r}")
    alive = server.process.poll() is None
    if not alive:
        problems.append(f"the server died: {server.process.returncode} {server.stderr()[-300:]}")
    reads_ok = 0
    if alive:
        for target in ["/trips", "/trips/%d" % acknowledged[-1]["id"], "/trips?filter=favorites", "/health"]:
            status, _, _ = request(connection, "GET", target)
            reads_ok += status == 200
        if reads_ok != 4:
            problems.append(f"only {reads_ok} of 4 reads worked while the disk was full")
        during = fetch_list(server.port)
    connection.close()
    stopped = server.stop()
    if stopped != 0:
        problems.append(f"SIGTERM under the limit ended with {stopped}")
    journal = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder) if f.startswith("journal"))

    restarted = Server(executable, folder)
    after = fetch_list(restarted.port)
    if after["order"] != expected:
        problems.append(f"after restart the list is {len(after['order'])} trips, expected the {len(expected)} acknowledged")
    for trip in acknowledged:
        if after["trips"].get(trip["id"]) != trip:
            problems.append(f"trip {trip['id']} differs after restart")
            break
    if alive and during["order"] != after["order"]:
        problems.append("the list served while full differs from the recovered one")
    problems += check_photos(restarted.port, folder, after)[0]
    c = http.client.HTTPConnection("127.0.0.1", restarted.port, timeout=10)
    status, _, _ = request(c, "POST", "/trips", json.dumps({"city": "AfterFull", "country": "Diskland", "nights": 2, "price": 1.0, "start": "2027-06-01"}))
    if status != 201:
        problems.append(f"a write after the limit was lifted answered {status}")
    c.close()
    if restarted.stop() != 0:
        problems.append("the restarted server did not stop cleanly")
    print(f"full disk (--fsize={limit}): {len(acknowledged)} writes acknowledged, then refusals {refusals}; "
          f"photo puts while full answered {photo_statuses}; "
          f"journal {journal} bytes; server alive: {alive}; reads while full: {reads_ok}/4; "
          f"after restart without the limit: {len(after['order'])} trips, a new write answered {status}: "
          f"{'ok' if not problems else 'FAILED'}")
    for problem in problems:
        print("    " + problem)
    return not problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    parser.add_argument("--fsize", type=int, default=64 * 1024)
    parser.add_argument("--compact-after", type=int, default=0, help="the server's --compact-after (0: its default)")
    arguments = parser.parse_args()
    print(f"seed {arguments.seed}")
    root = tempfile.mkdtemp(prefix="trips-drill-")
    try:
        ok = crash_rounds(arguments.server, os.path.join(root, "crash"), arguments.rounds, arguments.seed, arguments.compact_after)
        ok = full_disk(arguments.server, os.path.join(root, "full"), arguments.fsize) and ok
    finally:
        shutil.rmtree(root, ignore_errors=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
