"""The match files a file store keeps open for appending: one descriptor, one lock and one
lease per match.

Opening a match file by path, taking and dropping its lock by ``close`` and checking where it
ends cost a file store more per append than encoding the batch (issue 19).  So a
:class:`~ledger.filestore.FileStore` appends through an :class:`OpenFiles` table: per match
it has appended to, an open descriptor (``O_RDWR | O_APPEND | O_SYNC``, close-on-exec), a
:class:`threading.Lock` and where the file ended when the store last looked under its lock
(:attr:`OpenMatch.tail`, with the path's ``statx`` key then, :attr:`OpenMatch.expected`),
kept for the ``limit`` most recently used matches (the least recently used one is closed, after
any append in flight through it).

What it does (``ledger/filestore.py`` relies on it):

* **a lease per match**: the caller ``flock``-s the descriptor for its batch and, once the
  batch is written (:mod:`ledger.gilcalls`: ``O_SYNC``, so the ``write`` returns once the
  batch is durable), may keep the lock (:meth:`OpenFiles.keep_lease`): while
  :attr:`OpenMatch.leased`, no other process's writer can append to the file, so this
  store's next append trusts :attr:`OpenMatch.tail` without taking the lock or looking at the
  path again.  A releaser thread (one per table, running only while a lease is held) lets go
  of a lease once its match had no append for a whole tick of ``lease`` seconds (so 1-2
  ticks after its last append), and of any lease held for :data:`LEASE_TICKS` ticks however
  busy its match (then it holds back this process's next append to it for a fifth of a tick,
  so a process waiting for the lock gets it); closing or evicting an
  entry lets go of it too.  ``lease=0`` keeps no lease: the lock is dropped after each
  append, as before leases;
* a ``flock`` belongs to the open file description, which every thread of a process using one
  descriptor shares (and would not exclude one another): so one thread at a time appends
  through a descriptor, holding :attr:`OpenMatch.lock` (:meth:`OpenFiles.take`);
* a forked child shares its parent's open file descriptions too (their locks would not exclude
  each other): after a fork the child forgets every table's descriptors (closing its copies
  only; the parent's locks, leases and files are untouched) and opens its own;
* when it takes the lock (no lease held), the caller compares the path's ``statx``
  (:attr:`OpenMatch.probe`) with :attr:`OpenMatch.inode`; a file removed, replaced or moved
  away (a discard, an orphan swept to ``.orphans/``, an operator's ``mv``) is let go and the
  path opened again (:meth:`OpenFiles.reopen`).  While a lease is held the path is not
  looked at: a process that removes or moves a match file takes its lock first
  (:meth:`ledger.filestore.FileStore.discard` does), and so waits for the lease.
"""

from __future__ import annotations

import fcntl
import itertools
import os
import threading
import time
import weakref
from collections.abc import Callable
from operator import attrgetter

from ledger.gilcalls import SYNC_FLAG, Key, PathProbe

__all__ = ["LEASE", "LEASE_TICKS", "OpenFiles", "OpenMatch"]

#: The releaser's tick (seconds): a match's lease is let go after a whole tick without an
#: append to it -- another process appending to the same match waits at most about two.
LEASE = 0.005
#: A lease is let go after this many ticks even while its match is appended to all along (a
#: process waiting for the file's lock gets its turn).
LEASE_TICKS = 20

_FLAGS = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC | SYNC_FLAG  # each write durable on return


class OpenMatch:
    """One match file open for appending; use it only while holding :attr:`lock`."""

    __slots__ = ("closed", "expected", "fd", "held", "inode", "leased", "lock", "match_id", "path",
                 "probe", "seen", "tail", "used")

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
        #: Whether this process keeps the file's ``flock`` between appends (a lease:
        #: :meth:`OpenFiles.keep_lease`); set and cleared only by the holder of :attr:`lock`.
        self.leased = False
        #: The releaser's bookkeeping: :attr:`used` at its last tick, and the ticks leased.
        self.seen, self.held = -1, 0


_used = attrgetter("used")


class OpenFiles:
    """A bounded table of :class:`OpenMatch`, the least recently used closed first;
    thread-safe.

    Taking a match that is open costs no table-wide lock (20 threads appending to 20 matches
    would queue on it): the entry is looked up with one ``dict.get`` (atomic under the GIL)
    and stamped with a tick of the table's counter (:attr:`OpenMatch.used`).  The guard is
    taken only to add, evict or drop entries; the victim of an eviction is the entry with the
    oldest stamp."""

    def __init__(self, path_of: Callable[[str], str], limit: int = 256, lease: float = LEASE):
        if limit < 1:
            raise ValueError(f"an open-files table holds at least one file, not {limit}")
        if lease < 0:
            raise ValueError(f"a lease lasts 0 seconds or more, not {lease}")
        self._path_of = path_of
        self.limit = limit
        #: The releaser's tick (0: no leases are kept).
        self.lease = lease
        self._releaser: threading.Thread | None = None  # running while a lease is held
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

    def keep_lease(self, entry: OpenMatch) -> None:
        """Keep a held entry's ``flock`` (the caller holds :attr:`OpenMatch.lock` and the
        file's lock) after its append: the releaser lets go of it (module docstring)."""
        with self._guard:  # (only when a lease starts, not on each leased append)
            entry.leased, entry.seen, entry.held = True, entry.used, 0
            if self._releaser is None:
                self._releaser = threading.Thread(
                    target=_release_leases, args=(weakref.ref(self), self.lease),
                    name="ledger-lease-releaser", daemon=True)
                self._releaser.start()

    def _release_idle(self) -> bool:
        """One tick of the releaser: let go of each lease whose match had no append since
        the last tick, or that was held :data:`LEASE_TICKS` ticks; whether any lease is still
        held (else the releaser stops, under the guard: a lease starting meanwhile starts
        another)."""
        still = False
        for entry in list(self._open.values()):
            if not entry.leased:
                continue
            entry.held += 1
            busy, entry.seen = entry.used != entry.seen, entry.used
            if busy and entry.held < LEASE_TICKS:
                still = True
                continue
            # idle a whole tick, or held too long: let go
            if not entry.lock.acquire(timeout=self.lease):
                still = True  # an append is in flight through it: next tick
                continue
            try:
                drop_lease(entry)
                if busy:  # held too long by a busy match: a process woken from waiting
                    time.sleep(self.lease / 5)  # for the lock takes it before our next append
            finally:
                entry.lock.release()
        if still:
            return True
        with self._guard:
            if any(entry.leased for entry in self._open.values()):
                return True
            self._releaser = None
            return False

    def reopen(self, entry: OpenMatch) -> None:
        """Open a held entry's path again (its file was removed or replaced); the old
        descriptor is closed and what was known of the file forgotten.  If there is no file
        at the path any more, the entry is dropped from the table and ``FileNotFoundError``
        raised."""
        os.close(entry.fd)  # (its lock and any lease with it)
        entry.tail = entry.expected = None
        entry.leased = False
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
        leaves the parent's locks and leases alone) with locks that no thread of the child
        holds (the parent's releaser thread is not in the child)."""
        self._guard = threading.Lock()
        self._releaser = None
        for entry in self._open.values():
            entry.closed, entry.leased = True, False
            os.close(entry.fd)
        self._open.clear()


def drop_lease(entry: OpenMatch) -> None:
    """Let go of a held entry's lease (its ``flock``), if it has one and is open (the caller
    holds :attr:`OpenMatch.lock`)."""
    if entry.leased:
        entry.leased = False
        if not entry.closed:
            fcntl.flock(entry.fd, fcntl.LOCK_UN)


def _release_leases(table_ref: weakref.ref[OpenFiles], tick: float) -> None:
    """The releaser thread of a table: a tick at a time, until no lease is held (or the
    table is gone)."""
    while True:
        time.sleep(tick)
        table = table_ref()
        if table is None or not table._release_idle():
            return
        del table


def _inode(fd: int) -> tuple[int, int]:
    stat = os.fstat(fd)
    return stat.st_dev, stat.st_ino


def _close(entry: OpenMatch) -> None:
    with entry.lock:
        if not entry.closed:
            entry.closed, entry.leased = True, False
            os.close(entry.fd)  # (its lease with it)


def _close_all(table: dict[str, OpenMatch]) -> None:
    """When a table is garbage-collected: close what it still holds."""
    for entry in table.values():
        if not entry.closed:
            entry.closed, entry.leased = True, False
            os.close(entry.fd)
    table.clear()


_TABLES: weakref.WeakSet[OpenFiles] = weakref.WeakSet()


def _after_fork_in_child() -> None:
    for table in list(_TABLES):
        table._forget_after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)
