"""The match files a file store keeps open for appending: one descriptor and one lock per match.

Opening a match file by path, taking and dropping its lock by ``close`` and checking where it
ends cost a file store more per append than encoding the batch (issue 19).  So a
:class:`~ledger.filestore.FileStore` appends through an :class:`OpenFiles` table: per match
it has appended to, an open descriptor (``O_RDWR | O_APPEND | O_SYNC``, close-on-exec), a
:class:`threading.Lock` and where the file ended when the store last looked under its lock
(:attr:`OpenMatch.tail`, with the path's ``statx`` key then, :attr:`OpenMatch.expected`),
kept for the ``limit`` most recently used matches (the least recently used one is closed, after
any append in flight through it).

What it does not change (``ledger/filestore.py`` relies on it):

* **the file's lock is still taken per append**: the caller ``flock``-s the descriptor for its
  batch and unlocks it after the synced write (:mod:`ledger.gilcalls`: ``O_SYNC``, so the
  ``write`` returns once the batch is durable); a descriptor kept open holds no lock between
  appends, so other processes append as before;
* a ``flock`` belongs to the open file description, which every thread of a process using one
  descriptor shares (and would not exclude one another): so one thread at a time appends
  through a descriptor, holding :attr:`OpenMatch.lock` (:meth:`OpenFiles.take`);
* a forked child shares its parent's open file descriptions too (their locks would not exclude
  each other): after a fork the child forgets every table's descriptors (closing its copies
  only; the parent's locks and files are untouched) and opens its own;
* a descriptor is written only while the match's path names its file: the caller compares the
  path's ``statx`` (under the file's lock, :attr:`OpenMatch.probe`) with
  :attr:`OpenMatch.inode`; a file removed,
  replaced or moved away (a discard, an orphan swept to ``.orphans/``, an operator's ``mv``)
  is let go and the path opened again (:meth:`OpenFiles.reopen`).
"""

from __future__ import annotations

import itertools
import os
import threading
import weakref
from collections.abc import Callable
from operator import attrgetter

from ledger.gilcalls import SYNC_FLAG, Key, PathProbe

__all__ = ["OpenFiles", "OpenMatch"]

_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC | SYNC_FLAG  # each write durable on return


class OpenMatch:
    """One match file open for appending; use it only while holding :attr:`lock`."""

    __slots__ = ("closed", "expected", "fd", "inode", "lock", "match_id", "path", "probe", "tail",
                 "used")

    def __init__(self, match_id: str, path: str, fd: int):
        self.match_id, self.path = match_id, path
        #: Which file the path names now (asked under the file's lock before each append).
        self.probe = PathProbe(path)
        self.lock = threading.Lock()
        self.closed = False
        self.fd, self.inode = fd, _inode(fd)
        #: Where the file ended when this store last appended to it or read its end under
        #: its lock: (size, length, last hash).
        self.tail: tuple[int, int, str] | None = None
        #: What :meth:`PathProbe.key` of the path gives while the file is as that append left
        #: it (inode, size, device major, minor); ``None`` while :attr:`tail` is.
        self.expected: Key | None = None
        #: When it was last taken (a tick of its table): the least recently used is closed.
        self.used = 0


_used = attrgetter("used")


class OpenFiles:
    """A bounded table of :class:`OpenMatch`, the least recently used closed first;
    thread-safe.

    Taking a match that is open costs no table-wide lock (20 threads appending to 20 matches
    would queue on it): the entry is looked up with one ``dict.get`` (atomic under the GIL)
    and stamped with a tick of the table's counter (:attr:`OpenMatch.used`).  The guard is
    taken only to add, evict or drop entries; the victim of an eviction is the entry with the
    oldest stamp."""

    def __init__(self, path_of: Callable[[str], str], limit: int = 256):
        if limit < 1:
            raise ValueError(f"an open-files table holds at least one file, not {limit}")
        self._path_of = path_of
        self.limit = limit
        self._guard = threading.Lock()  # guards changes to the table; never held during I/O
        self._open: dict[str, OpenMatch] = {}
        self._ticks = itertools.count(1)  # next() on it is atomic under the GIL
        self._finalizer = weakref.finalize(self, _close_all, self._open)
        _TABLES.add(self)

    def take(self, match_id: str) -> OpenMatch:
        """The open file of a match, its :attr:`~OpenMatch.lock` held by the caller (give it
        back with :meth:`give`).  ``FileNotFoundError`` if the match has no file."""
        entry = self._open.get(match_id)
        while True:
            if entry is None:
                entry = self._entry(match_id)
            entry.lock.acquire()
            if not entry.closed:
                entry.used = next(self._ticks)
                return entry
            entry.lock.release()  # closed (evicted, forgotten) while we waited: open again
            entry = None

    @staticmethod
    def give(entry: OpenMatch) -> None:
        entry.lock.release()

    def reopen(self, entry: OpenMatch) -> None:
        """Open a held entry's path again (its file was removed or replaced); the old
        descriptor is closed and what was known of the file forgotten.  If there is no file
        at the path any more, the entry is dropped from the table and ``FileNotFoundError``
        raised."""
        os.close(entry.fd)
        entry.tail = entry.expected = None
        try:
            entry.fd = os.open(entry.path, _FLAGS)
            entry.inode = _inode(entry.fd)
        except FileNotFoundError:
            entry.closed = True
            with self._guard:
                if self._open.get(entry.match_id) is entry:
                    del self._open[entry.match_id]
            raise

    def forget(self, match_id: str) -> None:
        """Close a match's descriptor (after any append in flight through it)."""
        with self._guard:
            entry = self._open.pop(match_id, None)
        if entry is not None:
            _close(entry)

    def close(self) -> None:
        """Close every descriptor (each after any append in flight through it)."""
        with self._guard:
            entries = list(self._open.values())
            self._open.clear()
        for entry in entries:
            _close(entry)

    def __len__(self) -> int:
        return len(self._open)

    def _entry(self, match_id: str) -> OpenMatch:
        """The table's entry of a match, opened and added if it has none (evicting the least
        recently used entry if the table is full)."""
        entry = self._open.get(match_id)
        if entry is not None:
            return entry
        path = self._path_of(match_id)
        fresh = OpenMatch(match_id, path, os.open(path, _FLAGS))  # unguarded: other matches go on
        fresh.used = next(self._ticks)
        with self._guard:
            entry = self._open.setdefault(match_id, fresh)
            evicted = None
            if len(self._open) > self.limit:
                evicted = min((e for e in self._open.values() if e is not fresh), key=_used)
                del self._open[evicted.match_id]
        if entry is not fresh:
            os.close(fresh.fd)  # another thread opened the match first: use its descriptor
        if evicted is not None:
            _close(evicted)
        return entry

    def _forget_after_fork(self) -> None:
        """In a forked child: drop the parent's descriptors (closing the child's copies, which
        leaves the parent's locks alone) with locks that no thread of the child holds."""
        self._guard = threading.Lock()
        for entry in self._open.values():
            entry.closed = True
            os.close(entry.fd)
        self._open.clear()


def _inode(fd: int) -> tuple[int, int]:
    stat = os.fstat(fd)
    return stat.st_dev, stat.st_ino


def _close(entry: OpenMatch) -> None:
    with entry.lock:
        if not entry.closed:
            entry.closed = True
            os.close(entry.fd)


def _close_all(table: dict[str, OpenMatch]) -> None:
    """When a table is garbage-collected: close what it still holds."""
    for entry in table.values():
        if not entry.closed:
            entry.closed = True
            os.close(entry.fd)
    table.clear()


_TABLES: weakref.WeakSet[OpenFiles] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for table in list(_TABLES):
        table._forget_after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)
