"""The README's tour ("A tour with curl"), walked through a client that openapi-python-client
generated from openapi.yaml: every request is a call of a generated function, every answer is
checked (status, key fields, headers the tour relies on). Prices are read exactly, as the
README's "Reading prices" says: the generated model types `price` as a float, so the tour
parses the body with `parse_float=Decimal` and hands it to the generated model.

Usage: python scripts/checks/generated_client_tour.py CLIENT_DIR URL
  CLIENT_DIR  the folder that holds the generated package trips_client
  URL         a server on a fresh data folder (the six sample trips)

scripts/checks/generated-client-tour.sh generates the client, starts the server and runs this.
"""

import json
import sys
import threading
import time
from decimal import Decimal
from http import HTTPStatus

sys.path.insert(0, sys.argv[1])
URL = sys.argv[2]

import httpx  # noqa: E402  (comes with the generated client's requirements)
from trips_client import Client  # noqa: E402
from trips_client.api.browser_page import page_icon  # noqa: E402
from trips_client.api.changes import follow_changes  # noqa: E402
from trips_client.api.favorites import add_favorite, drop_favorites, list_favorites, remove_favorite  # noqa: E402
from trips_client.api.operations import health, open_api  # noqa: E402
from trips_client.api.order import reorder_trips, reorder_trips_with_patch, sort_trips  # noqa: E402
from trips_client.api.trips import (  # noqa: E402
    create_trip,
    delete_trip,
    delete_trips,
    list_trips,
    patch_trip,
    replace_trip,
    show_trip,
)
from trips_client.models import (  # noqa: E402
    FavoriteDropType0ItemType1,
    ListTripsFilter,
    ListTripsSort,
    Problem,
    ReorderDifference,
    ReorderDifferenceDestinationType1,
    SortRequest,
    SortRequestBy,
    Trip,
    TripDraft,
    TripPatch,
    TripReplacement,
)

client = Client(base_url=URL, timeout=httpx.Timeout(30.0), raise_on_unexpected_status=True)
step_count = 0


def step(title):
    global step_count
    step_count += 1
    print(f"  {step_count:2}. {title}")


def expect(response, status):
    """The answer has this status; returns what the generated client parsed."""
    if response.status_code != status:
        raise AssertionError(
            f"expected {status}, got {int(response.status_code)}: {response.content.decode(errors='replace')}"
        )
    return response.parsed


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def exact_trip(response):
    """The trip in a JSON answer with `price` as an exact Decimal (README: "Reading prices")."""
    return Trip.from_dict(json.loads(response.content, parse_float=Decimal))


def exact_trips(response):
    return [Trip.from_dict(item) for item in json.loads(response.content, parse_float=Decimal)]


def ids(trips):
    return [trip.id for trip in trips]


def stored_order():
    return ids(expect(list_trips.sync_detailed(client=client), HTTPStatus.OK))


# --- reading --------------------------------------------------------------------------------

step("health: ok, six trips")
status = expect(health.sync_detailed(client=client), HTTPStatus.OK)
check(status.status == "ok" and status.trips == 6, f"health: {status}")

step("list the trips: the six samples in stored order, with an ETag and a Trips-Revision")
response = list_trips.sync_detailed(client=client)
trips = expect(response, HTTPStatus.OK)
check(ids(trips) == [1, 2, 3, 4, 5, 6], f"the sample order: {ids(trips)}")
check(response.headers.get("ETag", "").startswith('"'), f"a strong ETag on the list: {response.headers}")
first_revision = int(response.headers["Trips-Revision"])

step("read trip 2: Vancouver, 1299.99 exactly")
response = show_trip.sync_detailed(2, client=client)
vancouver = expect(response, HTTPStatus.OK)
check((vancouver.city, vancouver.country, vancouver.nights) == ("Vancouver", "Canada", 3), f"trip 2: {vancouver}")
check(vancouver.start.isoformat() == "2027-03-05T00:00:00+00:00", f"trip 2 starts {vancouver.start}")
check(exact_trip(response).price == Decimal("1299.99"), f"trip 2's exact price: {exact_trip(response).price}")
etag = response.headers["ETag"]

step("read it again with If-None-Match: 304 while unchanged")
expect(show_trip.sync_detailed(2, client=client, if_none_match=etag), HTTPStatus.NOT_MODIFIED)

step("read trip 42: 404, as a problem document")
problem = expect(show_trip.sync_detailed(42, client=client), HTTPStatus.NOT_FOUND)
check(isinstance(problem, Problem) and problem.status == 404, f"the 404: {problem}")

# --- reordering -----------------------------------------------------------------------------

step("reorder (POST /trips/reorder): trip 2 in front of trip 1")
trips = expect(
    reorder_trips.sync_detailed(
        client=client,
        body=ReorderDifference(sources=[2], destination=ReorderDifferenceDestinationType1(before=1)),
    ),
    HTTPStatus.OK,
)
check(ids(trips) == [2, 1, 3, 4, 5, 6], f"after the reorder: {ids(trips)}")

step("reorder (PATCH /trips): trips 3 and 5 to the end")
trips = expect(
    reorder_trips_with_patch.sync_detailed(client=client, body=ReorderDifference(sources=[3, 5], destination="end")),
    HTTPStatus.OK,
)
check(ids(trips) == [2, 1, 4, 6, 3, 5], f"after the second reorder: {ids(trips)}")

step("reorder with Prefer: return=minimal: 204 with the list's new ETag and Trips-Revision")
response = reorder_trips.sync_detailed(
    client=client,
    body=ReorderDifference(sources=[6], destination=ReorderDifferenceDestinationType1(before=4)),
    prefer="return=minimal",
)
expect(response, HTTPStatus.NO_CONTENT)
check(response.headers.get("Preference-Applied") == "return=minimal", f"Preference-Applied: {response.headers}")
check("ETag" in response.headers and "Trips-Revision" in response.headers, f"the 204's headers: {response.headers}")
check(stored_order() == [2, 1, 6, 4, 3, 5], f"after the minimal reorder: {stored_order()}")

# --- favorites ------------------------------------------------------------------------------

step("favorite drop [2, {id: 3}]: added [2, 3]")
change = expect(
    drop_favorites.sync_detailed(client=client, body=[2, FavoriteDropType0ItemType1(id=3)]), HTTPStatus.OK
)
check(change.added == [2, 3], f"added: {change.added}")
check(ids(change.favorites) == [2, 1, 3, 5], f"favorites in list order: {ids(change.favorites)}")

step("the same drop again: added [] (nothing changed, no success haptic)")
change = expect(drop_favorites.sync_detailed(client=client, body=[2]), HTTPStatus.OK)
check(change.added == [], f"added again: {change.added}")

step("PUT /favorites/4, then DELETE /favorites/4")
check(expect(add_favorite.sync_detailed(4, client=client), HTTPStatus.OK).is_favorite is True, "4 is a favorite")
check(expect(remove_favorite.sync_detailed(4, client=client), HTTPStatus.OK).is_favorite is False, "4 is not")
favorites = expect(list_favorites.sync_detailed(client=client), HTTPStatus.OK)
check(ids(favorites) == [2, 1, 3, 5], f"the favorites: {ids(favorites)}")

# --- adding ---------------------------------------------------------------------------------

step("add Oslo from a JSON draft at 1234.5678: 201 with Location, the price kept exactly")
response = create_trip.sync_detailed(
    client=client,
    body=TripDraft(city="Oslo", country="Norway", nights=2, price=1234.5678, start="2027-08-14"),
)
oslo = expect(response, HTTPStatus.CREATED)
check(isinstance(oslo, Trip) and oslo.city == "Oslo" and oslo.id == 7, f"the new trip: {oslo}")
check(response.headers.get("Location") == "/trips/7", f"Location: {response.headers.get('Location')}")
check(b'"price":1234.5678' in response.content, f"the price as the server wrote it: {response.content!r}")
check(exact_trip(response).price == Decimal("1234.5678"), f"the exact price: {exact_trip(response).price}")
# What the generated model holds (a float): equal here only because 1234.5678 has fewer than
# 16 significant digits; the Decimal above is the way to read any price.
check(oslo.price == 1234.5678, f"the generated model's price: {oslo.price!r}")

step("add Porto and Faro (a JSON array) in front of trip 2: 201 with both")
new = expect(
    create_trip.sync_detailed(
        client=client,
        before=2,
        body=[
            TripDraft(city="Porto", country="Portugal", nights=2, price=480, start="2027-05-05"),
            TripDraft(city="Faro", country="Portugal", nights=3, price=0.1, start="2027-05-08", notes="Beaches"),
        ],
    ),
    HTTPStatus.CREATED,
)
check(isinstance(new, list) and [trip.city for trip in new] == ["Porto", "Faro"], f"the new trips: {new}")
check(ids(new) == [8, 9], f"their ids: {ids(new)}")
check(stored_order() == [8, 9, 2, 1, 6, 4, 3, 5, 7], f"after the inserts: {stored_order()}")

step("a draft that breaks a rule (nights 0): 422 naming the member")
problem = expect(
    create_trip.sync_detailed(
        client=client, body=TripDraft(city="Rome", country="Italy", nights=0, price=1, start="2027-05-01")
    ),
    HTTPStatus.UNPROCESSABLE_ENTITY,
)
check(problem.member == "nights", f"the 422: {problem}")

# --- changing -------------------------------------------------------------------------------

step("merge-patch trip 2: 5 nights, notes Granville Island")
vancouver = expect(
    patch_trip.sync_detailed(2, client=client, body=TripPatch(nights=5, notes="Granville Island")), HTTPStatus.OK
)
check((vancouver.nights, vancouver.notes) == (5, "Granville Island"), f"trip 2 patched: {vancouver}")

step("PATCH with If-Match from the ETag: 200; the same ETag again: 412")
response = show_trip.sync_detailed(2, client=client)
etag = response.headers["ETag"]
expect(show_trip.sync_detailed(2, client=client, if_none_match=etag), HTTPStatus.NOT_MODIFIED)
vancouver = expect(patch_trip.sync_detailed(2, client=client, body=TripPatch(nights=6), if_match=etag), HTTPStatus.OK)
check(vancouver.nights == 6, f"trip 2: {vancouver.nights} nights")
problem = expect(
    patch_trip.sync_detailed(2, client=client, body=TripPatch(nights=7), if_match=etag), HTTPStatus.PRECONDITION_FAILED
)
check(problem.status == 412, f"the 412: {problem}")
check(expect(show_trip.sync_detailed(2, client=client), HTTPStatus.OK).nights == 6, "the stale change was not made")

step("PUT trip 7 with If-Match: every field replaced, the new price 98765.4321 kept exactly")
etag = show_trip.sync_detailed(7, client=client).headers["ETag"]
response = replace_trip.sync_detailed(
    7,
    client=client,
    if_match=etag,
    body=TripReplacement(
        city="Bergen", country="Norway", nights=3, price=98765.4321, start="2027-08-15T09:30:00+02:00", is_favorite=True
    ),
)
expect(response, HTTPStatus.OK)
bergen = exact_trip(response)
check((bergen.city, bergen.nights, bergen.is_favorite) == ("Bergen", 3, True), f"trip 7 replaced: {bergen}")
check(bergen.price == Decimal("98765.4321"), f"the exact price: {bergen.price}")
check(bergen.start.isoformat() == "2027-08-15T07:30:00+00:00", f"the start, in UTC: {bergen.start}")
check(bergen.notes == "", f"notes absent from a PUT are cleared: {bergen.notes!r}")

# --- views ----------------------------------------------------------------------------------

step("the favorites, most expensive first (filter=favorites&sort=-price), prices exact")
response = list_trips.sync_detailed(client=client, filter_=ListTripsFilter.FAVORITES, sort=ListTripsSort.PRICE_DESCENDING)
expect(response, HTTPStatus.OK)
view = exact_trips(response)
check(ids(view) == [7, 5, 3, 1, 2], f"favorites by price: {ids(view)}")
check(
    [trip.price for trip in view] == [Decimal(p) for p in ["98765.4321", "2999.9", "2450", "1499.5", "1299.99"]],
    f"their prices: {[trip.price for trip in view]}",
)
check(ids(expect(list_trips.sync_detailed(client=client, sort=ListTripsSort.PRICE), HTTPStatus.OK))[0] == 9,
      "the cheapest first: Faro at 0.1")

step("filter by country (country=united states) and search (q=zurich)")
view = expect(list_trips.sync_detailed(client=client, country="united states"), HTTPStatus.OK)
check(ids(view) == [1, 4], f"in the United States: {ids(view)}")
view = expect(list_trips.sync_detailed(client=client, q="zurich"), HTTPStatus.OK)
check([trip.city for trip in view] == ["Zürich"], f"zurich finds Zürich: {[trip.city for trip in view]}")

step("sort the stored list by start")
trips = expect(sort_trips.sync_detailed(client=client, body=SortRequest(by=SortRequestBy.START)), HTTPStatus.OK)
check(ids(trips) == [1, 2, 3, 8, 9, 4, 7, 5, 6], f"by start: {ids(trips)}")
check(all(a.start <= b.start for a, b in zip(trips, trips[1:])), "sorted by start")

# --- deleting -------------------------------------------------------------------------------

step("delete trips 1 and 3 (DELETE /trips?ids=1,3): 204; then trip 8 alone")
expect(delete_trips.sync_detailed(client=client, ids="1,3"), HTTPStatus.NO_CONTENT)
expect(delete_trip.sync_detailed(8, client=client), HTTPStatus.NO_CONTENT)
expect(show_trip.sync_detailed(8, client=client), HTTPStatus.NOT_FOUND)
check(stored_order() == [2, 9, 4, 7, 5, 6], f"after the deletes: {stored_order()}")
problem = expect(delete_trips.sync_detailed(client=client, ids="2,41"), HTTPStatus.UNPROCESSABLE_ENTITY)
check(problem.ids == [41], f"the unknown id: {problem}")
check(stored_order() == [2, 9, 4, 7, 5, 6], "all or nothing: trip 2 is still there")

# --- following changes ----------------------------------------------------------------------

step("the change feed since the first read: every change, in order")
page = expect(follow_changes.sync_detailed(client=client, since=first_revision), HTTPStatus.OK)
events = [str(change.event) for change in page.changes]
expected = (
    ["reordered"] * 3
    + ["favorites", "favorites", "favorites"]  # the drop, PUT and DELETE /favorites/4 (the repeat changed nothing)
    + ["created", "created", "updated", "updated", "updated", "sorted", "deleted", "deleted"]
)
check(events == expected, f"the changes: {events}")
revisions = [change.revision for change in page.changes]
check(revisions == sorted(revisions) and revisions[-1] == page.revision, f"revisions: {revisions}, now {page.revision}")
drop = page.changes[3].additional_properties
check(drop.get("added") == [2, 3] and drop.get("removed") == [], f"the drop's change: {drop}")

step("a long poll with nothing new: waits ?wait=1 s, then answers no changes")
started = time.monotonic()
quiet = expect(follow_changes.sync_detailed(client=client, since=page.revision, wait=1), HTTPStatus.OK)
elapsed = time.monotonic() - started
check(quiet.changes == [] and quiet.revision == page.revision, f"the quiet poll: {quiet}")
check(0.9 <= elapsed < 5, f"the quiet poll took {elapsed:.2f} s")

step("a long poll (wait=20) answered as soon as another client drops a favorite")
result = {}


def poll():
    result["page"] = follow_changes.sync_detailed(client=client, since=page.revision, wait=20)
    result["at"] = time.monotonic()


poller = threading.Thread(target=poll)
started = time.monotonic()
poller.start()
time.sleep(0.5)
with Client(base_url=URL) as other:
    expect(add_favorite.sync_detailed(6, client=other), HTTPStatus.OK)
poller.join(25)
check(not poller.is_alive(), "the long poll did not answer")
woken = expect(result["page"], HTTPStatus.OK)
check([str(c.event) for c in woken.changes] == ["favorites"], f"the woken poll: {woken}")
check(woken.changes[0].additional_properties.get("added") == [6], f"the change: {woken.changes[0]}")
check(result["at"] - started < 10, f"the poll answered after {result['at'] - started:.2f} s")

# --- the spec -------------------------------------------------------------------------------

step("the spec itself (GET /openapi.yaml) and the page's icon, as text")
response = open_api.sync_detailed(client=client)
check(expect(response, HTTPStatus.OK) is None, "the spec is not parsed (its content has no schema)")
check(response.content.startswith(b"openapi: 3.1.0\n"), f"the spec: {response.content[:40]!r}")
icon = expect(page_icon.sync_detailed(client=client), HTTPStatus.OK)
check(isinstance(icon, str) and "<svg" in icon, f"the icon: {icon[:40]!r}")

print(f"== all {step_count} steps of the tour passed through the generated client")
