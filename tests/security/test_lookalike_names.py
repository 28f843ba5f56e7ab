"""Attack: a name that reads the same as a registered player's (Unicode look-alikes).

A player who registers themselves chooses their name.  ``"\\u0410nn"`` -- a Cyrillic capital A
(U+0410), then "nn" -- is another name than "Ann" (it is not hers: other letters), so it was
accepted: two players read "Ann" on the pairings, the standings and the opponent's page, and
the second one's results could pass for hers.  The same with a capital I for an l ("PauI"),
a Greek omicron, a zero-width space between letters.  A registration whose name reads the same
as a registered player's (:func:`ledger.lookalike.reads_alike`, the Unicode confusables) is refused,
one line naming the character, nothing written -- through the registration link and at the
desk; a name in another script that reads as its own ("Анна") is taken.  Against the app
in-process and a real ``wonders serve``.
"""

from __future__ import annotations

import pytest

from ledger.lookalike import reads_alike
from tests.security.test_direction_controls_in_names import _players
from tests.security.test_player_link_reissued import self_register
from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import DECKS, call, decklist, new_tournament


def test_a_self_registered_name_cannot_pass_for_a_registered_one(tmp_path, where):
    api = where if where is not None else Api(new_app(tmp_path))
    tid = new_tournament(api, players=2, name="Twin Cup")  # Ann and Bob
    status, html, _phone = self_register(api, where, tid, "\u0410nn", DECKS[2])
    assert status == 422, html[:300]
    assert "reads the same as" in html and "U+0410 CYRILLIC CAPITAL LETTER A" in html
    assert _players(api, tid) == ["Ann", "Bob"]  # nothing written


@pytest.mark.parametrize("twin", ["B\u03bfb", "A\u200bnn\u0456", "Ann\u0456", "BOB"])
def test_the_desk_refuses_a_look_alike_too(tmp_path, twin):
    api = Api(new_app(tmp_path))
    tid = new_tournament(api, players=2, name="Desk Cup")  # Ann and Bob
    call(api, "POST", f"/api/tournaments/{tid}/players",
         {"player": "Anni", "decklist": decklist(DECKS[2])})
    status, data = call(api, "POST", f"/api/tournaments/{tid}/players",
                        {"player": twin, "decklist": decklist(DECKS[3])})
    assert status == 422, data
    assert "registered already" in data["message"], data
    assert _players(api, tid) == ["Ann", "Anni", "Bob"]


def test_names_that_only_share_letters_are_taken(tmp_path):
    """Accents, another script read as its own, a different letter: other names."""
    api = Api(new_app(tmp_path))
    tid = new_tournament(api, players=2, name="Many Cup")  # Ann and Bob
    for name, deck in (("Анна", DECKS[2]), ("Änn", DECKS[3]), ("Bo", DECKS[0])):
        status, data = call(api, "POST", f"/api/tournaments/{tid}/players",
                            {"player": name, "decklist": decklist(deck)})
        assert status == 201, data
    assert _players(api, tid) == sorted(["Ann", "Bob", "Анна", "Änn", "Bo"])


def test_what_a_name_looks_like():
    # l, capital I and 1 are drawn alike
    assert reads_alike("Paul", "PauI") and reads_alike("Paul", "Pau1")
    assert all(reads_alike("Ann", twin) for twin in ("\u0410nn", "A\u200bnn", "ANN"))
    assert not reads_alike("Ann", "Änn") and not reads_alike("Anna", "Анна")
