"""The ledger's exceptions: one root, one subclass per cause.

Messages say what went wrong, where (file, line, seq) and why, in one line.  An error about a
stored match's data -- a line that fails a check, a file that ends where no match file may --
also carries where and why as fields (:class:`LedgerError`): the message is the operator's (it
names the server's file and may quote bytes of the line: hidden cards of a live match), and a
reader that answers someone else (the web service) says where from the fields alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self


@dataclass(frozen=True, slots=True)
class Where:
    """Where a stored line is: its ``file`` (a match file's path, or how a store names a
    match's data: ``<match>.jsonl`` in PostgreSQL) and 1-based ``line`` when known.  It reads
    as messages have always named it: ``file:line`` (``file`` alone without a line)."""

    file: str
    line: int | None = None

    def __str__(self) -> str:
        return self.file if self.line is None else f"{self.file}:{self.line}"


class LedgerError(Exception):
    """Root of every error the ledger raises.

    One about stored data says where and why beside its message: ``file`` and ``line``
    (:class:`Where`), ``seq`` where known and ``cause`` -- why, in the message's words (it may
    quote the line's bytes, as the message does).  ``None`` where not known, and for errors
    that are not about stored data (``file`` is ``None``: :attr:`is_stored_data` is false).
    """

    file: str | None = None
    line: int | None = None
    seq: int | None = None
    cause: str | None = None

    def __init__(self, message: str = "", *, where: Where | str | None = None,
                 seq: int | None = None, cause: str | None = None):
        super().__init__(message)
        if isinstance(where, Where):
            self.file, self.line = where.file, where.line
        elif where:
            self.file = where
        self.seq, self.cause = seq, cause

    @classmethod
    def at(cls, where: Where | str, seq: int | None, cause: str) -> Self:
        """The error of stored data at ``where`` (and ``seq``), message ``<where>: seq
        <seq>: <cause>`` (``<where>: <cause>`` without a seq)."""
        head = f"{where}: " if seq is None else f"{where}: seq {seq}: "
        return cls(head + cause, where=where, seq=seq, cause=cause)

    @property
    def is_stored_data(self) -> bool:
        """Whether this error is about a stored match's data (its fields say where)."""
        return self.file is not None


class MalformedEventError(LedgerError):
    """A line or event does not follow the format (bad JSON, unknown type, bad field)."""


class ConflictError(LedgerError):
    """An append's ``expected_seq`` is stale, or a match id is already taken."""

    #: The match whose id was found taken, when one of several creates met it
    #: (:meth:`ledger.store.Store.create_many`).
    match_id: str | None = None


class IntegrityError(LedgerError):
    """The stored data was altered: a hash mismatch or a broken chain."""


class NonCanonicalLineError(IntegrityError):
    """A line is not byte-identical to the canonical encoding of what it decodes to: a duplicate
    key, whitespace outside strings, a CRLF ending, bytes after the object, keys out of order.
    (Such a line may hash correctly -- a duplicate key after ``"hash"`` would silently rewrite
    the event -- so it is corruption, never read leniently.)"""


class NewerFormatError(LedgerError):
    """A line written by a newer program: an event type or schema version this program does not
    know.  Not corruption (the line is intact): this program is too old to read it."""


class MatchNotFoundError(LedgerError):
    """No match with that id in the store."""


class NotAMatchFileError(LedgerError):
    """An entry of a store directory named like a match file that is not a regular file: a
    directory, a FIFO, a socket, a device, a dangling symbolic link or a loop of them.  It is
    reported by name and never opened for reading (a FIFO would block the reader forever)."""


class StoreUnavailableError(LedgerError):
    """The store cannot be reached or opened: a database that refuses connections, a URL it
    does not understand, a driver that is not installed."""


class StoreClosedError(StoreUnavailableError):
    """The store was closed by this process (a server stopping): a reader still running --
    a live-follow stream woken by the close -- meets it.  Nothing went wrong, so nothing is
    worth a line in the server's log."""
