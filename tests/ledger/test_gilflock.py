"""``ledger.gilflock``: the file store's ``flock`` taken and dropped with the GIL kept.

What must hold (issue 19): it is the same lock other processes' ``flock`` sees (a real
subprocess is excluded while it is held, and holds it against us); it never waits (a held
lock is a ``False`` at once, so the caller can wait with the GIL let go); a second
descriptor of the same file in this process is excluded too (a lock belongs to an open file
description); errors name the descriptor; the ``fcntl`` fallback behaves the same; and an
append to a match whose file another process holds waits for it, then chains onto what that
process wrote.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import pytest

from ledger import FileStore, gilflock
from ledger.errors import ConflictError
from ledger.events import JudgeNote, MatchOpened, SeatInfo
from ledger.integrity import INTACT, check_file

# A child that holds a file's flock until its stdin closes (it says "held" once it has it).
HOLDER = """
import fcntl, sys
fd = open(sys.argv[1], "rb")
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.read()
"""

# A child that locks a match file, appends one canonical batch when told ("write"), and
# lets go when its stdin closes.
WRITER = """
import fcntl, json, os, sys
from ledger.codec import encode_line, now_iso
from ledger.events import JudgeNote
fd = os.open(sys.argv[1], os.O_RDWR | os.O_APPEND)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
sys.stdin.readline()
last = json.loads(open(sys.argv[1], "rb").read().splitlines()[-1])
seq = last["seq"] + 1
line, _ = encode_line(JudgeNote("judge", "theirs"), seq, now_iso(), seq, last["hash"])
os.write(fd, line + b"\\n")
os.fsync(fd)
print("written", flush=True)
sys.stdin.read()
"""

# A child that tries a file's flock without waiting and says whether it got it.
PROBE = """
import fcntl, sys
fd = open(sys.argv[1], "rb")
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    print("got")
except BlockingIOError:
    print("busy")
"""


@pytest.fixture(params=["held", "fcntl"])
def variant(request, monkeypatch):
    """Each test runs with the C library's flock (GIL kept) and with the fcntl fallback."""
    if request.param == "fcntl":
        monkeypatch.setattr(gilflock, "_FLOCK", None)
    elif not gilflock.HELD:
        pytest.skip("no C library flock here: only the fcntl fallback is in use")
    return request.param


def probe(path) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True,
                          text=True, timeout=60, check=True)
    return done.stdout.strip()


def test_linux_uses_the_c_library_flock():
    if not sys.platform.startswith("linux"):
        pytest.skip("the C library's flock is looked for on Linux only here")
    assert gilflock.HELD is True


def test_another_process_sees_the_lock_taken_and_dropped(tmp_path, variant):
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"")
    fd = os.open(path, os.O_RDWR)
    try:
        assert gilflock.try_lock(fd) is True
        assert probe(path) == "busy"
        gilflock.unlock(fd)
        assert probe(path) == "got"
    finally:
        os.close(fd)


def test_a_lock_another_process_holds_is_refused_at_once(tmp_path, variant):
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    fd = os.open(path, os.O_RDWR)
    try:
        assert holder.stdout.readline().strip() == "held"
        start = time.perf_counter()
        assert gilflock.try_lock(fd) is False
        assert time.perf_counter() - start < 0.5  # refused, not waited for
        holder.stdin.close()
        holder.wait(timeout=60)
        assert gilflock.try_lock(fd) is True  # the holder is gone: ours now
        gilflock.unlock(fd)
    finally:
        os.close(fd)
        if holder.poll() is None:
            holder.kill()
            holder.wait()


def test_a_second_descriptor_in_this_process_is_excluded(tmp_path, variant):
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"")
    first, second = os.open(path, os.O_RDWR), os.open(path, os.O_RDWR)
    try:
        assert gilflock.try_lock(first) is True
        assert gilflock.try_lock(second) is False
        gilflock.unlock(first)
        assert gilflock.try_lock(second) is True
        gilflock.unlock(second)
    finally:
        os.close(first)
        os.close(second)


def test_a_closed_descriptor_is_an_error_naming_it(tmp_path, variant):
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"")
    fd = os.open(path, os.O_RDWR)
    os.close(fd)
    with pytest.raises(OSError) as locking:
        gilflock.try_lock(fd)
    with pytest.raises(OSError) as unlocking:
        gilflock.unlock(fd)
    if variant == "held":  # fcntl's own message does not name the descriptor
        assert f"descriptor {fd}" in str(locking.value)
        assert f"descriptor {fd}" in str(unlocking.value)


def test_an_append_waits_for_another_process_then_checks_its_seq_under_the_lock(tmp_path,
                                                                             variant):
    """Another process holds the match file's lock: the append waits (its thread is still
    in it), and once the other process appended and let go, the append sees that batch: a
    conflict, nothing written; the next append chains onto it."""
    store = FileStore(tmp_path)
    store.create(MatchOpened(match_id="m-1", ruleset="1.3.2",
                             seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")]))
    store.append("m-1", [JudgeNote("judge", "ours first")], 1)  # kept open by the store now
    path = tmp_path / "m-1.jsonl"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    outcome: list[object] = []

    def append() -> None:
        try:
            outcome.append(store.append("m-1", [JudgeNote("judge", "ours, stale")], 2))
        except ConflictError as exc:
            outcome.append(exc)

    thread = threading.Thread(target=append)
    try:
        assert writer.stdout.readline().strip() == "held"
        thread.start()
        thread.join(0.3)
        assert thread.is_alive() and outcome == []  # waiting for the other process's lock
        writer.stdin.write("write\n")
        writer.stdin.flush()
        assert writer.stdout.readline().strip() == "written"
        writer.stdin.close()
        assert writer.wait(timeout=60) == 0
        thread.join(60)
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    assert len(outcome) == 1 and isinstance(outcome[0], ConflictError)
    assert "expected seq 2 but the match has 3 events" in str(outcome[0])
    store.append("m-1", [JudgeNote("judge", "ours again")], 3)
    texts = [stored.event.text for stored in list(FileStore(tmp_path).read("m-1"))[1:]]
    assert texts == ["ours first", "theirs", "ours again"]
    assert check_file(path).status == INTACT
