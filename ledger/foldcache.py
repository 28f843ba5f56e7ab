"""A small bounded cache of folds, each kept under the version of the log it was folded from.

Each fold is kept with the version of the log it was folded from (a file's text digest, with
its identity, size, modification and change times as read -- trusted only once the file is
older than a file system clock's tick: :mod:`ledger.fileversion`; a table's row count and row
versions); a reader compares it with the log's version as it is now and uses the fold only
when they are equal, so a log another process appended to, cut or edited is read and folded
again, never served stale (:meth:`ledger.tournament.TournamentBook.load`).  The least
recently used fold goes first once ``size`` logs are kept.  Thread-safe; what is kept must
never be changed by a caller (the tournament book hands out copies:
:meth:`ledger.tournament.Tournament.copy`).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

T = TypeVar("T")
SIZE = 16  # logs kept (a server runs a few tournaments at once)


class FoldCache(Generic[T]):
    """Folds by key (a log's id), each valid for one version of its log."""

    def __init__(self, size: int = SIZE):
        self.size = size
        self._kept: OrderedDict[str, tuple[Hashable, T]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple[Hashable, T] | None:
        """The version of the log ``key``'s kept fold was folded from, and that fold (the
        caller compares the version with the log's as it is now)."""
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
            return found

    def put(self, key: str, version: Hashable, fold: T) -> None:
        """Keep ``fold`` as ``key``'s, folded from ``version`` of its log."""
        with self._lock:
            self._kept[key] = (version, fold)
            self._kept.move_to_end(key)
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)

    def __len__(self) -> int:
        return len(self._kept)
