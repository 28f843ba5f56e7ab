"""``wonders serve`` in one process (the default, ``--processes 1``) stopped by SIGTERM (a
service manager's stop or restart) or SIGINT (Ctrl-C) finishes the requests it has, as a
``--processes`` worker does (docs/deploy.md), then exits 0 saying why.

Found by restarting a server mid-day under 20 tables' load (2026-11-27 06:51): SIGTERM's
default action killed the process at once, so the requests in flight were cut off -- decisions
answered with a reset connection (``RemoteDisconnected``), a board cut off mid-body
(``IncompleteRead(0 bytes read, 1353 more expected)``) -- and the exit status was the signal's.

The request in flight here is a create whose body is half sent when the signal comes: the rest
is sent after it, and the match must be created, answered and on disk.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ORGANIZER = "drain-organizer-token-0123456789abcdef"
BODY = json.dumps({"seats": [{"player": "Ann", "preset": "solfera-blaze"},
                             {"player": "Bob", "preset": "thalwind-sky"}]}).encode()


def _start(store: Path) -> tuple[subprocess.Popen, int]:
    env = dict(os.environ, WONDERS_ORGANIZER_TOKEN=ORGANIZER)
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--store", str(store),
                             "--port", "0", "--threads", "2"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert "serving" in line, line + proc.stderr.read()
    proc.stdout.readline()  # the organizer token's line
    return proc, int(line.split("http://")[1].split()[0].rsplit(":", 1)[1])


def _answer(sock: socket.socket) -> bytes:
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            return data + b"<reset>"
        if not chunk:
            return data
        data += chunk


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
def test_a_request_in_flight_is_finished_before_the_server_stops(tmp_path, stop):
    proc, port = _start(tmp_path / "store")
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(b"POST /api/matches HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                         b"Content-Type: application/json\r\n"
                         b"Authorization: Bearer " + ORGANIZER.encode() + b"\r\n"
                         b"Content-Length: " + str(len(BODY)).encode() + b"\r\n\r\n"
                         + BODY[:20])
            time.sleep(0.5)  # the server has the request's head and part of its body
            proc.send_signal(stop)
            time.sleep(0.5)
            with contextlib.suppress(OSError):  # the server is gone: the answer says so
                sock.sendall(BODY[20:])
            answer = _answer(sock)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert answer.startswith(b"HTTP/1.1 201 "), answer[:200]
    created = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    assert (tmp_path / "store" / f"{created['match_id']}.jsonl").exists()
    assert proc.returncode == 0, (proc.returncode, err)
    assert out.splitlines()[-1] == f"stopped by {stop.name}"
    assert not err.strip(), err


def test_an_idle_server_stops_at_once(tmp_path):
    proc, _port = _start(tmp_path / "store")
    try:
        proc.send_signal(signal.SIGTERM)
        out, _err = proc.communicate(timeout=30)  # a stop that hangs fails here
    finally:
        proc.kill()
    assert proc.returncode == 0 and out.splitlines()[-1] == "stopped by SIGTERM"
