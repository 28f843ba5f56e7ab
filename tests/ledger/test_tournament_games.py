"""A tournament's game in its log: a log without one (written before tournaments named their
game) is of Wonders of The First, as it always was; a registration in a game without a Deck
Balance Score (State of Wonder) records ``"dbs": null``, folded as no DBS -- not 0 -- and
exported as a blank cell, while a Wonders registration's DBS is kept as recorded."""

from __future__ import annotations

from ledger.tournament import Result, fold, standings, standings_rows


def _log(created: dict, dbs: object) -> list[dict]:
    return [{"type": "TournamentCreated", "tournament_id": "cup", "name": "Cup", **created},
            *({"type": "PlayerRegistered", "player": p, "cards": {}, "archive": {}, "dbs": dbs,
               "round": 0} for p in ("Ann", "Bob")),
            {"type": "RoundPaired", "round": 1, "bye": None,
             "tables": [{"table": 1, "a": "Ann", "b": "Bob"}]},
            {"type": "RoundStarted", "round": 1, "matches": {"1": "cup-r1-t01"}}]


def test_a_log_without_a_game_is_of_wonders_of_the_first_with_its_dbs():
    t = fold(_log({"ruleset": "1.3.2"}, 7))
    assert t.game == "wotf" and t.player("Ann").dbs == 7
    rows = standings_rows(standings(t, {"cup-r1-t01": Result(True, "A")}))
    assert [r[10] for r in rows] == ["dbs", "7", "7"]


def test_a_registration_without_a_dbs_has_none_and_a_blank_cell():
    t = fold(_log({"game": "sow", "ruleset": "004"}, None))
    assert t.game == "sow" and t.player("Ann").dbs is None
    table = standings(t, {"cup-r1-t01": Result(True, "B")})
    assert [(s.player, s.points, s.dbs) for s in table] == [("Bob", 3, None), ("Ann", 0, None)]
    assert [r[10] for r in standings_rows(table)] == ["dbs", "", ""]
