"""The organizer console on a phone: sign in, create a tournament, register four players by
pasting decklists, start round 1, see every table's seat and judge links with QR codes, and the
round board (live, then ended with the winner's name after a concession, linked to the viewer).

A real ``wonders serve`` subprocess on a free loopback port, driven by Playwright with the
system Chromium (``/usr/bin/chromium``) at 390×844; skipped where it is missing
(tests/e2e/conftest.py).
"""

from __future__ import annotations

import tomllib
from urllib.parse import parse_qs, urlsplit

from playwright.sync_api import sync_playwright

from replay.resources import decks_dir
from tests.e2e.helpers import CHROMIUM, FLAGS, ORGANIZER, api_call

PLAYERS = [("Ann", "solfera-blaze"), ("Bob", "thalwind-sky"), ("Cleo", "petraia-stone"),
           ("Dev", "boundless-drift")]
PHONE = {"width": 390, "height": 844}


def decklist(name: str) -> str:
    data = tomllib.loads((decks_dir() / f"{name}.toml").read_text(encoding="utf-8"))
    cards = {**data["cards"], **data.get("archive", {})}
    return "\n".join(f"{n} {card}" for card, n in cards.items())


def _fits(page) -> None:
    page.wait_for_load_state("load")  # the stylesheet applied (see test_play_browser.no_overflow)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the page is {width} px wide on a {PHONE['width']} px phone"


def test_an_organizer_registers_four_players_and_starts_a_round_on_a_phone(server):
    base = server
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
        page.goto(f"{base}/organize")
        page.fill("input[name=token]", "not the token")
        page.click("button[type=submit]")
        assert page.locator(".error").inner_text() == "That is not the organizer token."
        page.fill("input[name=token]", ORGANIZER)
        page.click("button[type=submit]")
        page.fill("input[name=name]", "Friday Night")
        page.click("text=Create")
        page.wait_for_url("**/organize/t/friday-night")
        for name, deck in PLAYERS:
            page.fill("#register input[name=player]", name)
            page.fill("#register textarea[name=decklist]", decklist(deck))
            page.click("#register button[type=submit]")
            page.wait_for_url("**/organize/t/friday-night")
            assert page.locator(f"#players li:has(input[name=player][value='{name}'])").count() == 1
        # a decklist with an unknown card: one line naming it, the form kept
        page.fill("#register input[name=player]", "Eve")
        page.fill("#register textarea[name=decklist]", "3 Glow Smith\n2 No Such Card")
        page.click("#register button[type=submit]")
        error = page.locator("p.error").inner_text()
        assert "no card 'No Such Card'" in error and "\n" not in error
        assert page.locator("#register textarea").input_value().endswith("No Such Card")
        _fits(page)

        page.click("#start button[type=submit]")
        page.wait_for_selector("section.links")
        assert page.locator("h1").inner_text() == "Round 1"
        assert page.locator("section.links").count() == 2
        assert page.locator("figure.code svg").count() == 6  # A, B and judge per table
        assert page.locator("figure.code svg path").count() >= 6  # drawn, not empty
        urls = page.locator("figure.code a.url").all_inner_texts()
        assert all(u.startswith(f"{base}/play/friday-night-r1-t0") for u in urls)
        captions = page.locator("figure.code figcaption strong").all_inner_texts()
        assert "Judge" in captions and any(c.startswith("Seat A: ") for c in captions)
        _fits(page)
        # Printed: a slip per table with its two seats' codes; the judges' codes only on
        # their own sheet (a judge's link on a table would let a player end the match).
        page.evaluate("window.print = () => {}")  # the buttons' print dialog: not in a test
        page.emulate_media(media="print")
        assert page.locator("figure.role-judge:visible").count() == 0  # plain Ctrl-P too
        assert page.locator("figure.role-A:visible").count() == 2
        page.locator("button[data-print=judge]").evaluate("b => b.click()")  # hidden in print
        assert page.locator("figure.role-judge:visible").count() == 2
        assert page.locator("figure.role-A:visible, figure.role-B:visible").count() == 0
        page.locator("button[data-print=seats]").evaluate("b => b.click()")
        assert page.locator("figure.role-judge:visible").count() == 0
        assert page.locator("figure.role-B:visible").count() == 2
        page.emulate_media(media="screen")
        assert page.locator("figure.role-judge:visible").count() == 2

        judge = next(u for u, c in zip(urls, captions, strict=True) if c == "Judge")
        mid = urlsplit(judge).path.rsplit("/", 1)[1]
        token = parse_qs(urlsplit(judge).query)["token"][0]

        page.click("text=Back to Friday Night")
        page.wait_for_url(f"{base}/organize/t/friday-night")  # not the links page still
        board = page.locator("#board")
        assert board.locator(".table.live").count() == 2
        api_call(base, "POST", f"/api/matches/{mid}/ending", token, {"seat": "B"})
        page.reload()
        ended = board.locator(".table.ended")
        assert ended.count() == 1
        seat_a = api_call(base, "GET", f"/api/matches/{mid}", ORGANIZER)["players"]["A"]
        assert ended.locator(".result").inner_text() == seat_a  # the winner, by name
        assert page.locator("#standings tbody tr").first.locator("td").nth(1).inner_text() \
            .startswith(seat_a)
        _fits(page)
        page.locator(".table.ended a:has-text('Watch')").click()
        page.wait_for_url(f"**/matches/{mid}")
        browser.close()
