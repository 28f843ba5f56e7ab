"""The file store's follower and writer when a match file is damaged under them, pinned by
what a caller sees: one error naming the file and the line (``file:line``), never a traceback.

* :meth:`FileStore.follow` names the damaged line by its number in the file, whether it is
  in the first read or in one after lines were already followed.
* :meth:`FileStore.append` by a store that already wrote to the match, when the file now holds
  no whole batch (another process left only an unfinished first batch): the one error that
  says so, naming the file.
* A store opened on a directory that does not exist yet makes it, with its parents.
"""

from __future__ import annotations

import pytest

from ledger.errors import IntegrityError, MalformedEventError
from ledger.filestore import FileStore, TornTailWarning
from tests.ledger.contract.matches import notes, opened
from tests.ledger.file_locks import locked


def _match(tmp_path, batches: int) -> tuple[FileStore, list[bytes]]:
    """A match of ``batches`` one-note batches after its ``MatchOpened``, and its lines."""
    store = FileStore(tmp_path)
    store.create(opened())
    for seq in range(1, batches + 1):
        store.append("m-1", notes(1, f"b{seq}-"), seq)
    return store, store.path("m-1").read_bytes().splitlines(keepends=True)


def test_follow_names_a_line_removed_in_its_first_read(tmp_path):
    store, lines = _match(tmp_path, 3)
    path = store.path("m-1")
    path.write_bytes(b"".join(lines[:2] + lines[3:]))  # seq 2 removed: line 3 is seq 3
    reader = FileStore(tmp_path)
    with pytest.raises(IntegrityError) as raised:
        list(reader.follow("m-1", poll=0.01, timeout=0.5))
    assert str(raised.value).startswith(f"{path}:3: seq 3: hash chain broken")


def test_follow_names_a_bad_line_after_the_lines_it_already_followed(tmp_path):
    store, lines = _match(tmp_path, 3)
    path = store.path("m-1")
    path.write_bytes(b"".join(lines[:2]))  # seq 0 and 1 followed first
    reader = FileStore(tmp_path)
    seen = []
    with pytest.raises(IntegrityError) as raised:
        for stored in reader.follow("m-1", poll=0.01, timeout=2):
            seen.append(stored.seq)
            if stored.seq == 1:
                with path.open("ab") as handle:
                    handle.write(lines[3])  # seq 3 where seq 2 belongs: the chain breaks
    assert seen == [0, 1]
    assert str(raised.value).startswith(f"{path}:3: seq 3: hash chain broken")


def test_a_writer_refuses_a_file_left_without_a_whole_batch_naming_it(tmp_path):
    store, lines = _match(tmp_path, 1)  # this store has written to m-1
    path = store.path("m-1")
    with locked(path):  # what another process left (under the lock): half of a first line
        path.write_bytes(lines[0][:40])
    with pytest.warns(TornTailWarning), pytest.raises(MalformedEventError) as raised:
        store.append("m-1", notes(1), 2)
    assert str(raised.value) == (f"{path}: the file ends inside a batch and there is no "
                                 f"whole batch before it")


def test_a_store_makes_its_directory_and_its_parents(tmp_path):
    root = tmp_path / "data" / "matches"
    store = FileStore(root)
    assert root.is_dir()
    store.create(opened())
    assert FileStore(root).ids() == ["m-1"]
