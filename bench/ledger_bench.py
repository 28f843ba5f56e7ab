"""Benchmark: durable appends and reads of the file store, next to this machine's limits.

Prints one JSON object.  ``fsync_p50_ms`` (a raw write + fsync of a line-sized record in the
same directory, timed sample by sample with the single appends) is the physical limit for
``append_p50_ms``; ``decode_events_per_s`` (raw
msgspec decoding of the same lines, already in memory) is the limit for ``read_events_per_s``
(reads by a store that verified the file before: events decoded again, hashes not recomputed)
and ``read_cold_events_per_s`` (a fresh store: every line's SHA-256 and chain link checked).

``concurrent20_vs_floor``: 20 writers (threads, as the server's) each appending single events
to a match of its own, events per second, over the rate of 20 threads each doing a raw
write + fsync of a line-sized record to a file of its own in the same directory (the floor
for that concurrency, timed before and after the store: the faster; target ≥ 0.6).  A round
of 20 × 10 events (``--quick``) lasts about 10 ms, so one scheduling hiccup of a busy machine
moves it by half: five rounds are run, the figures printed are those of the round with the
median ratio, and ``concurrent20_vs_floor_rounds`` lists every round's ratio.
``concurrent20_cpu_us_per_event`` and ``concurrent20_floor_cpu_us_per_event``: the CPU time of
the whole process (every thread, user and system) per event in those runs -- on a machine
whose cores are busy the ratio follows the CPU each side spends per event.
``concurrent20_switches_per_event`` and ``concurrent20_floor_switches_per_event``: the
process's context switches (voluntary and involuntary) per event in those runs.
``append_cpu_us_outside_write``: the CPU time of one thread's single appends spent outside
the durable write itself (encoding, hashing, locking, the checks) -- the work each of the 20
writers does holding the GIL, so what bounds the 20-writer rate -- on the bench's disk, and
``append_cpu_us_outside_write_in_memory`` the same on a memory filesystem (``/dev/shm``;
``null`` where there is none): the same instructions, not following a journal commit that
left the caches cold.  A writer
thread lets go of the GIL in every blocking system call; while other writers want it,
taking it back is a futex wait and a context switch, so these say how many GIL hand-offs
(and waits for the disk) an event costs each side.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ledger import filestore
from ledger.events import MatchOpened, SeatInfo
from ledger.filestore import FileStore
from ledger.registry import decoder as event_decoder
from replay.wotf.events import BattleResolved, CardMoved, PlayDeclared, ResourcesChanged


def sample_events(n: int) -> list:
    kinds = [
        lambda i: CardMoved(f"A{i % 50}", "Granite Warden", "A", "deck", "hand", "draw"),
        lambda i: ResourcesChanged("B", "play", energy=i % 7, actions=i % 3),
        lambda i: BattleResolved(i % 7 + 1, "A", 7, 5, "attacker"),
        lambda i: PlayDeclared("A", f"A{i % 50}", i % 7 + 1),
    ]
    return [kinds[i % len(kinds)](i) for i in range(n)]


WRITERS = 20  # concurrent writers, each on a match of its own
ROUNDS = 5  # rounds of the 20-writer figures (floor, store, floor): the median is printed


def concurrently(work, writers: int = WRITERS) -> float:
    """Seconds for ``writers`` threads each running ``work(i)``, started together."""
    ready = threading.Barrier(writers + 1)

    def run(i: int) -> None:
        ready.wait()
        work(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(writers)]
    for thread in threads:
        thread.start()
    ready.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    return time.perf_counter() - start


def concurrent_figures(root: Path, per_writer: int, rounds: int = ROUNDS) -> dict:
    """20 writers on 20 matches against 20 raw write+fsync loops (the module docstring):
    ``rounds`` rounds of floor, store, floor; the figures of the round whose ratio is the
    median, and every round's ratio."""
    store = FileStore(root / "concurrent")
    for i in range(WRITERS):
        store.create(MatchOpened(match_id=f"c-{i:02d}", ruleset="1.3.2",
                                 seats=[SeatInfo("A", "a"), SeatInfo("B", "b")]))
    events = sample_events(per_writer)
    length = [1]  # each match's length before the round (all grow alike)

    def append(i: int) -> None:
        for n, event in enumerate(events):
            store.append(f"c-{i:02d}", [event], length[0] + n)

    def raw(i: int) -> None:
        fd = os.open(root / "concurrent" / f"raw-{i:02d}.bin", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        try:
            for _ in range(per_writer):
                os.write(fd, b"x" * 200 + b"\n")
                os.fsync(fd)
        finally:
            os.close(fd)

    for i in range(WRITERS):  # the raw files exist before they are timed, as the matches do
        (root / "concurrent" / f"raw-{i:02d}.bin").write_bytes(b"")
    results = []
    for _ in range(rounds):
        results.append(concurrent_round(append, raw, WRITERS * per_writer))
        length[0] += per_writer
    ratios = [result["concurrent20_vs_floor"] for result in results]
    median = sorted(results, key=lambda result: result["concurrent20_vs_floor"])[len(results) // 2]
    return {**median, "concurrent20_vs_floor_rounds": ratios}


def concurrent_round(append, raw, events_timed: int) -> dict:
    """One round: the floor before and after the store, the faster of the two (the ratio's
    worst case), and the CPU and context switches per event of each (the floor's: the
    fewer of its two runs)."""
    floor_seconds, floor_cpu, floor_switches = timed(raw)
    seconds, cpu, switches = timed(append)
    again_seconds, again_cpu, again_switches = timed(raw)
    rate = events_timed / seconds
    floor_rate = events_timed / min(floor_seconds, again_seconds)
    return {"concurrent20_events_per_s": round(rate), "concurrent20_floor_per_s": round(floor_rate),
            "concurrent20_vs_floor": round(rate / floor_rate, 3),
            "concurrent20_cpu_us_per_event": round(cpu / events_timed * 1e6, 1),
            "concurrent20_floor_cpu_us_per_event":
                round(min(floor_cpu, again_cpu) / events_timed * 1e6, 1),
            "concurrent20_switches_per_event": round(switches / events_timed, 2),
            "concurrent20_floor_switches_per_event":
                round(min(floor_switches, again_switches) / events_timed, 2)}


def outside_write_us(root: Path, events: list) -> float:
    """CPU microseconds per single append spent outside the durable write (the module
    docstring): the store's ``_write_all`` is wrapped to count the thread's CPU inside it."""
    store = FileStore(root)
    store.create(MatchOpened(match_id="split", ruleset="1.3.2",
                             seats=[SeatInfo("A", "a"), SeatInfo("B", "b")]))
    inside = [0]
    write_all = filestore._write_all

    def counted(fd: int, data: bytes) -> None:
        start = time.thread_time_ns()
        write_all(fd, data)
        inside[0] += time.thread_time_ns() - start

    filestore._write_all = counted
    try:
        start = time.thread_time_ns()
        for n, event in enumerate(events):
            store.append("split", [event], n + 1)
        total = time.thread_time_ns() - start
    finally:
        filestore._write_all = write_all
    return round((total - inside[0]) / len(events) / 1000, 1)


def in_memory_dir() -> Path | None:
    """A fresh directory on a memory filesystem, or None."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK):
        return None
    return Path(tempfile.mkdtemp(prefix="wonders-ledger-bench-", dir=shm))


def timed(work) -> tuple[float, float, int]:
    """Seconds of :func:`concurrently` running ``work``, the CPU seconds this process (all
    its threads, user and system) spent meanwhile, and its context switches meanwhile
    (voluntary and involuntary, every thread: ``getrusage``)."""
    before = resource.getrusage(resource.RUSAGE_SELF)
    cpu = time.process_time()
    seconds = concurrently(work)
    cpu = time.process_time() - cpu
    after = resource.getrusage(resource.RUSAGE_SELF)
    switches = (after.ru_nvcsw - before.ru_nvcsw) + (after.ru_nivcsw - before.ru_nivcsw)
    return seconds, cpu, switches


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    quick = "--quick" in sys.argv
    samples = 50 if quick else 300
    root = Path(tempfile.mkdtemp(prefix="wonders-ledger-bench-"))
    store = FileStore(root)
    opened = MatchOpened(match_id="bench", ruleset="1.3.2", seats=[SeatInfo("A", "a"), SeatInfo("B", "b")])
    store.create(opened)
    events = sample_events(samples * 11)

    # Raw fsync (a line-sized record written and fsynced, in the same directory) and single
    # appends, sample by sample: both see the same machine load.  Every other sample the floor
    # goes first, so neither is always the one that follows the other's fsync.
    raw = os.open(root / "raw.bin", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    record = b"x" * 200 + b"\n"
    fsync_ms: list[float] = []
    single_ms: list[float] = []
    length = 1
    for i in range(2 * samples):
        if (i + i // 2) % 2:  # the order of each pair alternates: floor, store / store, floor
            start = time.perf_counter()
            os.write(raw, record)
            os.fsync(raw)
            fsync_ms.append((time.perf_counter() - start) * 1000)
        else:
            start = time.perf_counter()
            store.append("bench", [events[length - 1]], length)
            single_ms.append((time.perf_counter() - start) * 1000)
            length += 1
    os.close(raw)
    batch_ms = []
    for i in range(samples):
        batch = events[samples + 10 * i: samples + 10 * (i + 1)]
        start = time.perf_counter()
        store.append("bench", batch, length)
        batch_ms.append((time.perf_counter() - start) * 1000)
        length += len(batch)

    # Reading a 10,000-event file, against raw decoding of its lines.
    big = FileStore(root / "big")
    big.create(MatchOpened(match_id="big", ruleset="1.3.2", seats=[SeatInfo("A", "a"), SeatInfo("B", "b")]))
    many = sample_events(9999)
    for i in range(0, len(many), 500):
        big.append("big", many[i:i + 500], 1 + i)
    lines = (root / "big" / "big.jsonl").read_bytes().splitlines()
    decoder = event_decoder()  # the tagged union of every registered game's events
    rounds = 3 if quick else 7
    decode_s, read_s, cold_s = [], [], []
    for _ in range(rounds):
        start = time.perf_counter()
        sum(1 for _ in FileStore(root / "big").read("big"))  # a fresh store verifies every hash
        cold_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        for line in lines:
            decoder.decode(line)
        decode_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        count = sum(1 for _ in big.read("big"))
        read_s.append(time.perf_counter() - start)
    assert count == len(lines) == 10000

    result = {
        "append_p50_ms": round(pct(single_ms, 0.5), 3),
        "append_p99_ms": round(pct(single_ms, 0.99), 3),
        "batch10_append_p50_ms": round(pct(batch_ms, 0.5), 3),
        "fsync_p50_ms": round(pct(fsync_ms, 0.5), 3),
        "read_events_per_s": round(len(lines) / min(read_s)),
        "read_cold_events_per_s": round(len(lines) / min(cold_s)),
        "decode_events_per_s": round(len(lines) / min(decode_s)),
        "samples": samples,
        "dir": str(root),
    }
    result.update(concurrent_figures(root, 10 if quick else 40))
    split = sample_events(500 if quick else 3000)
    result["append_cpu_us_outside_write"] = outside_write_us(root / "split", split)
    memory = in_memory_dir()
    result["append_cpu_us_outside_write_in_memory"] = (
        None if memory is None else outside_write_us(memory / "split", split))
    if memory is not None:
        shutil.rmtree(memory, ignore_errors=True)
    result["append_vs_fsync"] = round(result["append_p50_ms"] / result["fsync_p50_ms"], 3)
    result["read_vs_decode"] = round(result["read_events_per_s"] / result["decode_events_per_s"], 3)
    result["read_cold_vs_decode"] = round(result["read_cold_events_per_s"] / result["decode_events_per_s"], 3)
    shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
