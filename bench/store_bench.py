"""Benchmark: durable appends of both stores (file, PostgreSQL), each next to its floor.

Prints one JSON object.  For each backend, measured in the same run and interleaved sample by
sample with its floor (so both see the same machine load):

* ``<backend>_append_p50_ms`` / ``_p99_ms``: ``Store.append`` of one event;
  ``<backend>_batch10_p50_ms`` / ``_p99_ms``: of a 10-event batch;
* the floor of each: for the file store a raw ``write`` + ``fsync`` of the very bytes the store
  wrote (the same lines) to a file in the same directory; for PostgreSQL a bare ``INSERT`` of
  the same lines (one row each, ``bytea``, all of a batch in one statement) committed by
  itself, through psycopg on an open autocommit connection to the same server over the same
  unix socket -- like the store's append, one statement and one round trip (a ``BEGIN`` and a
  ``COMMIT`` of their own would add two round trips the store does not pay);
* ``<backend>_append_vs_floor`` / ``_batch10_vs_floor``: store p50 / floor p50 (target <= 2);
* ``<backend>_20_writers_events_per_s``: 20 threads appending single events, each to a match
  of its own, next to ``<backend>_floor_20_writers_events_per_s`` (20 threads doing the floor's
  write at once, each on a file / connection of its own).

PostgreSQL is a throwaway cluster this script starts and removes (:mod:`ledger.pgcluster`);
without one the output says ``"postgres": "unavailable: <why>"``.  Any other error exits
non-zero.  ``--quick`` takes fewer samples (the ``wonders bench --quick`` smoke run).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ledger.events import MatchOpened, SeatInfo
from ledger.filestore import FileStore
from ledger.pgcluster import ClusterUnavailable, start_cluster
from ledger.store import Store
from replay.wotf.events import BattleResolved, CardMoved, PlayDeclared, ResourcesChanged

WRITERS = 20
WARM = 10  # untimed appends per writer first (a pool grows to its 20 connections)


def sample_events(n: int) -> list:
    kinds = [
        lambda i: CardMoved(f"A{i % 50}", "Granite Warden", "A", "deck", "hand", "draw"),
        lambda i: ResourcesChanged("B", "play", energy=i % 7, actions=i % 3),
        lambda i: BattleResolved(i % 7 + 1, "A", 7, 5, "attacker"),
        lambda i: PlayDeclared("A", f"A{i % 50}", i % 7 + 1),
    ]
    return [kinds[i % len(kinds)](i) for i in range(n)]


def opened(match_id: str) -> MatchOpened:
    return MatchOpened(match_id=match_id, ruleset="1.3.2",
                       seats=[SeatInfo("A", "a"), SeatInfo("B", "b")])


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000


class FileFloor:
    """Raw ``write`` + ``fsync`` of given bytes, appended to one file."""

    def __init__(self, path: Path):
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)

    def write(self, lines: list[bytes]) -> None:
        os.write(self.fd, b"\n".join(lines) + b"\n")
        os.fsync(self.fd)

    def close(self) -> None:
        os.close(self.fd)


class PgFloor:
    """A bare ``INSERT`` of given lines (one statement, ``VALUES`` a row per line), committed
    by itself: an autocommit psycopg connection, one round trip."""

    def __init__(self, url: str, table: str):
        import psycopg

        self.conn = psycopg.connect(url, autocommit=True)
        self.table, self.seq = table, 0
        self.conn.execute(f"CREATE TABLE IF NOT EXISTS {table} "
                          f"(seq integer PRIMARY KEY, line bytea NOT NULL)")

    def write(self, lines: list[bytes]) -> None:
        rows = ", ".join(["(%s, %b)"] * len(lines))
        values = [v for i, line in enumerate(lines) for v in (self.seq + i, line)]
        self.seq += len(lines)
        self.conn.execute(f"INSERT INTO {self.table} (seq, line) VALUES {rows}", values)

    def close(self) -> None:
        self.conn.close()


def lines_of(store: Store, match_id: str, start: int, count: int) -> list[bytes]:
    """The canonical lines ``start`` … ``start + count - 1`` of a match, as stored."""
    return store.export_lines(match_id).split(b"\n")[start:start + count]


def latencies(store: Store, floor, events: list, size: int, samples: int) -> tuple[list, list]:
    """(store ms, floor ms) of ``samples`` appends of ``size`` events, interleaved: the floor
    writes the very lines of a store append, alternately just after it and just before the
    next one (so neither is always the one that follows the other's ``fsync``)."""
    store.create(opened(f"lat{size}"))
    match_id, length = f"lat{size}", 1
    store_ms, floor_ms = [], []
    lines: list[bytes] = []  # set by the first (even) sample before the floor uses it
    for i in range(samples):
        if i % 2:  # every other sample the floor goes first: neither always follows the other
            start = time.perf_counter()
            floor.write(lines)
            floor_ms.append(ms_since(start))
        batch = events[i * size:(i + 1) * size]
        start = time.perf_counter()
        store.append(match_id, batch, length)
        store_ms.append(ms_since(start))
        lines = lines_of(store, match_id, length, size)
        if not i % 2:
            start = time.perf_counter()
            floor.write(lines)
            floor_ms.append(ms_since(start))
        length += size
    return store_ms, floor_ms


def concurrently(work: Callable[[int], None]) -> float:
    """Seconds for ``WRITERS`` threads to each run ``work(k)`` once, started together."""
    barrier = threading.Barrier(WRITERS + 1)
    errors: list[BaseException] = []

    def run(k: int) -> None:
        barrier.wait()
        try:
            work(k)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(WRITERS)]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.perf_counter()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return time.perf_counter() - start


def writers_rate(store: Store, make_floor: Callable[[int], object], events: list,
                 per_writer: int) -> tuple[float, float]:
    """(store, floor) events/s of ``WRITERS`` threads appending single events, each to a match
    (floor: a file or connection) of its own."""
    for k in range(WRITERS):
        store.create(opened(f"w{k}"))
    sample = lines_of(store, "lat1", 1, per_writer)  # lines the size the writers write

    def write_store(k: int, first: int = 1, count: int = per_writer) -> None:
        for i in range(first, first + count):
            store.append(f"w{k}", [events[i]], i)

    # Not timed: every writer's first appends (a pool's connections opened, files opened).
    concurrently(lambda k: write_store(k, 1, WARM))

    floors = [make_floor(k) for k in range(WRITERS)]

    def write_floor(k: int) -> None:
        for i in range(per_writer):
            floors[k].write([sample[i]])  # type: ignore[attr-defined]

    try:
        store_s = concurrently(lambda k: write_store(k, 1 + WARM))
        floor_s = concurrently(write_floor)
    finally:
        for floor in floors:
            floor.close()  # type: ignore[attr-defined]
    total = WRITERS * per_writer
    return total / store_s, total / floor_s


def measure(prefix: str, store: Store, make_floor: Callable[[int], object],
            samples: int, per_writer: int) -> dict:
    events = sample_events(samples * 10 + per_writer + WARM + 1)
    floor = make_floor(-1)
    try:
        single, single_floor = latencies(store, floor, events, 1, samples)
        batch, batch_floor = latencies(store, floor, events, 10, samples)
    finally:
        floor.close()  # type: ignore[attr-defined]
    rate, floor_rate = writers_rate(store, make_floor, events, per_writer)
    figures = {}
    for name, values, floors in (("append", single, single_floor),
                                 ("batch10", batch, batch_floor)):
        figures[f"{prefix}_{name}_p50_ms"] = round(pct(values, 0.5), 3)
        figures[f"{prefix}_{name}_p99_ms"] = round(pct(values, 0.99), 3)
        figures[f"{prefix}_{name}_floor_p50_ms"] = round(pct(floors, 0.5), 3)
        figures[f"{prefix}_{name}_floor_p99_ms"] = round(pct(floors, 0.99), 3)
        figures[f"{prefix}_{name}_vs_floor"] = round(pct(values, 0.5) / pct(floors, 0.5), 2)
    figures[f"{prefix}_{WRITERS}_writers_events_per_s"] = round(rate)
    figures[f"{prefix}_floor_{WRITERS}_writers_events_per_s"] = round(floor_rate)
    figures[f"{prefix}_{WRITERS}_writers_vs_floor"] = round(rate / floor_rate, 2)
    return figures


def measure_file(samples: int, per_writer: int) -> dict:
    root = Path(tempfile.mkdtemp(prefix="wonders-store-bench-"))
    try:
        store = FileStore(root / "store")
        floors = root / "floor"
        floors.mkdir()
        return measure("file", store, lambda k: FileFloor(floors / f"raw{k}.bin"),
                       samples, per_writer)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def measure_postgres(samples: int, per_writer: int) -> dict:
    from ledger.pgstore import PgStore

    try:
        cluster = start_cluster()
    except ClusterUnavailable as exc:
        return {"postgres": f"unavailable: {exc}"}
    try:
        url = cluster.schema_url()
        store = PgStore(url, pool_size=WRITERS + 2)
        try:
            figures = measure("postgres", store,
                              lambda k: PgFloor(url, f"floor_{k if k >= 0 else 'lat'}"),
                              samples, per_writer)
        finally:
            store.close()
        return {"postgres": f"a throwaway cluster ({cluster.bindir})", **figures}
    finally:
        cluster.stop()


def main() -> None:
    quick = "--quick" in sys.argv
    samples, per_writer = (40, 10) if quick else (300, 50)
    result: dict = {"samples": samples, "writers": WRITERS, "events_per_writer": per_writer}
    result.update(measure_file(samples, per_writer))
    result.update(measure_postgres(samples, per_writer))
    result["targets"] = "each backend's append and batch10 p50 within 2x its floor (vs_floor <= 2)"
    print(json.dumps(result))


if __name__ == "__main__":
    main()
