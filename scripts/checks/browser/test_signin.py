"""Signing in from a browser (#29, item 7): with --private a page is the sign-in form until a
token signs the browser in; its session cookie then reads and changes like the token, and
"Sign out" ends the session on the server. The sample trips are ids 1 to 6; Seattle (1) and
Kyoto (5) are favorites."""

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from conftest import PHONE, TOKEN, open_page

BEARER = {"Authorization": f"Bearer {TOKEN}"}


def favorites(server):
    return [trip["id"] for trip in server.request("GET", "/favorites", headers=BEARER)[2]]


def assert_no_violations(page, where):
    results = Axe().run(page)
    assert results.violations_count == 0, f"{where}: {results.generate_report()}"


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


def test_a_change_that_needs_a_token_opens_the_form_once_and_goes_on(token_server, page):
    page.goto(token_server.url + "/trips")
    expect(page.locator("#sign-in")).to_be_hidden()
    expect(page.locator("#sign-out")).to_be_hidden()
    # A change the page makes, as its buttons do (send() in trips.js): 401, so the form opens.
    page.evaluate("() => { window.favorite = send('PUT', '/favorites/2').then((r) => r.status); }")
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
    assert page.evaluate("() => window.favorite") == 200
    expect(page.locator("#sign-out")).to_be_visible()
    # Signed in: the next change asks nothing.
    assert page.evaluate("async () => (await send('PUT', '/favorites/3')).status") == 200
    expect(page.locator("#sign-in")).to_be_hidden()
    assert favorites(token_server) == [1, 2, 3, 5]
    # A new page of the same browser is still signed in, and says so.
    page.reload()
    expect(page.locator("#sign-out")).to_be_visible()
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
