"""Ingest with ``jobs``: the local cluster starts in the background while the warehouse opens
and the heads are read (``ledger.distributed.Starting``), gives the rows of one process, and
an incremental run that finds too little to hand out reads it here and closes the cluster
unused.  Real worker processes (``PARALLEL_FROM`` lowered so a small store uses them)."""

from __future__ import annotations

import shutil
import threading

import pytest

import ledger.warehouse as warehouse
from ledger.distributed import DistributedError, Starting
from ledger.warehouse import ingest
from tests.ledger.test_warehouse import facts, simulate, snapshot


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    root = tmp_path_factory.mktemp("cluster")
    simulate(root, 8, 13, "c")
    return root


def test_ingest_with_a_local_cluster_started_early_loads_the_rows_of_one_process(
        base, tmp_path, monkeypatch):
    monkeypatch.setattr(warehouse, "PARALLEL_FROM", 4)
    started = []
    real = warehouse.Starting

    def spy(*args, **kwargs):
        started.append(args)
        return real(*args, **kwargs)
    monkeypatch.setattr(warehouse, "Starting", spy)
    two = ingest(base, tmp_path / "two.duckdb", facts(), jobs=2)
    assert started == [(2, None)]
    one = ingest(base, tmp_path / "one.duckdb", facts(), jobs=1)
    assert len(started) == 1  # one job: no cluster
    assert (two.new, two.problems) == (one.new, one.problems) == (8, [])
    assert snapshot(tmp_path / "two.duckdb") == snapshot(tmp_path / "one.duckdb")
    assert not [t for t in threading.enumerate() if t.name == "wonders-cluster"]


def test_an_incremental_run_with_little_new_reads_it_here(base, tmp_path, monkeypatch):
    store = tmp_path / "store"
    shutil.copytree(base, store)
    ingest(store, tmp_path / "w.duckdb", facts())
    simulate(store, 1, 99, "late")
    monkeypatch.setattr(warehouse, "PARALLEL_FROM", 4)
    report = ingest(store, tmp_path / "w.duckdb", facts(), jobs=2)
    assert (report.new, report.unchanged, report.problems) == (1, 8, [])
    assert not [t for t in threading.enumerate() if t.name == "wonders-cluster"]


def test_a_cluster_that_cannot_start_raises_where_it_is_asked_for():
    starting = Starting(1, "tcp://127.0.0.1:1")
    with pytest.raises(DistributedError, match="cannot reach the Dask scheduler"):
        starting.client()
    starting.close()
