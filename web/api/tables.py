"""The per-process cache of live tables: one recorder (and, lazily, one replay) per match.

A decision must not refold the whole match, so each worker keeps a :class:`Table` per match
it has touched: the :class:`~replay.recorder.Recorder` whose engine is at the pending prompt,
and a :class:`~replay.replayer.Replay` (built only when a view needs an earlier seq, e.g. a
delayed spectator view) that is extended with new events instead of rebuilt.

Another worker (thread or process) may append to the same match.  Before each use the table
compares the match file's size with the size it last saw; if the file grew by someone else's
batch the recorder is resumed from the store.  Writers to one match are serialised twice: a
lock per table inside the process, and the file store's ``flock`` + ``expected_seq`` check
across processes (a stale writer gets a conflict, and nothing is written).
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TypeVar

from ledger.codec import Stored
from ledger.filestore import FileStore
from replay.cards import CardDB
from replay.recorder import Recorder
from replay.replayer import Replay
from replay.state import GameState

T = TypeVar("T")


class Table:
    """One match as this process knows it; use it only inside :meth:`Tables.using`."""

    def __init__(self, store: FileStore, db: CardDB, match_id: str):
        self.store, self.db, self.match_id = store, db, match_id
        self.path = store.path(match_id)
        self.lock = threading.RLock()
        self.recorder = Recorder.resume(store, db, match_id)
        self.size = self._file_size()
        self._replay: Replay | None = None
        self._views: dict[tuple, bytes] = {}  # rendered views of the current length
        self._views_length = -1

    # -- freshness -------------------------------------------------------------------------

    def refresh(self) -> None:
        """Resume from the store if another writer appended since this table last looked."""
        size = self._file_size()
        if size == self.size:
            return
        if tail_length(self.path) != self.recorder.length:
            self.recorder = Recorder.resume(self.store, self.db, self.match_id)
        self.size = size

    def after_append(self) -> None:
        """Remember the file as our own append left it (unless someone appended right after)."""
        size = self._file_size()
        self.size = size if tail_length(self.path) == self.recorder.length else -1

    def _file_size(self) -> int:
        return os.stat(self.path).st_size

    # -- recording -------------------------------------------------------------------------

    def append(self, write: Callable[[Recorder], list[Stored]]) -> list[Stored]:
        """Run one recorder write; on any error (a stale seq is a ``ConflictError``) the table
        checks the file again before its next use, and the error goes on to the caller."""
        try:
            stored = write(self.recorder)
        except Exception:
            self.size = -1  # re-check the file before the next use (the recorder may have reloaded)
            raise
        self.after_append()
        return stored

    # -- reading ---------------------------------------------------------------------------

    def view(self, key: tuple, render: Callable[[], bytes]) -> bytes:
        """A rendered view of the match as it is now, computed once per length and ``key``
        (many readers poll the same state: a seat, the judge, spectators)."""
        if self._views_length != self.length:
            self._views, self._views_length = {}, self.length
        cached = self._views.get(key)
        if cached is None:
            cached = self._views[key] = render()
        return cached

    @property
    def length(self) -> int:
        return self.recorder.length

    @property
    def state(self) -> GameState:
        return self.recorder.engine.state

    def state_at(self, seq: int) -> GameState:
        """The state after event ``seq`` (folds the replay forward only as far as needed)."""
        if seq == self.length - 1:
            return self.state
        return self.replay().state_at(seq)

    def replay(self) -> Replay:
        if self._replay is None:
            self._replay = Replay(list(self.store.read(self.match_id)), self.db)
        elif len(self._replay) < self.length:
            self._replay.extend(list(self.store.read(self.match_id, len(self._replay))))
        return self._replay


class Tables:
    """The cache: match id → :class:`Table`, created on first use."""

    def __init__(self, store: FileStore, db: CardDB, capacity: int = 1000):
        self.store, self.db, self.capacity = store, db, capacity
        self._tables: OrderedDict[str, Table] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._tables)

    def using(self, match_id: str, work: Callable[[Table], T]) -> T:
        """Run ``work`` on the match's fresh table while holding its lock."""
        table = self._get(match_id)
        with table.lock:
            table.refresh()
            return work(table)

    def _get(self, match_id: str) -> Table:
        with self._lock:
            table = self._tables.get(match_id)
            if table is not None:
                self._tables.move_to_end(match_id)
                return table
        self.store.path(match_id)  # a malformed id fails here, before any file is touched
        fresh = Table(self.store, self.db, match_id)  # outside the cache lock: folding is slow
        with self._lock:
            table = self._tables.setdefault(match_id, fresh)
            while len(self._tables) > self.capacity:  # an evicted table is refolded on next use
                self._tables.popitem(last=False)
            return table

    def forget(self, match_id: str) -> None:
        with self._lock:
            self._tables.pop(match_id, None)


def tail_length(path: os.PathLike) -> int:
    """The number of events in a match file, read from its last complete line's ``seq``."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        chunk = min(size, 4096)
        while True:
            handle.seek(size - chunk)
            data = handle.read(chunk)
            end = data.rfind(b"\n")
            start = data.rfind(b"\n", 0, end) if end > 0 else -1
            if start >= 0 or chunk == size:
                break
            chunk = min(size, chunk * 4)
    if end < 0:
        return 0
    return int(json.loads(data[start + 1:end])["seq"]) + 1
