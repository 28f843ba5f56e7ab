"""A batch that a reader read while it was being written, then taken back (its sync failed:
a disk failing, an NFS server out of space), and other lines written in its place.

Readers take no lock, so a follower polling the match can read the batch between its write
and the failed ``fsync``; the store remembered it as verified.  Before, every later read of the
match by that process failed -- "hash chain broken (… a line was removed, inserted or
reordered)" for a healthy file (the retried decision is a batch of the same length), or "not a
canonical line" -- until the process restarted.  A test cannot make a real disk fail to sync
a write whose bytes reached the file, so ``os.write`` (the store's descriptors are ``O_SYNC``:
the write is the sync) writes the batch and then fails once, and the read a follower makes
meanwhile is made from inside it."""

from __future__ import annotations

import errno
import os

import pytest

from ledger import FileStore
from ledger.errors import LedgerError
from ledger.events import JudgeNote, MatchOpened, SeatInfo


def _store(tmp_path) -> FileStore:
    store = FileStore(tmp_path)
    store.create(MatchOpened(match_id="m-1", ruleset="1.3.2",
                             seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")]))
    store.append("m-1", [JudgeNote("judge", "one")], 1)
    assert [s.seq for s in store.read("m-1")] == [0, 1]
    return store


@pytest.mark.parametrize("lost", ["lost-2", "lost-two"])  # the same length, and another
def test_a_batch_read_then_taken_back_is_not_trusted_after(tmp_path, monkeypatch, lost):
    store = _store(tmp_path)
    real_write = os.write
    seen = []

    def fails_once(fd, data):
        monkeypatch.setattr(os, "write", real_write)
        real_write(fd, data)  # the bytes are in the file; their sync fails
        seen.extend(s.event.text for s in store.read("m-1", 2))  # a follower, meanwhile
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(os, "write", fails_once)
    with pytest.raises(OSError):
        store.append("m-1", [JudgeNote("judge", lost)], 2)
    assert seen == [lost]  # it was read while it was there
    store.append("m-1", [JudgeNote("judge", "kept-2")], 2)
    store.append("m-1", [JudgeNote("judge", "kept-3")], 3)
    assert [s.event.text for s in store.read("m-1", 3)] == ["kept-3"]
    assert [s.event.text for s in store.read("m-1", 2)] == ["kept-2", "kept-3"]
    fresh = [(s.seq, s.hash) for s in FileStore(tmp_path).read("m-1")]
    assert [(s.seq, s.hash) for s in store.read("m-1")] == fresh


def test_what_was_verified_is_still_trusted_when_it_is_there(tmp_path):
    """The check does not make a reader verify the whole file again: a line it verified before
    is not read again (here an earlier line altered since is not noticed by a read from the
    end, as before; a whole read of a fresh store does notice it)."""
    store = _store(tmp_path)
    store.append("m-1", [JudgeNote("judge", "two")], 2)
    assert [s.event.text for s in store.read("m-1", 2)] == ["two"]
    path = tmp_path / "m-1.jsonl"
    path.write_bytes(path.read_bytes().replace(b'"text":"one"', b'"text":"oNe"'))
    store.append("m-1", [JudgeNote("judge", "three")], 3)
    assert [s.event.text for s in store.read("m-1", 3)] == ["three"]
    with pytest.raises(LedgerError, match=r"m-1\.jsonl:2"):
        list(FileStore(tmp_path).read("m-1"))
