"""The ledger's exceptions: one root, one subclass per cause.

Messages say what went wrong, where (file, line, seq) and why, in one line.
"""


class LedgerError(Exception):
    """Root of every error the ledger raises."""


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
