"""The round clock in a browser (docs/organizer.md, "Round time"): on a real server, a
tournament of four with 50-minute rounds starts round 1; a player's phone on the public page
sees the clock count down by the second ("49:58 left", then a second less); the organizer sets
a 1-minute round and the reloaded page has under a minute left; a clock whose end has passed
says "time is up (+m:ss)" in red."""

from __future__ import annotations

import re

from tests.e2e.helpers import ORGANIZER, api_call
from tests.e2e.test_play_browser import PHONE
from tests.web.test_tournaments import DECKS, NAMES, decklist


def test_the_players_page_counts_the_round_down_and_says_when_time_is_up(server, browser):
    base = server
    t = api_call(base, "POST", "/api/tournaments", ORGANIZER,
                 {"name": "Clock Cup", "round_minutes": 50})  # an error status raises
    tid = t["tournament_id"]
    for player, deck in list(zip(NAMES, DECKS, strict=True))[:4]:
        api_call(base, "POST", f"/api/tournaments/{tid}/players", ORGANIZER,
                 {"player": player, "decklist": decklist(deck)})
    api_call(base, "POST", f"/api/tournaments/{tid}/rounds", ORGANIZER)

    page = browser.new_context(**PHONE).new_page()
    page.goto(f"{base}/tournaments/{tid}")
    clock = page.locator("time.clock")
    page.wait_for_function("document.querySelector('time.clock').textContent.includes(':')")
    first = clock.inner_text()
    assert re.fullmatch(r"(49|50):\d\d left", first), first
    page.wait_for_function(
        f"document.querySelector('time.clock').textContent !== {first!r}", timeout=5000)
    assert re.fullmatch(r"\d+:\d\d left", clock.inner_text())

    assert api_call(base, "POST", f"/api/tournaments/{tid}/clock", ORGANIZER,
                    {"minutes": 1})["round_minutes"] == 1
    page.reload()
    page.wait_for_function("document.querySelector('time.clock').textContent.includes(':')")
    # the round started moments ago: a minute's round still has under a minute left
    assert re.fullmatch(r"0:\d\d left", clock.inner_text()), clock.inner_text()
    # an end that has passed (the page's, moved back 2 minutes here rather than waiting)
    page.evaluate("""() => { const el = document.querySelector('time.clock');
        el.setAttribute('datetime', new Date(Date.now() - 120000).toISOString()); }""")
    page.wait_for_function(
        "document.querySelector('time.clock').textContent.startsWith('time is up (+2:0')")
    assert "up" in page.locator("p.round-clock").get_attribute("class").split()
    color = page.locator("time.clock").evaluate("el => getComputedStyle(el).color")
    assert color == "rgb(161, 42, 42)", color  # red
