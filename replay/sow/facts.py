"""Warehouse rows of one State of Wonder match, by table name (for analytics).

The shared tables every game fills (:mod:`ledger.rows`) -- ``matches`` (``game = "sow"``: who
won, why; ``rounds_played`` counts turns, the game has no rounds), ``players``, ``deck_cards``,
``events`` and ``card_games`` (one row per seat and card of its deck: the whole deck is the
hand from the start, so ``opening`` and ``in_hand`` are true; ``played``; the turn of its
first play in ``first_round_played``) -- so card win rates and the other shared statistics work
as for any game; and the game's own: ``sow_sieges`` (one row per ``PlayerBesieged``) and
``sow_battles`` (one row per pitched battle or siege step fought).  A take-back
(``TakenBack``) removes the events it undoes before anything is counted (the ``events`` table
keeps every event, marked ``retracted``).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from ledger.codec import Stored
from ledger.events import Event, MatchEnded, MatchOpened, SeatInfo, TakenBack
from ledger.line import line_of
from ledger.registry import kind_of
from ledger.rows import (
    CardGameRow,
    DeckCardRow,
    EventRow,
    FileInfo,
    MatchRow,
    PlayerRow,
    card_counts,
    deck_hash,
    event_seat,
    tournament_id_of,
)
from replay.sow import events as ev

#: The rows revision of these facts (docs/analytics.md, "Rows revision"): bump it whenever the
#: same events give other rows, so that a warehouse re-derives the matches it ingested before.
#: 1 (never recorded: a warehouse holds NULL) -- every revision before the column existed;
#: 2 -- ``events.seat`` falls back to ``attacker``/``owner``/``controller``; a match whose end
#: a take-back retracted has no ``ended_at``; ``coin_winner`` from the toss in force;
#: 3 -- ``sow_battles`` counts the step the match ended in (the siege step in which a State was
#: destroyed has no ``BattleClosed``, and was left out);
#: 4 -- the events in force follow :mod:`ledger.line` (a redo puts the line it returns to back
#: in force), and a take-back still in force is not ``retracted`` (every one was before);
#: 5 -- ``matches.tournament_id`` (:func:`ledger.rows.tournament_id_of`): a tournament's name
#: is not unique, its id is.
ROWS_REVISION = 5


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


def standing(stored: Sequence[Stored]) -> list[tuple[int, Event]]:
    """The events that stand: the line the match stands on after its take-backs
    (:mod:`ledger.line`: a take-back returns to the state after its ``to_seq``), the
    take-backs on it included."""
    events = [item.event for item in stored]
    return [(stored[seq].seq, events[seq]) for seq in line_of(events)]


#: The game's own warehouse tables (registered with ``ledger.registry.register_analytics``).
TABLES: dict[str, type[msgspec.Struct]] = {"sow_sieges": SowSiegeRow, "sow_battles": SowBattleRow}


def facts(stored: Sequence[Stored], file: FileInfo | None = None,
          card_facts: object = None) -> dict[str, list[msgspec.Struct]]:
    """Every row of one match by table; ``file`` says where it was read from (``None``: the
    match has no file, e.g. in a test); ``card_facts`` (today's Wonders pool) is not used."""
    line = standing(stored)
    events = [(seq, e) for seq, e in line if not isinstance(e, TakenBack)]
    opened = next(e for _, e in events if isinstance(e, MatchOpened))
    ended_seq, ended = next(((seq, e) for seq, e in events if isinstance(e, MatchEnded)),
                            (None, None))
    # The time of the end in force: a MatchEnded a take-back retracted ended nothing.
    ended_at = next((item.at for item in stored if item.seq == ended_seq), None)
    turns = _turns(events)
    first = next((e.seat for _, e in events if isinstance(e, ev.FirstPlayerDetermined)), None)
    return {
        "matches": [_match(stored, events, opened, ended, ended_at, turns, first, file)],
        "players": [_player(opened, info, ended, first, _factions(opened))
                    for info in opened.seats],
        "deck_cards": [DeckCardRow(opened.match_id, info.seat, "deck", card, n)
                       for info in opened.seats for card, n in card_counts(info.deck).items()],
        "events": _event_rows(opened.match_id, stored, {seq for seq, _ in line}),
        "card_games": _card_games(opened, events),
        "sow_sieges": _sieges(opened.match_id, events),
        "sow_battles": _battles(opened.match_id, events),
    }


def _turns(events: list[tuple[int, Event]]) -> dict[int, int]:
    """seq -> the number of the turn it happened in (0 before the first)."""
    out: dict[int, int] = {}
    turn = 0
    for seq, e in events:
        if isinstance(e, ev.TurnBegan):
            turn = e.number
        out[seq] = turn
    return out


def _match(stored: Sequence[Stored], events: list[tuple[int, Event]], opened: MatchOpened,
           ended: MatchEnded | None, ended_at: str | None, turns: dict[int, int],
           first: str | None, file: FileInfo | None) -> MatchRow:
    """The ``matches`` row, from the events in force (``stored``: the envelope's columns)."""
    players = {info.seat: info.player for info in opened.seats}
    winner = ended.winner if ended else None
    coin = next((e.winner for _, e in events if isinstance(e, ev.InitiativeTossed)), None)
    return MatchRow(
        opened.match_id, opened.game, file.name if file else f"{opened.match_id}.jsonl",
        file.size if file else 0, file.mtime_ns if file else 0, len(stored), stored[-1].hash,
        opened.tournament, opened.round, opened.table, opened.game_number, opened.ruleset,
        opened.format, opened.engine_version, stored[0].at, ended_at, ended is not None,
        max(turns.values(), default=0), coin, first, winner,
        players.get(winner) if winner else None, ended.reason if ended else None, None, None,
        sum(isinstance(item.event, TakenBack) for item in stored),
        tournament_id=tournament_id_of(opened))


def _factions(opened: MatchOpened) -> dict[str, str]:
    """State card name -> its faction, from the cards the match recorded."""
    return {card["name"]: str(card.get("faction", "")) for card in opened.cards
            if card.get("type") == "state"}


def _player(opened: MatchOpened, info: SeatInfo, ended: MatchEnded | None,
            first: str | None, factions: dict[str, str]) -> PlayerRow:
    """A seat's row; its archetype (``main_orbitals``) is its State's faction -- a deck's
    faction cards all share it (deck building: "only use faction cards from the same faction
    as your state")."""
    result = None if ended is None else ("draw" if ended.winner is None else
                                         "win" if ended.winner == info.seat else "loss")
    faction = next((factions[e.card] for e in info.deck if e.card in factions), "")
    return PlayerRow(opened.match_id, info.seat, info.player, info.deck_name, deck_hash(info.deck), 0,
                     faction, None if first is None else first == info.seat, result)


def _card_games(opened: MatchOpened, events: list[tuple[int, Event]]) -> list[msgspec.Struct]:
    """One row per seat and distinct card of its deck.  A State is in play from the setup;
    every other card once it is played; ``first_round_played`` is the turn of its first play."""
    turn, first_play = 0, dict[tuple[str, str], int]()
    for _, e in events:
        if isinstance(e, ev.TurnBegan):
            turn = e.number
        elif isinstance(e, (ev.CardPutIntoPlay, ev.StatePlaced)):
            first_play.setdefault((e.seat, e.name), turn)
    return [CardGameRow(opened.match_id, info.seat, card, n, True, True,
                        (info.seat, card) in first_play, first_play.get((info.seat, card)))
            for info in opened.seats for card, n in card_counts(info.deck).items()]


def _event_rows(match_id: str, stored: Sequence[Stored], kept: set[int]) -> list[msgspec.Struct]:
    rows: list[msgspec.Struct] = []
    turn = 0
    for item in stored:
        event = item.event
        if isinstance(event, ev.TurnBegan) and item.seq in kept:
            turn = event.number
        name = type(event).__name__
        rows.append(EventRow(match_id, item.seq, name, kind_of(name), 0, turn,
                             event_seat(event), item.at, item.batch,
                             item.hash, item.seq not in kept,
                             msgspec.Raw(msgspec.json.encode(event))))
    return rows


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
        elif current is not None and isinstance(e, MatchEnded):
            rows.append(current)  # the step the match ended in (a State destroyed) was fought
            current = None
    return rows
