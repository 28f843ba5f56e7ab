"""A recorded match as recorded: any point of it by folding its events, never the engine.

Viewing = folding recorded events (DESIGN.md sections 2 and 4).  A :class:`Timeline` folds a
match file of schema 3 once, keeping a snapshot every ``every`` events (and at every point a
take-back returns to), so :meth:`Timeline.state_at` thaws the nearest snapshot and folds at
most ``every - 1`` events.  It also indexes the addresses people use (rounds, turns,
battles).  It does not check that the rules allow what was recorded: that is ``verify``'s
job (:class:`~replay.replayer.Replay`); a match the current engine disagrees with is still
shown as recorded.

Files of schema ≤ 2 did not record every change of state; :func:`open_timeline` shows them
by re-deriving them through the engine (:class:`~replay.replayer.Replay`), which offers the
same reading interface.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from ledger.codec import Stored
from ledger.events import Event, MatchOpened, TakenBack
from replay.game import Game
from replay.games import game_of
from replay.index import Index
from replay.reading import Reading
from replay.replayer import Replay


class TimelineError(ValueError):
    """A match log that can't be folded (it does not start with ``MatchOpened``, or a
    take-back names a seq that is not earlier)."""


class Timeline:
    """One match log, folded; grows with :meth:`extend` as a live match is recorded."""

    def __init__(self, events: Sequence[Stored] | Sequence[Event], every: int = 32):
        listed = [e.event if isinstance(e, Stored) else e for e in events]
        if not listed or not isinstance(listed[0], MatchOpened):
            raise TimelineError("a match log starts with MatchOpened")
        self.opened: MatchOpened = listed[0]
        self.match_id = self.opened.match_id
        self.game: Game = game_of(self.opened)
        self.every = max(1, every)
        self.events: list[Event] = []
        self.index = Index(self.game)
        self._snapshots: dict[int, bytes] = {}
        self._keys: list[int] = []
        self._state = self.game.initial_state(self.opened)
        self._append(self.opened)
        self.extend(listed[1:])

    def __len__(self) -> int:
        return len(self.events)

    @property
    def state(self) -> Any:
        """The state after the last event (the live state; do not change it)."""
        return self._state

    def extend(self, new_events: Sequence[Stored] | Sequence[Event]) -> None:
        """Fold more events (a live match growing)."""
        for item in new_events:
            event = item.event if isinstance(item, Stored) else item
            seq = len(self.events)
            if isinstance(event, TakenBack):
                if not 0 <= event.to_seq < seq:
                    raise TimelineError(f"{self.match_id} seq {seq}: take-back to seq "
                                        f"{event.to_seq}, which is not earlier")
                self._state = self.state_at(event.to_seq)
            else:
                self.game.evolve(self._state, event)
            self._append(event)

    def _append(self, event: Event) -> None:
        seq = len(self.events)
        self.events.append(event)
        if type(event) in self.game.address_types:  # no other event starts a place
            self.index.see(seq, event)
        if seq % self.every == 0:
            self._snapshots[seq] = self.game.freeze(self._state)
            self._keys.append(seq)

    def state_at(self, seq: int) -> Any:
        """The state once event ``seq`` has happened (a fresh copy)."""
        if not 0 <= seq < len(self.events):
            raise IndexError(f"seq {seq} is outside 0..{len(self.events) - 1}")
        if seq == len(self.events) - 1:
            return self.game.clone(self._state)
        k = self._keys[bisect.bisect_right(self._keys, seq) - 1]
        state = self.game.thaw(self._snapshots[k])
        for n in range(k + 1, seq + 1):
            event = self.events[n]
            if isinstance(event, TakenBack):
                state = self.state_at(event.to_seq)
            else:
                self.game.evolve(state, event)
        return state


def is_complete(opened: MatchOpened) -> bool:
    """Whether a match's file records every change of state (schema 3 and later)."""
    return opened.schema_version >= 3


def open_timeline(events: Sequence[Stored] | Sequence[Event], db: Any = None) -> Reading:
    """The reading of a match: a :class:`Timeline` from schema 3; for older files the
    engine's re-derivation (:class:`~replay.replayer.Replay`, with the card pool ``db``)."""
    first = events[0].event if isinstance(events[0], Stored) else events[0]
    if isinstance(first, MatchOpened) and is_complete(first):
        return Timeline(events)
    return Replay(events, db)
