"""``wonders demo`` as a real subprocess: play, ingest, (re)use, serve (the tournament's page and
the console, signed in with the organizer token it prints), errors."""

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
    env.pop("WONDERS_ORGANIZER_TOKEN", None)  # the server makes one and prints it
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "demo", "--dir", str(tmp_path / "d"),
                             "--players", "2", "--rounds", "1", "--port", "0"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [proc.stdout.readline()]
        while lines[-1] and not lines[-1].startswith("organizer console: "):
            lines.append(proc.stdout.readline())
        assert lines[-1], "".join(lines) + proc.stderr.read()
        line = next(line for line in lines if line.startswith("Wonders demo at "))
        url = line.split()[3]
        assert url.startswith("http://127.0.0.1:")
        assert f"tournament: {url}/tournaments/demo-cup" in line
        for path, needle in (("/matches", "demo-cup-r1-t01"), ("/stats", "First player"),
                             ("/matches/demo-cup-r1-t01", "initial-step"),
                             ("/tournaments", "Demo Cup"),
                             ("/tournaments/demo-cup", "Amara Okafor")):
            with urllib.request.urlopen(url + path, timeout=10) as response:
                assert needle in response.read().decode()
        token = next(line for line in lines if line.startswith("organizer token: ")).split()[2]
        assert lines[-1] == (f"organizer console: {url}/organize  —  sign in with the token "
                             f"above; set WONDERS_ORGANIZER_TOKEN to choose it\n")
        console = _signed_in_console(url, token)
        assert "Demo Cup" in console and 'name="token"' not in console  # not the sign-in form
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _signed_in_console(url: str, token: str) -> str:
    """``/organize`` after signing in with ``token`` as its form does (a session cookie)."""
    import http.cookiejar
    import urllib.parse

    browser = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    form = urllib.parse.urlencode({"token": token}).encode()
    request = urllib.request.Request(f"{url}/organize/login", form, {"Origin": url})
    with browser.open(request, timeout=10) as response:  # 303 to /organize, followed
        return response.read().decode()


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
