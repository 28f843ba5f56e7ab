"""The ledger's exceptions: one root, one subclass per cause.

Messages say what went wrong, where (file, line, seq) and why, in one line.
"""


class LedgerError(Exception):
    """Root of every error the ledger raises."""


class MalformedEventError(LedgerError):
    """A line or event does not follow the format (bad JSON, unknown type, bad field)."""


class ConflictError(LedgerError):
    """An append's ``expected_seq`` is stale, or a match id is already taken."""


class IntegrityError(LedgerError):
    """The stored data was altered: a hash mismatch or a broken chain."""


class MatchNotFoundError(LedgerError):
    """No match with that id in the store."""
