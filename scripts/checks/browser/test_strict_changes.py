"""The page against a server that takes no blind change (--require-if-match): every change the
page makes says which version it was made against, so none meets a 428."""

import pytest
from playwright.sync_api import expect

from conftest import Server
from test_page import choose, drag, drop_before, row


@pytest.fixture
def strict_server():
    running = Server("--require-if-match")
    yield running
    running.stop()


def test_every_change_the_page_makes_passes_require_if_match(strict_server, page):
    server = strict_server
    page.goto(server.url + "/trips")
    form = page.locator("#add-form")
    form.get_by_label("City").fill("Oslo")
    form.get_by_label("Country").fill("Norway")
    form.get_by_label("Nights").fill("2")
    form.get_by_label("Start").fill("2027-08-14")
    form.get_by_label("Price").fill("640")
    form.get_by_role("button", name="Add trip").click()
    expect(page.locator("#status")).to_have_text("Added Oslo.")

    page.locator("#sentence-form input").fill("Lisbon, Portugal: 4 nights from May 1, 2027")
    page.locator("#sentence-form button").click()
    expect(page.locator("#status")).to_have_text("Added Lisbon.")

    drag(page, row(page, 2), page.locator("#favorites-chip"))
    expect(page.locator("#status")).to_have_text("Added Vancouver to Favorites.")

    drop_before(page, 4, 2)
    expect(page.locator("#status")).to_have_text("Moved New York before Vancouver.")

    choose(page, 7, "edit")
    page.locator("#edit-form").get_by_label("Nights").fill("5")
    page.locator("#edit-form").get_by_role("button", name="Save").click()
    expect(page.locator("#status")).to_have_text("Saved Oslo.")

    choose(page, 7, "favorite")
    expect(page.locator("#status")).to_have_text("Oslo is a favorite.")

    choose(page, 7, "delete")
    page.locator('[data-action="confirm-delete"]').click()
    expect(page.locator("#status")).to_have_text("Deleted Oslo.")
    assert server.ids() == [1, 4, 2, 3, 5, 6, 8]
    assert server.ids("/favorites") == [1, 2, 5]
