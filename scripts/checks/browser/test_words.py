"""The page in the browser's language (issue #29, items 1 and 2): a browser set to Polish
(Playwright's `locale`, which sets Accept-Language) gets Polish headings, buttons, labels and
announcements, with Polish plurals and prices written with Polish separators over exactly the
digits stored; `lang` is on the document only; axe-core finds no violations in Polish or in
Japanese. Each test starts its own server with the six sample trips (ids 1 to 6: Seattle,
Vancouver, Atacama, New York, Kyoto, Zürich; Seattle costs 1499.5)."""

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from conftest import DESKTOP, PHONE, Console
from test_page import row

# Text dropped from another app onto trip `id`'s upper half: a new trip per line, before it.
DROP_TEXT = """([id, text]) => {
    const target = document.querySelector(`#trips > li[data-id="${id}"]`);
    const box = target.getBoundingClientRect();
    const dataTransfer = new DataTransfer();
    dataTransfer.setData('text/plain', text);
    const init = { bubbles: true, cancelable: true, dataTransfer, clientX: box.left + 20, clientY: box.top + 4 };
    target.dispatchEvent(new DragEvent('dragover', init));
    target.dispatchEvent(new DragEvent('drop', init));
}"""

# The elements other than <html> that name a language.
OTHER_LANGS = """() => [...document.querySelectorAll('[lang]')]
    .filter((e) => e !== document.documentElement)
    .map((e) => `${e.tagName.toLowerCase()} lang=${e.lang}`)"""


def open_in(browser, locale, viewport=DESKTOP):
    """A page in a browser whose language is `locale`; its console errors are collected."""
    context = browser.new_context(viewport=viewport, locale=locale)
    page = context.new_page()
    page.set_default_timeout(5000)
    return context, page, Console(page)


def test_the_page_in_polish_speaks_polish(browser, server):
    context, page, console = open_in(browser, "pl-PL")
    page.goto(server.url + "/trips")
    expect(page.locator("html")).to_have_attribute("lang", "pl")
    expect(page.locator("h1")).to_have_text("Podróże")
    expect(page.locator("#trip-summary li").first).to_have_text("6 podróży")
    expect(page.get_by_role("link", name="Wszystkie")).to_have_attribute("aria-current", "page")
    expect(page.locator("#favorites-chip")).to_have_text("Ulubione 2")
    expect(page.get_by_role("navigation", name="Sortowanie")).to_contain_text("Sortuj: Zapisana kolejność Według daty")
    expect(page.get_by_role("button", name="Szukaj")).to_be_visible()
    expect(page.locator("#add h2")).to_have_text("Nowa podróż")
    expect(page.locator("#sentence-form input")).to_have_attribute("placeholder", "Lizbona, Portugalia: 4 noce od 1 maja 2027")
    expect(page.locator("footer")).to_contain_text("każda strona jest też dostępna jako JSON i tekst")
    assert page.evaluate(OTHER_LANGS) == []

    # The form, by its Polish labels; what it announces is Polish too.
    form = page.locator("#add-form")
    form.get_by_label("Miasto").fill("Oslo")
    form.get_by_label("Kraj").fill("Norway")
    form.get_by_label("Noce").fill("2")
    form.get_by_label("Początek").fill("2027-08-14")
    form.get_by_label("Cena").fill("640.5")
    form.get_by_role("button", name="Dodaj podróż").click()
    expect(page.locator("#status")).to_have_text("Dodano: Oslo.")
    expect(page.locator("#trip-summary li").first).to_have_text("7 podróży")

    # Plurals by Polish rules in what the page announces: 2 podróże, 5 podróży.
    page.evaluate(DROP_TEXT, [3, "Porto, Portugal: 2 noce od 5 maja 2027\nFaro, Portugal: 3 nights from May 8, 2027"])
    expect(page.locator("#status")).to_have_text("Dodano 2 podróże.")
    five = "\n".join(f"Town {n}, Poland: {n} noce od {n} czerwca 2027" for n in range(2, 5)) + "\nGdańsk, Poland: 5 nocy od 1 lipca 2027\nKraków, Poland: 1 noc od 2 lipca 2027"
    page.evaluate(DROP_TEXT, [3, five])
    expect(page.locator("#status")).to_have_text("Dodano 5 podróży.")
    expect(page.locator("#trip-summary li").first).to_have_text("14 podróży")
    row(page, 1).focus()
    page.keyboard.press("Space")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Space")
    expect(page.locator("#status")).to_have_text("Zaznaczono 2 podróże.")
    page.keyboard.press("Delete")
    expect(page.locator("#confirm-title")).to_have_text("Usunąć: Seattle i Vancouver?")
    expect(page.locator("#confirm")).to_contain_text("Tej operacji nie można cofnąć.")
    page.get_by_role("button", name="Anuluj").click()
    expect(page.locator("#status")).to_have_text("Nic nie zostało usunięte.")
    # A price with Polish separators over exactly the digits stored: 1499.5, not 1 499,50.
    expect(row(page, 1)).to_contain_text("1499,5")
    expect(row(page, 1)).not_to_contain_text("1499.5")
    context.close()
    assert console.errors == [], console.errors


def test_the_page_in_japanese_announces_in_japanese(browser, server):
    context, page, console = open_in(browser, "ja-JP")
    page.goto(server.url + "/trips")
    expect(page.locator("h1")).to_have_text("旅行")
    row(page, 2).focus()
    page.keyboard.press("Alt+ArrowUp")
    expect(page.locator("#status")).to_have_text("VancouverをSeattleの前に移動しました。")
    assert page.evaluate(OTHER_LANGS) == []
    expect(row(page, 2)).to_contain_text("1,299.99")
    context.close()
    assert console.errors == [], console.errors


def test_axe_finds_no_violations_in_polish_and_japanese(browser, server):
    for locale in ["pl-PL", "ja-JP"]:
        for viewport in [DESKTOP, PHONE]:
            context, page, console = open_in(browser, locale, viewport)
            page.goto(server.url + "/trips")
            expect(page.locator(".strip-photo")).to_have_count(6)
            assert_no_violations(page, f"{locale} at {viewport['width']} px")
            row(page, 2).focus()
            page.keyboard.press("Delete")
            expect(page.locator("#confirm")).to_be_visible()
            assert_no_violations(page, f"{locale} at {viewport['width']} px, confirming a delete")
            page.goto(server.url + "/trips?q=nowhere")
            assert_no_violations(page, f"{locale} at {viewport['width']} px, an empty view")
            context.close()
            assert console.errors == [], console.errors


def assert_no_violations(page, where):
    results = Axe().run(page)
    assert results.violations_count == 0, f"{where}: {results.generate_report()}"
