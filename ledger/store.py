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


class TornTail(msgspec.Struct, frozen=True):
    """Bytes at the end of a match file that are not part of the log: a batch whose writer
    crashed mid-append (or, while a writer holds the file's lock, a batch being written).

    ``kind`` is ``"torn"`` (the file ends inside a line) or ``"cut"`` (every line is whole, but
    the last line's ``batch`` points past the end of the file).  ``line`` (1-based) and ``seq``
    are those of the unfinished batch's first line (``seq`` = the number of intact events);
    ``offset`` is the byte where the intact prefix ends and ``size`` the bytes after it.
    Readers leave it in place; the next writer truncates it under the lock.
    """

    kind: str
    line: int
    seq: int
    offset: int
    size: int

    def describe(self) -> str:
        what = "a partial last line" if self.kind == "torn" else "a batch whose last line is missing"
        return (f"{self.kind} final batch at line {self.line} (seq {self.seq}): {what}, "
                f"{self.size} bytes after the {self.seq} intact events (never acknowledged; "
                f"the next writer drops it)")


class MatchInfo(msgspec.Struct, frozen=True):
    """One row of a store listing: the match's opening metadata and its progress.

    ``length`` counts the events of whole batches; ``torn_tail`` says what follows them when
    the file ends in an unfinished batch (see :class:`TornTail`), else ``None``.
    """

    match_id: str
    opened: MatchOpened
    length: int
    ended: bool
    winner: str | None = None
    reason: str | None = None
    torn_tail: TornTail | None = None


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
        return sum(1 for _ in self.read(match_id))
