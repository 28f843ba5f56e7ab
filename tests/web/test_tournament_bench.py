"""``bench/tournament_bench.py``: one JSON object from a real run (``--quick``: 40 players),
the round's ``fsync`` calls counted -- one per match file and a few for the round, against
eight per table created one by one -- beside the disk's floor measured in the same run; and the
pages players and the organizer refresh, timed over 100 requests each."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.web.test_round_start_cost import PER_ROUND

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "bench" / "tournament_bench.py"


def test_a_quick_run_prints_the_round_beside_the_disks_floor(tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--dir", str(tmp_path)],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert result["players"] == 40 and result["tables"] == 20
    assert result["start_fsyncs"] == 20 + PER_ROUND
    assert result["table_by_table_fsyncs"] == 8 * 20 + 1
    assert result["start_fsyncs_per_match"] == round((20 + PER_ROUND) / 20, 3)
    for key in ("start_s", "table_by_table_s", "floor_fsync_p50_ms", "floor_fsyncs_per_s",
                "floor_start_s"):
        assert result[key] > 0, key
    assert result["floor_fsync_p50_ms"] <= result["floor_fsync_p99_ms"] and result["pairing_s"] >= 0
    assert result["page_requests"] >= 100
    for key in ("public_page_ms_p50", "round_page_ms_p50", "console_page_ms_p50",
                "api_tournament_ms_p50", "tournament_load_ms_p50"):
        assert result[key] > 0, key
    for key in ("public_page", "console_page", "tournament_load"):
        assert result[f"{key}_ms_p50"] <= result[f"{key}_ms_p99"], key
    assert list(tmp_path.iterdir()) == []  # its stores removed
    if result["postgres"] == "ok":
        assert result["pg_start_s"] > 0 and result["pg_table_by_table_s"] > 0
        assert result["pg_public_page_ms_p50"] > 0 and result["pg_tournament_load_ms_p50"] > 0
    else:
        assert result["postgres"].startswith("unavailable: ")
