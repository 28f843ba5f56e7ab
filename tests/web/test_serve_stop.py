"""Stopping ``wonders serve`` as an operator does (Ctrl-C, or SIGTERM from a service manager):
a real server in a subprocess, stopped by the signal, says at most one line on stderr.

DuckDB's bindings (nanobind) print dozens of lines ("nanobind: leaked 27 instances! ... this
is likely caused by a reference counting issue") when the interpreter ends with DuckDB objects
never freed -- which every server did, because it freezes what startup loaded
(``web.longlived``) and frozen objects are never collected, not even at exit.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
ORGANIZER = "serve-stop-organizer-token-0123456789"


@pytest.mark.parametrize("processes", ["1", "2"])
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_server_says_nothing_of_leaks(tmp_path, processes, stop):
    env = dict(os.environ, WONDERS_ORGANIZER_TOKEN=ORGANIZER)
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--store", str(tmp_path),
                             "--port", "0", "--threads", "2", "--processes", processes],
                            env=env, cwd=ROOT, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    try:
        line = proc.stdout.readline()
        assert "serving" in line, line + proc.stderr.read()
        proc.send_signal(stop)
        _out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert "leaked" not in err and "nanobind" not in err, err[:500]
    assert len([line for line in err.splitlines() if line.strip()]) <= 1, err
