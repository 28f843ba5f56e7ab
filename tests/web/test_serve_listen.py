"""``wonders serve`` on an address it can't listen on: one line naming ``host:port``, why and
what to do, and exit 1 -- in one process and with ``--processes`` (the parent binds) alike.
It used to say ``error: : Address already in use`` (an empty file name before the colon)."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _serve(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "web.cli", "serve", "--store",
                           str(tmp_path / "store"), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("processes", ["1", "2"])
def test_a_port_in_use_is_one_line_naming_the_address_and_the_way_out(tmp_path, processes):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _serve(tmp_path, "--host", "127.0.0.1", "--port", str(port),
                      "--processes", processes)
    assert done.returncode == 1
    assert done.stderr == (f"error: cannot listen on 127.0.0.1:{port}: address already in use "
                           f"(another server is running there? choose another --port, or "
                           f"--port 0 for any free port)\n")
    assert "serving" not in done.stdout


@pytest.mark.parametrize("processes", ["1", "2"])
def test_a_host_that_is_no_address_is_one_line_naming_it(tmp_path, processes):
    done = _serve(tmp_path, "--host", "no-such-host.invalid", "--port", "0",
                  "--processes", processes)
    assert done.returncode == 1
    assert done.stderr.startswith("error: cannot listen on no-such-host.invalid:0: ")
    assert done.stderr.endswith("(check --host and --port)\n") and done.stderr.count("\n") == 1
