"""``bench/store_bench.py``: one JSON object from a real run (``--quick``: both stores, each
beside its floor, on a throwaway PostgreSQL cluster it starts itself), and
``"postgres": "unavailable: <why>"`` instead of a crash where PostgreSQL can't be started."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

import ledger.pgcluster as pgcluster

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "bench" / "store_bench.py"


def _check_backend(result: dict, prefix: str) -> None:
    for name in ("append", "batch10"):
        p50, floor = result[f"{prefix}_{name}_p50_ms"], result[f"{prefix}_{name}_floor_p50_ms"]
        assert 0 < p50 <= result[f"{prefix}_{name}_p99_ms"]
        assert 0 < floor <= result[f"{prefix}_{name}_floor_p99_ms"]
        assert abs(result[f"{prefix}_{name}_vs_floor"] - p50 / floor) < 0.01 + 0.01 * p50 / floor
    assert result[f"{prefix}_20_writers_events_per_s"] > 0
    assert result[f"{prefix}_floor_20_writers_events_per_s"] > 0


def test_a_quick_run_prints_both_stores_beside_their_floors():
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick"], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert result["samples"] == 40 and result["writers"] == 20
    _check_backend(result, "file")
    if result["postgres"].startswith("unavailable: "):
        pytest.skip(f"no PostgreSQL here: {result['postgres']}")
    _check_backend(result, "postgres")


def test_without_postgresql_the_run_says_why(monkeypatch):
    spec = importlib.util.spec_from_file_location("store_bench", SCRIPT)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    monkeypatch.setattr(pgcluster, "bin_dir", lambda: None)  # as on a machine without it
    assert bench.measure_postgres(5, 2) == {"postgres": f"unavailable: {pgcluster.HOW}"}
