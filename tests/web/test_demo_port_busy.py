"""``wonders demo`` on a port already in use (a first demo still running, another server):
before, it played the whole tournament and ingested it, then said "cannot listen on …" --
a newcomer waited through every match for an error it could have given at once.  Now it says
so first, in one line, and plays nothing.  A real subprocess, a real socket held open."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_a_busy_port_is_one_line_before_anything_is_played(tmp_path):
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen(1)
    port = held.getsockname()[1]
    try:
        done = subprocess.run([sys.executable, "-m", "web.cli", "demo", "--players", "2",
                               "--rounds", "1", "--dir", str(tmp_path / "data"), "--port",
                               str(port)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    finally:
        held.close()
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"error: cannot listen on 127.0.0.1:{port}: address already in "
                               f"use"), lines[0]
    assert lines[0].endswith("; nothing was played")
    assert "running" not in done.stdout and "played" not in done.stdout, done.stdout
    assert not (tmp_path / "data").exists()  # no store made, no match written
