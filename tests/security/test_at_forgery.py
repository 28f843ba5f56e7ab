"""A re-hashed line whose ``at`` is not a time (``yesterday``, empty).

It passed ``wonders verify``, and ``wonders ingest`` then failed the whole load in DuckDB
("invalid timestamp", naming no file): the warehouse ended with no match at all, the good files
lost with the bad one.  Now the line is refused where every reader meets it (the codec): verify
fails it naming file, line and seq, and ingest reports that file by name and loads the others.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from ledger.codec import GENESIS, encode_line
from ledger.filestore import FileStore

REPO = Path(__file__).resolve().parents[2]
MATCHES = REPO / "fixtures" / "matches"
GOOD = ["golden-s3-r8-12-0001", "golden-s3-r8-132-0001", "golden-132-0001"]


def _wonders(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "web.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600, check=False)


def _forged(path: Path, at: str, seq: int) -> None:
    """Rewrite ``path`` with line ``seq + 1``'s ``at`` set to ``at``, every line re-hashed."""
    prev, out = GENESIS, []
    for stored in FileStore.read_file(path):
        line, prev = encode_line(stored.event, stored.seq, at if stored.seq == seq else stored.at,
                                 stored.batch, prev)
        out.append(line)
    path.write_bytes(b"\n".join(out) + b"\n")


@pytest.mark.parametrize("at", ["yesterday", ""])
def test_verify_and_ingest_name_the_file_whose_at_is_not_a_time(tmp_path, at):
    store = tmp_path / "store"
    store.mkdir()
    for name in GOOD:
        shutil.copy(MATCHES / f"{name}.jsonl", store)
    bad = store / "golden-s3-r1-132-0001.jsonl"
    shutil.copy(MATCHES / bad.name, bad)
    _forged(bad, at, 10)
    done = _wonders("verify", str(bad))
    assert done.returncode != 0, done.stdout
    assert f'{bad.name}:11: seq 10: "at" is {at!r}, not a time' in done.stdout, done.stdout
    done = _wonders("ingest", str(store), "--db", str(tmp_path / "w.duckdb"))
    out = done.stdout + done.stderr
    assert done.returncode == 1 and "Traceback" not in out, out
    assert "loading staged rows failed" not in out, out
    assert f'{bad.name}: corrupt: {bad}:11: seq 10: "at" is {at!r}' in out, out
    with duckdb.connect(str(tmp_path / "w.duckdb"), read_only=True) as con:
        loaded = sorted(row[0] for row in con.execute("SELECT match_id FROM matches").fetchall())
    assert loaded == sorted(GOOD)
