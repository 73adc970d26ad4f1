"""Clean rows and the summary, in a real browser (#29 items 4 and 5): a row's actions live in
one menu button (the WAI-ARIA menu button pattern, by keyboard alone), selection and moving by
keyboard still work, the summary above the list follows the view, and axe-core finds nothing at
phone and desktop width with the menu open. Each test starts its own server with the six sample
trips (ids 1 to 6: Seattle, Vancouver, Atacama, New York, Kyoto, Zürich; Seattle and Kyoto are
favorites)."""

import re

from playwright.sync_api import expect

from conftest import DESKTOP, PHONE, assert_no_violations, open_page
from test_page import choose, row, summary


def menu_button(page, trip_id):
    return row(page, trip_id).locator('[data-action="menu"]')


def item(page, action):
    return page.locator(f'#row-menu [data-action="{action}"]')


def test_a_row_shows_its_trip_and_one_menu_button(server, page):
    page.goto(server.url + "/trips")
    seattle = row(page, 1)
    expect(seattle.locator("button")).to_have_count(1)
    expect(seattle.locator(".city")).to_have_text("Seattle")
    expect(seattle.locator(".star")).to_be_visible()
    expect(seattle.locator(".price")).to_have_text("Price 1,499.5")
    expect(menu_button(page, 1)).to_have_attribute("aria-haspopup", "menu")
    expect(menu_button(page, 1)).to_have_attribute("aria-expanded", "false")
    expect(page.locator("#row-menu")).to_be_hidden()


def test_the_menu_works_by_keyboard_alone(server, page):
    page.goto(server.url + "/trips")
    row(page, 2).focus()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    button = menu_button(page, 2)
    expect(button).to_be_focused()

    # Enter opens it on its first item; the arrows go round it; Escape closes it onto its button.
    page.keyboard.press("Enter")
    expect(page.locator("#row-menu")).to_be_visible()
    expect(page.locator("#row-menu")).to_have_attribute("aria-label", "Actions for Vancouver")
    expect(button).to_have_attribute("aria-expanded", "true")
    expect(item(page, "select")).to_be_focused()
    for action in ["favorite", "up", "down", "edit", "delete"]:
        page.keyboard.press("ArrowDown")
        expect(item(page, action)).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(item(page, "select")).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(item(page, "delete")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#row-menu")).to_be_hidden()
    expect(button).to_be_focused()
    expect(button).to_have_attribute("aria-expanded", "false")
    assert server.ids() == [1, 2, 3, 4, 5, 6]

    # ArrowUp opens it on its last item, Space on its first; Tab closes it and moves on.
    page.keyboard.press("ArrowUp")
    expect(item(page, "delete")).to_be_focused()
    page.keyboard.press("Escape")
    page.keyboard.press("Space")
    expect(item(page, "select")).to_be_focused()
    page.keyboard.press("Tab")
    expect(page.locator("#row-menu")).to_be_hidden()
    expect(row(page, 3)).to_be_focused()

    # Choosing Favorite: the menu closes, the trip becomes a favorite and shows its star, and
    # focus is back on the row's menu button (in the row the refresh brought).
    menu_button(page, 2).focus()
    page.keyboard.press("ArrowDown")
    expect(item(page, "favorite")).to_have_text("Favorite")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    expect(row(page, 2).locator(".star")).to_be_visible()
    expect(page.locator("#row-menu")).to_be_hidden()
    expect(menu_button(page, 2)).to_be_focused()
    assert server.ids("/favorites") == [1, 2, 5]
    page.keyboard.press("Enter")
    expect(item(page, "favorite")).to_have_text("Unfavorite")

    # Delete from the menu asks first.
    page.keyboard.press("End")
    expect(item(page, "delete")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator('[data-action="confirm-delete"]')).to_be_focused()
    page.keyboard.press("Enter")
    expect(row(page, 2)).to_have_count(0)
    assert server.ids() == [1, 3, 4, 5, 6]


def test_a_click_outside_closes_the_menu_and_a_change_elsewhere_keeps_it_open(server, page):
    page.goto(server.url + "/trips")
    menu_button(page, 3).click()
    expect(item(page, "select")).to_be_focused()
    page.locator("h1").click()
    expect(page.locator("#row-menu")).to_be_hidden()
    expect(menu_button(page, 3)).to_have_attribute("aria-expanded", "false")

    # A change made elsewhere refreshes the list; the open menu stays open on its trip's row,
    # named for what the trip now is.
    menu_button(page, 3).click()
    page.keyboard.press("ArrowDown")
    server.request("PUT", "/favorites/3")
    expect(row(page, 3).locator(".star")).to_be_visible(timeout=1000)
    expect(page.locator("#row-menu")).to_be_visible()
    expect(item(page, "favorite")).to_be_focused()
    expect(item(page, "favorite")).to_have_text("Unfavorite")
    page.keyboard.press("Enter")
    expect(row(page, 3).locator(".star")).to_have_count(0)
    assert server.ids("/favorites") == [1, 5]


def test_selection_and_alt_arrows_still_move_trips(server, page):
    page.goto(server.url + "/trips")
    choose(page, 3, "select")
    expect(page.locator("#status")).to_have_text("1 selected.")
    row(page, 5).click(modifiers=["Control"], position={"x": 24, "y": 24})  # on its photo
    expect(page.locator("#status")).to_have_text("2 selected.")
    expect(row(page, 3)).to_have_class(re.compile(r"\bselected\b"))
    menu_button(page, 3).click()
    expect(item(page, "select")).to_have_text("Deselect")
    page.keyboard.press("Escape")
    row(page, 3).focus()
    page.keyboard.press("Alt+ArrowUp")
    expect(page.locator("#status")).to_have_text("Moved Atacama and Kyoto before Vancouver.")
    assert server.ids() == [1, 3, 5, 2, 4, 6]
    expect(row(page, 3)).to_be_focused()
    page.keyboard.press("Space")  # Atacama leaves the selection: Kyoto moves alone
    row(page, 5).focus()
    page.keyboard.press("Alt+ArrowDown")
    expect(page.locator("#status")).to_have_text("Moved Kyoto before New York.")
    assert server.ids() == [1, 3, 2, 5, 4, 6]
    choose(page, 4, "up")
    expect(page.locator("#status")).to_have_text("Moved New York before Kyoto.")
    assert server.ids() == [1, 3, 2, 4, 5, 6]


def test_the_summary_follows_the_filter_chips_in_polish(browser, server):
    context = browser.new_context(viewport=DESKTOP, locale="pl-PL")
    page = context.new_page()
    try:
        page.goto(server.url + "/trips")
        expect(summary(page)).to_have_text(["6 podróży", "26 nocy", "2 ulubione"])
        page.locator(".chips a", has_text="United States").click()
        expect(summary(page)).to_have_text(["2 podróże", "9 nocy", "1 ulubiona"])
        page.locator("#favorites-chip").click()
        expect(summary(page)).to_have_text(["2 podróże", "11 nocy", "2 ulubione"])
        page.locator(".chips a", has_text="Canada").click()
        expect(summary(page)).to_have_text(["1 podróż", "3 noce", "0 ulubionych"])
        server.request("PUT", "/favorites/2")  # the summary follows a change made elsewhere
        expect(summary(page)).to_have_text(["1 podróż", "3 noce", "1 ulubiona"], timeout=1000)
        page.locator(".chips a").first.click()  # All
        expect(summary(page)).to_have_text(["6 podróży", "26 nocy", "3 ulubione"])
        page.locator("#search").fill("zurich")
        page.locator("#search").press("Enter")
        expect(summary(page)).to_have_text(["1 podróż", "1 noc", "0 ulubionych"])
        expect(row(page, 6).locator(".price")).to_have_text("Cena 349,95")
    finally:
        context.close()


def test_without_the_script_a_row_has_no_menu(browser, server):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(server.url + "/trips")
        expect(summary(page)).to_have_text(["6 trips", "26 nights", "2 favorites"])
        expect(menu_button(page, 1)).to_be_hidden()
        expect(page.locator("#row-menu")).to_be_hidden()
    finally:
        context.close()


def test_axe_finds_no_violations_with_the_menu_open_at_phone_and_desktop_width(browser, server):
    for viewport in [PHONE, DESKTOP]:
        context, page, console = open_page(browser, viewport)
        try:
            page.goto(server.url + "/trips")
            assert_no_violations(page, f"{viewport['width']} px")
            menu_button(page, 2).click()
            expect(page.locator("#row-menu")).to_be_visible()
            assert_no_violations(page, f"{viewport['width']} px, the menu open")
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 0, f"{viewport['width']} px: the open menu is {overflow}px wider than the screen"
            page.goto(server.url + "/trips?filter=favorites")
            menu_button(page, 5).click()
            assert_no_violations(page, f"{viewport['width']} px, Favorites with the menu open")
            assert console.errors == [], console.errors
        finally:
            context.close()


