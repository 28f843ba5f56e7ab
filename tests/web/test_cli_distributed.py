"""`wonders verify` and `wonders ingest` on a Dask cluster, run as real subprocesses:
``--scheduler`` on a separately started cluster (tests/dask_cluster.py) prints what one process
prints and loads the same warehouse; an unreachable scheduler is one error line; ``verify
--jobs 2`` starts a local cluster of 2 workers of its own and prints what one process prints,
with the same exit code.  (Ingest's ``--jobs`` is tested in tests/ledger/test_warehouse.py.)"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import dask_cluster

REPO = Path(__file__).resolve().parents[2]


def wonders(*args):
    return subprocess.run([sys.executable, "-m", "web.cli", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli-dist") / "store"
    done = wonders("simulate", "--matches", 5, "--seed", 8, "--out", root)
    assert done.returncode == 0, done.stderr
    victim = sorted(root.glob("*.jsonl"))[1]
    victim.write_bytes(victim.read_bytes().replace(b'"type":"CardPlayed"', b'"type":"CardPlayeD"', 1))
    return root


def test_verify_on_a_scheduler_prints_what_one_process_prints(store):
    one = wonders("verify", store)
    on_cluster = wonders("verify", "--scheduler", dask_cluster.address(), store)
    assert one.returncode == on_cluster.returncode == 1
    assert on_cluster.stdout == one.stdout
    assert one.stdout.splitlines()[-1] == "4 passed, 1 failed"
    assert "Traceback" not in on_cluster.stderr


def test_ingest_on_a_scheduler_reports_and_loads_what_one_process_does(store, tmp_path):
    import duckdb

    one = wonders("ingest", store, "--db", tmp_path / "one.duckdb", "--jobs", 1)
    there = wonders("ingest", store, "--db", tmp_path / "there.duckdb", "--scheduler",
                    dask_cluster.address())
    assert one.returncode == there.returncode == 1
    assert (one.stdout, one.stderr) == (there.stdout, there.stderr)
    assert "4 new" in there.stdout and "not ingested: m-0002.jsonl: corrupt:" in there.stderr
    tables = {}
    for name in ("one", "there"):
        con = duckdb.connect(str(tmp_path / f"{name}.duckdb"), read_only=True)
        # matches without the store's version: NULL for a file read within a coarse clock's
        # tick of its last write, so two ingests a moment apart may record it differently
        tables[name] = [con.execute(f"SELECT * {'EXCLUDE (store_identity)' if t == 'matches' else ''} "
                                    f"FROM {t} ORDER BY ALL").fetchall()
                        for t in ("matches", "events", "card_games")]
        con.close()
    assert tables["one"] == tables["there"]


def test_an_unreachable_scheduler_is_one_error_line(store, tmp_path):
    done = wonders("ingest", store, "--db", tmp_path / "w.duckdb", "--scheduler",
                   "tcp://127.0.0.1:9")
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert lines == ["error: tcp://127.0.0.1:9: cannot reach the Dask scheduler "
                     "(Connection refused)"]


@pytest.mark.parametrize("command", ["verify", "ingest"])
def test_more_jobs_than_one_machine_runs_is_refused_before_anything_starts(store, tmp_path,
                                                                          command):
    """``--jobs 1000000`` tried to start a million worker processes and hung; the bound is
    said in one usage line (exit 2), before any cluster starts."""
    from ledger.distributed import MAX_JOBS
    extra = ["--db", tmp_path / "w.duckdb"] if command == "ingest" else []
    done = wonders(command, store, *extra, "--jobs", 1_000_000)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert lines[-1] == (f"error: Invalid value for '--jobs' / '-j': 1000000 is not in the "
                         f"range 1<=x<={MAX_JOBS}.")
    assert not (tmp_path / "w.duckdb").exists()


def test_verify_with_jobs_prints_what_one_process_prints(store, tmp_path):
    """``--jobs 2``: a LocalCluster of 2 worker processes started by the command itself; the
    same lines in the same order as without ``--jobs``, exit 1 with a damaged match (verify
    finds it: ``m-0002``'s altered line) and 0 once every match is intact."""
    one = wonders("verify", store)
    two = wonders("verify", "--jobs", 2, store)
    assert one.returncode == two.returncode == 1
    assert two.stdout == one.stdout
    assert two.stdout.splitlines()[-1] == "4 passed, 1 failed"
    assert "FAIL" in two.stdout and "m-0002" in two.stdout
    assert "Traceback" not in two.stderr

    intact = tmp_path / "intact"
    shutil.copytree(store, intact)
    (intact / "m-0002.jsonl").unlink()
    one = wonders("verify", intact)
    two = wonders("verify", "--jobs", 2, intact)
    assert one.returncode == two.returncode == 0, two.stderr
    assert two.stdout == one.stdout and two.stdout.splitlines()[-1] == "4 passed, 0 failed"
