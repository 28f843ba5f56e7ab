"""Benchmark: starting a round of a big Swiss tournament on a file store, next to the disk's floor.

Prints one JSON object.  A tournament of ``--players`` (300: 150 tables) registered players
on a :class:`~ledger.filestore.FileStore` in a temporary directory (``--dir``: under that
directory, to measure the disk the store will live on), and in the same run:

* ``start_s``, ``start_fsyncs``, ``start_ms_per_match``, ``start_fsyncs_per_match``: round 1
  started as the console, the API and the CLI start it (:meth:`Organizer.start_round`:
  pairing, the claim, every table's match and tokens as one creation); ``pairing_s``: the
  pairing alone (:func:`ledger.tournament.next_round`);
* ``table_by_table_s`` / ``_fsyncs``: the same round of a second, identical tournament
  claimed the same way and created table by table (:meth:`Organizer._create_missing`, what a
  start did before, and what a reissue of a table does);
* the floor, measured on the same directory: ``floor_fsync_p50_ms`` / ``_p99_ms`` (a
  ``write`` of 4 KiB and an ``fsync`` of a new file), ``floor_fsyncs_per_s``, and
  ``floor_start_s``: the start's own ``fsync`` count paid at that rate one after another --
  what a round costs a disk that does nothing else (the start's match files' ``fsync`` calls
  overlap, :data:`ledger.filestore.SYNC_THREADS` at a time, so it can beat that).

``fsync`` calls are counted by wrapping ``os.fsync`` (each is still made), and so is a
``write`` to a descriptor opened ``O_SYNC`` (a match file's append: the write is its sync,
:mod:`ledger.gilcalls`).  ``--quick``:
40 players (the test's smoke run).

The pages 300 phones refresh on the day, on a third tournament of as many players with three
rounds started (rounds 1 and 2 ended, round 3 half ended, its other tables still playing:
the moment of a round when everyone looks), rendered ``PAGE_REQUESTS`` times each through
the Flask test client of a real app (:func:`web.app.create_app` over the same directory):
``public_page_ms_p50`` / ``_p99`` (``/tournaments/<id>``: pairings and standings, no token),
``round_page_ms_p50`` (``/tournaments/<id>/rounds/1``), ``console_page_ms_p50`` / ``_p99``
(``/organize/t/<id>``, signed in), ``api_tournament_ms_p50`` (``GET /api/tournaments/<id>``)
and ``tournament_load_ms_p50`` (the app's :meth:`Organizer.load` alone: the log read and
folded, or found unchanged); the garbage collector settled after the app is made, as
``wonders serve`` settles it.

PostgreSQL (a throwaway cluster this script starts and removes, :mod:`ledger.pgcluster`):
``pg_start_s`` and ``pg_table_by_table_s``, the same two starts on a
:class:`~ledger.pgstore.PgStore`, then ``pg_public_page_ms_p50`` and
``pg_tournament_load_ms_p50`` (the started round's page, every table playing, over an app on
that database); without a cluster ``"postgres": "unavailable: <why>"``.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from ledger.filestore import FileStore
from ledger.pgcluster import ClusterUnavailable, start_cluster
from ledger.stores import open_store
from ledger.tournament import next_round
from replay.games import game
from replay.recorder import Recorder
from replay.resources import decks_dir
from web.app import create_app
from web.config import Settings
from web.longlived import settle_startup, spread_full_collections
from web.tokens import token_book
from web.tournaments import Organizer

DECKS = ["solfera-blaze", "thalwind-sky", "petraia-stone", "boundless-drift",
         "heliosynth-forge", "umbrathene-shade", "thalwind-solfera", "petraia-umbrathene"]
FLOOR_SAMPLES = 200
PAGE_REQUESTS = 100  # each page rendered this often (percentiles of these)
PAGE_ROUNDS = 3  # rounds started for the pages' tournament; the last one half ended
ORGANIZER_TOKEN = "bench-organizer-token-0123456789abcdef"
ORIGIN = {"Origin": "http://localhost"}


class Counted:
    """``os.fsync`` and ``os.write`` wrapped: every ``fsync`` and every ``write`` to an
    ``O_SYNC`` descriptor (a synced write) counted, from any thread, and made."""

    def __init__(self) -> None:
        self.calls = 0
        self._lock = threading.Lock()
        self._real, self._write = os.fsync, os.write

    def __enter__(self) -> Counted:
        def fsync(fd: int) -> None:
            self._count()
            self._real(fd)

        def write(fd: int, data: bytes) -> int:
            if os.O_SYNC and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_SYNC == os.O_SYNC:
                self._count()
            return self._write(fd, data)
        os.fsync, os.write = fsync, write  # type: ignore[assignment]
        return self

    def _count(self) -> None:
        with self._lock:
            self.calls += 1

    def __exit__(self, *exc: object) -> None:
        os.fsync, os.write = self._real, self._write


def decklist(name: str) -> str:
    data = tomllib.loads((decks_dir() / f"{name}.toml").read_text(encoding="utf-8"))
    lines = [f"{n} {card}" for card, n in data["cards"].items()]
    lines += [f"{n}x {card}" for card, n in data.get("archive", {}).items()]
    return "\n".join(lines) + "\n"


def tournament(root: Path | str, players: int, tid: str = "bench") -> Organizer:
    store = FileStore(root) if isinstance(root, Path) else open_store(root)
    org = Organizer(store, token_book(store), game("wotf").default_cards())
    org.create("Bench Open", tid)
    for i in range(players):
        org.register(tid, f"Player {i:03d}", decklist(DECKS[i % len(DECKS)]))
    return org


def by_table(org: Organizer, tid: str) -> None:
    """Start a round the way a start did before: claimed, then created table by table
    (:meth:`Organizer._create_missing`, what a reissue of one table still does)."""
    claimed, number = org._claim(tid)
    for tb in claimed.rounds[number - 1].tables:
        assert org._create_missing(claimed, number, tb.table, tb.match_id or "")


def played(org: Organizer, tid: str, rounds: int) -> None:
    """Start ``rounds`` rounds, each table's match ended by a concession (seat A or B by table
    number); the last round's odd-numbered tables only, the others still playing."""
    for number in range(1, rounds + 1):
        t, tables = org.start_round(tid)
        pool = org.pool_of(t)
        for tb in tables:
            if number == rounds and tb.table % 2 == 0:
                continue
            Recorder.resume(org.store, pool, tb.match_id).concede("AB"[tb.table % 3 % 2])


def app_over(store: str | Path) -> Any:
    """An app over ``store``, and the collector settled as ``wonders serve`` settles it
    (:mod:`web.longlived`): without it every full collection walks the whole startup, a
    pause of tens of milliseconds that would be the p99 of any page."""
    app = create_app(Settings(store=store, organizer_token=ORGANIZER_TOKEN,
                              secret_key="b" * 32))
    settle_startup()
    spread_full_collections()
    return app


def times_ms(call: Callable[[], object], n: int = PAGE_REQUESTS) -> list[float]:
    """``n`` calls' milliseconds, sorted, after one not counted (templates compiled, a
    server warmed up: not what a phone waits for on the day)."""
    call()
    out = []
    for _ in range(n):
        began = time.perf_counter()
        call()
        out.append(1000 * (time.perf_counter() - began))
    return sorted(out)


def p50(samples: list[float]) -> float:
    return round(statistics.median(samples), 2)


def p99(samples: list[float]) -> float:
    return round(samples[min(len(samples) - 1, int(0.99 * len(samples)))], 2)


def page(client: Any, path: str) -> Callable[[], object]:
    def get() -> object:
        response = client.get(path)
        assert response.status_code == 200, (path, response.status_code)
        return response.get_data()
    return get


def pages(store: str | Path, tid: str, prefix: str = "") -> dict[str, object]:
    """The players' page, a round's page, the console and the API's tournament, timed."""
    app = app_over(store)
    client = app.test_client()
    public = times_ms(page(client, f"/tournaments/{tid}"))
    org = app.extensions["wonders_tournaments"]
    load = times_ms(lambda: org.load(tid))
    if prefix:
        return {f"{prefix}public_page_ms_p50": p50(public),
                f"{prefix}tournament_load_ms_p50": p50(load)}
    rounds = times_ms(page(client, f"/tournaments/{tid}/rounds/1"))
    api = times_ms(lambda: client.get(f"/api/tournaments/{tid}", headers={
        "Authorization": f"Bearer {ORGANIZER_TOKEN}"}).get_data())
    signed = client.post("/organize/login", data={"token": ORGANIZER_TOKEN}, headers=ORIGIN)
    assert signed.status_code == 303, signed.status_code
    console = times_ms(page(client, f"/organize/t/{tid}"))
    return {"page_requests": PAGE_REQUESTS,
            "public_page_ms_p50": p50(public), "public_page_ms_p99": p99(public),
            "round_page_ms_p50": p50(rounds),
            "console_page_ms_p50": p50(console), "console_page_ms_p99": p99(console),
            "api_tournament_ms_p50": p50(api),
            "tournament_load_ms_p50": p50(load), "tournament_load_ms_p99": p99(load)}


def postgres(players: int) -> dict[str, object]:
    """The two starts on a throwaway PostgreSQL cluster (or why there is none)."""
    try:
        cluster = start_cluster()
    except ClusterUnavailable as exc:
        return {"postgres": f"unavailable: {exc}"}
    try:
        url = cluster.schema_url()
        batched, old = tournament(url, players, "pg-round"), tournament(url, players, "pg-old")
        began = time.perf_counter()
        batched.start_round("pg-round")
        start_s = time.perf_counter() - began
        began = time.perf_counter()
        by_table(old, "pg-old")
        old_s = time.perf_counter() - began
        shown = pages(url, "pg-round", prefix="pg_")
        batched.store.close()
        old.store.close()
        return {"postgres": "ok", "pg_start_s": round(start_s, 3),
                "pg_table_by_table_s": round(old_s, 3), **shown}
    finally:
        cluster.stop()


def floor(directory: Path) -> list[float]:
    """Seconds of a 4 KiB ``write`` and ``fsync`` of a new file, ``FLOOR_SAMPLES`` times."""
    data = os.urandom(4096)
    out = []
    for i in range(FLOOR_SAMPLES):
        path = directory / f"floor-{i}"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            began = time.perf_counter()
            os.write(fd, data)
            os.fsync(fd)
            out.append(time.perf_counter() - began)
        finally:
            os.close(fd)
            path.unlink()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--quick", action="store_true", help="40 players")
    parser.add_argument("--dir", default=None, help="make the stores under this directory")
    args = parser.parse_args()
    players = 40 if args.quick else args.players
    base = Path(tempfile.mkdtemp(prefix="tournament-bench-", dir=args.dir))
    try:
        batched = tournament(base / "round", players)
        shutil.copytree(base / "round", base / "by-table")
        store = FileStore(base / "by-table")
        one_by_one = Organizer(store, token_book(store), batched.pool)
        t = batched.load("bench")
        began = time.perf_counter()
        next_round(t, {})
        pairing_s = time.perf_counter() - began

        with Counted() as counted:
            began = time.perf_counter()
            _t, tables = batched.start_round("bench")
            start_s = time.perf_counter() - began
        assert all(tb.tokens for tb in tables), "a table without its tokens"

        with Counted() as old:
            began = time.perf_counter()
            by_table(one_by_one, "bench")
            by_table_s = time.perf_counter() - began

        played(tournament(base / "pages", players, "pages"), "pages", PAGE_ROUNDS)
        shown = pages(base / "pages", "pages")

        samples = floor(base)
        fsync_p50 = statistics.median(samples)
        n = len(tables)
        print(json.dumps({
            "players": players, "tables": n,
            "pairing_s": round(pairing_s, 4),
            "start_s": round(start_s, 3), "start_fsyncs": counted.calls,
            "start_ms_per_match": round(1000 * start_s / n, 2),
            "start_fsyncs_per_match": round(counted.calls / n, 3),
            "table_by_table_s": round(by_table_s, 3), "table_by_table_fsyncs": old.calls,
            "table_by_table_fsyncs_per_match": round(old.calls / n, 3),
            "floor_fsync_p50_ms": round(1000 * fsync_p50, 3),
            "floor_fsync_p99_ms": round(1000 * sorted(samples)[int(0.99 * len(samples))], 3),
            "floor_fsyncs_per_s": round(1 / fsync_p50),
            "floor_start_s": round(counted.calls * fsync_p50, 3), **shown,
            "dir": str(base.parent), **postgres(players)}))
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
