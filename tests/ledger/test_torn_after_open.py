"""A torn batch left by ANOTHER process after this store opened the match.

``FileStore.append`` truncates a torn tail the first time a process appends to a match; after
that, its check of the file's end (``_tail_locked``: the file must end with a newline and a
line that ends its batch) is all that stops it from taking a batch another process never
finished -- a crashed writer, a second server on the store -- as part of the log.  Without that
check the store would count the unacknowledged line in its length and chain the next batch
onto its hash (or onto half a line).

Each test opens the store and appends through it first, then a real subprocess takes the
file's lock like a writer, writes part of a batch and dies by SIGKILL; then the already-open
store reads and appends.  (A fresh store is covered by ``test_filestore.py`` and
``test_processes.py``.)
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ledger import ConflictError, FileStore, TornTailWarning
from ledger.codec import encode_line
from ledger.events import JudgeNote, MatchOpened, SeatInfo
from ledger.integrity import INTACT, check_file

REPO = Path(__file__).resolve().parents[2]

#: A writer that dies mid-batch: takes the lock, writes the bytes it is given, SIGKILLs itself.
CRASHING_WRITER = r"""
import fcntl, os, signal, sys
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND)
fcntl.flock(fd, fcntl.LOCK_EX)
os.write(fd, sys.stdin.buffer.read())
os.kill(os.getpid(), signal.SIGKILL)
"""


def crash_while_writing(path: Path, data: bytes) -> None:
    """Another process writes ``data`` at the end of ``path`` under the lock, then is killed."""
    child = subprocess.run([sys.executable, "-c", CRASHING_WRITER, str(path)], input=data,
                           cwd=REPO, capture_output=True)
    assert child.returncode == -signal.SIGKILL, child.stderr


def unfinished(last_seq: int, last_hash: str, kind: str) -> bytes:
    """What a writer that died in the middle of appending batch ``last_seq + 1 .. + 3`` left:

    * ``partial`` -- half of its first line;
    * ``unterminated`` -- a whole batch (here: one line that ends its own batch) but its
      newline;
    * ``cut`` -- two whole lines of a three-line batch (the last line's ``batch`` points past
      the end of the file)."""
    seq = last_seq + 1
    if kind == "unterminated":
        line, _ = encode_line(JudgeNote("ghost", "never acknowledged"), seq, "2026-01-01T00:00:00.000Z",
                              seq, last_hash)
        return line
    lines, prev = [], last_hash
    for offset in range(3):
        line, prev = encode_line(JudgeNote("ghost", f"never acknowledged {offset}"), seq + offset,
                                 "2026-01-01T00:00:00.000Z", seq + 2, prev)
        lines.append(line)
    if kind == "partial":
        return lines[0][: len(lines[0]) // 2]
    assert kind == "cut"
    return lines[0] + b"\n" + lines[1] + b"\n"


KINDS = ["partial", "unterminated", "cut"]


@pytest.mark.parametrize("kind", KINDS)
def test_an_open_store_does_not_count_nor_chain_onto_a_batch_another_process_never_finished(
        tmp_path, kind):
    store = FileStore(tmp_path)
    store.create(MatchOpened(match_id="m-1", ruleset="1.3.2",
                             seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")]))
    acked = store.append("m-1", [JudgeNote("judge", "one"), JudgeNote("judge", "two")], 1)
    head = acked[-1]
    path = tmp_path / "m-1.jsonl"
    good = path.read_bytes()

    crash_while_writing(path, unfinished(head.seq, head.hash, kind))
    assert path.read_bytes() != good

    # the open store reads only what was acknowledged, and leaves the file alone
    assert [s.seq for s in store.read("m-1")] == [0, 1, 2]
    assert store.length("m-1") == 3
    # a client that retries at the length it was told appends at seq 3, chained to seq 2
    with pytest.warns(TornTailWarning, match="dropped a torn tail"):
        written = store.append("m-1", [JudgeNote("judge", "three")], 3)
    assert [(s.seq, s.batch, s.prev) for s in written] == [(3, 3, head.hash)]
    data = path.read_bytes()
    assert data.startswith(good) and b"ghost" not in data
    check = check_file(path)
    assert check.status == INTACT, check.message
    for reader in (store, FileStore(tmp_path)):
        assert [s.event.text for s in list(reader.read("m-1"))[1:]] == ["one", "two", "three"]


def test_an_open_store_refuses_the_unacknowledged_length_as_expected_seq(tmp_path):
    """A client that (wrongly) counted the unfinished line is told the real length."""
    store = FileStore(tmp_path)
    store.create(MatchOpened(match_id="m-1", ruleset="1.3.2",
                             seats=[SeatInfo("A", "Ann"), SeatInfo("B", "Bob")]))
    head = store.append("m-1", [JudgeNote("judge", "one")], 1)[-1]
    crash_while_writing(tmp_path / "m-1.jsonl", unfinished(head.seq, head.hash, "unterminated"))
    with pytest.warns(TornTailWarning), pytest.raises(ConflictError, match="has 2 events"):
        store.append("m-1", [JudgeNote("judge", "chained onto the ghost")], 3)
    assert b"ghost" not in (tmp_path / "m-1.jsonl").read_bytes()
