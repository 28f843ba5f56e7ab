"""Warehouse rows of one State of Wonder match, by table name (for analytics).

Tables: ``matches`` (one row: who won, why, how many turns), ``card_games`` (one row per seat
and card name of its deck: played or not, won or not -- card win rates), ``sieges`` (one row
per ``PlayerBesieged``) and ``battles`` (one row per pitched battle or siege step fought).
A take-back (``TakenBack``) removes the events it undoes before anything is counted.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from ledger.codec import Stored
from ledger.events import Event, MatchEnded, MatchOpened, TakenBack
from replay.sow import events as ev


class SowMatchRow(msgspec.Struct):
    match_id: str
    game: str
    ruleset: str
    winner_seat: str | None
    winner_player: str | None
    reason: str | None
    turns: int


class SowCardGameRow(msgspec.Struct):
    match_id: str
    seat: str
    player: str
    card: str
    played: bool
    won: bool


class SowSiegeRow(msgspec.Struct):
    match_id: str
    seq: int
    turn: int
    attacker: str
    defender: str


class SowBattleRow(msgspec.Struct):
    match_id: str
    seq: int
    turn: int
    step: str  # "pitched" | "siege"
    attacker: str
    defender: str
    units: int
    destroyed: int


def effective(stored: Sequence[Stored]) -> list[tuple[int, Event]]:
    """The events that stand: each ``TakenBack`` drops the events after its ``to_seq``."""
    kept: list[tuple[int, Event]] = []
    for item in stored:
        if isinstance(item.event, TakenBack):
            kept = [(seq, e) for seq, e in kept if seq <= item.event.to_seq]
        else:
            kept.append((item.seq, item.event))
    return kept


def facts(stored: Sequence[Stored]) -> dict[str, list[msgspec.Struct]]:
    events = effective(stored)
    opened = next(e for _, e in events if isinstance(e, MatchOpened))
    players = {info.seat: info.player for info in opened.seats}
    ended = next((e for _, e in events if isinstance(e, MatchEnded)), None)
    winner = ended.winner if ended else None
    turns = max((e.number for _, e in events if isinstance(e, ev.TurnBegan)), default=0)
    # A State is in play from the setup; every other card once it is played.
    played = {(e.seat, e.name) for _, e in events
              if isinstance(e, (ev.CardPutIntoPlay, ev.StatePlaced))}
    cards: list[msgspec.Struct] = [
        SowCardGameRow(opened.match_id, info.seat, info.player, entry.card,
                       (info.seat, entry.card) in played, winner == info.seat)
        for info in opened.seats for entry in info.deck]
    return {
        "matches": [SowMatchRow(opened.match_id, "sow", opened.ruleset, winner,
                                players.get(winner) if winner else None,
                                ended.reason if ended else None, turns)],
        "card_games": cards,
        "sieges": _sieges(opened.match_id, events),
        "battles": _battles(opened.match_id, events),
    }


def _sieges(match_id: str, events: list[tuple[int, Event]]) -> list[msgspec.Struct]:
    rows: list[msgspec.Struct] = []
    turn = 0
    for seq, e in events:
        if isinstance(e, ev.TurnBegan):
            turn = e.number
        elif isinstance(e, ev.PlayerBesieged):
            rows.append(SowSiegeRow(match_id, seq, turn, e.attacker, e.defender))
    return rows


def _battles(match_id: str, events: list[tuple[int, Event]]) -> list[msgspec.Struct]:
    rows: list[msgspec.Struct] = []
    turn, current = 0, None
    for seq, e in events:
        if isinstance(e, ev.TurnBegan):
            turn = e.number
        elif isinstance(e, ev.AttackersDeclared):
            current = SowBattleRow(match_id, seq, turn, "pitched", e.seat, e.defender,
                                   len(e.units), 0)
        elif isinstance(e, ev.SiegeStepBegan):
            current = SowBattleRow(match_id, seq, turn, "siege", e.attacker, e.defender,
                                   len(e.units), 0)
        elif current is not None and isinstance(e, (ev.DefendersSent, ev.SiegeDefendersSent)):
            current.units += len(e.units)
        elif current is not None and isinstance(e, ev.CardDestroyed) and e.reason == "combat":
            current.destroyed += 1
        elif current is not None and isinstance(e, ev.BattleClosed):
            rows.append(current)
            current = None
    return rows
