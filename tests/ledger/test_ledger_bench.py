"""``bench/ledger_bench.py``: one JSON object from a real ``--quick`` run, every key it had and
``concurrent20_vs_floor`` (20 writers on 20 matches over 20 raw write+fsync loops), consistent
with the rates it is the ratio of."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "bench" / "ledger_bench.py"
KEYS = {"append_p50_ms", "append_p99_ms", "batch10_append_p50_ms", "fsync_p50_ms",
        "read_events_per_s", "read_cold_events_per_s", "decode_events_per_s", "samples",
        "append_vs_fsync", "read_vs_decode", "read_cold_vs_decode",
        "concurrent20_events_per_s", "concurrent20_floor_per_s", "concurrent20_vs_floor",
        "concurrent20_cpu_us_per_event", "concurrent20_floor_cpu_us_per_event",
        "concurrent20_vs_floor_rounds"}


def test_a_quick_run_prints_the_concurrent_ratio_beside_its_rates():
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick"], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert set(result) >= KEYS
    rate, floor = result["concurrent20_events_per_s"], result["concurrent20_floor_per_s"]
    assert rate > 0 and floor > 0
    assert abs(result["concurrent20_vs_floor"] - rate / floor) < 0.002 + 0.01 * rate / floor
    # a write+fsync costs the kernel some CPU; the store spends that, locks and encodes too
    floor_cpu = result["concurrent20_floor_cpu_us_per_event"]
    assert result["concurrent20_cpu_us_per_event"] > floor_cpu > 0
    # the printed round is the median of the rounds run
    rounds = result["concurrent20_vs_floor_rounds"]
    assert len(rounds) == 5
    assert sorted(rounds)[2] == result["concurrent20_vs_floor"]
    # the append's own CPU outside its durable write: positive, and measured in memory too
    # where this machine has a memory filesystem
    assert result["append_cpu_us_outside_write"] > 0
    in_memory = result["append_cpu_us_outside_write_in_memory"]
    assert in_memory is None or in_memory > 0
