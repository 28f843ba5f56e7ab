"""The file store's kept heads, summaries and versions on a file system whose clock ticks once a
second or two (FAT: 2 s; ext3, some network file systems: 1 s): two writes of the same size
within one tick leave the same stat (device, inode, size, mtime, ctime) -- the key a head or a
summary was kept under, and a match's version -- so a same-size edit after a look in that tick
was never read: a stale winner in the listing, a stale last line in the head, an equal version
for other data.

Now a key taken within :data:`ledger.fileversion.GRANULARITY_NS` of the file's last change is
never trusted by a later look ("racy clean", as git's index and the tournament book): the head
and the summary are read again, and :meth:`FileStore.versions` gives no version (``None``,
which vouches for nothing), until the file is old enough that any later write shows in its
stat.  A settled file costs what it did: one ``fstat``, nothing read.

How the coarse clock is simulated: ext4 stamps a write to the nanosecond and ``st_ctime``
can't be set back (``os.utime`` itself moves it to now), so two real edits never share a
change time here.  :class:`CoarseFs` stands in for the file system's clock only: ``os.stat``
and ``os.fstat`` give the real files' real device, inode and size, with the modification and
change times of the tick the test says the writes fell in; the store's wall clock
(``now_ns``) is the test's.  The files, their writes and reads are real.  Work is counted
(:func:`ledger.filestore._head_of` and ``FileStore._info_of`` wrapped, still doing their
work), not timed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import ledger.filestore as filestore
from ledger.errors import IntegrityError
from ledger.filestore import FileStore
from ledger.fileversion import GRANULARITY_NS
from tests.ledger.contract.matches import ended, notes, opened

SECOND = 1_000_000_000
REAL_STAT, REAL_FSTAT = os.stat, os.fstat


class CoarseFs:
    """Real stats, their times stamped with :attr:`tick_ns` (every write the test makes falls
    in it); :attr:`now_ns` is the store's wall clock."""

    def __init__(self) -> None:
        self.tick_ns = 1_700_000_000 * SECOND
        self.now_ns = self.tick_ns + SECOND * 3 // 10  # 0.3 s into the tick

    def _coarse(self, real: os.stat_result) -> os.stat_result:
        return os.stat_result(tuple(real)[:10], {"st_atime_ns": real.st_atime_ns,
                                                 "st_mtime_ns": self.tick_ns,
                                                 "st_ctime_ns": self.tick_ns})

    def stat(self, target, *args, **kwargs) -> os.stat_result:
        return self._coarse(REAL_STAT(target, *args, **kwargs))

    def fstat(self, fd: int) -> os.stat_result:
        return self._coarse(REAL_FSTAT(fd))

    def clock(self) -> int:
        return self.now_ns


class Work:
    """How many times heads and summaries were read from a file's bytes."""

    def __init__(self, monkeypatch) -> None:
        self.heads = self.infos = 0
        head_of, info_of = filestore._head_of, FileStore._info_of

        def counted_head(*args):
            self.heads += 1
            return head_of(*args)

        def counted_info(store, *args):
            self.infos += 1
            return info_of(store, *args)

        monkeypatch.setattr(filestore, "_head_of", counted_head)
        monkeypatch.setattr(FileStore, "_info_of", counted_info)


@pytest.fixture
def coarse(tmp_path, monkeypatch):
    fs = CoarseFs()
    monkeypatch.setattr(os, "stat", fs.stat)
    monkeypatch.setattr(os, "fstat", fs.fstat)
    store = FileStore(tmp_path / "store", now_ns=fs.clock)
    store.create(opened("m-1"))
    store.append("m-1", notes(3) + ended("A"), 1)
    return fs, store, store.path("m-1")


def _flip_winner(path: Path) -> None:
    """The last line's winner A -> B in place: the same inode, the same size, the same tick
    (its envelope as it was: the hash no longer checks, which only a read finds)."""
    data = path.read_bytes()
    assert data.count(b'"winner":"A"') == 1
    with open(path, "r+b") as handle:
        handle.write(data.replace(b'"winner":"A"', b'"winner":"B"'))
    assert path.stat().st_size == len(data)


def test_a_same_size_edit_in_the_tick_of_a_listing_is_seen(coarse, monkeypatch):
    _fs, store, path = coarse
    work = Work(monkeypatch)
    assert store.info("m-1").winner == "A" and work.infos == 1
    _flip_winner(path)  # the same stat as the look above
    # not the kept summary (winner A: it was taken unsettled): the file read again, and its
    # edited line found (its hash no longer checks)
    with pytest.raises(IntegrityError, match=r"m-1\.jsonl:5"):
        store.info("m-1")
    assert work.infos == 2


def test_a_same_size_edit_in_the_tick_of_a_head_is_seen(coarse, monkeypatch):
    _fs, store, path = coarse
    work = Work(monkeypatch)
    before = store.head("m-1")
    _flip_winner(path)
    after = store.head("m-1")
    assert after.last_line_sha256 != before.last_line_sha256
    assert (after.length, after.last_hash, after.size) == \
        (before.length, before.last_hash, before.size)
    assert work.heads == 2


def test_a_version_taken_in_the_tick_vouches_for_nothing(coarse):
    _fs, store, path = coarse
    first = store.versions(["m-1"])
    _flip_winner(path)
    assert first == {"m-1": None}  # equal stats, other bytes: no version to keep
    assert store.versions() == {"m-1": None}


def test_once_settled_a_look_reads_once_more_then_nothing(coarse, monkeypatch):
    """Past the tick (the clock more than GRANULARITY_NS after the file's last change) a look
    reads the file once more and keeps it; the next looks read nothing (one ``fstat``), and
    the version is one to keep -- until the file is written again."""
    fs, store, _path = coarse
    work = Work(monkeypatch)
    store.info("m-1"), store.head("m-1")
    fs.now_ns = fs.tick_ns + GRANULARITY_NS + SECOND
    store.info("m-1"), store.head("m-1")
    assert (work.infos, work.heads) == (2, 2)
    for _ in range(3):
        assert store.info("m-1").winner == "A"
        store.head("m-1")
    assert (work.infos, work.heads) == (2, 2)
    version = store.versions(["m-1"])["m-1"]
    assert version is not None and store.versions() == {"m-1": version}
    # a write in a later tick moves the stat, the version with it
    fs.tick_ns = fs.now_ns
    fs.now_ns += SECOND // 10
    store.append("m-1", notes(1), 5)
    assert store.head("m-1").length == 6 and store.versions() == {"m-1": None}
