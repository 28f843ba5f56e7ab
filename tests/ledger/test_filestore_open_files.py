"""The file store appends through descriptors it keeps open (``ledger/openfiles.py``).

What keeping a descriptor per match must not change: threads of one store never fork a match
(one ``flock`` is shared by every thread using a descriptor), a batch goes only to the file
the match's path names (a match swept away, or discarded and created again by another
process), another writer's appends are chained onto, the table stays bounded and its
descriptors are closed, and a forked child never shares its parent's lock.
"""

from __future__ import annotations

import fcntl
import gc
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from ledger import ConflictError, FileStore, MatchNotFoundError
from ledger.events import JudgeNote, MatchOpened, SeatInfo
from ledger.integrity import INTACT, check_file
from ledger.openfiles import LEASE
from tests.ledger.file_locks import locked


def opened(match_id: str = "m-1") -> MatchOpened:
    return MatchOpened(match_id=match_id, ruleset="1.3.2",
                       seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")])


def note(text: str) -> JudgeNote:
    return JudgeNote("judge", text)


def open_in(folder: Path) -> list[str]:
    """The files under ``folder`` this process has descriptors on."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # the listing's own descriptor, closed by now
        if target.startswith(str(folder)):
            found.append(target)
    return found


def test_threads_sharing_one_store_never_fork_a_match(tmp_path):
    """The server's shape: one store, many threads, one match (one descriptor, one flock)."""
    store = FileStore(tmp_path)
    store.create(opened())
    acknowledged: list[tuple[int, list[str]]] = []
    guard = threading.Lock()

    def writer(name: str) -> None:
        for k in range(10):
            batch = [f"{name}-{k}-{i}" for i in range(1 + k % 3)]
            while True:
                try:
                    stored = store.append("m-1", [note(t) for t in batch], store.length("m-1"))
                except ConflictError:
                    continue
                with guard:
                    acknowledged.append((stored[0].seq, batch))
                break

    threads = [threading.Thread(target=writer, args=(f"t{n}",)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(acknowledged) == 60
    events = list(FileStore(tmp_path).read("m-1"))  # a fresh store checks every line
    assert [s.seq for s in events] == list(range(len(events)))
    texts = {s.seq: s.event.text for s in events[1:]}
    for first, batch in acknowledged:
        assert [texts[first + i] for i in range(len(batch))] == batch
    assert sum(len(batch) for _, batch in acknowledged) == len(events) - 1


@pytest.mark.parametrize("lease", [LEASE, 0])
def test_a_match_moved_out_of_the_store_is_never_appended_to(tmp_path, lease):
    """As the orphan sweep does (``os.replace`` into ``.orphans/``): the moved file keeps its
    links, so only the path says it is no longer the match's.  The mover holds the file's
    lock (so it waits for the store's lease, :mod:`ledger.openfiles`)."""
    store = FileStore(tmp_path / "store", lease=lease)
    store.create(opened())
    store.append("m-1", [note("one")], 1)  # the store now holds the file open (and leased)
    orphans = tmp_path / "orphans"
    orphans.mkdir()
    with locked(tmp_path / "store" / "m-1.jsonl"):
        os.replace(tmp_path / "store" / "m-1.jsonl", orphans / "m-1.jsonl")
    moved = (orphans / "m-1.jsonl").read_bytes()
    with pytest.raises(MatchNotFoundError, match="no match 'm-1'"):
        store.append("m-1", [note("two")], 2)
    assert (orphans / "m-1.jsonl").read_bytes() == moved
    assert not open_in(tmp_path / "store")


def test_a_match_discarded_and_created_again_by_another_store_gets_the_next_batch(tmp_path):
    store, other = FileStore(tmp_path), FileStore(tmp_path)  # as two processes would
    store.create(opened())
    store.append("m-1", [note("old one"), note("old two")], 1)
    other.discard("m-1")
    again = other.create(opened())
    written = store.append("m-1", [note("new one")], 1)
    assert [(s.seq, s.prev) for s in written] == [(1, again.hash)]
    assert [s.event.text for s in list(FileStore(tmp_path).read("m-1"))[1:]] == ["new one"]
    assert check_file(tmp_path / "m-1.jsonl").status == INTACT


def test_another_writers_batches_are_counted_and_chained_onto(tmp_path):
    store, other = FileStore(tmp_path), FileStore(tmp_path)
    store.create(opened())
    store.append("m-1", [note("mine")], 1)
    theirs = other.append("m-1", [note("theirs"), note("theirs too")], 2)
    with pytest.raises(ConflictError, match="has 4 events"):
        store.append("m-1", [note("stale")], 2)
    (written,) = store.append("m-1", [note("mine again")], 4)
    assert (written.seq, written.prev) == (4, theirs[-1].hash)
    assert check_file(tmp_path / "m-1.jsonl").status == INTACT


def test_the_open_files_are_bounded_and_every_append_lands(tmp_path):
    store = FileStore(tmp_path, open_files=2)
    ids = [f"m-{n}" for n in range(5)]
    for match_id in ids:
        store.create(opened(match_id))
    for round_no in range(3):
        for match_id in ids:
            store.append(match_id, [note(f"{match_id} {round_no}")], 1 + round_no)
            assert len(open_in(tmp_path)) <= 2
    fresh = FileStore(tmp_path)
    for match_id in ids:
        assert [s.event.text for s in list(fresh.read(match_id))[1:]] == \
            [f"{match_id} {r}" for r in range(3)]
    with pytest.raises(ValueError, match="at least one file"):
        FileStore(tmp_path, open_files=0)


def test_close_and_garbage_collection_close_the_descriptors(tmp_path):
    store = FileStore(tmp_path)
    for match_id in ("m-1", "m-2"):
        store.create(opened(match_id))
        store.append(match_id, [note("one")], 1)
    assert sorted(open_in(tmp_path)) == [str(tmp_path / "m-1.jsonl"), str(tmp_path / "m-2.jsonl")]
    store.close()
    assert open_in(tmp_path) == []
    store.append("m-1", [note("after close")], 2)  # opened again as needed
    assert open_in(tmp_path) == [str(tmp_path / "m-1.jsonl")]
    del store
    gc.collect()
    assert open_in(tmp_path) == []


def test_discard_closes_the_matchs_descriptor(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened())
    store.append("m-1", [note("one")], 1)
    store.discard("m-1")
    assert open_in(tmp_path) == []
    with pytest.raises(MatchNotFoundError):
        store.append("m-1", [note("two")], 2)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_does_not_share_its_parents_lock(tmp_path):
    """A ``flock`` belongs to the open file description, which a fork shares: were the child
    to append through its parent's descriptor, the parent's lock would not stop it."""
    store = FileStore(tmp_path)
    store.create(opened())
    store.append("m-1", [note("parent")], 1)
    entry = store._files.take("m-1")  # the parent's descriptor, as an append in flight holds it
    fcntl.flock(entry.fd, fcntl.LOCK_EX)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: append, then say when it got through
        code = 1
        try:
            signal.alarm(20)  # a child stuck on its parent's copied lock dies instead of hanging
            os.close(read_end)
            store.append("m-1", [note("child")], 2)
            os.write(write_end, repr(time.monotonic()).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    time.sleep(0.5)
    released = time.monotonic()
    fcntl.flock(entry.fd, fcntl.LOCK_UN)
    store._files.give(entry)
    _, status = os.waitpid(pid, 0)
    finished = os.read(read_end, 100)
    os.close(read_end)
    assert os.waitstatus_to_exitcode(status) == 0
    assert float(finished) >= released  # it waited for the parent's lock
    # the parent's descriptor is still its own, and it chains onto the child's batch
    (written,) = store.append("m-1", [note("parent again")], 3)
    assert written.seq == 3
    assert [s.event.text for s in list(FileStore(tmp_path).read("m-1"))[1:]] == \
        ["parent", "child", "parent again"]


def test_an_append_to_a_file_as_this_store_left_it_reads_nothing(tmp_path, monkeypatch):
    """Where the last append left the file is remembered (by its size under the lock): the
    next append reads nothing back; after another writer's append it reads the new end."""
    store = FileStore(tmp_path)
    store.create(opened())
    store.append("m-1", [note("one")], 1)
    reads: list[int] = []
    real_pread = os.pread

    def counted(fd: int, size: int, offset: int) -> bytes:
        reads.append(size)
        return real_pread(fd, size, offset)

    monkeypatch.setattr(os, "pread", counted)
    store.append("m-1", [note("two")], 2)
    store.append("m-1", [note("three"), note("four")], 3)
    assert reads == []
    FileStore(tmp_path).append("m-1", [note("theirs")], 5)  # another store (it reads the file)
    reads.clear()
    (written,) = store.append("m-1", [note("six")], 6)
    assert len(reads) == 1 and written.seq == 6
