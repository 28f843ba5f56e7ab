"""Verify and ingest on a Dask cluster of real worker processes (a ``LocalCluster`` of 2,
started here and reached by its address, as ``--scheduler`` reaches one): the same reports and
the same warehouse rows as one process; a task that fails once, or whose worker process dies,
is run again and succeeds; a match whose task always fails, and a corrupt match file, are
reported by name while every other match is verified and loaded."""

from __future__ import annotations

import shutil

import pytest

from ledger.distributed import Failure, cluster, run_chunks, set_test_faults
from ledger.filestore import FileStore
from ledger.parquet import export_parquet
from ledger.rows import all_tables
from ledger.warehouse import connect, ingest, stage_chunk
from replay.distributed_verify import sources, verify_many
from replay.simulate import simulate_matches
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks
from tests import dask_cluster
from tests.ledger.same_named import MATCHES, same_named_store
from web.cli_analytics import card_facts


@pytest.fixture(scope="module")
def address():
    """A cluster started apart from the code under test: 2 worker processes, 1 thread each."""
    return dask_cluster.address()


@pytest.fixture(scope="module")
def client(address):
    with cluster(scheduler=address) as connected:
        yield connected


@pytest.fixture
def faults(client):
    """Set ``$WONDERS_TEST_FAULTS`` in every worker for one test (both workers up: one
    that a test killed comes back without it)."""
    client.wait_for_workers(2, timeout=60)
    yield lambda spec: client.run(set_test_faults, spec)
    client.wait_for_workers(2, timeout=60)
    client.run(set_test_faults, "")


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    root = tmp_path_factory.mktemp("dist") / "store"
    db = default_cards()
    list(simulate_matches(FileStore(root), db, load_decks(None, db), 6, 41, "1.3.2",
                          ("greedy", "random"), "d"))
    return root


@pytest.fixture(scope="module")
def facts():
    return card_facts()


def store_copy(base, tmp_path):
    target = tmp_path / "store"
    shutil.copytree(base, target)
    return target


def rows(db):
    """Every table's rows; ``matches.store_identity`` left out (which file, in which store,
    was read: the same matches in a copy or a database are other files)."""
    con = connect(db, read_only=True)
    try:
        return {t: con.execute(f"SELECT * {'EXCLUDE (store_identity)' if t == 'matches' else ''}"
                               f" FROM {t} ORDER BY ALL").fetchall() for t in all_tables()}
    finally:
        con.close()


def reports(found, client):
    return [(r.path, r.status, r.message, r.lines)
            for _i, r in sorted(verify_many(found, False, client), key=lambda p: p[0])]


def test_ingest_on_the_cluster_loads_exactly_the_rows_of_one_process(base, client, address,
                                                                   facts, tmp_path):
    here = ingest(base, tmp_path / "here.duckdb", facts, jobs=1)
    there = ingest(base, tmp_path / "there.duckdb", facts, scheduler=address)
    assert (there.new, there.problems) == (here.new, here.problems) == (6, [])
    assert there.events == here.events
    assert rows(tmp_path / "there.duckdb") == rows(tmp_path / "here.duckdb") == \
        rows_of_one_process(base, facts, tmp_path)
    again = ingest(base, tmp_path / "there.duckdb", facts, scheduler=address)
    assert (again.new, again.unchanged) == (0, 6)


def test_a_store_given_by_a_relative_path_is_the_same_store_on_the_workers(
        base, client, address, facts, tmp_path, monkeypatch):
    """``wonders ingest store --scheduler …`` from the store's parent: the workers (started
    in a directory of their own) open the directory the command meant, not ``store`` under
    their own working directory (every match was reported 'corrupt: no match … in this
    store', or read from another directory of that name)."""
    store_copy(base, tmp_path)
    monkeypatch.chdir(tmp_path)  # after the cluster started: its workers are elsewhere
    report = ingest("store", tmp_path / "w.duckdb", facts, scheduler=address)
    assert (report.new, report.problems) == (6, [])
    assert rows(tmp_path / "w.duckdb") == rows_of_one_process(base, facts, tmp_path)


def test_verify_on_the_cluster_reports_exactly_what_one_process_does(base, client):
    found = sources([str(base)])
    assert len(found) == 6
    assert reports(found, client) == reports(found, None)
    assert all(status == "OK" for _p, status, _m, _l in reports(found, None))


def test_a_task_that_fails_once_is_retried_and_succeeds(base, client, address, facts, faults,
                                                       tmp_path):
    flag = tmp_path / "flag"
    flag.mkdir()
    faults(f"raise-once:{flag}")
    report = ingest(base, tmp_path / "w.duckdb", facts, scheduler=address)
    assert (flag / "raised").exists()  # it did fail once
    assert (report.new, report.problems) == (6, [])
    assert rows(tmp_path / "w.duckdb") == rows_of_one_process(base, facts, tmp_path)


_ONE_PROCESS: dict = {}


def rows_of_one_process(base, facts, tmp_path):
    """The rows a one-process ingest of ``base`` loads (ingested once per module)."""
    if base not in _ONE_PROCESS:
        ingest(base, tmp_path / "one.duckdb", facts, jobs=1)
        _ONE_PROCESS[base] = rows(tmp_path / "one.duckdb")
    return _ONE_PROCESS[base]


def test_a_task_whose_worker_process_dies_is_run_again(base, client, faults, tmp_path):
    flag = tmp_path / "flag"
    flag.mkdir()
    faults(f"crash-once:{flag}")
    found = sources([str(base)])
    got = reports(found, client)
    assert (flag / "raised").exists()
    assert [status for _p, status, _m, _l in got] == ["OK"] * 6


def test_a_match_that_always_fails_is_reported_by_name_and_the_rest_loaded(
        base, client, address, facts, faults, tmp_path):
    store = store_copy(base, tmp_path)
    victim = store / "d-0005.jsonl"
    victim.write_bytes(victim.read_bytes().replace(b'"type":"CardPlayed"', b'"type":"CardPlayeD"', 1))
    faults("raise:d-0002")
    report = ingest(store, tmp_path / "w.duckdb", facts, scheduler=address)
    problems = {(p.file, p.kind): p.message for p in report.problems}
    assert set(problems) == {("d-0002.jsonl", "failed"), ("d-0005.jsonl", "corrupt")}
    assert "injected failure for d-0002" in problems["d-0002.jsonl", "failed"]
    assert report.new == 4
    loaded = rows(tmp_path / "w.duckdb")["matches"]
    assert sorted(r[0] for r in loaded) == [f"d-000{n}" for n in (1, 3, 4, 6)]

    verified = reports(sources([str(store)]), client)
    failed = {path.rsplit("/", 1)[-1]: message for path, status, message, _l in verified
              if status != "OK"}
    assert set(failed) == {"d-0002.jsonl", "d-0005.jsonl"}
    assert failed["d-0002.jsonl"].startswith("d-0002.jsonl: not verified: its worker task "
                                             "failed after 2 retries: RuntimeError: injected")
    assert len(verified) == 6


def test_in_process_a_chunk_that_raises_is_split_and_only_the_bad_item_fails():
    results = list(run_chunks(_explode_on_3, [[1, 2], [3, 4]]))
    assert results == [[2, 4], Failure(3, "ValueError: 3 is bad"), [8]]


def _explode_on_3(chunk):
    if 3 in chunk:
        raise ValueError("3 is bad")
    return [2 * n for n in chunk]


def test_an_unreachable_scheduler_is_one_clear_error():
    from ledger.distributed import DistributedError

    with pytest.raises(DistributedError, match=r"^tcp://127\.0\.0\.1:9: cannot reach the "
                                               r"Dask scheduler"), \
            cluster(scheduler="tcp://127.0.0.1:9"):
        pass


def test_verify_and_ingest_of_a_postgresql_store_on_the_cluster(base, client, address, facts,
                                                                 pg_url, tmp_path):
    from ledger.stores import open_store

    files = FileStore(base)
    with open_store(pg_url) as database:
        for match_id in files.ids():
            database.import_lines(files.export_lines(match_id))
    found = sources([pg_url])
    assert [source[2] for source in found] == files.ids()
    on_cluster = reports(found, client)
    assert [(s, m) for _p, s, m, _l in on_cluster] == \
        [(s, m) for _p, s, m, _l in reports(sources([str(base)]), None)]
    report = ingest(pg_url, tmp_path / "pg.duckdb", facts, scheduler=address)
    assert (report.new, report.problems) == (6, [])
    assert rows(tmp_path / "pg.duckdb") == rows_of_one_process(base, facts, tmp_path)


def _look_for_the_token_as(name):
    import ledger.warehouse

    ledger.warehouse._TOKEN = name


def test_workers_that_cannot_see_the_stage_directory_send_the_parquet_back(
        base, client, address, facts, tmp_path):
    client.wait_for_workers(2, timeout=60)
    client.run(_look_for_the_token_as, ".not-here")  # as on a machine without the directory
    try:
        (tmp_path / ".token").write_text("t")
        part = client.submit(stage_chunk, [("d-0001", None)], str(base), facts, str(tmp_path),
                             "t", pure=False).result()
        assert part.files == {} and set(part.blobs) >= {"matches", "events", "card_games"}
        report = ingest(base, tmp_path / "w.duckdb", facts, scheduler=address)
    finally:
        client.run(_look_for_the_token_as, ".token")
    assert (report.new, report.problems) == (6, [])
    assert rows(tmp_path / "w.duckdb") == rows_of_one_process(base, facts, tmp_path)


def test_verify_of_a_relative_path_opens_the_same_files_on_the_workers(
        base, client, tmp_path, monkeypatch):
    """``wonders verify store --scheduler …`` from the store's parent: the workers (started in
    a directory of their own) open the files the command meant -- every match failed 'no such
    file' -- and the reports name them as the command was given them, as one process's do."""
    store_copy(base, tmp_path)
    monkeypatch.chdir(tmp_path)  # after the cluster started: its workers are elsewhere
    found = sources(["store"])
    there = reports(found, client)
    assert there == reports(found, None)
    assert [(path, status) for path, status, _m, _l in there] == \
        [(f"store/{p.name}", "OK") for p in sorted((tmp_path / "store").glob("*.jsonl"))]


def test_a_local_worker_that_never_starts_is_one_clear_error_not_a_hang(tmp_path, monkeypatch):
    """A local cluster whose worker process does not come up in time (here: a preload that
    sleeps) ends with one error line; Dask's own start waited for it forever (a test run hung
    there once, on a machine busy with two suites)."""
    import dask

    import ledger.distributed as distributed
    from ledger.distributed import DistributedError

    slow = tmp_path / "slow_start.py"
    slow.write_text("import time\n\ndef dask_setup(worker):\n    time.sleep(60)\n")
    monkeypatch.setattr(distributed, "START_TIMEOUT_S", 3.0)
    with dask.config.set({"distributed.worker.preload": [str(slow)]}), \
            pytest.raises(DistributedError, match=r"^cannot start a local Dask cluster of 1 "
                                                  r"worker processes \(a worker did "
                                                  r"not start within 3 s\)$"), \
            cluster(jobs=1, fork=True):
        pass


def test_the_cluster_writes_each_match_s_tournament_id_as_one_process_does(client, address,
                                                                          facts, tmp_path):
    """The workers' Parquet carries ``matches.tournament_id`` (what the Parquet export
    partitions by): two tournaments of the same name ingested on the cluster are the same rows
    as in one process, each match with its tournament's id, and export as two partitions."""
    same_named_store(FileStore(tmp_path / "store"))
    here = ingest(tmp_path / "store", tmp_path / "here.duckdb", facts, jobs=1)
    there = ingest(tmp_path / "store", tmp_path / "there.duckdb", facts, scheduler=address)
    assert (there.new, there.problems) == (here.new, here.problems) == (len(MATCHES), [])
    assert rows(tmp_path / "there.duckdb") == rows(tmp_path / "here.duckdb")
    con = connect(tmp_path / "there.duckdb", read_only=True)
    try:
        ids = dict(con.execute("SELECT match_id, tournament_id FROM matches").fetchall())
    finally:
        con.close()
    assert ids == {match_id: tid for match_id, (_game, tid) in MATCHES.items()}
    export_parquet(tmp_path / "there.duckdb", tmp_path / "pq")
    assert {p.name for p in (tmp_path / "pq" / "players").glob("game=wotf/ruleset=*/*")} == {
        "tournament_id=fri-1", "tournament_id=fri-2", "tournament_id=__HIVE_DEFAULT_PARTITION__"}
