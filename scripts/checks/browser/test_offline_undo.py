"""Offline and undo (issue #29, items 9 and 10), in a real browser: changes made without a
connection wait in the browser and reach the server in order when it is back; the last delete,
move or favorite drop can be undone for 10 seconds. Each test starts its own server with the six
sample trips (ids 1 to 6: Seattle, Vancouver, Atacama, New York, Kyoto, Zürich; Seattle and Kyoto
are favorites).

The browser goes offline with Playwright's `context.set_offline`; the Undo's 10 seconds pass on
Playwright's clock (`page.clock`), not in real time."""

import datetime
import re
import urllib.parse

from playwright.sync_api import expect

from conftest import assert_no_violations, fill_form
from test_page import row

# Where trips.js keeps the waiting changes (localStorage).
OUTBOX = "trips-waiting-changes"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")


def waiting(page):
    return page.evaluate("(key) => JSON.parse(localStorage.getItem(key) ?? '[]')", OUTBOX)


def record_changes(page):
    """Every change (any request but a read) the page sends, in order: (method, path, key)."""
    sent = []

    def record(request):
        if request.method not in ("GET", "HEAD"):
            target = urllib.parse.urlsplit(request.url)
            sent.append((request.method, target.path, request.headers.get("idempotency-key")))

    page.on("request", record)
    return sent


def forgive_connection_errors(page, *also):
    """The browser logs each request it could not make, or that was refused, as an error: here
    the test caused them (by going offline, cutting a connection or changing the list)."""
    needles = ("net::ERR_", *also)
    page.console.errors = [e for e in page.console.errors if not any(n in e for n in needles)]


def move_up(page, trip_id):
    row(page, trip_id).focus()
    page.keyboard.press("Alt+ArrowUp")


def favorite(page, trip_id):
    """A drop on Favorites from the keyboard (F on a row)."""
    row(page, trip_id).focus()
    page.keyboard.press("f")


def test_changes_made_offline_wait_and_reach_the_server_in_order(server, page):
    sent = record_changes(page)
    page.goto(server.url + "/trips")
    list_tag = page.locator("#view").get_attribute("data-etag")
    page.context.set_offline(True)
    favorite(page, 2)
    expect(page.locator("#status")).to_have_text(
        "No connection: “Add Vancouver to Favorites” waits, and is sent when the connection is back. "
        "1 change waiting to be sent.")
    move_up(page, 4)
    expect(page.locator("#status")).to_contain_text("2 changes waiting to be sent.")
    expect(row(page, 2).locator(".waiting-note")).to_have_text("Waiting to be sent")
    expect(row(page, 4).locator(".waiting-note")).to_have_text("Waiting to be sent")
    expect(row(page, 3).locator(".waiting-note")).to_have_count(0)
    kept = waiting(page)
    assert [(c["method"], c["url"]) for c in kept] == [("POST", "/favorites"), ("PATCH", "/trips")]
    keys = [c["key"] for c in kept]
    assert len(set(keys)) == 2 and all(UUID.fullmatch(key) for key in keys), keys
    assert kept[1]["ifMatch"] == list_tag  # the tag of the list it was made on
    assert sent == []
    assert server.ids() == [1, 2, 3, 4, 5, 6] and server.ids("/favorites") == [1, 5]

    page.context.set_offline(False)
    expect(page.locator("#status")).to_have_text("2 waiting changes were sent.")
    assert server.ids("/favorites") == [1, 2, 5]
    assert server.ids() == [1, 2, 4, 3, 5, 6]
    # Strictly in the order made, each with the key it was made with. The move was made on top
    # of the favorite (the page could not show it), so it is sent on the list the favorite left.
    assert sent == [("POST", "/favorites", keys[0]), ("PATCH", "/trips", keys[1])]
    assert waiting(page) == []
    expect(page.locator(".waiting-note")).to_have_count(0)
    expect(row(page, 2)).to_have_class(re.compile(r"\bis-favorite\b"))
    forgive_connection_errors(page)


def test_changes_made_offline_on_the_trip_page_wait_and_are_saved(server, page):
    sent = record_changes(page)
    page.goto(server.url + "/trips/2")
    card_tag = page.locator("article.trip-card").get_attribute("data-etag")
    page.context.set_offline(True)
    page.get_by_role("button", name="Edit", exact=True).click()
    form = page.locator("#edit-form")
    fill_form(form, {"Nights": "9"})
    form.get_by_role("button", name="Save").click()
    expect(page.locator("#status")).to_have_text(
        "No connection: “Save Vancouver” waits, and is sent when the connection is back. 1 change waiting to be sent.")
    expect(page.locator("#editor")).to_be_hidden()
    expect(page.locator("article.trip-card .waiting-note")).to_have_text("Waiting to be sent")
    page.get_by_role("button", name="Favorite", exact=True).click()
    expect(page.locator("#status")).to_contain_text("2 changes waiting to be sent.")
    kept = waiting(page)
    assert [(c["method"], c["url"]) for c in kept] == [("PATCH", "/trips/2"), ("PUT", "/favorites/2")]
    assert kept[0]["ifMatch"] == card_tag  # the trip as the card showed it
    assert sent == []

    page.context.set_offline(False)
    expect(page.locator("#status")).to_have_text("2 waiting changes were sent.")
    expect(page.locator(".sentence")).to_have_text("Vancouver, Canada: 9 nights from March 5, 2027")
    trip = server.request("GET", "/trips/2")[2]
    assert (trip["nights"], trip["isFavorite"]) == (9, True)
    assert sent == [("PATCH", "/trips/2", kept[0]["key"]), ("PUT", "/favorites/2", kept[1]["key"])]
    expect(page.locator(".waiting-note")).to_have_count(0)
    forgive_connection_errors(page)


def test_a_delete_made_offline_on_the_trip_page_waits_and_is_made(server, page):
    page.goto(server.url + "/trips/2")
    page.context.set_offline(True)
    page.get_by_role("button", name="Delete", exact=True).click()
    page.get_by_role("alertdialog").get_by_role("button", name="Delete").click()
    expect(page.locator("#status")).to_have_text(
        "No connection: “Delete Vancouver” waits, and is sent when the connection is back. 1 change waiting to be sent.")
    assert 2 in server.ids()
    page.context.set_offline(False)
    expect(page.locator("#status")).to_contain_text("1 waiting change was sent.")
    assert 2 not in server.ids()
    forgive_connection_errors(page, "404")


def test_a_waiting_change_the_server_refuses_is_reported_and_the_rest_are_sent(server, page):
    page.goto(server.url + "/trips")
    page.context.set_offline(True)
    move_up(page, 4)
    favorite(page, 6)
    expect(page.locator("#status")).to_contain_text("2 changes waiting to be sent.")
    server.request("DELETE", "/trips/1")  # meanwhile, someone changes the list the move was made on
    page.context.set_offline(False)
    status = page.locator("#status")
    expect(status).to_contain_text("1 waiting change was sent.")
    expect(status).to_contain_text("Not done: “Move New York”. If-Match names no current representation")
    assert server.ids() == [2, 3, 4, 5, 6]  # the move was refused (412), not applied blindly
    assert server.ids("/favorites") == [5, 6]  # the change after it went on
    assert waiting(page) == []
    forgive_connection_errors(page, "412")


def test_a_change_whose_answer_was_lost_is_kept_for_the_next_visit_and_made_once(server, page):
    page.goto(server.url + "/trips")

    def lose_the_answer(route):
        route.fetch()  # the server makes the change...
        page.context.set_offline(True)  # ...and the connection drops before its answer arrives
        route.abort("internetdisconnected")

    page.route("**/trips", lambda route: lose_the_answer(route) if route.request.method == "POST" else route.fallback())
    page.locator("#sentence-form input").fill("Lisbon, Portugal: 4 nights from May 1, 2027")
    page.locator("#sentence-form button").click()
    expect(page.locator("#status")).to_contain_text("1 change waiting to be sent.")
    assert server.ids() == [1, 2, 3, 4, 5, 6, 7]  # it was made
    [kept] = waiting(page)
    page.unroute("**/trips")
    forgive_connection_errors(page)
    page.close()  # the page goes; the waiting change stays in the browser
    page.context.set_offline(False)
    later = page.context.new_page()
    later.goto(server.url + "/trips")
    # The next visit sends it with the key it was made with: the server knew the key, so the
    # trip was not made twice.
    expect(later.locator("#status")).to_have_text("1 waiting change was sent.")
    assert server.ids() == [1, 2, 3, 4, 5, 6, 7]
    expect(later.locator("#trips > li")).to_have_count(7)
    status, _, _ = server.request(
        "POST", "/trips", "Lisbon, Portugal: 4 nights from May 1, 2027", headers={"Idempotency-Key": kept["key"]})
    assert status == 201 and server.ids() == [1, 2, 3, 4, 5, 6, 7]


def test_a_page_outside_a_secure_context_makes_its_own_keys(server, page):
    page.add_init_script("delete Crypto.prototype.randomUUID")  # as over plain HTTP on a network
    page.goto(server.url + "/trips")
    page.context.set_offline(True)
    favorite(page, 2)
    expect(page.locator("#status")).to_contain_text("1 change waiting to be sent.")
    [kept] = waiting(page)
    assert UUID.fullmatch(kept["key"]), kept
    page.context.set_offline(False)
    expect(page.locator("#status")).to_have_text("1 waiting change was sent.")
    assert server.ids("/favorites") == [1, 2, 5]
    forgive_connection_errors(page)


def test_the_waiting_changes_are_bounded_in_number_and_bytes(server, page):
    page.goto(server.url + "/trips")
    page.context.set_offline(True)
    page.evaluate("""(key) => localStorage.setItem(key, JSON.stringify(Array.from({ length: 100 },
        (_, i) => ({ key: `k${i}`, method: 'DELETE', url: '/trips/99', what: 'Delete Nowhere', ids: [] })))) """, OUTBOX)
    favorite(page, 2)
    expect(page.locator("#status")).to_have_text(
        "Not kept: this page keeps at most 100 waiting changes (1 MB). They are sent when the connection is back. "
        "100 changes waiting to be sent.")
    assert len(waiting(page)) == 100
    # One waiting change of almost 1 MB leaves no room for another.
    page.evaluate("""(key) => localStorage.setItem(key, JSON.stringify([
        { key: 'k', method: 'POST', url: '/trips', raw: 'x'.repeat(1024 * 1024 - 200), what: 'Add x', ids: [] }]))""", OUTBOX)
    favorite(page, 2)
    expect(page.locator("#status")).to_have_text(
        "Not kept: this page keeps at most 100 waiting changes (1 MB). They are sent when the connection is back. "
        "1 change waiting to be sent.")
    assert len(waiting(page)) == 1
    forgive_connection_errors(page)


def test_a_photo_is_not_kept_offline_and_says_so(server, page):
    page.goto(server.url + "/trips")
    page.context.set_offline(True)
    page.evaluate("""() => {
        const target = document.querySelector('#trips > li[data-id="2"]');
        const box = target.getBoundingClientRect();
        const dataTransfer = new DataTransfer();
        dataTransfer.items.add(new File([new Uint8Array([0xff, 0xd8, 0xff])], 'v.jpg', { type: 'image/jpeg' }));
        const init = { bubbles: true, cancelable: true, dataTransfer, clientX: box.left + box.width / 2, clientY: box.top + box.height / 2 };
        target.dispatchEvent(new DragEvent('dragover', init));
        target.dispatchEvent(new DragEvent('drop', init));
    }""")
    expect(page.locator("#status")).to_have_text(
        "The photo of Vancouver was not sent: photos are not kept while offline. Try again when the connection is back.")
    assert waiting(page) == []
    forgive_connection_errors(page)


def test_undo_brings_a_deleted_trip_back_at_its_place_with_a_new_id(server, page):
    page.goto(server.url + "/trips")
    _, _, atacama = server.request("GET", "/trips/3", parse=False)
    row(page, 3).focus()
    page.keyboard.press("Delete")
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_have_text("Deleted Atacama.")
    undo = page.get_by_role("button", name="Undo")
    expect(undo).to_be_visible()
    expect(page.locator("#undo-offer")).to_have_attribute("role", "status")  # its appearing is announced
    expect(page.locator("#undo-offer")).to_contain_text("“Delete Atacama” can be undone for 10 seconds.")
    undo.click()
    expect(page.locator("#status")).to_have_text(
        "Atacama is back, as trip 7: a deleted trip's id is never used again. Photos do not come back with a trip.")
    assert server.ids() == [1, 2, 7, 4, 5, 6]
    _, _, back = server.request("GET", "/trips/7", parse=False)
    without = lambda text: re.sub(r'"id":\d+,|,"photo":(\{[^}]*\}|null)', "", text)  # noqa: E731
    assert without(back) == without(atacama), (back, atacama)  # every field, the price digit for digit
    expect(undo).to_have_count(0)
    expect(row(page, 7)).to_be_focused()


def test_a_delete_answered_after_the_change_feed_told_it_is_still_announced_and_undoable(server, page):
    """The change feed can tell the page of its own delete before the DELETE's answer arrives
    (a loaded server or network): the page refreshes, the row is gone, and the answer must
    still be announced with its Undo. Here the answer is held until the feed took the row."""
    page.goto(server.url + "/trips")

    def answer_after_the_feed(route):
        if route.request.method != "DELETE":
            return route.continue_()
        answer = route.fetch()  # the server deletes the trip, and its feed tells the page
        expect(row(page, 3)).to_have_count(0)  # the page refreshed from the feed first
        route.fulfill(response=answer)

    page.route("**/trips/3", answer_after_the_feed)
    row(page, 3).focus()
    page.keyboard.press("Delete")
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_have_text("Deleted Atacama.")
    expect(page.get_by_role("button", name="Undo")).to_be_visible()
    expect(row(page, 4)).to_be_focused()


def test_undo_of_deleting_several_trips_puts_each_back_where_it_stood(server, page):
    page.goto(server.url + "/trips")
    row(page, 2).focus()
    page.keyboard.press("Space")
    row(page, 4).focus()
    page.keyboard.press("Space")
    page.keyboard.press("Delete")
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_have_text("Deleted Vancouver and New York.")
    assert server.ids() == [1, 3, 5, 6]
    page.keyboard.press("Control+z")
    expect(page.locator("#status")).to_contain_text("Vancouver and New York are back, as trips 7, 8")
    assert server.ids() == [1, 7, 3, 8, 5, 6]


def test_undo_of_a_move_puts_the_trips_back(server, page):
    page.goto(server.url + "/trips")
    move_up(page, 4)
    expect(page.locator("#status")).to_have_text("Moved New York before Atacama.")
    assert server.ids() == [1, 2, 4, 3, 5, 6]
    page.keyboard.press("Control+z")
    expect(page.locator("#status")).to_have_text("Moved New York back.")
    assert server.ids() == [1, 2, 3, 4, 5, 6]
    # Trips that did not stand together go back each to its own place.
    row(page, 2).focus()
    page.keyboard.press("Space")
    row(page, 5).focus()
    page.keyboard.press("Space")
    page.keyboard.press("Alt+ArrowUp")
    expect(page.locator("#status")).to_have_text("Moved Vancouver and Kyoto before Seattle.")
    assert server.ids() == [2, 5, 1, 3, 4, 6]
    page.get_by_role("button", name="Undo").click()
    expect(page.locator("#status")).to_have_text("Moved Vancouver and Kyoto back.")
    assert server.ids() == [1, 2, 3, 4, 5, 6]


def test_undo_of_a_favorite_drop_removes_exactly_the_trips_it_added(server, page):
    page.goto(server.url + "/trips")
    for trip_id in [2, 3, 5]:  # Kyoto is a favorite already
        row(page, trip_id).focus()
        page.keyboard.press("Space")
    page.keyboard.press("f")
    expect(page.locator("#status")).to_have_text("Added Vancouver and Atacama to Favorites.")
    assert server.ids("/favorites") == [1, 2, 3, 5]
    page.get_by_role("button", name="Undo").click()
    expect(page.locator("#status")).to_have_text("Removed Vancouver and Atacama from Favorites again.")
    assert server.ids("/favorites") == [1, 5]


def test_undo_on_a_list_that_moved_meanwhile_says_so(server, page):
    page.goto(server.url + "/trips")
    move_up(page, 4)
    expect(page.locator("#status")).to_have_text("Moved New York before Atacama.")
    server.request("PATCH", "/trips", {"sources": [6], "destination": {"before": 1}})
    expect(page.locator("#trips > li").first).to_have_attribute("data-id", "6")
    page.get_by_role("button", name="Undo").click()
    expect(page.locator("#status")).to_have_text(
        "The list changed meanwhile, so this was not undone. This is the current list.")
    assert server.ids() == [6, 1, 2, 4, 3, 5]
    forgive_connection_errors(page, "412")


def test_the_undo_button_goes_after_ten_seconds_and_is_reachable_by_keyboard(server, page):
    page.clock.install()
    page.goto(server.url + "/trips")
    # The page's time stands still from here: it moves only when the test moves it.
    now = page.evaluate("Date.now()")
    page.clock.pause_at(datetime.datetime.fromtimestamp(now / 1000 + 1))
    move_up(page, 4)
    undo = page.get_by_role("button", name="Undo")
    expect(undo).to_be_visible()
    page.clock.fast_forward(9_000)
    expect(undo).to_be_visible()
    # Tab reaches it: it follows the forms, before the status line.
    page.locator("#sentence-form button").focus()
    page.keyboard.press("Tab")
    expect(undo).to_be_focused()
    page.clock.fast_forward(1_000)
    expect(undo).to_have_count(0)
    page.keyboard.press("Control+z")  # nothing to undo any more
    assert server.ids() == [1, 2, 4, 3, 5, 6]

    move_up(page, 3)  # a new change gets a new 10 seconds; Enter on the button undoes it
    expect(undo).to_be_visible()
    page.clock.fast_forward(5_000)
    page.locator("#sentence-form button").focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(undo).to_have_count(0)
    expect(page.locator("#trips > li").nth(2)).to_have_attribute("data-id", "4")
    assert server.ids() == [1, 2, 4, 3, 5, 6]


def test_axe_finds_no_violations_with_the_undo_button_or_waiting_changes_shown(server, page):
    page.goto(server.url + "/trips")
    move_up(page, 4)
    expect(page.get_by_role("button", name="Undo")).to_be_visible()
    assert_no_violations(page, "the Undo button shown")
    # A new change withdraws the Undo, so the two are checked one after the other.
    page.context.set_offline(True)
    favorite(page, 2)
    move_up(page, 3)
    expect(page.locator("#status")).to_contain_text("2 changes waiting to be sent.")
    expect(page.locator(".waiting-note")).to_have_count(2)
    assert_no_violations(page, "changes waiting")
    page.context.set_offline(False)
    expect(page.locator("#status")).to_have_text("2 waiting changes were sent.")
    forgive_connection_errors(page)
