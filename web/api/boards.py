"""The board of a table at a seq, from a perspective: the head's through the engine's kept view.

A board is drawn from a state through the game's view of it (:class:`replay.wotf.queries.View`:
powers, keywords in force, the cards in each realm).  A fresh view works every fact out again;
for the head of a match the table already holds an engine at exactly that state -- the
recorder's, or this process's re-derivation (:meth:`web.api.tables.Table.engine`) -- whose view
the engine keeps current event by event (``Engine.emit`` tells it what each event may have
changed), and which the engine itself asked most of those facts while deriving the last batch.
So the head's board is drawn from the engine's state through the engine's view; any other seq
(a past one, the public's delayed horizon) and a match the engine disagrees with get a fresh
view of the folded state, as before.  The picture is the same either way
(tests/replay/test_board_kept_view.py after every event of whole matches,
tests/web/test_board_kept_view.py through a real server after decisions and take-backs).

A game offers it as the optional ``head_board`` / ``head_known`` members of its :class:`Game`
(as it offers ``known``); a game whose engine keeps no view (State of Wonder's ``View`` keeps
nothing between questions) has none and is drawn as before, through ``Game.board``.
"""

from __future__ import annotations

from typing import Any

from replay.replayer import Replay
from web.api.tables import Table

Board = dict[str, Any]
Known = dict[str, list[dict[str, Any]]]


def head_engine(table: Table, seq: int) -> Any | None:
    """The engine whose state is the match's at ``seq`` and whose view is kept current, or
    ``None``: ``seq`` is not the head, the game draws no board through an engine, or today's
    engine disagrees with the record (then the folded state is drawn)."""
    if seq != table.length - 1 or getattr(table.game, "head_board", None) is None:
        return None
    reading = table.timeline
    if isinstance(reading, Replay):  # schema <= 2: the state read is this re-derivation's own
        return reading.engine
    return table.engine()


def board_at(table: Table, seq: int, perspective: str) -> Board:
    """The board at ``seq`` from ``perspective`` (the game may show an earlier seq's: inside
    the moves of a group buried in an order the perspective may not know, R46)."""
    shown = getattr(table.game, "board_seq", None)
    if shown is not None:
        seq = shown(table.events, seq, perspective)
    engine = head_engine(table, seq)
    if engine is not None:
        return table.game.head_board(engine, perspective)  # type: ignore[attr-defined]
    return table.game.board(table.state_at(seq), table.cards, perspective)


def known_at(table: Table, seq: int, perspective: str) -> Known:
    """Per seat, the hidden cards ``perspective`` was shown by a manual reveal or look and
    still knows at ``seq`` (``{}`` for a game without them, and for the omniscient view)."""
    known = getattr(table.game, "known", None)
    if known is None or perspective == "omniscient":
        return {}
    events = table.events[:seq + 1]
    engine = head_engine(table, seq)
    if engine is not None:
        return table.game.head_known(engine, perspective, events)  # type: ignore[attr-defined]
    return known(table.state_at(seq), table.cards, perspective, events)
