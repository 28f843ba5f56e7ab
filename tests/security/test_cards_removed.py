"""A schema-3 match file with its card definitions taken out, re-hashed.

A schema-3 file carries the definitions of every card its seats use (docs/format.md,
"Self-contained cards"), and replaying it uses those, never today's pool.  With ``cards: []``
(and ``cards_digest`` blanked, or left as it was) it verified OK -- re-derived against today's
pool, so a changed pool silently decided the match.  It must fail, for both games.  A file of
schema 2, which recorded no cards, still verifies against the pool.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from ledger.codec import GENESIS, encode_line
from ledger.filestore import FileStore

REPO = Path(__file__).resolve().parents[2]
FILES = {"wotf": REPO / "fixtures" / "matches" / "golden-s3-r8-132-0001.jsonl",
         "sow": REPO / "fixtures" / "sow" / "matches" / "sow-golden-1.jsonl"}
SCHEMA_2 = REPO / "fixtures" / "matches" / "golden-132-0001.jsonl"


def _verify(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "web.cli", "verify", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=600, check=False)


def _rewritten(source: Path, target: Path, **changes) -> None:
    """``source`` with its MatchOpened changed, every line re-hashed and rechained."""
    prev, out = GENESIS, []
    for stored in FileStore.read_file(source):
        event = msgspec.structs.replace(stored.event, **changes) if stored.seq == 0 else stored.event
        line, prev = encode_line(event, stored.seq, stored.at, stored.batch, prev)
        out.append(line)
    target.write_bytes(b"\n".join(out) + b"\n")


@pytest.mark.parametrize("game", sorted(FILES))
@pytest.mark.parametrize(("changes", "words"), [
    ({"cards": [], "cards_digest": ""}, "MatchOpened records no card definitions"),
    ({"cards": []}, "do not match their digest"),
])
def test_a_schema_3_file_without_its_cards_fails_verify(tmp_path, game, changes, words):
    source = FILES[game]
    path = tmp_path / source.name
    _rewritten(source, path, **changes)
    done = _verify(path)
    out = done.stdout + done.stderr
    assert done.returncode != 0 and "Traceback" not in out, out
    (fail,) = [line for line in out.splitlines() if line.startswith("FAIL")]
    assert f"{path.name}:1: seq 0: " in fail and words in fail, out
    assert "the file was altered" in fail, out


def test_a_schema_2_file_records_no_cards_and_verifies_with_the_pool():
    done = _verify(SCHEMA_2)
    assert done.returncode == 0 and "intact" in done.stdout and "schema 2" in done.stdout, done.stdout
