"""Attack: a name that turns the text around it round (Unicode direction controls).

A player who registers themselves chooses their name, and every page then shows it: the
pairings and standings, the opponent's own page ("vs <name> · you sit at seat A",
web/player_day.py), the /play token page ("<A> vs <B> · match …") and the viewer's title
("<A> vs <B> · Cup, round 1, table 2").  A name holding a right-to-left override (U+202E) is
shown reversed: ``"\\u202EnnA"`` reads "Ann" -- a second Ann beside the registered one (its key,
``nna``, is not hers: :func:`ledger.tournament.player_key` leaves format characters out) -- and,
never closed, it turns the rest of its line round too: the seat after the opponent's name, the
tournament, round and table after the players in the viewer's title.  An embedding or isolate
(U+202A-U+202D, U+2066-U+2069) reorders the same way.  They have no place in a name (a name in
Arabic or Hebrew is shown right to left by its own letters): a registration is refused, one
line naming the character, nothing written -- through the registration link, at the desk, and
a tournament's name too.  Against the app in-process and a real ``wonders serve``.
"""

from __future__ import annotations

import pytest

from tests.security.test_player_link_reissued import self_register
from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import DECKS, call, decklist, new_tournament

#: Right-to-left override, then the other embeddings, overrides and isolates.
CONTROLS = ["\u202e", "\u202a", "\u202b", "\u202c", "\u202d", "\u2066", "\u2067", "\u2068",
            "\u2069"]


def _players(api, tid) -> list[str]:
    status, t = call(api, "GET", f"/api/tournaments/{tid}")
    assert status == 200, t
    return sorted(p["name"] for p in t["players"])


@pytest.mark.parametrize("control", CONTROLS[:2])
def test_a_self_registered_name_cannot_turn_the_page_round(tmp_path, where, control):
    api = where if where is not None else Api(new_app(tmp_path))
    tid = new_tournament(api, players=2, name=f"Mirror Cup {ord(control):x}")
    status, html, _phone = self_register(api, where, tid, f"{control}nnA", DECKS[2])
    assert status == 422, html[:300]
    assert f"U+{ord(control):04X}" in html and "direction" in html
    assert _players(api, tid) == ["Ann", "Bob"]  # nothing written


@pytest.mark.parametrize("control", CONTROLS)
def test_the_desk_and_a_tournaments_name_refuse_them_too(tmp_path, control):
    api = Api(new_app(tmp_path))
    tid = new_tournament(api, players=1, name="Desk Cup")
    status, data = call(api, "POST", f"/api/tournaments/{tid}/players",
                         {"player": f"Bob{control} · seat B", "decklist": decklist(DECKS[1])})
    assert status == 422 and f"U+{ord(control):04X}" in data["message"], data
    assert _players(api, tid) == ["Ann"]
    status, data = call(api, "POST", "/api/tournaments", {"name": f"Cup {control}2"})
    assert status == 422 and f"U+{ord(control):04X}" in data["message"], data
