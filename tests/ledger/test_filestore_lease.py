"""The file store's writer lease (ledger/openfiles.py): a store keeps a match file's lock
between its appends and lets go of it when the match is idle (or held too long); another
process -- a real one -- still appends to the match, waiting only for the lease, and this
store then looks at the file again: it chains onto the other's batch, refuses a stale
``expected_seq``, drops a torn tail a crashed writer left, and follows the path to a file
that replaced its own.  Nothing acknowledged is lost."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest

from ledger import ConflictError, FileStore, MatchNotFoundError
from ledger.events import JudgeNote, MatchOpened, SeatInfo
from ledger.filestore import TornTailWarning
from ledger.integrity import INTACT, check_file

REPO = Path(__file__).resolve().parents[2]


def opened() -> MatchOpened:
    return MatchOpened(match_id="m-1", ruleset="1.3.2",
                       seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")])


def note(text: str) -> JudgeNote:
    return JudgeNote("judge", text)


def run(script: str, root: Path) -> str:
    """Run ``script`` in another Python process on the store at ``root``; its output."""
    done = subprocess.run([sys.executable, "-c", script, str(root)], cwd=REPO, timeout=60,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    return done.stdout


def is_locked(path: Path) -> bool:
    """Whether some descriptor holds the file's lock (asked without waiting)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


APPEND = r"""
import sys
from ledger import FileStore
from ledger.events import JudgeNote
store = FileStore(sys.argv[1])
length = len(list(store.read("m-1")))
print(store.append("m-1", [JudgeNote("judge", "from the other process")], length)[0].seq)
"""


def test_another_process_appends_once_the_lease_is_let_go(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened())
    store.append("m-1", [note("one")], 1)
    store.append("m-1", [note("two")], 2)  # this store holds the lease (if not let go yet)
    assert run(APPEND, tmp_path).strip() == "3"  # it waited for the lease, then appended
    with pytest.raises(ConflictError):  # this store looked at the file again: 4 events now
        store.append("m-1", [note("stale")], 3)
    assert store.append("m-1", [note("three")], 4)[0].seq == 4
    read = list(FileStore(tmp_path).read("m-1"))
    assert [s.event.text for s in read[1:]] == ["one", "two", "from the other process", "three"]
    assert check_file(tmp_path / "m-1.jsonl").status == INTACT


def test_a_lease_is_held_between_appends_and_let_go_when_idle(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened())
    store.append("m-1", [note("one")], 1)
    entry = store._files.take("m-1")
    try:
        assert entry.leased and is_locked(tmp_path / "m-1.jsonl")  # kept after the append
    finally:
        store._files.give(entry)
    fd = os.open(tmp_path / "m-1.jsonl", os.O_RDONLY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # waits for the releaser (the match is idle)
    finally:
        os.close(fd)
    entry = store._files.take("m-1")
    store._files.give(entry)
    assert not entry.leased


LOCK = r"""
import fcntl, os, sys
fd = os.open(os.path.join(sys.argv[1], "m-1.jsonl"), os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)  # as a writer takes it: waits for the other store's lease
print(os.fstat(fd).st_size)
"""


def test_a_busy_match_still_lets_another_process_in(tmp_path):
    # This store appends without a pause (never idle a whole tick) while another process
    # waits for the file's lock: the lease is let go after LEASE_TICKS ticks however busy
    # the match, and the other process gets the lock.  (Its append, had it read the length
    # before waiting, would be a conflict: optimistic concurrency, as without leases.)
    store = FileStore(tmp_path)
    store.create(opened())
    stop = threading.Event()
    acknowledged: list[str] = []

    def busy() -> None:
        length = 1
        while not stop.is_set():
            text = f"busy {length}"
            try:
                length = store.append("m-1", [note(text)], length)[0].seq + 1
            except ConflictError:
                length = store.head("m-1").length
                continue
            acknowledged.append(text)

    writer = threading.Thread(target=busy)
    writer.start()
    try:
        while len(acknowledged) < 5:
            stop.wait(0.001)
        size = int(run(LOCK, tmp_path))
        during = len(acknowledged)
        while len(acknowledged) < during + 5:  # and this store appends on after it
            stop.wait(0.001)
    finally:
        stop.set()
        writer.join()
    assert size > 0
    texts = [s.event.text for s in list(FileStore(tmp_path).read("m-1"))[1:]]
    assert texts == acknowledged  # nothing acknowledged is lost
    assert check_file(tmp_path / "m-1.jsonl").status == INTACT


CRASH = r"""
import fcntl, os, sys
path = os.path.join(sys.argv[1], "m-1.jsonl")
fd = os.open(path, os.O_WRONLY | os.O_APPEND)
fcntl.flock(fd, fcntl.LOCK_EX)  # a writer: waits for the other store's lease
os.write(fd, b'{"seq":3,"type":"JudgeNote","judge":"judge","te')  # half a batch, then dies
os._exit(0)
"""


def test_a_torn_tail_left_by_a_process_that_died_is_dropped_by_the_leaseholder(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened())
    store.append("m-1", [note("one")], 1)
    store.append("m-1", [note("two")], 2)  # leased
    run(CRASH, tmp_path)
    assert store.torn_tail("m-1") is not None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert store.append("m-1", [note("three")], 3)[0].seq == 3
    assert any(issubclass(w.category, TornTailWarning) for w in caught)
    read = list(FileStore(tmp_path).read("m-1"))
    assert [s.event.text for s in read[1:]] == ["one", "two", "three"]
    assert check_file(tmp_path / "m-1.jsonl").status == INTACT


REPLACE = r"""
import sys
from ledger import FileStore
from ledger.events import MatchOpened, SeatInfo
store = FileStore(sys.argv[1])
store.discard("m-1")  # under the file's lock: waits for the other store's lease
print(store.create(MatchOpened(match_id="m-1", ruleset="1.3.2",
                               seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")])).hash)
"""

DISCARD = r"""
import sys
from ledger import FileStore
FileStore(sys.argv[1]).discard("m-1")
"""


def test_a_file_replaced_by_another_process_is_followed_after_the_lease(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened())
    store.append("m-1", [note("old one")], 1)
    store.append("m-1", [note("old two")], 2)  # leased
    genesis = run(REPLACE, tmp_path).strip()
    written = store.append("m-1", [note("new one")], 1)
    assert [(s.seq, s.prev) for s in written] == [(1, genesis)]
    read = list(FileStore(tmp_path).read("m-1"))
    assert [s.event.text for s in read[1:]] == ["new one"]


def test_a_match_another_process_discarded_is_never_appended_to(tmp_path):
    store = FileStore(tmp_path)
    store.create(opened())
    store.append("m-1", [note("one")], 1)  # leased
    run(DISCARD, tmp_path)
    with pytest.raises(MatchNotFoundError):
        store.append("m-1", [note("two")], 2)
    assert not (tmp_path / "m-1.jsonl").exists()


MOVE = r"""
import fcntl, os, sys
path = os.path.join(sys.argv[1], "m-1.jsonl")
fd = os.open(path, os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_EX)  # a process that moves a match file takes its lock first
os.makedirs(os.path.join(sys.argv[1], "aside"))
os.replace(path, os.path.join(sys.argv[1], "aside", "m-1.jsonl"))
print(os.fstat(fd).st_size)  # what the moved file holds as it is let go
"""


def test_a_busy_leaseholder_never_appends_to_a_file_moved_away_under_its_lock(tmp_path):
    # This store appends without a pause (its lease let go only when held too long) while
    # another process takes the lock and moves the file away: once moved, the file is never
    # appended to again -- this store's next append finds the path gone.
    store = FileStore(tmp_path)
    store.create(opened())
    outcome: list[BaseException] = []
    acknowledged: list[int] = []
    started = threading.Event()

    def busy() -> None:
        length = 1
        while True:
            try:
                length = store.append("m-1", [note(f"busy {length}")], length)[0].seq + 1
            except MatchNotFoundError as exc:
                outcome.append(exc)
                return
            acknowledged.append(length - 1)
            started.set()

    writer = threading.Thread(target=busy)
    writer.start()
    started.wait(30)
    moved_size = int(run(MOVE, tmp_path))
    writer.join(60)
    assert outcome and not writer.is_alive()
    moved = tmp_path / "aside" / "m-1.jsonl"
    assert moved.stat().st_size == moved_size  # nothing written after the move
    assert [s.seq for s in FileStore.read_file(moved)][1:] == acknowledged
