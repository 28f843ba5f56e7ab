"""The store API every backend implements (DESIGN.md section 5).

A store holds streams of events, one per match.  Appends are optimistic: the caller says
which seq its first event will get (``expected_seq`` = the stream's current length); a
stale writer gets a :class:`~ledger.errors.ConflictError` and nothing is written.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator, Sequence

import msgspec

from ledger.codec import Stored
from ledger.events import Event, MatchOpened


class MatchInfo(msgspec.Struct, frozen=True):
    """One row of a store listing: the match's opening metadata and its progress."""

    match_id: str
    opened: MatchOpened
    length: int
    ended: bool
    winner: str | None = None
    reason: str | None = None


class Store(abc.ABC):
    """Append-only streams of match events."""

    @abc.abstractmethod
    def create(self, opened: MatchOpened, at: str | None = None) -> Stored:
        """Start a stream with its ``MatchOpened`` event (seq 0); durable on return."""

    @abc.abstractmethod
    def append(self, match_id: str, events: Sequence[Event], expected_seq: int,
               at: str | None = None) -> list[Stored]:
        """Append ``events`` atomically as one batch starting at ``expected_seq``."""

    @abc.abstractmethod
    def read(self, match_id: str, from_seq: int = 0) -> Iterator[Stored]:
        """The stream's events from ``from_seq`` on, checked against the hash chain."""

    @abc.abstractmethod
    def list(self) -> list[MatchInfo]:
        """Every match in the store with its metadata."""

    @abc.abstractmethod
    def follow(self, match_id: str, from_seq: int = 0, poll: float = 0.05,
               timeout: float | None = None) -> Iterator[Stored]:
        """Yield events from ``from_seq`` as they are appended; stops after ``timeout`` idle
        seconds (never, if ``None``) or once ``MatchEnded`` has been yielded."""

    def length(self, match_id: str) -> int:
        """The number of events in a stream (the next ``expected_seq``)."""
        count = 0
        for count, _ in enumerate(self.read(match_id), start=1):
            pass
        return count
