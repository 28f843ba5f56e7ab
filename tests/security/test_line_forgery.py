"""The hash-chain bypass of issue 12: a duplicate key appended after a line's hash.

A line used to be hashed up to ``,"hash":"`` but decoded whole, so a key repeated after the hash
won: a golden match with the seats of line 0 swapped and the time of its last line changed this
way passed ``wonders verify`` with its head hash unchanged.  ``wonders verify`` (a real process)
must fail, naming file, line and seq.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from tests.ledger.forgeries import duplicate_at_after_hash, duplicate_seats_after_hash

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "fixtures" / "matches" / "golden-132-0001.jsonl"


def _verify(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "web.cli", "verify", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.parametrize("forge", [duplicate_seats_after_hash, duplicate_at_after_hash])
def test_verify_fails_on_a_duplicate_key_after_the_hash(tmp_path, forge):
    forged = forge(GOLDEN.read_bytes())
    path = tmp_path / GOLDEN.name
    path.write_bytes(forged.data)
    head_hash = GOLDEN.read_bytes().rstrip(b"\n").rsplit(b'"hash":"', 1)[1]
    assert forged.data.rstrip(b"\n").endswith(b"}") and head_hash[:64] in forged.data  # head unchanged
    done = _verify(path)
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    (fail,) = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert f"{path.name}:{forged.line}: seq {forged.seq}:" in fail, out
    assert forged.words in fail, out


def test_verify_fails_on_both_forgeries_at_once(tmp_path):
    forged = duplicate_at_after_hash(duplicate_seats_after_hash(GOLDEN.read_bytes()).data)
    path = tmp_path / GOLDEN.name
    path.write_bytes(forged.data)
    done = _verify(path)
    assert done.returncode != 0
    assert f"{path.name}:1: seq 0:" in done.stdout and "duplicate key 'seats'" in done.stdout
