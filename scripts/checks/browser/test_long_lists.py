"""Long lists on the page (#29, item 8), in a real browser: a server with 450 trips (ids 1 to
450, in order, no samples) shows 200 rows and a "Next page" link; nearing the link appends the
next 200, then the last 50; a drag reaches the end of the whole list; the link works without
the script; a refresh keeps every loaded row; undo, favorite drops, the summary and the photo
strip with pages loaded."""

import re

import pytest
from playwright.sync_api import expect

from conftest import Server
from test_page import summary
from test_photos import give_photo, png

TRIPS = 450


@pytest.fixture
def long_server():
    running = Server("--no-samples")
    drafts = [
        {"city": f"City {i}", "country": f"Country {i % 7}", "nights": 1 + i % 20, "price": 100 + i, "start": "2027-05-01"}
        for i in range(1, TRIPS + 1)
    ]
    status, _, _ = running.request("POST", "/trips", drafts, headers={"Prefer": "return=minimal"})
    assert status == 201
    yield running
    running.stop()


def shown_ids(page):
    return [int(i) for i in page.locator("#trips > li").evaluate_all("rows => rows.map(r => r.dataset.id)")]


def row(page, trip_id):
    return page.locator(f'#trips > li[data-id="{trip_id}"]')


# The row at the top of the window, and where it is.
TOP_ROW = """() => {
    const row = [...document.querySelectorAll('#trips > li')].find((r) => r.getBoundingClientRect().bottom > 0);
    return { id: Number(row.dataset.id), y: row.getBoundingClientRect().top };
}"""


def scroll_to_the_end(page):
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")


def load_everything(page):
    """Scrolls down until the last page is in: 200 rows, 400, then all 450."""
    expect(page.locator("#trips > li")).to_have_count(200)
    scroll_to_the_end(page)
    expect(page.locator("#trips > li")).to_have_count(400)
    expect(page.locator("#status")).to_have_text("200 more trips loaded.")
    scroll_to_the_end(page)
    expect(page.locator("#trips > li")).to_have_count(TRIPS)
    expect(page.locator("#status")).to_have_text("50 more trips loaded.")
    expect(page.locator("#more")).to_have_count(0)


def test_scrolling_to_the_end_loads_the_next_page_then_the_rest(long_server, page):
    page.goto(long_server.url + "/trips")
    expect(page.get_by_role("link", name="Next page")).to_have_attribute("href", "/trips?after=200")
    load_everything(page)
    assert shown_ids(page) == list(range(1, TRIPS + 1))
    # Arrows reach the appended rows.
    row(page, 200).focus()
    page.keyboard.press("ArrowDown")
    expect(row(page, 201)).to_be_focused()


def test_a_drag_to_the_end_zone_after_loading_all_moves_the_trip_to_the_end(long_server, page):
    page.goto(long_server.url + "/trips")
    load_everything(page)
    page.evaluate("window.scrollTo(0, 0)")
    source = row(page, 1)
    source.hover(position={"x": 30, "y": 30})
    page.mouse.down()
    box = source.bounding_box()
    page.mouse.move(box["x"] + 34, box["y"] + 38)
    page.locator("#end-zone").hover()
    top_row = page.evaluate(TOP_ROW)
    page.mouse.up()
    expect(page.locator("#trips > li").last).to_have_attribute("data-id", "1")
    assert long_server.ids() == list(range(2, TRIPS + 1)) + [1]
    # The refresh after the move kept every loaded row, and the place the reader was at: the
    # row at the top of the window is still there, though the one moved away was above it.
    assert shown_ids(page) == long_server.ids()
    assert abs(row(page, top_row["id"]).bounding_box()["y"] - top_row["y"]) < 2


def test_moving_down_from_the_last_loaded_row_loads_the_next_page_first(long_server, page):
    page.goto(long_server.url + "/trips")
    row(page, 200).focus()
    page.keyboard.press("Alt+ArrowDown")
    expect(page.locator("#trips > li").nth(200)).to_have_attribute("data-id", "200")
    assert long_server.ids()[198:203] == [199, 201, 200, 202, 203]
    assert len(shown_ids(page)) == 400
    expect(row(page, 200)).to_be_focused()


def test_a_change_elsewhere_keeps_the_loaded_rows(long_server, page):
    page.goto(long_server.url + "/trips")
    expect(page.locator("#trips > li")).to_have_count(200)
    scroll_to_the_end(page)
    expect(page.locator("#trips > li")).to_have_count(400)
    row(page, 300).scroll_into_view_if_needed()
    top = row(page, 300).bounding_box()["y"]
    status, _, _ = long_server.request("PATCH", "/trips", {"sources": [450], "destination": {"before": 1}})
    assert status == 200
    expect(page.locator("#trips > li").first).to_have_attribute("data-id", "450", timeout=2000)
    assert shown_ids(page) == [450] + list(range(1, 400))
    assert abs(row(page, 300).bounding_box()["y"] - top) < 2
    expect(page.get_by_role("link", name="Next page")).to_have_attribute("href", "/trips?after=399")


def test_a_page_that_arrives_after_a_change_shows_no_trip_twice(long_server, page):
    # No live updates: the change below reaches the page only through the next page's rows.
    page.route("**/trips/changes**", lambda route: None)
    page.goto(long_server.url + "/trips")
    expect(page.locator("#trips > li")).to_have_count(200)
    status, _, _ = long_server.request("PATCH", "/trips", {"sources": [5], "destination": {"before": 201}})
    assert status == 200
    scroll_to_the_end(page)
    expect(page.locator("#trips > li")).to_have_count(399)
    # The newer page made the script reload the loaded rows at that revision.
    expect(page.locator("#trips > li").nth(4)).to_have_attribute("data-id", "6")
    ids = shown_ids(page)
    assert len(ids) == len(set(ids))
    assert ids == long_server.ids()[:399]


def test_the_next_page_link_works_without_the_script(browser, long_server):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(long_server.url + "/trips")
    assert shown_ids(page) == list(range(1, 201))
    page.get_by_role("link", name="Next page").click()
    assert page.url == long_server.url + "/trips?after=200"
    assert shown_ids(page) == list(range(201, 401))
    page.get_by_role("link", name="Next page").click()
    assert shown_ids(page) == list(range(401, TRIPS + 1))
    expect(page.get_by_role("link", name="Next page")).to_have_count(0)
    context.close()


def test_undo_of_moving_the_last_loaded_row_puts_it_back_in_front_of_the_next_page(long_server, page):
    # The next page is held (never answered): focusing the last row brings the end into view,
    # whose loading would otherwise make that row not the last, and announce "200 more trips
    # loaded." over the move's words whenever it came after the key. The undo's own question
    # (`?after=200&limit=1`) goes through.
    page.route(lambda url: "after=" in url and "limit=" not in url, lambda route: None)
    page.goto(long_server.url + "/trips")
    expect(page.locator("#trips > li")).to_have_count(200)
    row(page, 200).focus()
    page.keyboard.press("Alt+ArrowUp")
    expect(page.locator("#status")).to_have_text("Moved City 200 before City 199.")
    assert long_server.ids()[197:201] == [198, 200, 199, 201]
    # The trip that followed it is on a page not loaded: the undo asked the server which it is.
    page.keyboard.press("Control+z")
    expect(page.locator("#status")).to_have_text("Moved City 200 back.")
    assert long_server.ids() == list(range(1, TRIPS + 1))


def test_a_favorite_drop_past_the_first_page_keeps_the_loaded_rows_and_counts_the_whole_list(long_server, page):
    page.goto(long_server.url + "/trips")
    expect(summary(page)).to_have_text(["450 trips", "4,685 nights", "0 favorites"])
    scroll_to_the_end(page)
    expect(page.locator("#trips > li")).to_have_count(400)
    row(page, 350).focus()
    page.keyboard.press("Space")
    page.keyboard.press("f")
    expect(page.locator("#status")).to_have_text("Added City 350 to Favorites.")
    assert long_server.ids("/favorites") == [350]
    expect(summary(page)).to_have_text(["450 trips", "4,685 nights", "1 favorite"])
    expect(page.locator("#favorites-count")).to_have_text("1")
    assert shown_ids(page) == list(range(1, 401))
    expect(row(page, 350)).to_have_class(re.compile(r"\bis-favorite\b"))
    page.get_by_role("button", name="Undo").click()
    expect(page.locator("#status")).to_have_text("Removed City 350 from Favorites again.")
    assert long_server.ids("/favorites") == []
    expect(summary(page)).to_have_text(["450 trips", "4,685 nights", "0 favorites"])


def test_the_photo_strip_shows_the_photos_of_the_loaded_rows(long_server, page):
    for trip_id in [2, 250]:
        give_photo(long_server, trip_id, png(8, 6, seed=trip_id))
    page.goto(long_server.url + "/trips")
    strip = page.locator(".strip-photo")
    expect(strip).to_have_count(1)
    expect(strip.first).to_have_attribute("data-id", "2")
    scroll_to_the_end(page)
    expect(page.locator("#trips > li")).to_have_count(400)
    expect(strip).to_have_count(2)
    assert strip.evaluate_all("photos => photos.map(p => p.dataset.id)") == ["2", "250"]
    # A refresh (a change elsewhere) reloads the loaded rows, and their photos with them.
    status, _, _ = long_server.request("PATCH", "/trips/3", {"nights": 9}, headers={"Content-Type": "application/merge-patch+json"})
    assert status == 200
    expect(row(page, 3).locator(".sentence")).to_contain_text("9 nights")
    assert strip.evaluate_all("photos => photos.map(p => p.dataset.id)") == ["2", "250"]
