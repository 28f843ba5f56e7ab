"""The round clock's end in the phone's own time: the players' page, the console and a
player's own page said "ends 19:36 UTC" to a room in Paris or Tokyo, whose phones read 20:36
or 04:36 -- a conversion in each player's head, at the moment time matters.  Now, where the
page runs scripts, the end reads in the phone's time zone ("ends 20:36"; "UTC" kept where the
phone is on UTC); without scripts the server's UTC stays.  A real ``wonders serve`` and
Debian's Chromium with its time zone set."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from tests.e2e.helpers import ORGANIZER, api_call
from tests.e2e.test_play_browser import PHONE
from tests.web.test_tournaments import DECKS, NAMES, decklist


@pytest.mark.parametrize("zone", ["Europe/Paris", "Asia/Tokyo", "UTC"])
def test_the_end_of_the_round_reads_in_the_phones_time(server, browser, zone):
    base = server
    tid = api_call(base, "POST", "/api/tournaments", ORGANIZER,
                   {"name": "Clock Cup", "round_minutes": 50})["tournament_id"]
    for player, deck in list(zip(NAMES, DECKS, strict=True))[:2]:
        api_call(base, "POST", f"/api/tournaments/{tid}/players", ORGANIZER,
                 {"player": player, "decklist": decklist(deck)})
    api_call(base, "POST", f"/api/tournaments/{tid}/rounds", ORGANIZER)
    t = api_call(base, "GET", f"/api/tournaments/{tid}", ORGANIZER)
    ends = datetime.fromisoformat(t["rounds"][0]["ends_at"].replace("Z", "+00:00"))
    local = ends.astimezone(ZoneInfo(zone)).strftime("%H:%M")
    page = browser.new_context(**PHONE, timezone_id=zone).new_page()
    page.goto(f"{base}/tournaments/{tid}")
    shown = page.locator("p.round-clock time.ends").inner_text()
    assert shown == (f"{local} UTC" if zone == "UTC" else local), (zone, shown)
