"""Schemathesis hooks for scripts/checks/outside.sh (loaded through SCHEMATHESIS_HOOKS).

Some refusals depend on the server's state, which no schema can state; for those, the hook
below turns generated values into ones that hold for the live server, so that data generated
from the spec reaches the happy paths instead of dying on a rule of state:

- An Idempotency-Key must be new for each new request (the same key with another request is
  a 422, by the IETF draft), and Hypothesis repeats short strings often: every generated key
  is made unique. Whether a request sends one at all is still Hypothesis's choice.
- A trip id must name a trip the list has (404 in a path, 422 in a body or query): in a
  positive case, each generated id the list lacks becomes one it has - the path's `id`,
  `ids` of DELETE /trips, `before` of POST /trips, a reorder's `sources` and `before`, a
  favorite drop's ids. A favorite drop's text lines name trips by city: each becomes a city
  only one trip has.
- If-Match must name a current representation (412 otherwise): in a positive case it becomes
  the current ETag of what the request changes (the list, or the trip of the path).

Negative cases (and the stateful phase, whose ids come from earlier answers and whose
use-after-free check needs a deleted id to stay deleted) are sent as generated. With several
workers another request can still change the list between the look-up and the request: an
occasional 404, 412 or 422 is the race, not the data, and schemathesis.toml expects it.
"""

import threading
import uuid

import requests
import schemathesis
from schemathesis.generation.meta import TestPhase
from schemathesis.generation.modes import GenerationMode

# The list is topped up to this many trips, so that ids to choose from are never missing.
MIN_TRIPS = 12
_refill = threading.Lock()
_session = threading.local()


def _http():
    if not hasattr(_session, "value"):
        _session.value = requests.Session()
    return _session.value


def _live_trips(base):
    """The trips the server has now (topping the list up first when it is short)."""
    trips = _http().get(f"{base}/trips", headers={"Accept": "application/json"}, timeout=5).json()
    if len(trips) >= MIN_TRIPS:
        return trips
    with _refill:
        trips = _http().get(f"{base}/trips", headers={"Accept": "application/json"}, timeout=5).json()
        missing = MIN_TRIPS - len(trips)
        if missing > 0:
            drafts = [
                {"city": f"Hookton {uuid.uuid4().hex[:8]}", "country": "Fixtureland", "nights": 3,
                 "price": 100.5, "start": "2027-06-01"}
                for _ in range(missing)
            ]
            _http().post(f"{base}/trips", json=drafts, timeout=5).raise_for_status()
            trips = _http().get(f"{base}/trips", headers={"Accept": "application/json"}, timeout=5).json()
    return trips


def _etag(base, path):
    return _http().get(f"{base}{path}", headers={"Accept": "application/json"}, timeout=5).headers.get("ETag")


def _is_positive(case):
    meta = case.meta
    return meta is not None and meta.generation.mode == GenerationMode.POSITIVE and meta.phase.name != TestPhase.STATEFUL


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    if case.headers and "Idempotency-Key" in case.headers:
        case.headers["Idempotency-Key"] = str(uuid.uuid4())
    if not _is_positive(case):
        return
    path, method = case.operation.path, case.method.upper()
    names_ids = (
        "id" in (case.path_parameters or {})
        or (path == "/trips" and method in ("POST", "DELETE"))
        or path in ("/trips/reorder", "/favorites")
        or (path == "/trips" and method == "PATCH")
    )
    if not names_ids and not (case.headers and "If-Match" in case.headers):
        return
    base = case.operation.schema.get_base_url()
    trips = _live_trips(base)
    ids = [trip["id"] for trip in trips]
    live = set(ids)

    def existing(value):
        """A generated id the list has stays; another becomes one the list has. (JSON Schema
        counts 3.0 as an integer too, and Hypothesis generates such ids.)"""
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or value in live:
            return value
        return ids[value % len(ids)]

    if case.path_parameters and "id" in case.path_parameters:
        case.path_parameters["id"] = existing(int(case.path_parameters["id"]))
    if path == "/trips" and method == "DELETE" and case.query and isinstance(case.query.get("ids"), str):
        case.query["ids"] = ",".join(str(existing(int(i))) for i in case.query["ids"].split(","))
    if path == "/trips" and method == "POST" and case.query and "before" in case.query:
        case.query["before"] = existing(int(case.query["before"]))
    if path in ("/trips", "/trips/reorder") and method in ("PATCH", "POST") and isinstance(case.body, dict):
        if isinstance(case.body.get("sources"), list):
            case.body["sources"] = [existing(i) for i in case.body["sources"]]
        destination = case.body.get("destination")
        if isinstance(destination, dict) and "before" in destination:
            destination["before"] = existing(destination["before"])
    if path == "/favorites":
        if isinstance(case.body, list):
            case.body = [
                {**item, "id": existing(item["id"])} if isinstance(item, dict) and "id" in item else existing(item)
                for item in case.body
            ]
        elif isinstance(case.body, dict) and "id" in case.body:
            case.body["id"] = existing(case.body["id"])
        elif isinstance(case.body, str):
            # Each line names a trip by its city; a city two trips share is ambiguous (422).
            cities = [trip["city"] for trip in trips]
            unique = [city for city in cities if cities.count(city) == 1 and "\n" not in city and city.strip() == city]
            lines = [line for line in case.body.splitlines() if line.strip()]
            if unique:
                case.body = "\n".join(unique[len(line) % len(unique)] for line in lines) if lines else case.body
    if case.headers and "If-Match" in case.headers:
        target = f"/trips/{case.path_parameters['id']}" if "id" in (case.path_parameters or {}) else "/trips"
        tag = _etag(base, target)
        if tag:
            case.headers["If-Match"] = tag
        else:
            del case.headers["If-Match"]

