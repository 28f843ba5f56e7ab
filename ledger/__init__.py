"""What happened: the typed events of a match, their codec and the append-only stores.

The ledger never imports the rules engine (``replay``) or the web layer (``web``).
"""

from ledger.codec import Stored, decode_line, encode_line
from ledger.errors import (
    ConflictError,
    IntegrityError,
    LedgerError,
    MalformedEventError,
    MatchNotFoundError,
    NewerFormatError,
    NonCanonicalLineError,
)
from ledger.filestore import FileStore, TornTailWarning
from ledger.store import Head, MatchInfo, Store, TornTail
from ledger.stores import open_store

__all__ = [
    "ConflictError", "FileStore", "Head", "IntegrityError", "LedgerError", "MalformedEventError",
    "MatchInfo", "MatchNotFoundError", "NewerFormatError", "NonCanonicalLineError", "Store",
    "Stored", "TornTail", "TornTailWarning", "decode_line", "encode_line", "open_store",
]
