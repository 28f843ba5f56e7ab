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

The match comes as its lines (:class:`ledger.lines.MatchLines`, as the warehouse reads them)
or as events already read (``Stored``); of its lines only the envelopes (and each one's
``seat``) are decoded in one pass, and whole only the events the tables read
(:data:`_READ`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from ledger.codec import Stored
from ledger.events import Event, MatchEnded, MatchOpened, SeatInfo, TakenBack
from ledger.lines import Head, MatchLines
from ledger.registry import EVENT_TYPES, kind_of, load_games
from ledger.rows import (
    CardGameRow,
    DeckCardRow,
    EventRow,
    FileInfo,
    MatchRow,
    PlayerRow,
    card_counts,
    deck_hash,
)
from replay.sow import events as ev


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


class _Head(Head):
    """A line's envelope, its ``seat`` and a ``TakenBack``'s ``to_seq``."""

    seat: Any = None
    to_seq: Any = None


#: The event classes the tables read (an event of any other type is never decoded whole).
_READ = (MatchOpened, MatchEnded, ev.TurnBegan, ev.FirstPlayerDetermined, ev.CardPutIntoPlay,
         ev.StatePlaced, ev.PlayerBesieged, ev.AttackersDeclared, ev.SiegeStepBegan,
         ev.DefendersSent, ev.SiegeDefendersSent, ev.CardDestroyed, ev.BattleClosed,
         ev.InitiativeTossed)


class _Read:
    """A match's events as the tables see them: ``(seq, at, event)``, the event ``None``
    where its type is none the tables read."""

    def __init__(self, lines: MatchLines):
        load_games()
        self.lines = lines
        self.heads: list[_Head] = lines.heads(_Head) if len(lines) else []
        self.items = [(h.seq, h.at, lines.event(h.seq, h) if _is_read(h.type) else None)
                      for h in self.heads]

    def effective(self) -> list[tuple[int, Any]]:
        """:func:`effective` over the lines."""
        kept: list[tuple[int, Any]] = []
        for head, (seq, _at, event) in zip(self.heads, self.items, strict=True):
            if head.type == "TakenBack":
                kept = [(s, e) for s, e in kept if s <= head.to_seq]
            else:
                kept.append((seq, event))
        return kept


def _is_read(name: str) -> bool:
    cls = EVENT_TYPES.get(name)
    return cls is not None and issubclass(cls, _READ)


#: The game's own warehouse tables (registered with ``ledger.registry.register_analytics``).
TABLES: dict[str, type[msgspec.Struct]] = {"sow_sieges": SowSiegeRow, "sow_battles": SowBattleRow}


def facts(stored: MatchLines | Sequence[Stored], file: FileInfo | None = None,
          card_facts: object = None) -> dict[str, list[msgspec.Struct]]:
    """Every row of one match by table (its lines, or its events); ``file`` says where it was
    read from (``None``: the match has no file, e.g. in a test); ``card_facts`` (today's
    Wonders pool) is not used."""
    lines = stored if isinstance(stored, MatchLines) else MatchLines.from_stored(list(stored))
    read = _Read(lines)
    events = read.effective()
    opened = next(e for _, e in events if isinstance(e, MatchOpened))
    ended_at = next((at for _, at, e in read.items if isinstance(e, MatchEnded)), None)
    ended = next((e for _, e in events if isinstance(e, MatchEnded)), None)
    turns = _turns(events)
    first = next((e.seat for _, e in events if isinstance(e, ev.FirstPlayerDetermined)), None)
    return {
        "matches": [_match(read, opened, ended, ended_at, turns, first, file)],
        "players": [_player(opened, info, ended, first, _factions(opened))
                    for info in opened.seats],
        "deck_cards": [DeckCardRow(opened.match_id, info.seat, "deck", card, n)
                       for info in opened.seats for card, n in card_counts(info.deck).items()],
        "events": _event_rows(opened.match_id, read, {seq for seq, _ in events}),
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


def _match(read: _Read, opened: MatchOpened, ended: MatchEnded | None,
           ended_at: str | None, turns: dict[int, int], first: str | None,
           file: FileInfo | None) -> MatchRow:
    players = {info.seat: info.player for info in opened.seats}
    winner = ended.winner if ended else None
    coin = next((event.winner for _, _at, event in read.items
                 if isinstance(event, ev.InitiativeTossed)), None)
    heads = read.heads
    return MatchRow(
        opened.match_id, opened.game, file.name if file else f"{opened.match_id}.jsonl",
        file.size if file else 0, file.mtime_ns if file else 0, len(heads),
        read.lines.hash(len(heads) - 1),
        opened.tournament, opened.round, opened.table, opened.game_number, opened.ruleset,
        opened.format, opened.engine_version, heads[0].at, ended_at, ended is not None,
        max(turns.values(), default=0), coin, first, winner,
        players.get(winner) if winner else None, ended.reason if ended else None, None, None,
        sum(head.type == "TakenBack" for head in heads))


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


def _event_rows(match_id: str, read: _Read, kept: set[int]) -> list[msgspec.Struct]:
    rows: list[msgspec.Struct] = []
    turn = 0
    lines = read.lines
    for head, (seq, _at, event), digest, payload in zip(
            read.heads, read.items, lines.hashes(), lines.payloads(read.heads), strict=True):
        if isinstance(event, ev.TurnBegan) and seq in kept:
            turn = event.number
        seat = head.seat
        rows.append(EventRow(match_id, seq, head.type, kind_of(head.type), 0, turn,
                             seat if isinstance(seat, str) else None, head.at, head.batch,
                             digest, seq not in kept, msgspec.Raw(payload)))
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
    return rows
