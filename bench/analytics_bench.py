"""Benchmark: the analytics warehouse (ingest rate, ``cards`` latency) next to a naive baseline.

Prints one JSON object.  The corpus is 10,000 simulated matches (half under ruleset 1.3.2,
half under 1.2, two simulator processes), generated once and cached under
``/tmp/wonders-analytics-bench/<parameters>-code<hash>/``, the hash taken over the code and
data that make it (``ledger/``, ``replay/``, ``fixtures/`` and this script), so a corpus made by
older code is never measured (the output says where and whether it was reused).

* ``ingest_matches_per_s`` / ``ingest_events_per_s`` / ``ingest_10k_s``: a fresh ``ingest`` of
  the 10,000 match files (every line's hash and chain link checked) into a new DuckDB file;
* ``cards_10k_s``: the ``cards`` statistic (SQL plus Wilson intervals) over that warehouse;
* ``cards_100k_s``: the same over a 100,000-match warehouse that repeats the 10,000 simulated
  matches ten times under new ids (``<id>~0`` … ``<id>~9``, rows replicated inside DuckDB);
* ``naive_cards_10k_s`` / ``naive_cards_100k_s``: the same statistic computed in plain Python
  (:mod:`replay.wotf.plainstats`: decode every file, loop over the events) over the same files --
  for 100,000 matches every file is decoded and counted ten times, under the ten ids;
* ``cards_naive_ratio``: naive / DuckDB at 10,000 matches (``cards_naive_ratio_100k`` at 100,000);
* the limits of ingest, measured in the same run over the same files: ``floor_read_bytes_s``
  (reading every byte) and ``floor_read_and_verify_1_process_s`` (decoding every line and
  checking its hash and chain link in one process); ``ingest_vs_verify_floor`` is that floor
  divided by the ingest time with ``jobs`` processes (1.0: ingest costs no more than verifying
  the files once in one process), ``ingest_vs_read_floor`` the same for reading the bytes.

* ``verify_matches_per_s_1`` / ``verify_matches_per_s_2``: ``wonders verify`` of every match
  of the corpus (intact and re-derived) on a local Dask cluster of 1, then 2 worker processes
  (:func:`replay.distributed_verify.verify_many`; the clusters' start, ``dask_start_1_s`` /
  ``_2_s``, is not counted); ``verify_speedup_2_vs_1`` is their ratio;
* ``duckdb_cards_direct_s``: DuckDB's own ``read_ndjson`` computing per-card games and wins
  (finished matches, each seat's distinct main-deck cards, a win when the seat is
  ``MatchEnded.winner``) straight from the same files (:data:`DIRECT_CARDS`; its games and
  wins are checked against the warehouse's ``cards`` statistic), and
  ``ingest_vs_duckdb_ratio``: the fresh ingest's time (local cluster start included) ÷ that;
* their limits, measured in the same run: ``floor_cpu_speedup_2_processes`` (fixed
  pure-Python work in 2 processes at once against 1: what the machine's free cores allow
  the 2-worker verify) and ``floor_verify_over_jobs_vs_duckdb`` (reading + hash-checking
  every line in one process, divided by ``jobs`` and by the DuckDB time: the lowest
  ``ingest_vs_duckdb_ratio`` an ingest that checks every line in Python could reach);
  ``floor_store_events_s`` (DuckDB writing the ``events`` table's rows, already typed, from
  the ingested warehouse into a new database file: the least any ingest pays to hold them)
  and ``floor_store_events_vs_duckdb``; ``floor_ingest_vs_duckdb`` is the sum of the two
  floors ÷ the DuckDB time: no ingest that checks every line in Python and keeps every
  event's row can have a lower ``ingest_vs_duckdb_ratio`` on this machine;
* ``duckdb_only_events_ingest_s`` and ``duckdb_only_events_ingest_vs_duckdb``: a part of an
  ingest done entirely inside DuckDB (:data:`DUCKDB_ONLY_EVENTS`: every line read, its SHA-256
  and its chain link checked in SQL, the envelope's columns and the line kept as the ``events``
  rows, committed; median of 3) -- no canonical check, no other table, no round or turn: what
  an ingest written in DuckDB's own C++ instead of Python pays for the part of the work the
  floors above cover.

``--quick`` uses 400 matches (and 4 repeats) for a smoke test; ``--ingest-only N`` prints only
the ingest figures and floors, over a corpus of ``N`` matches.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CACHE = Path("/tmp/wonders-analytics-bench")
SEED = 6
RULESETS = ("1.3.2", "1.2")


def _simulate_shard(args: tuple[str, int, int, str, str]) -> int:
    """One simulator process: ``count`` matches with ids ``<prefix>-0001`` … into ``out``."""
    out, count, seed, ruleset, prefix = args
    from ledger.filestore import FileStore
    from replay.simulate import simulate_matches
    from replay.wotf.cards import default_cards
    from replay.wotf.decks import load_decks

    db = default_cards()
    decks = load_decks(None, db)
    store = FileStore(out)
    done = 0
    for _ in simulate_matches(store, db, decks, count, seed, ruleset, ("greedy", "greedy"), prefix):
        done += 1
    return done


def code_hash() -> str:
    """A hash of everything that decides the corpus's bytes: the ledger, the games' engines,
    cards and decks, and this script."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    files = [Path(__file__).resolve()]
    for top in ("ledger", "replay", "fixtures"):
        files += sorted(f for f in (root / top).rglob("*")
                        if f.is_file() and "__pycache__" not in f.parts)
    for f in files:
        digest.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def corpus(matches: int) -> tuple[Path, bool]:
    """The cached corpus directory for ``matches`` simulated matches; built if missing.

    It is built in a directory of this run's own and renamed into place once complete, so
    two benches running at once (or one stopped half-way) never see, reuse or remove another
    run's half-made corpus: the first complete one to arrive is the one both measure."""
    key = f"n{matches}-seed{SEED}-rules{'+'.join(RULESETS)}-greedy-code{code_hash()}"
    root = CACHE / key
    if (root / "READY").exists():
        return root / "store", True
    for stale in CACHE.glob(key.rsplit("-code", 1)[0] + "-code*"):
        if stale != root:
            shutil.rmtree(stale, ignore_errors=True)  # made by other code: never measured again
    CACHE.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=CACHE))
    store = building / "store"
    store.mkdir()
    shards = len(RULESETS)
    jobs = [(str(store), matches // shards + (1 if k < matches % shards else 0), SEED * 100 + k,
             RULESETS[k], f"s{k}") for k in range(shards)]
    with multiprocessing.get_context("spawn").Pool(shards) as pool:
        pool.map(_simulate_shard, jobs)
    (building / "READY").write_text("ok\n")
    if root.exists() and not (root / "READY").exists():
        shutil.rmtree(root, ignore_errors=True)  # left half-made by an older version of this
    try:
        building.rename(root)
    except OSError:  # another run's complete corpus arrived first: measure that one
        shutil.rmtree(building, ignore_errors=True)
    return root / "store", False


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return time.perf_counter() - start, result


def median_time(fn, repeats: int) -> float:
    times = sorted(timed(fn)[0] for _ in range(repeats))
    return times[len(times) // 2]


def replicate(source: Path, target: Path, copies: int) -> None:
    """A warehouse repeating every row of ``source`` ``copies`` times under new match ids."""
    from ledger.rows import TABLES
    from ledger.warehouse import connect

    con = connect(target)
    try:
        con.execute(f"ATTACH '{source}' AS src (READ_ONLY)")
        for table in TABLES:
            for k in range(copies):
                con.execute(f"INSERT INTO {table} SELECT * REPLACE (match_id || '~{k}' AS match_id) "
                            f"FROM src.{table}")
        con.execute("DETACH src")
    finally:
        con.close()


def naive_cards(files: list[Path], facts: dict, copies: int = 1):
    """The ``cards`` statistic in plain Python: decode every file (``copies`` times, each time
    under a new id), loop over the events, count."""
    from ledger.stats import Filters
    from replay.wotf import plainstats

    matches = []
    for k in range(copies):
        for path in files:
            summary = plainstats.summarize(path, facts)
            summary.match_id = f"{summary.match_id}~{k}"
            matches.append(summary)
    return plainstats.cards(matches, Filters())


#: Per-card games and wins straight from the match files (docs/format.md: seq 0
#: ``MatchOpened.seats[].deck`` lists ``{card, count}``; ``MatchEnded.winner`` is a seat or null).
DIRECT_CARDS = """
WITH ev AS MATERIALIZED (
  SELECT filename, type, seats, winner
  FROM read_ndjson(?, filename = true, columns = {
         'type': 'VARCHAR', 'winner': 'VARCHAR',
         'seats': 'STRUCT(seat VARCHAR, deck STRUCT(card VARCHAR, count BIGINT)[])[]'})
  WHERE type IN ('MatchOpened', 'MatchEnded')),
ended AS (SELECT filename, any_value(winner) AS winner FROM ev WHERE type = 'MatchEnded'
          GROUP BY filename),
seats AS (SELECT filename, unnest(seats) AS s FROM ev WHERE type = 'MatchOpened'),
games AS (SELECT DISTINCT filename, s.seat AS seat, unnest(s.deck).card AS card FROM seats)
SELECT g.card, count(*) AS games, count(*) FILTER (g.seat = e.winner) AS wins
FROM games g JOIN ended e USING (filename)
GROUP BY g.card ORDER BY g.card
"""


#: The ``events`` part of an ingest done by DuckDB alone (``duckdb_only_events_ingest_s``): each
#: line's hash (SHA-256 of the line up to ``,"hash":`` and a closing brace) and chain link
#: (``prev`` is the previous line's ``hash``), the envelope's columns and the line itself.
DUCKDB_ONLY_EVENTS = r"""
CREATE TABLE events AS
WITH raw AS (
  SELECT filename, l, strpos(l, ',"hash":"') AS cut
  FROM read_csv(?, columns = {'l': 'VARCHAR'}, delim = chr(1), quote = '', escape = '',
                header = false, filename = true)),
parsed AS (
  SELECT filename, l, substr(l, cut + 9, 64) AS hash,
         sha256(substr(l, 1, cut - 1) || '}') AS computed,
         json_extract_string(l, ['$.seq', '$.type', '$.at', '$.batch', '$.prev']) AS f
  FROM raw),
typed AS (
  SELECT filename, l, hash, computed, CAST(f[1] AS BIGINT) AS seq, f[2] AS type,
         CAST(f[3] AS TIMESTAMP) AS "at", CAST(f[4] AS BIGINT) AS batch, f[5] AS prev
  FROM parsed)
SELECT filename, seq, type, "at", batch, hash, l::JSON AS line,
       computed = hash AND (seq = 0 OR prev = lag(hash) OVER (PARTITION BY filename ORDER BY seq))
         AS intact
FROM typed
"""


def measure_duckdb_only_events(files: list[Path], work: Path) -> float:
    """Seconds (median of 3) for DuckDB alone to check every line's hash and chain link and
    keep the ``events`` rows (:data:`DUCKDB_ONLY_EVENTS`), committed to a new database file;
    every line must be intact."""
    import duckdb

    def once(n: int) -> None:
        con = duckdb.connect(str(work / f"duckdb-only-{n}.duckdb"))
        try:
            con.execute("BEGIN TRANSACTION")
            con.execute(DUCKDB_ONLY_EVENTS, [[str(p) for p in files]])
            con.execute("COMMIT")
            con.execute("CHECKPOINT")
            rows, broken = con.execute(
                "SELECT count(*), count(*) FILTER (NOT intact) FROM events").fetchone()
            assert not broken and rows > 0, f"DuckDB found {broken} of {rows} lines not intact"
        finally:
            con.close()

    runs = iter(range(3))
    return median_time(lambda: once(next(runs)), 3)


def measure_direct(store: Path, db: Path) -> float:
    """DuckDB over the match files (median of 3), checked against the warehouse's ``cards``."""
    import duckdb

    from ledger.stats import Filters, cards
    from ledger.warehouse import connect

    pattern = str(store / "*.jsonl")
    direct_s = median_time(lambda: duckdb.connect().execute(DIRECT_CARDS, [pattern]).fetchall(), 3)
    direct = duckdb.connect().execute(DIRECT_CARDS, [pattern]).fetchall()
    con = connect(db, read_only=True)
    try:
        table = cards(con, Filters())
    finally:
        con.close()
    at = {c: i for i, c in enumerate(table.columns)}
    warehouse = sorted((r[at["card"]], r[at["deck_games"]], round(r[at["deck_wr"]] * r[at["deck_games"]]))
                       for r in table.rows)
    assert direct == warehouse, "DuckDB over the files and the warehouse's cards disagree"
    return direct_s


def measure_verify(store: Path, workers: int) -> tuple[float, float, int]:
    """(cluster start s, matches/s, matches) of verifying every match of ``store`` on a local
    cluster of ``workers`` processes; every match must pass."""
    from ledger.distributed import cluster
    from replay.distributed_verify import sources, verify_many

    found = sources([str(store)])
    start = time.perf_counter()
    with cluster(workers) as client:
        started = time.perf_counter()
        client.run(_warm)  # imports and the card pool, once per worker, outside the timing
        began = time.perf_counter()
        statuses = [report.status for _i, report in verify_many(found, False, client)]
        verify_s = time.perf_counter() - began
    failed = len(found) - statuses.count("OK")
    assert len(statuses) == len(found) and not failed, f"{failed} matches failed verify"
    return started - start, len(found) / verify_s, len(found)


def _spin(n: int) -> int:
    """Pure-Python work of a fixed size (the same kind of work verify does: the interpreter)."""
    total = 0
    for i in range(n):
        total = (total * 31 + i) % 1_000_003
    return total


def measure_cpu_parallelism(n: int = 3_000_000) -> float:
    """How much faster 2 processes get through 2 units of fixed CPU work than 1 process gets
    through 1 unit, twice over (2.0: two free cores; less: other work shares the machine)."""
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pool.map(_spin, [1000, 1000])  # both started
        one_s = min(timed(pool.apply, _spin, (n,))[0] for _ in range(2))
        two_s = min(timed(pool.map, _spin, [n, n])[0] for _ in range(2))
    return 2 * one_s / two_s


def _warm() -> None:
    from replay.games import game, names

    for name in names():
        game(name).default_cards()


def _label(count: int) -> str:
    return f"{count // 1000}k" if count % 1000 == 0 else str(count)


def measure_ingest(store: Path, files: list[Path], db: Path, facts: dict, jobs: int) -> dict:
    """A fresh ingest, next to its floors: reading the bytes, and reading + verifying every
    line (the ledger's reader, one process)."""
    from ledger.filestore import FileStore
    from ledger.warehouse import ingest

    read_s, size = timed(lambda: sum(len(p.read_bytes()) for p in files))
    verify_s, events = timed(lambda: sum(1 for p in files for _ in FileStore.read_file(p)))
    ingest_s, report = timed(ingest, store, db, facts, jobs)
    assert report.new == len(files) and not report.problems, report.summary()
    label = _label(len(files))
    return {"events": events, "bytes": size,
            "ingest_matches_per_s": round(len(files) / ingest_s, 1),
            "ingest_events_per_s": round(events / ingest_s),
            f"ingest_{label}_s": round(ingest_s, 2),
            "floor_read_bytes_s": round(read_s, 2),
            "floor_read_and_verify_1_process_s": round(verify_s, 2),
            "ingest_vs_verify_floor": round(verify_s / ingest_s, 3),
            "ingest_vs_read_floor": round(read_s / ingest_s, 4)}


def measure_store_events(db: Path, work: Path) -> float:
    """The least a warehouse pays to hold the ``events`` rows: DuckDB copying that table,
    already typed, from the ingested warehouse into a new database file, committed (no
    Parquet, no casts, no Python)."""
    import duckdb

    con = duckdb.connect(str(work / "events-only.duckdb"))
    try:
        con.execute(f"ATTACH '{db}' AS src (READ_ONLY)")
        start = time.perf_counter()
        con.execute("BEGIN TRANSACTION")
        con.execute("CREATE TABLE events AS SELECT * FROM src.events")
        con.execute("COMMIT")
        con.execute("CHECKPOINT")
        return time.perf_counter() - start
    finally:
        con.close()


def measure_cards(db: Path, files: list[Path], facts: dict, copies: int) -> tuple[float, float]:
    """``cards`` from the warehouse (median of 5) and in plain Python over the same files;
    both must give the same games per card."""
    from ledger.stats import Filters, cards
    from ledger.warehouse import connect

    con = connect(db, read_only=True)
    try:
        cards_s = median_time(lambda: cards(con, Filters()), 5)
        result = cards(con, Filters())
    finally:
        con.close()
    naive_s, naive = timed(naive_cards, files, facts, copies)
    games = [i for i, c in enumerate(result.columns) if c == "card" or c.endswith("_games")]
    assert sorted(tuple(r[i] for i in games) for r in naive.rows) == \
        sorted(tuple(r[i] for i in games) for r in result.rows), "naive and warehouse disagree"
    return cards_s, naive_s


def main() -> None:
    from web.cli_analytics import card_facts

    quick = "--quick" in sys.argv
    matches, copies = (400, 4) if quick else (10_000, 10)
    jobs = os.cpu_count() or 1
    store, reused = corpus(matches)
    files = sorted(store.glob("*.jsonl"))
    facts = card_facts()
    work = Path(tempfile.mkdtemp(prefix="wonders-analytics-bench-"))
    label, big_label = _label(matches), _label(matches * copies)
    try:
        figures = measure_ingest(store, files, work / "w.duckdb", facts, jobs)
        direct_s = measure_direct(store, work / "w.duckdb")
        store_events_s = measure_store_events(work / "w.duckdb", work)
        duckdb_only_s = measure_duckdb_only_events(files, work)
        ingest_s = figures[f"ingest_{label}_s"]
        cards_s, naive_s = measure_cards(work / "w.duckdb", files, facts, 1)
        replicate_s, _ = timed(replicate, work / "w.duckdb", work / "big.duckdb", copies)
        cards_big_s, naive_big_s = measure_cards(work / "big.duckdb", files, facts, copies)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    start_1, verify_1, verified = measure_verify(store, 1)
    start_2, verify_2, _ = measure_verify(store, 2)
    cpu_speedup = measure_cpu_parallelism()
    print(json.dumps({
        "corpus": f"{len(files)} simulated matches (rulesets {', '.join(RULESETS)}), "
                  f"{'reused from' if reused else 'generated into'} {store}",
        "big_corpus": f"{matches * copies} matches: the {len(files)} repeated {copies} times "
                      f"under new ids (rows replicated in DuckDB in {replicate_s:.1f} s)",
        "jobs": jobs,
        **figures,
        f"cards_{label}_s": round(cards_s, 4),
        f"cards_{big_label}_s": round(cards_big_s, 4),
        f"naive_cards_{label}_s": round(naive_s, 2),
        f"naive_cards_{big_label}_s": round(naive_big_s, 2),
        "cards_naive_ratio": round(naive_s / cards_s, 1),
        f"cards_naive_ratio_{big_label}": round(naive_big_s / cards_big_s, 1),
        "verified_matches": verified,
        "dask_start_1_s": round(start_1, 2),
        "dask_start_2_s": round(start_2, 2),
        "verify_matches_per_s_1": round(verify_1, 1),
        "verify_matches_per_s_2": round(verify_2, 1),
        "verify_speedup_2_vs_1": round(verify_2 / verify_1, 2),
        "floor_cpu_speedup_2_processes": round(cpu_speedup, 2),
        f"duckdb_cards_direct_{label}_s": round(direct_s, 3),
        "ingest_vs_duckdb_ratio": round(ingest_s / direct_s, 2),
        "floor_verify_over_jobs_vs_duckdb": round(
            figures["floor_read_and_verify_1_process_s"] / jobs / direct_s, 2),
        f"floor_store_events_{label}_s": round(store_events_s, 3),
        "floor_store_events_vs_duckdb": round(store_events_s / direct_s, 2),
        "floor_ingest_vs_duckdb": round(
            (figures["floor_read_and_verify_1_process_s"] / jobs + store_events_s) / direct_s, 2),
        f"duckdb_only_events_ingest_{label}_s": round(duckdb_only_s, 3),
        "duckdb_only_events_ingest_vs_duckdb": round(duckdb_only_s / direct_s, 2),
        "targets": "ingest_10k_s <= 60, cards_100k_s <= 1, cards_naive_ratio >= 20, "
                   "verify_speedup_2_vs_1 >= 1.7, ingest_vs_duckdb_ratio <= 3",
    }))


def ingest_only(matches: int) -> None:
    """``--ingest-only N``: the ingest figures alone (ingest, DuckDB over the files, the
    floors) over a corpus of ``N`` matches -- the ratio at a size where the cluster's start
    weighs less than at ``--quick``'s 400, without the hour the full run takes."""
    from web.cli_analytics import card_facts

    jobs = os.cpu_count() or 1
    store, reused = corpus(matches)
    files = sorted(store.glob("*.jsonl"))
    work = Path(tempfile.mkdtemp(prefix="wonders-analytics-bench-"))
    label = _label(matches)
    try:
        figures = measure_ingest(store, files, work / "w.duckdb", card_facts(), jobs)
        direct_s = measure_direct(store, work / "w.duckdb")
        store_events_s = measure_store_events(work / "w.duckdb", work)
        duckdb_only_s = measure_duckdb_only_events(files, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    verify_s = figures["floor_read_and_verify_1_process_s"]
    print(json.dumps({
        "corpus": f"{len(files)} simulated matches, {'reused from' if reused else 'generated into'} "
                  f"{store}",
        "jobs": jobs, **figures,
        f"duckdb_cards_direct_{label}_s": round(direct_s, 3),
        "ingest_vs_duckdb_ratio": round(figures[f"ingest_{label}_s"] / direct_s, 2),
        "floor_verify_over_jobs_vs_duckdb": round(verify_s / jobs / direct_s, 2),
        f"floor_store_events_{label}_s": round(store_events_s, 3),
        "floor_store_events_vs_duckdb": round(store_events_s / direct_s, 2),
        "floor_ingest_vs_duckdb": round((verify_s / jobs + store_events_s) / direct_s, 2),
        f"duckdb_only_events_ingest_{label}_s": round(duckdb_only_s, 3),
        "duckdb_only_events_ingest_vs_duckdb": round(duckdb_only_s / direct_s, 2),
        "targets": "ingest_vs_duckdb_ratio <= 3"}))


if __name__ == "__main__" and "--ingest-only" in sys.argv:
    ingest_only(int(sys.argv[sys.argv.index("--ingest-only") + 1]))
elif __name__ == "__main__" and "--corpus-only" in sys.argv:
    path, reused = corpus(int(sys.argv[sys.argv.index("--corpus-only") + 1]))
    print(json.dumps({"corpus": str(path), "reused": reused}))
elif __name__ == "__main__":
    main()
