"""``bench/ledger_bench.py``'s context switches per event of the 20 writers and of their
floor (issue 19): counted by ``getrusage`` over every thread of the process while one side
runs, so a side whose events block more often shows more switches per event."""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def bench_module():
    spec = importlib.util.spec_from_file_location("ledger_bench", REPO / "bench" / "ledger_bench.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_timed_counts_the_switches_of_every_writer_thread():
    bench = bench_module()
    seconds, cpu, switches = bench.timed(lambda i: [time.sleep(0.002) for _ in range(3)])
    assert seconds >= 0.006 and cpu >= 0
    assert switches >= 3 * bench.WRITERS  # each sleep gives up its core at least once


def test_a_round_gives_each_side_its_switches_per_event():
    bench = bench_module()
    events = bench.WRITERS  # one event per writer per run

    def raw(i: int) -> None:
        time.sleep(0.002)  # the floor blocks once per event

    def append(i: int) -> None:
        # the "store" blocks sixteen times per event: far more than a busy machine's extra
        # switches (starting, meeting and joining the threads; being preempted), which gave
        # the floor 9.85 a run of the parallel suite
        for _ in range(16):
            time.sleep(0.001)

    result = bench.concurrent_round(append, raw, events)
    assert result["concurrent20_floor_switches_per_event"] >= 1
    assert result["concurrent20_switches_per_event"] >= 16
    assert result["concurrent20_switches_per_event"] > \
        result["concurrent20_floor_switches_per_event"]
