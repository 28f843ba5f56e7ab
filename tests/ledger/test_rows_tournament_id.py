"""``matches.tournament_id`` (:func:`ledger.rows.tournament_id_of`): a tournament's id from its
match ids (web/tournaments.py names them ``<id>-r<round>-t<table:02d>``), only when the match
records that round and table and a tournament; a name alone is no id."""

from __future__ import annotations

import pytest

from ledger.events import MatchOpened
from ledger.rows import tournament_id_of


def opened(match_id: str, tournament: str | None = "Friday Cup", round: int | None = 1,
           table: int | None = 2, game_number: int = 1) -> MatchOpened:
    return MatchOpened(match_id=match_id, ruleset="1.3.2", seats=[], tournament=tournament,
                       round=round, table=table, game_number=game_number)


@pytest.mark.parametrize(("match", "expected"), [
    (opened("fri-1-r1-t02"), "fri-1"),  # as web/tournaments.py names it
    (opened("fri-1-r1-t2"), "fri-1"),  # unpadded
    (opened("fri-1-r1-t02-g2", game_number=2), "fri-1"),  # the pairing's second game
    (opened("fri-1-r1-t02-g3", game_number=2), None),  # another game number than recorded
    (opened("fri-1-r2-t02"), None),  # another round than recorded
    (opened("fri-1-r1-t03"), None),  # another table than recorded
    (opened("fri-1-r1-t02", tournament=None), None),  # no tournament recorded
    (opened("m-1a2b3c"), None),  # created with a tournament's name, its own id: a name only
    (opened("dash-cup-r1-t02"), "dash-cup"),  # wonders simulate --tournament "Dash Cup"
    (opened("fri-1-r1-t02", round=None, table=None), None),
])
def test_the_tournament_id_of_a_match(match, expected):
    assert tournament_id_of(match) == expected
