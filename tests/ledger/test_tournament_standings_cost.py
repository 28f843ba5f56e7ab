"""The standings' work, counted (not timed): each player's match-win and game-win
percentages (:class:`ledger.tournament.Record`'s ``mwp`` and ``gwp``, wrapped and still
computed) are worked out once per player, not once per opponent who met them, per comparison
of the sort and again for the row -- 300 players' page did that on every request."""

from __future__ import annotations

from collections import Counter

from ledger.tournament import Record, Result, fold, standings

PLAYERS = ["Ann", "Bob", "Cleo", "Dev", "Eve", "Finn", "Gus", "Hana"]


def two_rounds() -> tuple[list[dict], dict[str, Result]]:
    events: list[dict] = [{"type": "TournamentCreated", "tournament_id": "cup", "name": "Cup"}]
    events += [{"type": "PlayerRegistered", "player": p, "dbs": 10} for p in PLAYERS]
    results = {}
    for number, order in ((1, PLAYERS), (2, PLAYERS[::2] + PLAYERS[1::2])):
        tables = [{"table": i + 1, "a": order[2 * i], "b": order[2 * i + 1]} for i in range(4)]
        events.append({"type": "RoundPaired", "round": number, "bye": None, "tables": tables})
        matches = {str(t["table"]): f"cup-r{number}-t{t['table']:02d}" for t in tables}
        events.append({"type": "RoundStarted", "round": number, "matches": matches})
        results.update({m: Result(True, "A" if n % 2 else None) for n, m in
                        enumerate(matches.values())})
    return events, results


def test_each_players_percentages_are_worked_out_once(monkeypatch):
    events, results = two_rounds()
    t = fold(events)
    expected = standings(t, results)
    calls: Counter[str] = Counter()
    for name in ("mwp", "gwp"):
        real = getattr(Record, name)

        def counted(self, real=real, name=name):
            calls[name] += 1
            return real.fget(self)
        monkeypatch.setattr(Record, name, property(counted))
    assert standings(t, results) == expected
    assert calls == {"mwp": len(PLAYERS), "gwp": len(PLAYERS)}
