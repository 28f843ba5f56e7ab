"""A book's kept fold on a file system whose clock ticks once a second or two (FAT, ext3, some
network file systems): two edits of the same size within one tick leave the same stat -- the
fold's version -- so the second was never read, and a stale tournament was served.

Now a fold is trusted on a later load only if its log was last written and changed more than
:data:`ledger.fileversion.GRANULARITY_NS` (2 s) before it was read ("racy clean", as git's
index): a log read sooner is read again on the next load (its bytes compared: folded again only
if they differ), until it is old enough that any later write shows in its stat.

How the coarse clock is simulated: ext4 stamps a write to the nanosecond, and a test can't
make two edits share a change time (``os.utime`` itself moves ``st_ctime`` to now), so on the
real file system the defect can't be shown.  The book takes its ``stat`` and its ``clock``
through a seam instead: :class:`CoarseFs` stats the real log (its real device, inode and size)
and stamps its modification and change times with the tick the test says the last write fell
in; the book's clock is the test's.  The files, their writes and reads stay real.

Work is counted, not timed: folds (:func:`ledger.tournament.fold` wrapped, still folding) and
the bytes this thread read (``/proc/thread-self/io``, ``rchar``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ledger.fileversion import GRANULARITY_NS
from ledger.tournament import FileTournamentBook
from tests.ledger.test_tournament_cache import TID, Folds, new_log

IO = Path("/proc/thread-self/io")
SECOND = 1_000_000_000


class CoarseFs:
    """The real files, their times stamped in whole seconds: every write the test makes falls in
    the tick :attr:`tick_ns`, and the book reads at :attr:`now_ns` (the test moves both)."""

    def __init__(self) -> None:
        self.tick_ns = 1_700_000_000 * SECOND
        self.now_ns = self.tick_ns + SECOND * 3 // 10  # 0.3 s into the tick

    def stat(self, target: int | str | os.PathLike) -> os.stat_result:
        real = os.stat(target)
        return os.stat_result(tuple(real)[:10], {"st_atime_ns": real.st_atime_ns,
                                                 "st_mtime_ns": self.tick_ns,
                                                 "st_ctime_ns": self.tick_ns})

    def clock(self) -> int:
        return self.now_ns


def _read_bytes() -> int:
    for line in IO.read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/thread-self/io")


def _edit_same_size(path: Path, old: bytes, new: bytes) -> None:
    """In place: the same inode, the same size (and, on the coarse clock, the same tick)."""
    assert len(old) == len(new)
    text = path.read_bytes()
    with open(path, "r+b") as handle:
        handle.write(text.replace(old, new, 1))


@pytest.fixture
def coarse(tmp_path):
    fs = CoarseFs()
    book = FileTournamentBook(tmp_path, stat=fs.stat, clock=fs.clock)
    new_log(book)  # written in the tick
    return fs, book, book.root / f"{TID}.jsonl"


def test_a_same_size_edit_in_the_tick_of_the_read_is_seen(coarse, monkeypatch):
    fs, book, path = coarse
    folds = Folds(monkeypatch)
    assert book.load(TID).name == "Spring Cup" and folds.calls == 1
    _edit_same_size(path, b'"name":"Spring Cup"', b'"name":"Spring Cap"')
    fs.now_ns += SECOND // 2  # still the same tick: the stat is the fold's
    assert book.load(TID).name == "Spring Cap" and folds.calls == 2
    _edit_same_size(path, b'"name":"Spring Cap"', b'"name":"Spring Cop"')  # and again
    assert book.load(TID).name == "Spring Cop" and folds.calls == 3


@pytest.mark.skipif(not IO.exists(), reason="needs /proc/thread-self/io (Linux) to count reads")
def test_a_log_is_read_again_until_it_is_old_enough_then_served_from_its_fold(coarse,
                                                                             monkeypatch):
    fs, book, path = coarse
    size = path.stat().st_size
    folds = Folds(monkeypatch)
    assert book.load(TID).name == "Spring Cup"
    before = _read_bytes()
    assert book.load(TID).name == "Spring Cup"  # too young to trust: read, the same bytes
    assert _read_bytes() - before >= size and folds.calls == 1  # ... so not folded again
    fs.now_ns = fs.tick_ns + GRANULARITY_NS + 1  # old enough now: one more read settles it
    assert book.load(TID).name == "Spring Cup" and folds.calls == 1
    before = _read_bytes()
    loads = [book.load(TID) for _ in range(5)]
    assert _read_bytes() - before < size and folds.calls == 1  # a stat each, no read
    assert all(t.name == "Spring Cup" for t in loads)
    # a later write lands in a later tick, and shows
    fs.tick_ns = fs.now_ns
    _edit_same_size(path, b'"name":"Spring Cup"', b'"name":"Spring Cap"')
    assert book.load(TID).name == "Spring Cap" and folds.calls == 2
