"""One match held in memory while it is written, for writing it durably all at once.

A :class:`MatchBuffer` is a :class:`~ledger.store.Store` of a single match that keeps its
lines in memory: ``create`` and ``append`` encode exactly as every backend does
(:func:`~ledger.codec.encode_line`, :func:`~ledger.store.encode_batch`), so the buffer's
:meth:`~MatchBuffer.export_lines` are the bytes a durable store would have written batch by
batch.  Simulation's bulk mode (:func:`replay.simulate.simulate_matches` with ``bulk=True``)
records a whole match here, then hands the bytes to the real store's ``import_lines``: one
durable write of the finished file instead of one per batch.  Nothing in it is durable until
then; the live recorder never uses it (a seat is told of a decision only once it is on disk).
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator, Sequence

from ledger.codec import GENESIS, Stored, decode_line, encode_line, now_iso
from ledger.errors import ConflictError, MatchNotFoundError
from ledger.events import Event, MatchOpened
from ledger.store import Head, MatchInfo, Store, encode_batch, line_digest, stored_batch

__all__ = ["MatchBuffer"]


class MatchBuffer(Store):
    """The lines of one match, in memory (not durable; see the module docstring)."""

    url = ""

    def __init__(self, clock: Callable[[], str] = now_iso):
        self.clock = clock
        self.match_id: str | None = None
        self._lines: list[bytes] = []
        self._last_hash = GENESIS

    def _own(self, match_id: str) -> None:
        if match_id != self.match_id:
            raise MatchNotFoundError(f"no match {match_id!r} in this buffer "
                                     f"(it holds {self.match_id!r})")

    def create(self, opened: MatchOpened, at: str | None = None) -> Stored:
        if self.match_id is not None:
            raise ConflictError(f"this buffer already holds match {self.match_id!r}; "
                                f"it holds one match")
        line, self._last_hash = encode_line(opened, 0, at or self.clock(), 0, GENESIS)
        self.match_id = opened.match_id
        self._lines.append(line)
        return decode_line(line, f"buffer {opened.match_id}:1")

    def append(self, match_id: str, events: Sequence[Event], expected_seq: int,
               at: str | None = None) -> list[Stored]:
        self._own(match_id)
        if not events:
            return []
        length, last_hash, stamp = len(self._lines), self._last_hash, at or self.clock()
        lines, self._last_hash = encode_batch(match_id, events, expected_seq, length, last_hash,
                                              stamp)
        self._lines += lines
        # What a durable store's append returns for the same lines (it decodes each event once
        # and reads the envelope off the encoding, never re-checking what it just encoded).
        return stored_batch(lines, length, last_hash, stamp)

    def read(self, match_id: str, from_seq: int = 0) -> Iterator[Stored]:
        self._own(match_id)
        prev = None
        for n, line in enumerate(self._lines):
            stored = decode_line(line, f"buffer {match_id}:{n + 1}", prev)
            prev = stored.hash
            if n >= from_seq:
                yield stored

    def ids(self) -> builtins.list[str]:
        return [] if self.match_id is None else [self.match_id]

    def head(self, match_id: str) -> Head:
        self._own(match_id)
        return Head(len(self._lines), self._last_hash, sum(len(line) + 1 for line in self._lines),
                    line_digest(self._lines[-1]) if self._lines else "")

    def info(self, match_id: str) -> MatchInfo:
        raise NotImplementedError("a match buffer keeps no summaries; import it into a store")

    def export_lines(self, match_id: str) -> bytes:
        self._own(match_id)
        return b"".join(line + b"\n" for line in self._lines)

    def import_lines(self, data: bytes, where: str = "upload") -> Head:
        raise NotImplementedError("a match buffer is written by its recorder only")

    def follow(self, match_id: str, from_seq: int = 0, poll: float = 0.05,
               timeout: float | None = None) -> Iterator[Stored]:
        """What the buffer holds from ``from_seq``: nothing is appended while one reads it."""
        return self.read(match_id, from_seq)

    def discard(self, match_id: str) -> None:
        self._own(match_id)
        self.match_id, self._lines, self._last_hash = None, [], GENESIS
