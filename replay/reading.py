"""What a viewer reads from a match, whoever computes it: the :class:`Reading` protocol.

A schema-3 file is read by folding (:class:`replay.timeline.Timeline`); a file of schema ≤ 2 by
re-deriving it through its game's engine (:class:`replay.replayer.Replay`).  Both offer this.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ledger.codec import Stored
from ledger.events import Event, MatchOpened
from replay.game import Game
from replay.index import Index


class Reading(Protocol):
    """What a viewer reads from a match: its events, the state at any seq, and an index
    (a :class:`Timeline`, or for a file of schema ≤ 2 the engine's :class:`Replay`)."""

    events: list[Event]
    opened: MatchOpened
    match_id: str
    game: Game

    @property
    def index(self) -> Index: ...

    def __len__(self) -> int: ...

    def state_at(self, seq: int) -> Any: ...

    def extend(self, new_events: Sequence[Stored] | Sequence[Event]) -> None: ...
