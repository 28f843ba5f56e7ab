"""``PlayerReinstated`` in the fold (:mod:`ledger.tournament`): a dropped player is active again
and paired from the next round; a log without the event folds as before."""

from __future__ import annotations

from ledger.tournament import fold, next_round


def _log(*extra):
    events = [{"type": "TournamentCreated", "tournament_id": "t", "name": "T", "game": "wotf"}]
    events += [{"type": "PlayerRegistered", "player": p, "cards": {}, "archive": {}, "dbs": 0}
               for p in ("Ann", "Bob", "Cleo", "Dev")]
    return events + list(extra)


def test_a_reinstated_player_is_active_and_paired_again():
    dropped = fold(_log({"type": "PlayerDropped", "player": "Dev", "round": 0}))
    assert dropped.players["Dev"].dropped == 0 and "Dev" not in dropped.active
    assert dropped.players["Dev"].dropped_when == "dropped before round 1"
    back = fold(_log({"type": "PlayerDropped", "player": "Dev", "round": 0},
                     {"type": "PlayerReinstated", "player": "Dev", "round": 0}))
    assert back.players["Dev"].dropped is None and back.length == 7
    paired = next_round(back, {})
    assert {p for t in paired["tables"] for p in (t["a"], t["b"])} == {"Ann", "Bob", "Cleo", "Dev"}
    assert paired["bye"] is None
    assert fold(_log()).active == ["Ann", "Bob", "Cleo", "Dev"]  # an old log, as before
