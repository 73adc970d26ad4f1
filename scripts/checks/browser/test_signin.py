"""Signing in from a browser (#29, item 7): with --private a page is the sign-in form until a
token signs the browser in; its session cookie then reads and changes like the token, and
"Sign out" ends the session on the server. The sample trips are ids 1 to 6; Seattle (1) and
Kyoto (5) are favorites."""

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from conftest import PHONE, TOKEN, open_page
from test_offline_undo import UUID, favorite, forgive_connection_errors, record_changes, waiting
from test_page import choose

BEARER = {"Authorization": f"Bearer {TOKEN}"}


def favorites(server):
    return [trip["id"] for trip in server.request("GET", "/favorites", headers=BEARER)[2]]


def assert_no_violations(page, where):
    results = Axe().run(page)
    assert results.violations_count == 0, f"{where}: {results.generate_report()}"


def changes_but_signing_in(sent):
    """The changes record_changes saw, without the form's own POST /session."""
    return [change for change in sent if change[1] != "/session"]


def without_401s(page):
    """The 401s the page answered by signing in are the browser's to log, not page errors."""
    page.console.errors = [e for e in page.console.errors if "401" not in e]


def test_a_private_list_is_read_after_signing_in_through_the_form_and_signing_out_ends_it(private_server, page):
    answer = page.goto(private_server.url + "/trips?sort=price")
    assert answer.status == 401
    expect(page.locator("h1")).to_have_text("Sign in")
    expect(page.locator("#trips")).to_have_count(0)
    assert_no_violations(page, "the sign-in form")

    page.locator('#sign-in-form input[name="token"]').fill(TOKEN + "x")
    page.locator("#sign-in-form button").click()
    expect(page.locator(".problem")).to_have_text("That token is not valid.")
    assert_no_violations(page, "the sign-in form after a wrong token")

    page.locator('#sign-in-form input[name="token"]').fill(TOKEN)
    page.locator("#sign-in-form button").click()
    # Back to the page asked for, now with the list.
    expect(page).to_have_url(private_server.url + "/trips?sort=price")
    expect(page.locator("#trips > li")).to_have_count(6)
    expect(page.locator("#sign-out")).to_be_visible()
    cookie = next(c for c in page.context.cookies() if c["name"] == "trips-session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and not cookie["secure"] and cookie["path"] == "/"
    assert TOKEN not in page.content()

    # A change from the page itself is made with the cookie...
    assert page.evaluate("async () => (await fetch('/favorites/3', { method: 'PUT' })).status") == 200
    # ...and with the same cookie from anywhere else it is refused: another site's page, or a
    # request that does not say it comes from the page.
    for headers in [{"Origin": "https://attacker.example", "Sec-Fetch-Site": "cross-site"}, {}]:
        refused = page.context.request.put(private_server.url + "/favorites/4", headers=headers)
        assert refused.status == 403, headers
        assert refused.headers["content-type"] == "application/problem+json"
    assert favorites(private_server) == [1, 3, 5]

    page.locator("#sign-out button").click()
    expect(page.locator("h1")).to_have_text("Sign in")
    assert all(c["name"] != "trips-session" for c in page.context.cookies())
    # The session ended on the server too: the cookie, kept elsewhere, reads nothing.
    status, _, _ = private_server.request("GET", "/trips", headers={"Cookie": f"trips-session={cookie['value']}"})
    assert status == 401
    without_401s(page)


def test_a_change_that_needs_a_token_opens_the_form_once_and_goes_on_with_its_key(token_server, page):
    sent = record_changes(page)
    page.goto(token_server.url + "/trips")
    expect(page.locator("#sign-in")).to_be_hidden()
    expect(page.locator("#sign-out")).to_be_hidden()
    choose(page, 2, "favorite")  # 401: the form opens
    expect(page.locator("#sign-in")).to_be_visible()
    expect(page.locator('#sign-in input[name="token"]')).to_be_focused()
    expect(page.locator("#status")).to_have_text("Sign in with a token to go on.")
    assert_no_violations(page, "the sign-in panel")

    page.locator('#sign-in input[name="token"]').fill("not-the-token-at-all")
    page.locator("#sign-in button").click()
    expect(page.locator("#status")).to_have_text("That token is not valid.")
    expect(page.locator("#sign-in")).to_be_visible()

    page.locator('#sign-in input[name="token"]').fill(TOKEN)
    page.locator("#sign-in button").click()
    expect(page.locator("#sign-in")).to_be_hidden()
    expect(page.locator("#status")).to_have_text("Vancouver is a favorite.")
    expect(page.locator("#sign-out")).to_be_visible()
    # The change that met the 401 went again as it was, with its Idempotency-Key.
    [first, again] = changes_but_signing_in(sent)
    assert first == again and UUID.fullmatch(first[2]), sent
    # Signed in: the next change asks nothing.
    choose(page, 3, "favorite")
    expect(page.locator("#status")).to_have_text("Atacama is a favorite.")
    expect(page.locator("#sign-in")).to_be_hidden()
    assert favorites(token_server) == [1, 2, 3, 5]
    # A new page of the same browser is still signed in, and says so.
    page.reload()
    expect(page.locator("#sign-out")).to_be_visible()
    without_401s(page)


def test_a_waiting_change_that_meets_a_401_waits_for_sign_in_and_goes_with_its_key(token_server, page):
    sent = record_changes(page)
    page.goto(token_server.url + "/trips")
    page.context.set_offline(True)
    favorite(page, 2)
    expect(page.locator("#status")).to_contain_text("1 change waiting to be sent.")
    [kept] = waiting(page)
    page.context.set_offline(False)
    # Sent again, it needs a token: the form opens, and the change still waits.
    expect(page.locator("#sign-in")).to_be_visible()
    expect(page.locator("#status")).to_have_text("Sign in with a token to go on. 1 change waiting to be sent.")
    assert waiting(page) == [kept]
    assert favorites(token_server) == [1, 5]

    page.locator('#sign-in input[name="token"]').fill(TOKEN)
    page.locator("#sign-in button").click()
    expect(page.locator("#status")).to_have_text("1 waiting change was sent.")
    assert favorites(token_server) == [1, 2, 5]
    assert waiting(page) == []
    # The 401 and the change made after signing in are one request, with the key it was made with.
    assert changes_but_signing_in(sent) == [("POST", "/favorites", kept["key"])] * 2
    without_401s(page)
    forgive_connection_errors(page)


def test_the_page_to_sign_in_at_keeps_the_waiting_changes_for_the_page_after_it(private_server, page):
    page.goto(private_server.url + "/trips")
    page.locator('#sign-in-form input[name="token"]').fill(TOKEN)
    page.locator("#sign-in-form button").click()
    expect(page.locator("#trips > li")).to_have_count(6)
    page.context.set_offline(True)
    favorite(page, 2)
    expect(page.locator("#status")).to_contain_text("1 change waiting to be sent.")
    [kept] = waiting(page)
    forgive_connection_errors(page)
    page.close()  # the page goes, the change stays in the browser; and the session ends meanwhile
    page.context.clear_cookies()
    page.context.set_offline(False)

    later = page.context.new_page()
    sent = record_changes(later)
    # The next page is the form to sign in at, whose script tries the waiting change: 401...
    with later.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/favorites")) as tried:
        later.goto(private_server.url + "/trips")
    assert tried.value.status == 401
    expect(later.locator("h1")).to_have_text("Sign in")
    expect(later.locator("#status")).to_have_text("1 change waiting to be sent.")
    # ...and keeps it (no panel to sign in with here: the form is the page).
    assert waiting(later) == [kept]
    assert favorites(private_server) == [1, 5]

    later.locator('#sign-in-form input[name="token"]').fill(TOKEN)
    later.locator("#sign-in-form button").click()
    expect(later.locator("#status")).to_have_text("1 waiting change was sent.")
    assert favorites(private_server) == [1, 2, 5]
    assert waiting(later) == []
    assert changes_but_signing_in(sent) == [("POST", "/favorites", kept["key"])] * 2
    without_401s(page)


def test_the_sign_in_form_speaks_the_pages_language_at_phone_width(browser, private_server):
    context, page, console = open_page(browser, PHONE)
    try:
        page.set_extra_http_headers({"Accept-Language": "pl"})
        page.goto(private_server.url + "/trips/2")
        expect(page.locator("html")).to_have_attribute("lang", "pl")
        expect(page.locator("h1")).to_have_text("Logowanie")
        expect(page.locator("#sign-in-form button")).to_have_text("Zaloguj")
        assert_no_violations(page, "the sign-in form in Polish at phone width")
        page.locator('#sign-in-form input[name="token"]').fill(TOKEN)
        page.locator("#sign-in-form button").click()
        expect(page).to_have_url(private_server.url + "/trips/2")
        expect(page.locator("#sign-out button")).to_have_text("Wyloguj")
        page.goto(private_server.url + "/session")
        expect(page.locator("h1")).to_have_text("Zalogowano.")
        assert_no_violations(page, "the signed-in page in Polish")
        assert [e for e in console.errors if "401" not in e] == []
    finally:
        context.close()
