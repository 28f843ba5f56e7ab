"""``wonders demo`` as a real subprocess: simulate, ingest, (re)use, serve, errors."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import duckdb

from ledger.filestore import FileStore

ROOT = Path(__file__).parents[2]


def _wonders(*args, cwd=ROOT):
    env = dict(os.environ)
    env.pop("WONDERS_WAREHOUSE", None)
    return subprocess.run([sys.executable, "-m", "web.cli", *args], check=False, capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=300)


def test_demo_simulates_and_ingests_then_reuses(tmp_path):
    data = tmp_path / "wonders-data"
    done = _wonders("demo", "--dir", str(data), "--players", "4", "--rounds", "2", "--no-serve")
    assert done.returncode == 0, done.stderr
    assert "4 players, 2 Swiss rounds (4 matches)" in done.stdout
    files = sorted(data.glob("*.jsonl"))
    assert [f.stem for f in files] == ["demo-cup-r1-t01", "demo-cup-r1-t02", "demo-cup-r2-t01",
                                       "demo-cup-r2-t02"]
    assert all(info.ended for info in FileStore(data).list())
    con = duckdb.connect(str(data / "warehouse.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT count(*) FROM matches").fetchone()[0] == 4
    finally:
        con.close()
    again = _wonders("demo", "--dir", str(data), "--no-serve")
    assert again.returncode == 0 and "reusing the 4 Demo Cup matches" in again.stdout
    assert "0 new" in again.stdout


def test_demo_serves_the_pages_at_the_printed_url(tmp_path):
    env = dict(os.environ)
    env.pop("WONDERS_WAREHOUSE", None)
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "demo", "--dir", str(tmp_path / "d"),
                             "--players", "2", "--rounds", "1", "--port", "0"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        while line and not line.startswith("Wonders demo at "):
            line = proc.stdout.readline()
        assert line, proc.stderr.read()
        url = line.split()[3]
        assert url.startswith("http://127.0.0.1:")
        for path, needle in (("/matches", "demo-cup-r1-t01"), ("/stats", "First player"),
                             ("/matches/demo-cup-r1-t01", "initial-step")):
            with urllib.request.urlopen(url + path, timeout=10) as response:
                assert needle in response.read().decode()
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_demo_errors_are_one_line(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    done = _wonders("demo", "--dir", str(blocker), "--no-serve")
    assert done.returncode != 0
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ")
    assert "Traceback" not in done.stderr


def test_a_busy_port_is_one_line_naming_the_way_out(tmp_path):
    import socket

    data = tmp_path / "d"
    assert _wonders("demo", "--dir", str(data), "--players", "2", "--rounds", "1",
                    "--no-serve").returncode == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _wonders("demo", "--dir", str(data), "--port", str(port))
    assert done.returncode == 1
    assert done.stderr == (f"error: cannot listen on 127.0.0.1:{port}: address already in use "
                           f"(another server is running there? choose another --port, or "
                           f"--port 0 for any free port)\n")
