"""A seat enters a catalogue card's printed stats on /play at 390x844 (ruling R34): a
tournament pairs a deck of catalogue cards the pool has no rules data for; the seat's page shows
the card entry form (cardentry.js) for the first such card in its hand; a missing power is
refused on the page with one line and nothing is sent; the filled form records
``CardStatsEntered`` with what was typed, ticked and picked; the page fits the phone's width.
The screenshot (docs/screenshots/card-entry-phone.png) goes to ``$WONDERS_SCREENSHOTS``.

A real ``wonders serve`` subprocess, driven by Playwright with the system Chromium
(``/usr/bin/chromium``); skipped where it is missing (tests/e2e/conftest.py).
"""

from __future__ import annotations

from playwright.sync_api import sync_playwright

from tests.e2e.helpers import CHROMIUM, FLAGS, ORGANIZER, api_call
from tests.web.test_real_cards import catalogue_deck
from tests.web.test_tournaments import decklist


def _until_entry(base: str, mid: str, tokens: dict[str, str], kai: str) -> dict:
    """Answer the setup prompts through the API until Kai's stats prompt is pending."""
    for _ in range(20):
        pending = api_call(base, "GET", f"/api/matches/{mid}/prompt", tokens["judge"])
        prompt, length = pending["prompt"], pending["length"]
        if prompt["kind"] == "stats":
            assert prompt["seat"] == kai
            return prompt
        seat = prompt["seat"]
        mine = api_call(base, "GET", f"/api/matches/{mid}/prompt", tokens[seat])["prompt"]
        decision = {**mine["answer"], "pick": []} if mine.get("choose") else \
            mine["options"][0]["decision"]
        api_call(base, "POST", f"/api/matches/{mid}/decisions", tokens[seat],
                 {"expected_seq": length, "decision": decision})
    raise AssertionError("no stats prompt during the setup")


def test_a_seat_enters_a_catalogue_cards_stats_with_the_form_on_a_phone(server, shots):
    base = server
    t = api_call(base, "POST", "/api/tournaments", ORGANIZER, {"name": "Real Cards Night"})
    tid = t["tournament_id"]
    api_call(base, "POST", f"/api/tournaments/{tid}/players", ORGANIZER,
             {"player": "Ann", "decklist": decklist("solfera-blaze")})
    api_call(base, "POST", f"/api/tournaments/{tid}/players", ORGANIZER,
             {"player": "Kai", "decklist": catalogue_deck()})
    started = api_call(base, "POST", f"/api/tournaments/{tid}/rounds", ORGANIZER)
    table = started["tables"][0]
    mid, tokens = table["match_id"], table["tokens"]
    kai = "A" if table["a"] == "Kai" else "B"
    entry = _until_entry(base, mid, tokens, kai)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        page = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                   has_touch=True).new_page()
        page.goto(f"{base}/play/{mid}?token={tokens[kai]}")
        form = page.locator("form.cardentry")
        form.wait_for()
        name = form.locator(".entry-card strong").inner_text()
        assert (name and name in entry["text"]) or entry["card"] is None
        length = api_call(base, "GET", f"/api/matches/{mid}/prompt", tokens[kai])["length"]
        # A Wonder with no power: one line on the page, nothing sent.
        form.locator("#entry-cost").fill("3")
        form.locator("button[type=submit]").tap()
        assert "enter its power" in form.locator(".entry-problem").inner_text()
        assert api_call(base, "GET", f"/api/matches/{mid}/prompt", tokens[kai])["length"] == length
        # An unknown class is refused on the page too.
        form.locator("#entry-class").fill("Wizardly Thing")
        form.locator("button", has_text="Add class").tap()
        assert "not a known class" in form.locator(".entry-problem").inner_text()
        form.locator("#entry-class").fill("Monster")
        form.locator("button", has_text="Add class").tap()
        form.locator("#entry-power").fill("5")
        form.locator("input[value=guardian]").check()
        form.locator("#entry-link").select_option("link:Petraia")
        form.locator("#entry-manual").uncheck()
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page is {width}px wide on a 390px phone"
        page.screenshot(path=str(shots / "card-entry-phone.png"), full_page=False)
        form.locator("button[type=submit]").tap()
        page.wait_for_function(f"Number(document.getElementById('play').dataset.length) > {length}")
        browser.close()
    events = api_call(base, "GET", f"/api/matches/{mid}/events?from={length}", tokens[kai])
    entered = [e["event"] for e in events["events"] if e["event"]["type"] == "CardStatsEntered"]
    assert entered and entered[0]["name"] == name
    assert entered[0]["stats"] == {"cost": 3, "power": 5, "classes": ["Monster"],
                                   "keywords": ["guardian", "link:Petraia"], "manual": False}
    # The other seat's events name neither the card nor its stats.
    other = "B" if kai == "A" else "A"
    events = api_call(base, "GET", f"/api/matches/{mid}/events?from={length}", tokens[other])
    hidden = [e["event"] for e in events["events"] if e["event"]["type"] == "CardStatsEntered"]
    assert hidden and hidden[0]["name"] == "?" and hidden[0]["stats"] == {}
