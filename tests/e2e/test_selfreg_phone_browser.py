"""A player registers themselves on a 390×844 phone and replaces their decklist.

The organizer opens registration on the console (the page shows the link and its QR code); a
player's phone opens that link, sends a list with a bad line (one line naming it, the form
kept), corrects it, lands on their page with their player link and list, and replaces the
list; the organizer's API then holds the new one.  A real ``wonders serve`` subprocess (the
``server`` fixture) and the system Chromium.
"""

from __future__ import annotations

from playwright.sync_api import sync_playwright

from tests.e2e.helpers import CHROMIUM, FLAGS, ORGANIZER, api_call
from tests.e2e.test_organize_browser import PHONE, _fits, decklist


def test_a_player_registers_on_a_phone_and_replaces_their_list(server, shots):
    base = server
    tid = api_call(base, "POST", "/api/tournaments", ORGANIZER,
                   {"name": "Harbour Open"})["tournament_id"]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        desk = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
        desk.goto(f"{base}/organize")
        desk.fill("input[name=token]", ORGANIZER)
        desk.click("button[type=submit]")
        desk.goto(f"{base}/organize/t/{tid}")
        with desk.expect_navigation():
            desk.locator("#self-registration button", has_text="Open registration").tap()
        assert desk.locator("#registration svg").count() == 1  # the QR code
        link = desk.locator("#registration a.url").get_attribute("href")
        assert link.startswith(f"{base}/tournaments/{tid}/register?key=")
        _fits(desk)

        phone = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
        phone.goto(link)
        _fits(phone)
        good = decklist("thalwind-sky")
        phone.fill("input[name=player]", "Zoë Park")
        phone.fill("textarea[name=decklist]", "Not A Card Line\n" + good)
        with phone.expect_navigation():
            phone.locator("#register button[type=submit]").tap()
        assert phone.locator("#errors").inner_text().startswith("line 1 ('Not A Card Line')")
        assert phone.input_value("input[name=player]") == "Zoë Park"  # the form kept
        assert "Not A Card Line" in phone.input_value("textarea[name=decklist]")
        _fits(phone)
        phone.screenshot(path=str(shots / "selfreg-register.png"))
        phone.fill("textarea[name=decklist]", good)
        with phone.expect_navigation():
            phone.locator("#register button[type=submit]").tap()
        assert phone.url == f"{base}/tournaments/{tid}/me"
        assert "You are registered for Harbour Open" in phone.locator("#registered").inner_text()
        own = phone.locator("#your-link a").get_attribute("href")
        assert own.startswith(f"{base}/tournaments/{tid}/me?token=")
        assert good.splitlines()[0] in phone.locator("pre.decklist").inner_text()
        _fits(phone)
        phone.screenshot(path=str(shots / "selfreg-player.png"))

        other = decklist("petraia-stone")
        phone.fill("#replace textarea[name=decklist]", other)
        with phone.expect_navigation():
            phone.locator("#replace button[type=submit]").tap()
        assert phone.locator("#replaced").is_visible()
        assert other.splitlines()[0] in phone.locator("pre.decklist").inner_text()
        _fits(phone)

        # the player link opens the same page in a fresh browser (another phone)
        fresh = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
        fresh.goto(own)
        assert fresh.url == f"{base}/tournaments/{tid}/me"  # the token left the address bar
        assert other.splitlines()[0] in fresh.locator("pre.decklist").inner_text()
        browser.close()

    t = api_call(base, "GET", f"/api/tournaments/{tid}", ORGANIZER)
    (zoe,) = t["players"]
    assert zoe["name"] == "Zoë Park" and zoe["self_registered"] and zoe["replaced"] == 1
    first = other.splitlines()[0].split(" ", 1)[1]
    assert first in {**zoe["cards"], **zoe["archive"]}
