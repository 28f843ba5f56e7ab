"""``bench/analytics_bench.py``'s DuckDB-only ``events`` ingest (``duckdb_only_events_ingest_s``):
the SQL really checks each line's hash and chain link -- a figure for work it skipped would
be no limit at all.  Run on copies of golden matches, then on copies with one line altered
and with two lines swapped."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GOLDEN = sorted((REPO / "fixtures" / "matches").glob("golden-132-*.jsonl"))


def _bench():
    spec = importlib.util.spec_from_file_location("analytics_bench", REPO / "bench" / "analytics_bench.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _copies(tmp_path: Path) -> list[Path]:
    assert GOLDEN, "no golden matches in fixtures/matches"
    store = tmp_path / "store"
    store.mkdir()
    for path in GOLDEN:
        shutil.copy(path, store / path.name)
    return sorted(store.glob("*.jsonl"))


def test_intact_matches_pass_and_are_timed(tmp_path):
    files = _copies(tmp_path)
    seconds = _bench().measure_duckdb_only_events(files, tmp_path)
    assert seconds > 0


def test_an_altered_line_fails_its_hash(tmp_path):
    files = _copies(tmp_path)
    lines = files[0].read_bytes().split(b"\n")
    assert b'"seq":3,' in lines[3]
    lines[3] = lines[3].replace(b'"seq":3,', b'"seq":3 ,', 1)  # still JSON, still seq 3
    files[0].write_bytes(b"\n".join(lines))
    with pytest.raises(AssertionError, match=r"found 1 of \d+ lines not intact"):
        _bench().measure_duckdb_only_events(files, tmp_path)


def test_a_broken_chain_fails_its_link(tmp_path):
    files = _copies(tmp_path)
    other = files[1].read_bytes().split(b"\n")
    lines = files[0].read_bytes().split(b"\n")
    lines[4] = other[4]  # a line that hashes correctly, from another match: its prev differs
    files[0].write_bytes(b"\n".join(lines))
    with pytest.raises(AssertionError, match="not intact"):
        _bench().measure_duckdb_only_events(files, tmp_path)
