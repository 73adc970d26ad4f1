"""The trip page as the lesson's TripDetail, and the dark theme, in a real browser: the card at
phone and desktop width, Edit inline, Favorite, Delete behind its confirmation, Next, and
axe-core's 0 violations in light and dark. Each test starts its own server with the six
sample trips (Seattle Jan 12, Vancouver Mar 5, Atacama Apr 20, New York Jun 14, Kyoto Oct 2,
Zürich Dec 11, all 2027; Seattle and Kyoto are favorites)."""

import os

import pytest
from playwright.sync_api import expect

from conftest import Console, DESKTOP, PHONE, assert_no_violations, fill_form, screenshots_folder

WIDTHS = {390: PHONE, 1280: DESKTOP}


def open_themed(browser, viewport=DESKTOP, scheme="light", **options):
    context = browser.new_context(viewport=viewport, color_scheme=scheme, **options)
    page = context.new_page()
    page.set_default_timeout(5000)
    return context, page, Console(page)


def box(page, selector):
    return page.locator(selector).first.bounding_box()


@pytest.mark.parametrize("width", [390, 1280])
def test_the_trip_page_holds_its_layout_at_phone_and_desktop_width(browser, server, width):
    context, page, console = open_themed(browser, WIDTHS[width])
    page.goto(server.url + "/trips/2")
    expect(page.locator("h1")).to_have_text("Vancouver")
    expect(page.locator(".facts")).to_contain_text("1,299.99")
    expect(page.locator(".facts")).to_contain_text("March 5, 2027")
    photo, words = box(page, "article.trip-card .thumb"), box(page, "article.trip-card .card-body")
    if width == 1280:
        # Two columns: the photo beside the city, the sentence and the fields, tops aligned.
        assert photo["x"] + photo["width"] <= words["x"], (photo, words)
        assert abs(photo["y"] - words["y"]) < 2, (photo, words)
    else:
        assert words["y"] >= photo["y"] + photo["height"], (photo, words)
        assert photo["width"] > 300
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{width}: {overflow}px wider than the screen"
    for name in ["Edit", "Favorite", "Share", "Delete"]:
        expect(page.get_by_role("button", name=name, exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Next: Atacama")).to_be_visible()
    page.screenshot(path=os.path.join(screenshots_folder(), f"trip-page-{width}.png"), full_page=True)
    context.close()
    assert console.errors == [], console.errors


def test_edit_inline_saves_with_if_match_and_refreshes_the_page(server, page):
    page.goto(server.url + "/trips/2")
    expect(page.locator("#editor")).to_be_hidden()
    page.get_by_role("button", name="Edit", exact=True).click()
    form = page.locator("#edit-form")
    expect(form).to_be_visible()
    expect(form.locator('[name="city"]')).to_be_focused()
    expect(form.locator('[name="price"]')).to_have_value("1299.99")
    expect(form.locator('[name="start"]')).to_have_value("2027-03-05")
    fill_form(form, {"Nights": "9", "Price": "1499.5", "Notes": "Granville Island"})
    form.get_by_role("button", name="Save").click()
    expect(page.locator("#status")).to_have_text("Saved Vancouver.")
    expect(page.locator("#editor")).to_be_hidden()
    expect(page.locator(".sentence")).to_have_text("Vancouver, Canada: 9 nights from March 5, 2027")
    expect(page.locator(".facts")).to_contain_text("1,499.5")
    expect(page.locator(".notes")).to_have_text("Granville Island")
    expect(page.get_by_role("button", name="Edit", exact=True)).to_be_focused()
    trip = server.request("GET", "/trips/2")[2]
    assert (trip["nights"], trip["notes"]) == (9, "Granville Island")
    # A change made elsewhere meanwhile: the save is refused (If-Match), the page shows it.
    page.get_by_role("button", name="Edit", exact=True).click()
    server.request("PATCH", "/trips/2", {"nights": 2}, headers={"Content-Type": "application/merge-patch+json"})
    expect(page.locator(".sentence")).to_have_text("Vancouver, Canada: 2 nights from March 5, 2027", timeout=1000)
    form.locator('[name="nights"]').fill("5")
    form.get_by_role("button", name="Save").click()
    expect(page.locator("#status")).to_contain_text("changed")
    assert server.request("GET", "/trips/2")[2]["nights"] == 2
    # The refused save is this test's doing; anything else is still an error.
    page.console.errors = [e for e in page.console.errors if "412" not in e]


def test_favorite_toggles(server, page):
    page.goto(server.url + "/trips/2")
    favorite = page.get_by_role("button", name="Favorite", exact=True)
    expect(favorite).to_have_attribute("aria-pressed", "false")
    favorite.click()
    expect(page.get_by_role("button", name="Favorite", exact=True)).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".facts")).to_contain_text("Yes")
    assert server.request("GET", "/trips/2")[2]["isFavorite"] is True
    expect(page.get_by_role("button", name="Favorite", exact=True)).to_be_focused()
    page.get_by_role("button", name="Favorite", exact=True).click()
    expect(page.get_by_role("button", name="Favorite", exact=True)).to_have_attribute("aria-pressed", "false")
    assert server.request("GET", "/trips/2")[2]["isFavorite"] is False


def test_delete_asks_first_then_goes_back_to_the_list(server, page):
    page.goto(server.url + "/trips/2")
    confirm = page.get_by_role("alertdialog")
    expect(confirm).to_be_hidden()
    page.get_by_role("button", name="Delete", exact=True).click()
    expect(confirm).to_be_visible()
    expect(page.locator("#confirm-title")).to_have_text("Delete Vancouver?")
    expect(page.locator("#confirm-text")).to_have_text("This cannot be undone.")
    confirm.get_by_role("button", name="Cancel").click()
    expect(confirm).to_be_hidden()
    expect(page.locator("#status")).to_have_text("Nothing was deleted.")
    assert 2 in server.ids()
    page.get_by_role("button", name="Delete", exact=True).click()
    expect(confirm.get_by_role("button", name="Delete")).to_be_focused()
    confirm.get_by_role("button", name="Delete").click()
    page.wait_for_url(server.url + "/trips")
    expect(page.locator("#trips > li")).to_have_count(5)
    assert 2 not in server.ids()


def test_the_confirmation_speaks_the_pages_language(browser, server):
    context, page, console = open_themed(browser, locale="pl-PL")
    page.goto(server.url + "/trips/2")
    page.get_by_role("button", name="Usuń", exact=True).click()
    expect(page.locator("#confirm-title")).to_have_text("Usunąć: Vancouver?")
    expect(page.locator("#confirm-text")).to_have_text("Tej operacji nie można cofnąć.")
    expect(page.get_by_role("link", name="Następna: Atacama")).to_be_visible()
    context.close()
    assert console.errors == [], console.errors


def test_next_goes_to_the_trip_that_starts_soonest_after(server, page):
    page.goto(server.url + "/trips/2")
    page.get_by_role("link", name="Next: Atacama").click()
    page.wait_for_url(server.url + "/trips/3")
    expect(page.locator("h1")).to_have_text("Atacama")
    # New York moves to Atacama's day: the same instant is not after, so Kyoto is next.
    server.request("PATCH", "/trips/4", {"start": "2027-04-20"}, headers={"Content-Type": "application/merge-patch+json"})
    expect(page.get_by_role("link", name="Next: Kyoto")).to_be_visible(timeout=1000)
    page.get_by_role("link", name="Next: Kyoto").click()
    page.wait_for_url(server.url + "/trips/5")
    page.get_by_role("link", name="Next: Zürich").click()
    page.wait_for_url(server.url + "/trips/6")
    expect(page.locator(".next-trip")).to_have_count(0)
    page.get_by_role("link", name="All trips").click()
    page.wait_for_url(server.url + "/trips")


def test_the_links_work_without_the_script(browser, server):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(server.url + "/trips/1")
    expect(page.locator(".detail-actions")).to_be_hidden()
    expect(page.locator("#editor")).to_be_hidden()
    page.get_by_role("link", name="Next: Vancouver").click()
    expect(page.locator("h1")).to_have_text("Vancouver")
    page.get_by_role("link", name="All trips").click()
    expect(page.locator("#trips > li")).to_have_count(6)
    context.close()


def test_the_dark_theme_follows_the_browser(browser, server):
    shades = {}
    for scheme in ["light", "dark"]:
        context, page, console = open_themed(browser, DESKTOP, scheme)
        page.goto(server.url + "/trips")
        shades[scheme] = page.evaluate("getComputedStyle(document.documentElement).backgroundColor")
        if scheme == "dark":
            page.screenshot(path=os.path.join(screenshots_folder(), "list-dark-1280.png"), full_page=True)
            assert_no_violations(page, "the list, dark")
        context.close()
        assert console.errors == [], console.errors
    assert shades == {"light": "rgb(244, 245, 247)", "dark": "rgb(19, 20, 22)"}


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", [390, 1280])
def test_axe_finds_no_violations_on_the_trip_page(browser, server, scheme, width):
    server.request("PATCH", "/trips/2", {"notes": "Stanley Park by bike.\nGranville Island."},
                   headers={"Content-Type": "application/merge-patch+json"})
    server.request("DELETE", "/trips/2/photo")  # its letter on a colour instead
    context, page, console = open_themed(browser, WIDTHS[width], scheme)
    for trip_id in [2, 1]:  # a trip with its letter, then a favorite with its photo
        page.goto(server.url + f"/trips/{trip_id}")
        expect(page.locator("html.js")).to_have_count(1)
        assert_no_violations(page, f"trip {trip_id}, {scheme}, {width} px")
    if scheme == "dark" and width == 390:
        page.screenshot(path=os.path.join(screenshots_folder(), "trip-page-dark-390.png"), full_page=True)
    page.get_by_role("button", name="Edit", exact=True).click()
    expect(page.locator("#editor")).to_be_visible()
    assert_no_violations(page, f"the editor, {scheme}, {width} px")
    page.get_by_role("button", name="Delete", exact=True).click()
    expect(page.get_by_role("alertdialog")).to_be_visible()
    assert_no_violations(page, f"the confirmation, {scheme}, {width} px")
    page.get_by_role("button", name="Favorite", exact=True).focus()
    assert_no_violations(page, f"a focused action, {scheme}, {width} px")
    context.close()
    assert console.errors == [], console.errors
