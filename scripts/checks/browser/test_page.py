"""The browser page, in a real browser: Debian's chromium driven by Playwright, against a live
trips-server. Each test starts its own server with the six sample trips (ids 1 to 6, in order;
Seattle and Kyoto are favorites)."""

import json
import os
import re

from playwright.sync_api import expect

from conftest import DESKTOP, PHONE, fill_form, open_page, screenshots_folder

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


def row(page, trip_id):
    return page.locator(f'#trips > li[data-id="{trip_id}"]')


def choose(page, trip_id, action):
    """Opens a row's menu with the mouse and chooses one of its actions (its data-action)."""
    row(page, trip_id).locator('[data-action="menu"]').click()
    page.locator(f'#row-menu [data-action="{action}"]').click()


def summary(page):
    """The summary's entries: trips, nights, favorites."""
    return page.locator("#trip-summary li")


def shown_ids(page):
    return [int(i) for i in page.locator("#trips > li").evaluate_all("rows => rows.map(r => r.dataset.id)")]


def drag(page, source, target, position=None):
    """A real drag with the mouse. It starts before the page scrolls to the target (Playwright's
    drag_to scrolls first, and the drag would start on whatever is under the mouse then)."""
    source.hover(position={"x": 30, "y": 30})
    page.mouse.down()
    box = source.bounding_box()
    page.mouse.move(box["x"] + 34, box["y"] + 38)
    target.hover(position=position)
    page.mouse.up()


def drop_before(page, source_id, target_id):
    """Drags a row onto the upper half of another: in front of it."""
    drag(page, row(page, source_id), row(page, target_id), {"x": 40, "y": 6})


def test_loads_without_console_errors_at_desktop_and_phone_width(browser, server):
    for name, viewport in [("desktop", DESKTOP), ("phone", PHONE)]:
        context, page, console = open_page(browser, viewport)
        page.goto(server.url + "/")
        assert page.url == server.url + "/trips"
        expect(page.locator("#trips > li")).to_have_count(6)
        expect(summary(page)).to_have_text(["6 trips", "26 nights", "2 favorites"])
        expect(page.locator("#add")).to_be_visible()
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{name}: {overflow}px wider than the screen"
        page.screenshot(path=os.path.join(screenshots_folder(), f"{name}.png"), full_page=True)
        context.close()
        assert console.errors == [], f"{name}: {console.errors}"


def test_the_page_works_without_its_script(browser, server):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(server.url + "/trips")
    expect(page.locator("#trips > li")).to_have_count(6)
    expect(page.locator("#add")).to_be_hidden()
    page.get_by_role("link", name="Canada").click()
    assert page.url.endswith("/trips?country=Canada")
    expect(page.locator("#trips > li")).to_have_count(1)
    page.get_by_role("link", name="Highest price first").click()
    page.fill("#search", "")
    page.get_by_role("button", name="Search").click()
    assert "sort=-price" in page.url and "country=Canada" in page.url
    context.close()


def test_dragging_a_trip_before_another_and_to_the_end_reorders_the_list(server, page):
    # A price with more digits than a double holds: the JSON dragged out keeps every one.
    price = "1499.123456789012345678"
    status, _, _ = server.request("PATCH", "/trips/4", f'{{"price":{price}}}', headers={"Content-Type": "application/merge-patch+json"})
    assert status == 200
    page.goto(server.url + "/trips")
    page.evaluate("""() => window.addEventListener('dragstart', (e) => {
        window.offered = [...e.dataTransfer.types].map((type) => [type, e.dataTransfer.getData(type)]);
    })""")
    drop_before(page, 4, 2)
    expect(page.locator("#status")).to_have_text("Moved New York before Vancouver.")
    assert server.ids() == [1, 4, 2, 3, 5, 6]
    assert shown_ids(page) == [1, 4, 2, 3, 5, 6]
    # A trip dragged out offers Transferable's representations, in order (then its photo: see
    # test_photos.py).
    offered = dict(page.evaluate("window.offered"))
    assert list(offered)[:3] == ["application/json", "text/plain", "text/uri-list"]
    # The row carries what it does not show of the JSON (data-trip); the script puts the trip's
    # JSON together as the API writes it.
    assert json.loads(offered["application/json"]) == server.request("GET", "/trips/4")[2]
    assert f'"price":{price},' in offered["application/json"]
    assert offered["text/plain"] == "New York, United States: 5 nights from June 14, 2027"
    assert offered["text/uri-list"] == server.url + "/trips/4"

    drag(page, row(page, 1), page.locator("#end-zone"))
    expect(page.locator("#status")).to_have_text("Moved Seattle to the end.")
    assert server.ids() == [4, 2, 3, 5, 6, 1]


def test_several_selected_trips_move_as_one_block(server, page):
    page.goto(server.url + "/trips")
    choose(page, 3, "select")
    choose(page, 5, "select")
    expect(row(page, 5)).to_have_class(re.compile(r"\bselected\b"))
    drop_before(page, 5, 1)
    expect(page.locator("#status")).to_have_text("Moved Atacama and Kyoto before Seattle.")
    assert server.ids() == [3, 5, 1, 2, 4, 6]


def test_a_drop_on_favorites_makes_favorites_and_celebrates(server, page):
    # The haptic, where the device has one: record what the page asks of navigator.vibrate.
    page.add_init_script("navigator.vibrate = (pattern) => { (window.vibrations ||= []).push(pattern); return true; }")
    page.goto(server.url + "/trips")
    # The page reads `added` alone, and the list again: it asks for no favorites back.
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/favorites")) as dropped:
        drag(page, row(page, 2), page.locator("#favorites-chip"))
    assert dropped.value.request.headers.get("prefer") == "return=minimal"
    assert dropped.value.json() == {"added": [2]}
    expect(page.locator("#status")).to_have_text("Added Vancouver to Favorites.")
    expect(page.locator("#favorites-chip")).to_have_class("chip favorites celebrate")
    assert page.evaluate("window.vibrations") == [40]
    expect(page.locator("#favorites-count")).to_have_text("3")
    assert server.ids("/favorites") == [1, 2, 5]
    # A drop that adds nothing: no celebration is due.
    drag(page, row(page, 5), page.locator("#favorites-chip"))
    expect(page.locator("#status")).to_have_text("They were favorites already.")
    assert page.evaluate("window.vibrations") == [40]  # nothing added: no second haptic


def test_reordering_is_off_while_a_filter_is_on(server, page):
    page.goto(server.url + "/trips?filter=favorites")
    expect(page.locator("#view")).to_have_attribute("data-reorderable", "false")
    row(page, 5).locator('[data-action="menu"]').click()
    expect(page.locator("#row-menu")).to_be_visible()
    expect(page.locator('#row-menu [data-action="up"]')).to_be_hidden()
    expect(page.locator('#row-menu [data-action="down"]')).to_be_hidden()
    page.keyboard.press("Escape")
    drop_before(page, 5, 1)
    assert server.ids() == [1, 2, 3, 4, 5, 6]


def test_a_change_made_with_curl_appears_within_a_second(server, page):
    page.goto(server.url + "/trips")
    expect(page.locator("#trips > li")).to_have_count(6)
    status, _, _ = server.request("POST", "/trips", "Lisbon, Portugal: 4 nights from May 1, 2027")
    assert status == 201
    expect(page.locator("#trips > li")).to_have_count(7, timeout=1000)
    expect(row(page, 7).locator(".sentence")).to_have_text("Lisbon, Portugal: 4 nights from May 1, 2027")
    server.request("PATCH", "/trips", {"sources": [7], "destination": {"before": 1}})
    expect(page.locator("#trips > li").first).to_have_attribute("data-id", "7", timeout=1000)


def test_a_stale_drag_says_the_list_changed_and_shows_the_fresh_list(server, page):
    page.route("**/trips/changes**", lambda route: route.abort())  # no live updates
    page.goto(server.url + "/trips")
    server.request("DELETE", "/trips/6")
    drop_before(page, 4, 2)
    expect(page.locator("#status")).to_contain_text("The list changed since this page showed it")
    expect(page.locator("#trips > li")).to_have_count(5)
    assert server.ids() == [1, 2, 3, 4, 5]
    # The aborted event stream is this test's doing, and so is a 404 for trip 6's photo: its
    # image loads lazily, and may ask after the trip (and the photo with it) was deleted.
    # Anything else is still an error.
    page.console.errors = [
        e for e in page.console.errors if "ERR_FAILED" not in e and "412" not in e and "404 (Not Found)" not in e
    ]


def test_every_action_works_from_the_keyboard(server, page):
    page.goto(server.url + "/trips")
    row(page, 3).focus()
    page.keyboard.press("Alt+ArrowUp")
    expect(page.locator("#status")).to_have_text("Moved Atacama before Vancouver.")
    assert server.ids() == [1, 3, 2, 4, 5, 6]
    expect(row(page, 3)).to_be_focused()
    page.keyboard.press("Alt+ArrowDown")
    expect(page.locator("#status")).to_have_text("Moved Atacama before New York.")
    assert server.ids() == [1, 2, 3, 4, 5, 6]
    page.keyboard.press("ArrowDown")
    expect(row(page, 4)).to_be_focused()
    page.keyboard.press("Space")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Space")
    expect(page.locator("#status")).to_have_text("2 selected.")
    page.keyboard.press("f")
    expect(page.locator("#status")).to_have_text("Added New York and Zürich to Favorites.")
    assert server.ids("/favorites") == [1, 4, 5, 6]
    # The row's menu button is reachable with Tab; its menu works with arrows and Enter.
    row(page, 2).focus()
    page.keyboard.press("Tab")
    expect(row(page, 2).locator("a.city")).to_be_focused()
    page.keyboard.press("Tab")
    expect(row(page, 2).locator('[data-action="menu"]')).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator('#row-menu [data-action="select"]')).to_be_focused()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_have_text("Vancouver is a favorite.")
    row(page, 2).focus()
    page.keyboard.press("Delete")
    expect(page.locator("#confirm")).to_contain_text("This cannot be undone.")
    expect(page.locator('[data-action="confirm-delete"]')).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#status")).to_have_text("Deleted Vancouver.")
    assert 2 not in server.ids()


def test_text_dropped_from_another_app_creates_trips_where_it_lands(server, page):
    page.goto(server.url + "/trips")
    page.evaluate("""(text) => {
        const target = document.querySelector('#trips > li[data-id="3"]');
        const box = target.getBoundingClientRect();
        const dataTransfer = new DataTransfer();
        dataTransfer.setData('text/plain', text);
        const init = { bubbles: true, cancelable: true, dataTransfer, clientX: box.left + 20, clientY: box.top + 4 };
        target.dispatchEvent(new DragEvent('dragover', init));
        target.dispatchEvent(new DragEvent('drop', init));
    }""", "Porto, Portugal: 2 nights from May 5, 2027\nFaro, Portugal: 3 nights from May 8, 2027")
    expect(page.locator("#status")).to_have_text("Added 2 trips.")
    assert server.ids() == [1, 2, 7, 8, 3, 4, 5, 6]
    expect(page.locator("#trips > li")).to_have_count(8)


def test_add_edit_favorite_and_delete(server, page):
    page.goto(server.url + "/trips")
    form = page.locator("#add-form")
    fill_form(form, {"City": "Oslo", "Country": "Norway", "Nights": "2", "Start": "2027-08-14", "Price": "640.12345678901234567"})
    form.get_by_role("button", name="Add trip").click()
    expect(page.locator("#status")).to_have_text("Added Oslo.")
    expect(summary(page)).to_have_text(["7 trips", "28 nights", "2 favorites"])
    _, _, oslo = server.request("GET", "/trips/7")
    assert (oslo["city"], oslo["nights"], oslo["start"]) == ("Oslo", 2, "2027-08-14T00:00:00Z")
    exact_price = '"price":640.12345678901234567,'
    assert exact_price in server.request("GET", "/trips/7", parse=False)[2]  # no double in between

    page.locator("#sentence-form input").fill("Lisbon, Portugal: 4 nights from May 1, 2027")
    page.locator("#sentence-form button").click()
    expect(page.locator("#status")).to_have_text("Added Lisbon.")

    choose(page, 7, "edit")
    page.locator("#edit-form").get_by_label("Nights").fill("5")
    page.locator("#edit-form").get_by_role("button", name="Save").click()
    expect(page.locator("#status")).to_have_text("Saved Oslo.")
    assert server.request("GET", "/trips/7")[2]["nights"] == 5
    assert exact_price in server.request("GET", "/trips/7", parse=False)[2]  # the edit kept it

    choose(page, 7, "favorite")
    expect(page.locator("#status")).to_have_text("Oslo is a favorite.")
    expect(row(page, 7).locator(".star")).to_be_visible()
    expect(summary(page)).to_have_text(["8 trips", "35 nights", "3 favorites"])

    choose(page, 7, "delete")
    expect(page.locator("#confirm")).to_contain_text("Delete Oslo?")
    page.locator('[data-action="cancel-delete"]').click()
    assert 7 in server.ids()
    choose(page, 7, "delete")
    page.locator('[data-action="confirm-delete"]').click()
    expect(page.locator("#status")).to_have_text("Deleted Oslo.")
    expect(summary(page)).to_have_text(["7 trips", "30 nights", "2 favorites"])
    assert 7 not in server.ids()


def test_a_city_full_of_markup_shows_as_text(server, page):
    hostile = "<img src=x onerror=alert(1)>"
    server.request("POST", "/trips", {"city": hostile, "country": "Nowhere", "nights": 1, "price": 1,
                                      "start": "2027-01-01", "notes": "<script>alert(2)</script>"})
    dialogs = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(server.url + "/trips")
    expect(row(page, 7).locator(".city")).to_have_text(hostile)
    assert row(page, 7).locator("img").count() == 0  # the samples' photos are the only images
    page.goto(server.url + "/trips/7")
    expect(page.locator("h1")).to_have_text(hostile)
    assert page.locator("main img, main script").count() == 0
    assert dialogs == []


def test_a_trip_page_can_be_shared(server, page):
    page.goto(server.url + "/trips/2")
    head = page.locator("head")
    expect(head.locator('meta[property="og:title"]')).to_have_attribute("content", "Vancouver")
    expect(head.locator('meta[property="og:description"]')).to_have_attribute(
        "content", "Vancouver, Canada: 3 nights from March 5, 2027")
    expect(head.locator('meta[property="og:url"]')).to_have_attribute("content", server.url + "/trips/2")
    has_web_share = page.evaluate("'share' in navigator")
    if not has_web_share:
        page.get_by_role("button", name="Share").click()
        expect(page.locator("#status")).to_have_text("Link copied.")
        assert page.evaluate("navigator.clipboard.readText()") == server.url + "/trips/2"
    server.request("PATCH", "/trips/2", {"nights": 9})
    expect(page.locator(".sentence")).to_have_text("Vancouver, Canada: 9 nights from March 5, 2027", timeout=1000)


def test_pages_carry_their_security_headers(server):
    for path in ["/trips", "/favorites", "/trips/2"]:
        status, fields, body = server.request("GET", path, headers={"Accept": BROWSER_ACCEPT})
        assert status == 200 and fields["Content-Type"] == "text/html; charset=utf-8"
        assert "default-src 'self'" in fields["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in fields["Content-Security-Policy"]
        assert fields["X-Content-Type-Options"] == "nosniff"
    weight = len(server.request("GET", "/trips", headers={"Accept": BROWSER_ACCEPT})[2].encode())
    for asset in ["/assets/trips.css", "/assets/trips.js", "/assets/trips.svg"]:
        weight += len(server.request("GET", asset)[2].encode())
    assert weight < 100_000, weight  # #29's menus, trip page, offline queue and undo took it past 60,000


def test_the_page_speaks_the_browsers_language(browser, server):
    context = browser.new_context(viewport=DESKTOP, locale="ja-JP")
    page = context.new_page()
    page.goto(server.url + "/trips")
    expect(page.locator("html")).to_have_attribute("lang", "ja")
    expect(row(page, 2).locator(".sentence")).to_have_text("Vancouver, Canada：2027年3月5日から3泊")
    expect(row(page, 2).locator('[data-action="menu"]')).to_have_attribute("aria-label", "Vancouverの操作")
    server.request("PATCH", "/trips/2", {"nights": 4})
    expect(row(page, 2).locator(".sentence")).to_have_text("Vancouver, Canada：2027年3月5日から4泊", timeout=1000)
    page.locator("#sentence-form input").fill("Lyon, France : 2 nuits à partir du 5 mars 2027")
    page.locator("#sentence-form button").click()
    expect(page.locator("#status")).to_have_text("Lyonを追加しました。")
    expect(row(page, 7).locator(".sentence")).to_have_text("Lyon, France：2027年3月5日から2泊")
    context.close()
