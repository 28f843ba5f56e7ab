"""The append path's system calls made holding the GIL (``ledger/gilcalls.py``).

They must answer exactly as the :mod:`os` / :mod:`fcntl` calls they stand for -- the same
file identity for a path (through a symlink too, none for a missing path), a lock that
excludes other processes and waits for one that holds it -- on this machine's glibc and
through the fallback used where those symbols do not exist.  A match file's descriptor is
``O_SYNC``: its append is one synced write.
"""

from __future__ import annotations

import fcntl
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

from ledger import FileStore, gilcalls
from ledger.events import JudgeNote, MatchOpened, SeatInfo

HOLD = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
fcntl.flock(fd, fcntl.LOCK_EX)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
print("letting go", flush=True)
fcntl.flock(fd, fcntl.LOCK_UN)
"""

TRY = """
import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
except BlockingIOError:
    print("refused")
else:
    print("taken")
"""


@pytest.fixture(params=["libc", "fallback"])
def calls(request, monkeypatch):
    """Each test runs on glibc's foreign calls and on the os/fcntl fallback."""
    if request.param == "fallback":
        monkeypatch.setattr(gilcalls, "_CALLS", None)
        monkeypatch.setattr(gilcalls, "_FLOCK", None)
        monkeypatch.setattr(gilcalls, "flock_now", gilcalls._not_here)  # the append's hot path
    elif gilcalls._CALLS is None:
        pytest.skip("no glibc flock/statx here: only the fallback runs")
    return request.param


def test_linux_uses_the_calls_that_keep_the_gil():
    if not sys.platform.startswith("linux"):
        pytest.skip("not Linux: the fallback is the only path")
    assert gilcalls._CALLS is not None
    assert gilcalls.SYNC_FLAG == os.O_SYNC


def test_identity_is_what_stat_says(tmp_path, calls):
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"x" * 123)
    stat = os.stat(path)
    assert gilcalls.PathProbe(str(path)).identity() == (stat.st_dev, stat.st_ino, 123)
    link = tmp_path / "link.jsonl"
    link.symlink_to(path)
    assert gilcalls.PathProbe(str(link)).identity() == (stat.st_dev, stat.st_ino, 123)


def test_identity_follows_the_path_not_the_file(tmp_path, calls):
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"one\n")
    probe = gilcalls.PathProbe(str(path))
    first = probe.identity()
    with path.open("ab") as handle:
        handle.write(b"two\n")
    assert probe.identity() == (first[0], first[1], 8)  # the same file, grown
    path.unlink()
    assert probe.identity() is None  # nothing there
    path.write_bytes(b"new\n")
    assert probe.identity()[1] == os.stat(path).st_ino  # another file at the path


def test_identity_of_a_path_through_a_file_is_an_error(tmp_path, calls):
    (tmp_path / "file").write_bytes(b"")
    with pytest.raises(NotADirectoryError):
        gilcalls.PathProbe(str(tmp_path / "file" / "m.jsonl")).identity()


def test_a_path_with_a_null_byte_is_refused_as_os_stat_refuses_it(tmp_path):
    with pytest.raises(ValueError, match="null byte"):
        gilcalls.PathProbe(str(tmp_path / "m\0.jsonl"))


def test_the_lock_excludes_another_process(tmp_path, calls):
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"")
    fd = os.open(path, os.O_RDWR)
    try:
        gilcalls.lock(fd)
        held = subprocess.run([sys.executable, "-c", TRY, str(path)], capture_output=True,
                              text=True, check=True)
        gilcalls.unlock(fd)
        free = subprocess.run([sys.executable, "-c", TRY, str(path)], capture_output=True,
                              text=True, check=True)
    finally:
        os.close(fd)
    assert (held.stdout.strip(), free.stdout.strip()) == ("refused", "taken")


def test_the_lock_waits_for_another_process_that_holds_it(tmp_path, calls):
    path = tmp_path / "m.jsonl"
    path.write_bytes(b"")
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path), "0.6"],
                              stdout=subprocess.PIPE, text=True)
    fd = os.open(path, os.O_RDWR)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        gilcalls.lock(fd)  # not at once: it waits for the holder to let go
        # The holder said so before it let go: had the lock been granted at once, nothing
        # would be there to read yet (it says so 0.6 s after "held").
        said, _, _ = select.select([holder.stdout], [], [], 0)
        gilcalls.unlock(fd)
        assert said and holder.stdout.readline().strip() == "letting go"
    finally:
        os.close(fd)
        holder.wait(timeout=30)
    assert holder.returncode == 0


def test_a_lock_on_a_closed_descriptor_is_an_error(tmp_path, calls):
    fd = os.open(tmp_path / "m.jsonl", os.O_RDWR | os.O_CREAT)
    os.close(fd)
    with pytest.raises(OSError):
        gilcalls.lock(fd)
    with pytest.raises(OSError):
        gilcalls.unlock(fd)


def test_a_match_file_is_appended_to_through_a_synced_descriptor(tmp_path: Path, calls):
    store = FileStore(tmp_path)
    store.create(MatchOpened(match_id="m-1", ruleset="1.3.2",
                             seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")]))
    store.append("m-1", [JudgeNote("judge", "one")], 1)
    entry = store._files.take("m-1")
    try:
        flags = fcntl.fcntl(entry.fd, fcntl.F_GETFL)
    finally:
        store._files.give(entry)
    assert flags & os.O_SYNC == os.O_SYNC and flags & os.O_APPEND
    store.append("m-1", [JudgeNote("judge", "two")], 2)
    assert [s.seq for s in FileStore(tmp_path).read("m-1")] == [0, 1, 2]
    store.close()
