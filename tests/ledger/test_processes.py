"""Real processes: a writer killed with SIGKILL mid-append, and two writers racing."""

import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

from ledger import FileStore, TornTailWarning
from ledger.events import JudgeNote, MatchOpened, SeatInfo

REPO = Path(__file__).resolve().parents[2]

WRITER = r"""
import os, sys
from ledger import FileStore
from ledger.events import JudgeNote
store = FileStore(sys.argv[1])
length = len(list(store.read("m-1")))
while True:
    batch = [JudgeNote("j", "x" * 4000) for _ in range(50)]
    store.append("m-1", batch, length)
    length += len(batch)
    print(length, flush=True)
"""


def _opened():
    return MatchOpened(match_id="m-1", ruleset="1.3.2", seats=[SeatInfo("A", "a"), SeatInfo("B", "b")])


def test_sigkill_mid_append_loses_nothing_acknowledged(tmp_path):
    FileStore(tmp_path).create(_opened())
    for attempt in range(4):
        child = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], cwd=REPO,
                                 stdout=subprocess.PIPE, text=True)
        acknowledged = 0
        for _ in range(3 + attempt):
            acknowledged = int(child.stdout.readline())
        time.sleep(0.002 * attempt)
        child.send_signal(signal.SIGKILL)
        child.wait()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TornTailWarning)
            events = list(FileStore(tmp_path).read("m-1"))
        assert len(events) >= acknowledged
        assert [e.seq for e in events] == list(range(len(events)))
        assert len(events) % 50 == 1  # only whole batches survive


def test_a_write_cut_half_way_is_recovered(tmp_path):
    FileStore(tmp_path).create(_opened())
    script = r"""
import os, signal, sys
from ledger import FileStore
from ledger.codec import encode_line
from ledger.events import JudgeNote
store = FileStore(sys.argv[1])
store.append("m-1", [JudgeNote("j", "kept")], 1)
print("acked", flush=True)
last = list(store.read("m-1"))[-1]
lines, prev = [], last.hash
for i in range(2, 12):
    line, prev = encode_line(JudgeNote("j", "lost"), i, "2026-01-01T00:00:00.000Z", 11, prev)
    lines.append(line)
data = b"\n".join(lines) + b"\n"
fd = os.open(sys.argv[1] + "/m-1.jsonl", os.O_WRONLY | os.O_APPEND)
os.write(fd, data[: len(data) // 2])
os.kill(os.getpid(), signal.SIGKILL)
"""
    child = subprocess.run([sys.executable, "-c", script, str(tmp_path)], cwd=REPO,
                           capture_output=True, text=True)
    assert child.returncode == -signal.SIGKILL and "acked" in child.stdout
    import pytest
    before = (tmp_path / "m-1.jsonl").read_bytes()
    events = list(FileStore(tmp_path).read("m-1"))
    assert [e.event.text for e in events[1:]] == ["kept"]
    assert (tmp_path / "m-1.jsonl").read_bytes() == before  # a reader leaves the torn tail
    with pytest.warns(TornTailWarning):  # the next writer drops it
        FileStore(tmp_path).append("m-1", [JudgeNote("j", "next")], 2)
    events = list(FileStore(tmp_path).read("m-1"))
    assert [e.event.text for e in events[1:]] == ["kept", "next"]


RACER = r"""
import sys, time
from ledger import ConflictError, FileStore
from ledger.events import JudgeNote
store = FileStore(sys.argv[1])
start = float(sys.argv[2])
while time.time() < start:
    pass
try:
    store.append("m-1", [JudgeNote("j", sys.argv[3])], 1)
    print("ok")
except ConflictError as exc:
    print("conflict")
"""


def test_two_processes_same_expected_seq_exactly_one_wins(tmp_path):
    FileStore(tmp_path).create(_opened())
    start = time.time() + 0.8
    kids = [subprocess.Popen([sys.executable, "-c", RACER, str(tmp_path), str(start), name],
                             cwd=REPO, stdout=subprocess.PIPE, text=True) for name in ("p", "q")]
    outcomes = sorted(k.communicate()[0].strip() for k in kids)
    assert outcomes == ["conflict", "ok"]
    events = list(FileStore(tmp_path).read("m-1"))
    assert len(events) == 2


STRESS = r"""
import sys
from ledger import ConflictError, FileStore
from ledger.events import JudgeNote
store = FileStore(sys.argv[1])
done = 0
while done < 30:
    length = store.length("m-1")
    try:
        store.append("m-1", [JudgeNote(sys.argv[2], str(done)), JudgeNote(sys.argv[2], "pair")], length)
        done += 1
    except ConflictError:
        pass
"""


def test_writers_retrying_on_conflict_keep_every_batch(tmp_path):
    FileStore(tmp_path).create(_opened())
    kids = [subprocess.Popen([sys.executable, "-c", STRESS, str(tmp_path), f"w{i}"], cwd=REPO)
            for i in range(3)]
    assert all(k.wait() == 0 for k in kids)
    events = list(FileStore(tmp_path).read("m-1"))
    assert len(events) == 1 + 3 * 30 * 2
    for i in range(3):
        assert [e.event.text for e in events if getattr(e.event, "judge", "") == f"w{i}"][::2] == \
            [str(n) for n in range(30)]
