"""The organizer console on a 390×844 phone where a mis-tap or a long name used to hurt.

* a player name with no break point (an e-mail address) made the round's links page 529 px
  wide: names now wrap anywhere, the QR grid's column shrinks (``minmax(0, 1fr)``);
* *Drop* was one tap, with no undo: a tap opens "Drop Bob from round 1 on? Yes, drop Bob", only
  the second tap drops, and a dropped player has *Reinstate*;
* *Revoke* was one tap with "all tokens" preselected: now a token must be chosen, and a
  confirmation names the table, its players and whose token before anything is revoked;

A real ``wonders serve`` subprocess (the ``server`` fixture) and the system Chromium.
"""

from __future__ import annotations

from urllib.error import HTTPError

import pytest
from playwright.sync_api import sync_playwright

from tests.e2e.helpers import CHROMIUM, FLAGS, ORGANIZER, api_call
from tests.e2e.test_organize_browser import PHONE, _fits, decklist

LONG = "christopher.vandenberghe@example.com"
PLAYERS = [(LONG, "solfera-blaze"), ("Bob", "thalwind-sky"), ("Cleo", "petraia-stone"),
           ("Dev", "boundless-drift")]


def _setup(base: str, tid_name: str = "Phone Cup") -> str:
    tid = api_call(base, "POST", "/api/tournaments", ORGANIZER, {"name": tid_name})["tournament_id"]
    for name, deck in PLAYERS:
        api_call(base, "POST", f"/api/tournaments/{tid}/players", ORGANIZER,
                 {"player": name, "decklist": decklist(deck)})
    return tid


def _signed_in(pw, base: str):
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
    page = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
    page.goto(f"{base}/organize")
    page.fill("input[name=token]", ORGANIZER)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base}/organize")
    return browser, page


def test_a_long_unbreakable_name_fits_the_phone_on_every_console_page(server):
    base = server
    tid = _setup(base)
    with sync_playwright() as pw:
        browser, page = _signed_in(pw, base)
        page.goto(f"{base}/organize/t/{tid}")
        _fits(page)
        page.click("#start button[type=submit]")
        page.wait_for_selector("section.links")
        assert LONG in page.locator("section.links").first.inner_text() \
            or LONG in page.locator("section.links").nth(1).inner_text()
        _fits(page)  # the links page: QR codes and the seat's name
        page.goto(f"{base}/organize/t/{tid}")
        _fits(page)  # the round board with the name
        browser.close()


def test_a_drop_takes_a_second_tap_and_is_undone_by_reinstate(server):
    base = server
    tid = _setup(base, "Drop Cup")
    with sync_playwright() as pw:
        browser, page = _signed_in(pw, base)
        page.goto(f"{base}/organize/t/{tid}")
        bob = page.locator("#players li:has(input[name=player][value='Bob'])")
        confirm = bob.locator("button", has_text="Yes, drop Bob")
        assert not confirm.is_visible()
        bob.locator("summary", has_text="Drop").tap()  # the first tap only asks
        assert confirm.is_visible() and "Drop Bob from round 1 on?" in bob.inner_text()
        _fits(page)
        t = api_call(base, "GET", f"/api/tournaments/{tid}", ORGANIZER)
        assert all(p["dropped"] is None for p in t["players"])  # nothing dropped yet
        bob.locator("summary", has_text="Drop").tap()  # tapping again folds it: nothing done
        assert not confirm.is_visible()
        bob.locator("summary", has_text="Drop").tap()
        with page.expect_navigation():
            confirm.tap()
        assert "dropped before round 1" in bob.inner_text()
        with page.expect_navigation():
            bob.locator("button", has_text="Reinstate").tap()
        assert bob.locator("summary", has_text="Drop").is_visible()
        t = api_call(base, "GET", f"/api/tournaments/{tid}", ORGANIZER)
        assert all(p["dropped"] is None for p in t["players"])
        _fits(page)
        browser.close()


def test_a_revoke_needs_a_chosen_token_and_a_confirmation_naming_it(server):
    base = server
    tid = _setup(base, "Revoke Cup")
    started = api_call(base, "POST", f"/api/tournaments/{tid}/rounds", ORGANIZER)
    table = started["tables"][0]
    judge = table["tokens"]["judge"]
    state = f"/api/matches/{table['match_id']}/state"
    with sync_playwright() as pw:
        browser, page = _signed_in(pw, base)
        page.goto(f"{base}/organize/t/{tid}")
        card = page.locator("#board li.table").filter(has_text=f"Table {table['table']}").first
        card.locator("button", has_text="Revoke").tap()  # nothing chosen: the browser asks
        assert page.url == f"{base}/organize/t/{tid}"
        assert api_call(base, "GET", state, judge)  # the judge's token still works
        card.locator("select[name=role]").select_option("judge")
        with page.expect_navigation():
            card.locator("button", has_text="Revoke").tap()
        question = page.locator("#confirm").inner_text()
        assert (f"Revoke the judge's token of round 1, table {table['table']} "
                f"({table['a']} vs {table['b']})?") in question
        _fits(page)
        assert api_call(base, "GET", state, judge)  # asked, not done
        with page.expect_navigation():
            page.locator("#confirm button", has_text="Yes, revoke").tap()
        with pytest.raises(HTTPError) as refused:
            api_call(base, "GET", state, judge)
        assert refused.value.code == 401  # revoked
        browser.close()


def test_a_tapped_start_says_it_is_working_until_the_links_come(server):
    """Starting a round of 150 tables takes about a second: the tapped button is disabled (a
    second tap sends nothing) and a line under it says what is under way.  What the page
    showed right after the tap is noted by a listener of the form's own (registered after the
    page's) and read back from the links page."""
    base = server
    tid = _setup(base, "Busy Cup")
    with sync_playwright() as pw:
        browser, page = _signed_in(pw, base)
        page.goto(f"{base}/organize/t/{tid}")
        posts: list[str] = []
        page.on("request", lambda r: r.method == "POST" and posts.append(r.url))
        button = page.locator("#start button[type=submit]")
        assert button.inner_text() == "Pair and start round 1"
        page.evaluate("""() => {
            const form = document.querySelector('#start form');
            form.addEventListener('submit', () => sessionStorage.setItem('seen', JSON.stringify(
                [form.querySelector('button').disabled, form.querySelector('.busy').textContent])));
        }""")
        button.click()
        page.wait_for_selector("section.links")
        seen = page.evaluate("JSON.parse(sessionStorage.getItem('seen'))")
        assert seen == [True, "Starting round 1: pairing and creating 2 tables…"], seen
        assert [u for u in posts if u.endswith("/rounds")] == [f"{base}/organize/t/{tid}/rounds"]
        page.go_back()
        page.wait_for_selector("#start button")
        assert not page.locator("#start button").is_disabled()  # tappable again
        browser.close()
