"""The open-files table itself (``ledger/openfiles.py``), below the file store that uses it.

What the table's users rely on: an entry let go (forgotten, or its file gone when opened
again) says it is closed, so a thread that waited on its lock opens the match again instead
of writing through a closed descriptor; and the fork hook leaves a child with no descriptor
of its parent's and a table that works (``tests/ledger/test_filestore_open_files.py`` forks
for real; here the hook is called in this process, where a test can see what it did).
"""

from __future__ import annotations

import os
import weakref

import pytest

from ledger import openfiles
from ledger.openfiles import OpenFiles


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return False
    return True


@pytest.fixture
def table(tmp_path):
    for name in ("a", "b"):
        (tmp_path / f"{name}.jsonl").write_bytes(b"")
    files = OpenFiles(lambda match_id: str(tmp_path / f"{match_id}.jsonl"), limit=4)
    yield files
    files.close()


def test_a_forgotten_entry_says_it_is_closed_and_the_match_opens_again(table):
    entry = table.take("a")
    table.give(entry)
    old_fd = entry.fd
    table.forget("a")
    assert entry.closed is True
    assert not _is_open(old_fd)
    again = table.take("a")
    table.give(again)
    assert again is not entry and again.closed is False and len(table) == 1


def test_an_entry_whose_file_is_gone_is_dropped_and_says_closed(table, tmp_path):
    entry = table.take("a")
    os.remove(tmp_path / "a.jsonl")
    with pytest.raises(FileNotFoundError):
        table.reopen(entry)
    table.give(entry)
    assert entry.closed is True
    assert entry.tail is None
    assert len(table) == 0


def test_the_fork_hook_closes_every_tables_descriptors_and_leaves_them_usable(table,
                                                                             monkeypatch):
    entries = [table.take(name) for name in ("a", "b")]
    for entry in entries:
        table.give(entry)
    fds = [entry.fd for entry in entries]
    # only this test's table: the hook would close every table of this process
    monkeypatch.setattr(openfiles, "_TABLES", weakref.WeakSet([table]))
    openfiles._after_fork_in_child()
    assert [entry.closed for entry in entries] == [True, True]
    assert [_is_open(fd) for fd in fds] == [False, False]
    assert len(table) == 0
    fresh = table.take("a")  # the table's own lock is a fresh one, and works
    table.give(fresh)
    assert fresh.closed is False and _is_open(fresh.fd) and len(table) == 1
