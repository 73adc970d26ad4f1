"""Photos on the page, in a real browser: files dropped from the desktop onto a trip and between
two trips, the photo strip and its viewer, a trip dragged out with its photo, and axe-core's
accessibility rules with photos shown. Each test starts its own server with the six sample
trips (ids 1 to 6: Seattle, Vancouver, Atacama, New York, Kyoto, Zürich).

A drop from the desktop cannot be made with the mouse here (the files would have to come from
another application), so the tests dispatch the drop events a browser would, carrying a
DataTransfer that holds a File, as the page receives them."""

import base64
import json
import random
import struct
import zlib

from playwright.sync_api import expect

from conftest import Server, assert_no_violations, fill_form, open_page
from test_page import drag, row

# Drops `name` (bytes in base64, of `type`) on trip `id`: "onto" its middle, or "before" it (its
# top edge, between it and the trip above).
DROP_FILE = """([id, where, name, type, base64]) => {
    const target = document.querySelector(`#trips > li[data-id="${id}"]`);
    const box = target.getBoundingClientRect();
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const dataTransfer = new DataTransfer();
    dataTransfer.items.add(new File([bytes], name, { type }));
    const y = where === 'onto' ? box.top + box.height / 2 : box.top + 4;
    const init = { bubbles: true, cancelable: true, dataTransfer, clientX: box.left + 40, clientY: y };
    target.dispatchEvent(new DragEvent('dragenter', init));
    target.dispatchEvent(new DragEvent('dragover', init));
    target.dispatchEvent(new DragEvent('drop', init));
}"""


def png(width, height, seed=0, noisy=False):
    """A real PNG: one colour from `seed`, or noise that does not compress (for a large file)."""
    generator = random.Random(seed)
    colour = bytes(generator.randrange(256) for _ in range(3))
    rows = b"".join(b"\0" + (generator.randbytes(3 * width) if noisy else colour * width) for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 0 if noisy else 9)) + chunk(b"IEND", b"")


def drop_file(page, trip_id, where, data, name="photo.png", media_type="image/png"):
    page.evaluate(DROP_FILE, [trip_id, where, name, media_type, base64.b64encode(data).decode()])


def give_photo(server, trip_id, data):
    status, _, trip = server.request("PUT", f"/trips/{trip_id}/photo", data, {"Content-Type": "image/png"})
    assert status == 200, trip
    return trip["photo"]


def photo_requests(page):
    """The photo PUTs the page sends, as [(method, url, Content-Type)]."""
    sent = []
    page.on("request", lambda r: sent.append((r.method, r.url, r.headers.get("content-type"))) if r.url.endswith("/photo") else None)
    return sent


def test_a_photo_dropped_on_a_trip_becomes_its_photo(server, page):
    page.goto(server.url + "/trips")
    sent = photo_requests(page)
    drop_file(page, 3, "onto", png(40, 30, seed=3))
    expect(page.locator("#status")).to_have_text("Atacama has a new photo.")
    photo = server.request("GET", "/trips/3")[2]["photo"]
    assert (photo["type"], photo["width"], photo["height"]) == ("image/png", 40, 30)
    assert sent == [("PUT", server.url + "/trips/3/photo", "image/png")]
    image = row(page, 3).locator("img.thumb")
    expect(image).to_have_attribute("src", photo["url"])
    expect(image).to_have_attribute("alt", "Atacama")
    expect(image).to_have_attribute("width", "40")
    expect(image).to_have_attribute("height", "30")
    expect(image).to_have_attribute("loading", "lazy")
    assert image.evaluate("(image) => image.complete && image.naturalWidth") == 40  # the server served it
    # The strip shows it too, in the list's order.
    strip = page.locator(".strip-photo")
    expect(strip.filter(has=page.locator(f'img[src="{photo["url"]}"]'))).to_have_attribute("data-id", "3")
    with_photos = [t["id"] for t in server.request("GET", "/trips")[2] if t["photo"]]
    assert [int(i) for i in strip.evaluate_all("(all) => all.map((b) => b.dataset.id)")] == with_photos


def test_a_large_photo_shows_its_progress_while_it_is_sent(server, page):
    page.goto(server.url + "/trips")
    # Records whether the progress bar was ever shown: the upload may end before a check could look.
    page.evaluate("""() => new MutationObserver(() => {
        if (!document.getElementById('upload').hidden) window.progressShown = true;
    }).observe(document.getElementById('upload'), { attributes: true })""")
    large = png(400, 300, seed=4, noisy=True)
    assert len(large) > 256 * 1024
    drop_file(page, 4, "onto", large)
    expect(page.locator("#status")).to_have_text("New York has a new photo.")
    assert page.evaluate("window.progressShown") is True
    expect(page.locator("#upload")).to_be_hidden()
    assert server.request("GET", "/trips/4")[2]["photo"]["bytes"] == len(large)


def test_a_file_that_is_not_a_photo_is_refused_without_a_request(server, page):
    page.goto(server.url + "/trips")
    sent = photo_requests(page)
    before = server.request("GET", "/trips/2")[2]["photo"]
    drop_file(page, 2, "onto", b"Lisbon, Portugal: 4 nights", name="notes.txt", media_type="text/plain")
    expect(page.locator("#status")).to_have_text("notes.txt is not a JPEG, PNG or WebP photo, so it was not sent.")
    drop_file(page, 2, "onto", png(8, 8), name="icon.gif", media_type="image/gif")
    expect(page.locator("#status")).to_have_text("icon.gif is not a JPEG, PNG or WebP photo, so it was not sent.")
    assert sent == []
    assert server.request("GET", "/trips/2")[2]["photo"] == before


def test_a_refused_photo_shows_the_servers_reason(server, page):
    page.goto(server.url + "/trips")
    not_a_png = b"GIF89a these bytes are no PNG at all"
    drop_file(page, 2, "onto", not_a_png)
    status, _, problem = server.request("PUT", "/trips/2/photo", not_a_png, {"Content-Type": "image/png"})
    assert status in (415, 422), problem
    expect(page.locator("#status")).to_have_text(problem["detail"])
    # The browser logs the refused request; the page itself logged nothing.
    page.console.errors = [e for e in page.console.errors if str(status) not in e]


def test_a_photo_dropped_between_two_trips_adds_a_trip_there_with_it(server, page):
    page.goto(server.url + "/trips")
    drop_file(page, 3, "before", png(64, 48, seed=7), name="oslo.png")
    expect(page.locator("#status")).to_have_text("Photo attached. Fill in the trip to add it before Atacama.")
    form = page.locator("#add-form")
    expect(form.get_by_label("City")).to_be_focused()
    preview = page.locator("#add-photo img")
    expect(preview).to_be_visible()
    assert preview.get_attribute("src").startswith("blob:")
    assert preview.evaluate("(image) => image.decode().then(() => image.naturalWidth)") == 64  # shown before it is sent
    expect(page.locator("#add-photo")).to_contain_text("oslo.png: the new trip goes before Atacama.")
    fill_form(form, {"City": "Oslo", "Country": "Norway", "Start": "2027-08-14"})
    form.get_by_role("button", name="Add trip").click()
    expect(page.locator("#status")).to_have_text("Added Oslo with its photo.")
    assert server.ids() == [1, 2, 7, 3, 4, 5, 6]
    photo = server.request("GET", "/trips/7")[2]["photo"]
    assert (photo["type"], photo["width"], photo["height"]) == ("image/png", 64, 48)
    expect(row(page, 7).locator("img.thumb")).to_have_attribute("src", photo["url"])
    expect(page.locator("#add-photo")).to_be_hidden()
    # The next trip added has no photo and goes to the end.
    fill_form(form, {"City": "Bergen", "Country": "Norway", "Start": "2027-08-20"})
    form.get_by_role("button", name="Add trip").click()
    expect(page.locator("#status")).to_have_text("Added Bergen.")
    assert server.ids()[-1] == 8 and server.request("GET", "/trips/8")[2]["photo"] is None


def test_the_strip_enlarges_a_photo_and_closes_with_the_keyboard(server, page):
    give_photo(server, 2, png(120, 80, seed=2))
    page.goto(server.url + "/trips")
    button = page.locator('.strip-photo[data-id="2"]')
    expect(button).to_have_accessible_name("Vancouver")
    viewer = page.locator("#photo-viewer")
    for key in ["Enter", "Space"]:
        button.focus()
        page.keyboard.press(key)
        expect(viewer).to_be_visible()
        expect(viewer.locator("figcaption")).to_have_text("Vancouver")
        expect(viewer.locator("img")).to_have_attribute("src", button.locator("img").get_attribute("src"))
        expect(viewer.locator("img")).to_have_attribute("width", "120")
        page.keyboard.press("Escape")
        expect(viewer).to_be_hidden()
        expect(button).to_be_focused()
    button.click()
    viewer.get_by_role("button", name="Close").click()
    expect(viewer).to_be_hidden()
    expect(button).to_be_focused()


def test_a_strip_photo_dragged_onto_favorites_makes_its_trip_a_favorite(server, page):
    give_photo(server, 2, png(120, 80, seed=2))
    page.goto(server.url + "/trips")
    drag(page, page.locator('.strip-photo[data-id="2"]'), page.locator("#favorites-chip"))
    expect(page.locator("#status")).to_have_text("Added Vancouver to Favorites.")
    assert 2 in server.ids("/favorites")


def test_a_trip_dragged_out_offers_its_photo_after_its_representations(server, page):
    photo = give_photo(server, 4, png(50, 40, seed=9))
    page.goto(server.url + "/trips")
    page.evaluate("""() => window.addEventListener('dragstart', (e) => {
        window.offered = [...e.dataTransfer.types].map((type) => [type, e.dataTransfer.getData(type)]);
    })""")
    drag(page, row(page, 4), row(page, 2), {"x": 40, "y": 6})
    expect(page.locator("#status")).to_have_text("Moved New York before Vancouver.")
    offered = dict(page.evaluate("window.offered"))
    assert list(offered) == ["application/json", "text/plain", "text/uri-list", "text/html", "downloadurl"]
    assert json.loads(offered["application/json"]) == server.request("GET", "/trips/4")[2]  # its photo, its notes
    absolute = server.url + photo["url"]
    assert offered["text/html"] == f'<img src="{absolute}" alt="New York" width="50" height="40">'
    assert offered["downloadurl"] == f"image/png:New York.png:{absolute}"


def test_the_open_graph_tags_name_the_trips_photo(server, page):
    photo = give_photo(server, 2, png(120, 80, seed=2))
    page.goto(server.url + "/trips/2")
    head = page.locator("head")
    for name, value in [("og:image", server.url + photo["url"]), ("og:image:type", "image/png"), ("og:image:width", "120"),
                        ("og:image:height", "80"), ("og:image:alt", "Vancouver")]:
        expect(head.locator(f'meta[property="{name}"]')).to_have_attribute("content", value)
    card = page.locator("article.trip img.thumb")
    expect(card).to_have_attribute("src", photo["url"])
    expect(card).to_have_attribute("alt", "Vancouver")
    server.request("DELETE", "/trips/2/photo")
    page.reload()
    expect(head.locator('meta[property^="og:image"]')).to_have_count(0)
    expect(page.locator("article.trip span.thumb")).to_have_text("V")


def test_axe_finds_no_accessibility_violations_with_photos_shown(server, page):
    for trip_id in [1, 2, 3]:
        give_photo(server, trip_id, png(120, 80, seed=trip_id))
    page.goto(server.url + "/trips")
    expect(page.locator(".strip-photo")).not_to_have_count(0)
    assert_no_violations(page, "the list")
    page.locator('.strip-photo[data-id="2"]').click()
    expect(page.locator("#photo-viewer")).to_be_visible()
    assert_no_violations(page, "the list with the viewer open")
    page.keyboard.press("Escape")
    drop_file(page, 3, "before", png(64, 48, seed=7))
    expect(page.locator("#add-photo")).to_be_visible()
    assert_no_violations(page, "the add form with a photo attached")
    page.goto(server.url + "/trips/2")
    assert_no_violations(page, "a trip page")


def test_a_photo_over_the_servers_limit_is_refused_with_its_reason(browser):
    server = Server("--max-photo-bytes", "100000")
    context, page, console = open_page(browser)
    try:
        page.goto(server.url + "/trips")
        before = server.request("GET", "/trips/2")[2]["photo"]
        # Refused from its Content-Length, before the body is read: the browser still gets the 413.
        drop_file(page, 2, "onto", png(300, 200, seed=5, noisy=True))
        expect(page.locator("#status")).to_have_text("The request content is larger than this resource takes.")
        expect(page.locator("#upload")).to_be_hidden()
        assert server.request("GET", "/trips/2")[2]["photo"] == before
        assert [e for e in console.errors if "413" not in e] == []
    finally:
        context.close()
        server.stop()
