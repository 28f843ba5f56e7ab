"""Re-hashed ``batch`` and ``at`` fields that contradict the format.

A batch is appended at once: every line of it carries the seq of its last line in ``batch``
and the same ``at`` (docs/format.md, "A line" and "Batches").  A file with ``batch: 0`` on
lines inside a later batch, or with the lines of one batch at different times, passed
``wonders verify``.  Each must fail naming file, line and seq; a file whose every line is a
batch of its own (``batch`` = ``seq`` on each) is legal and still verifies.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ledger.codec import GENESIS, Stored, encode_line
from ledger.filestore import FileStore

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "fixtures" / "matches" / "golden-s3-r8-132-0001.jsonl"
STORED = list(FileStore.read_file(GOLDEN))
#: a line in the middle of a batch of several lines, and where its batch starts
MIDDLE = next(s for s in STORED[100:] if s.batch > s.seq and STORED[s.seq - 1].batch == s.batch)


def _rewritten(path: Path, envelope: Callable[[Stored], tuple[str, int]]) -> None:
    prev, out = GENESIS, []
    for stored in STORED:
        at, batch = envelope(stored)
        line, prev = encode_line(stored.event, stored.seq, at, batch, prev)
        out.append(line)
    path.write_bytes(b"\n".join(out) + b"\n")


def _verify(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "web.cli", "verify", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=600, check=False)


FORGERIES = {
    "batch 0 inside a later batch": (
        lambda s: (s.at, 0 if s.seq == MIDDLE.seq else s.batch),
        "batch 0 ends before this line"),
    "a batch that ends elsewhere for one line": (
        lambda s: (s.at, s.batch + 1 if s.seq == MIDDLE.seq else s.batch),
        f"batch {MIDDLE.batch + 1}, but the batch it continues"),
    "one line of a batch at another time": (
        lambda s: ("1999-01-01T00:00:00.000Z" if s.seq == MIDDLE.seq else s.at, s.batch),
        "the lines of a batch share their at"),
}


@pytest.mark.parametrize("forgery", FORGERIES)
def test_verify_fails_on_batch_fields_that_contradict_the_batch(tmp_path, forgery):
    envelope, words = FORGERIES[forgery]
    path = tmp_path / GOLDEN.name
    _rewritten(path, envelope)
    done = _verify(path)
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    (fail,) = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert f"{path.name}:{MIDDLE.seq + 1}: seq {MIDDLE.seq}: " in fail and words in fail, out


def test_every_line_a_batch_of_its_own_is_legal(tmp_path):
    path = tmp_path / GOLDEN.name
    _rewritten(path, lambda s: (s.at, s.seq))
    done = _verify(path)
    assert done.returncode == 0 and "intact" in done.stdout, done.stdout + done.stderr
