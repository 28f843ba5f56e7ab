"""A seat's /play page once its match is over, on a 390x844 phone.

Before, a player whose match had ended still had *Call the judge* and *Concede* under the
board (a tap on *Concede* asked "Concede this match to Bob?" of a match already decided), and
nothing led anywhere: the page's header named the table by its match id
(``table spring-cup-r1-t01``).  Now the header names the tournament, round and table as the
match records them, and once the match is over the seat's concession and call are gone and the
page offers the match's replay and its tournament's page (a practice match: its replay).  A real
``wonders serve`` and Debian's Chromium."""

from __future__ import annotations

from tests.e2e.helpers import ORGANIZER, api_call
from tests.e2e.test_play_browser import enter, no_overflow
from tests.web.test_api import SEATS
from tests.web.test_tournaments import DECKS, NAMES, decklist


def _tournament_table(base: str) -> tuple[str, str, dict[str, str]]:
    tid = api_call(base, "POST", "/api/tournaments", ORGANIZER, {"name": "Spring Cup"})[
        "tournament_id"]
    for player, deck in list(zip(NAMES, DECKS, strict=True))[:2]:
        api_call(base, "POST", f"/api/tournaments/{tid}/players", ORGANIZER,
                 {"player": player, "decklist": decklist(deck)})
    table = api_call(base, "POST", f"/api/tournaments/{tid}/rounds", ORGANIZER)["tables"][0]
    return tid, table["match_id"], table["tokens"]


def test_an_ended_tournament_match_offers_its_replay_and_tournament_not_a_concession(
        browser, server):
    base = server
    tid, mid, tokens = _tournament_table(base)
    seat = enter(browser, base, mid, tokens["A"])
    header = seat.inner_text("header")
    assert "Spring Cup · round 1, table 1" in header and mid not in header
    assert seat.is_visible("#concede") and seat.is_visible("#call-judge")
    assert not seat.is_visible("#after")
    api_call(base, "POST", f"/api/matches/{mid}/ending", tokens["judge"],
             {"seat": "B", "kind": "concession", "reason": "had to leave"})
    seat.reload()
    seat.wait_for_selector("#status:has-text('Match over')")
    assert not seat.is_visible("#concede") and not seat.is_visible("#call-judge")
    assert seat.is_visible("#after")
    hrefs = seat.eval_on_selector_all("#after a", "links => links.map(a => a.pathname)")
    assert hrefs == [f"/matches/{mid}", f"/tournaments/{tid}"]
    no_overflow(seat)
    seat.click(f"#after a[href='/tournaments/{tid}']")
    seat.wait_for_url(f"**/tournaments/{tid}")
    assert "Spring Cup" in seat.inner_text("h1")
    assert not seat.errors  # type: ignore[attr-defined]


def test_an_ended_practice_match_offers_its_replay(browser, server):
    base = server
    created = api_call(base, "POST", "/api/matches", ORGANIZER, {"seats": SEATS})
    mid, tokens = created["match_id"], created["tokens"]
    seat = enter(browser, base, mid, tokens["B"])
    assert f"table {mid}" in seat.inner_text("header")  # no tournament: the table is its id
    api_call(base, "POST", f"/api/matches/{mid}/ending", tokens["judge"],
             {"kind": "draw", "draw": "agreed"})
    seat.reload()
    seat.wait_for_selector("#status:has-text('Match over')")
    assert not seat.is_visible("#concede")
    hrefs = seat.eval_on_selector_all("#after a", "links => links.map(a => a.pathname)")
    assert hrefs == [f"/matches/{mid}"]
