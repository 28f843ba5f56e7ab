"""Small matches for the contract tests: a ``MatchOpened`` and batches of events that need
no rules engine (the stores don't run one)."""

from __future__ import annotations

from ledger.events import JudgeNote, MatchEnded, MatchOpened, SeatInfo


def opened(match_id: str = "m-1", players: tuple[str, str] = ("Ann", "Bob"), **meta) -> MatchOpened:
    return MatchOpened(match_id=match_id, ruleset="1.3.2",
                       seats=[SeatInfo("A", players[0]), SeatInfo("B", players[1])], **meta)


def notes(count: int, text: str = "n") -> list[JudgeNote]:
    return [JudgeNote("judge", f"{text}{i}") for i in range(count)]


def ended(winner: str = "A") -> list[MatchEnded]:
    return [MatchEnded(winner, "concession", {"A": 0, "B": 0})]
