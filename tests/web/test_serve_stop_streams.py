"""``wonders serve`` stopped (SIGTERM) while live-follow streams are open ends them and says
nothing on stderr -- in one process and with ``--processes``, on a directory and on
PostgreSQL (where a stream waits for a notification, not a poll).

Found restarting a server under a tournament day's load (2026-11-27 07:14): every stop with
streams open printed waitress's ``11 thread(s) still running`` on stderr (its pools were shut
down while the streams' threads still ran), a line that reads like a hang in a service's log.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ORGANIZER = "stop-streams-organizer-token-0123456789ab"
STREAMS = 3


def _start(store: str, processes: str) -> tuple[subprocess.Popen, str]:
    env = dict(os.environ, WONDERS_ORGANIZER_TOKEN=ORGANIZER)
    proc = subprocess.Popen([sys.executable, "-m", "web.cli", "serve", "--store", store,
                             "--port", "0", "--processes", processes], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert "serving" in line, line + proc.stderr.read()
    return proc, line.split(" on ")[1].split()[0]


def _create(base: str) -> str:
    body = json.dumps({"seats": [{"player": "Ann", "preset": "solfera-blaze"},
                                 {"player": "Bob", "preset": "thalwind-sky"}]}).encode()
    request = urllib.request.Request(f"{base}/api/matches", data=body, method="POST", headers={
        "Authorization": f"Bearer {ORGANIZER}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())["match_id"]


def _stop_with_streams_open(store: str, processes: str) -> tuple[int, str, list[bytes], float]:
    proc, base = _start(store, processes)
    streams = []
    try:
        match_id = _create(base)
        host, port = base.removeprefix("http://").rsplit(":", 1)
        for n in range(STREAMS):  # each from its own address (at most 2 streams per address)
            sock = socket.create_connection((host, int(port)), timeout=30,
                                            source_address=(f"127.0.5.{n + 1}", 0))
            sock.sendall(f"GET /api/matches/{match_id}/follow HTTP/1.1\r\nHost: x\r\n\r\n"
                         .encode())
            assert sock.recv(12) == b"HTTP/1.1 200"  # the stream is open
            streams.append(sock)
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=60)  # a stop that hangs fails here
        ends = []
        for sock in streams:
            rest = b""
            while chunk := sock.recv(65536):
                rest += chunk
            ends.append(rest)
    finally:
        proc.kill()
        for sock in streams:
            sock.close()
    return proc.returncode, err, ends


@pytest.mark.parametrize("processes", ["1", "2"])
def test_open_streams_end_quietly_at_a_stop_on_a_directory(tmp_path, processes):
    code, err, ends = _stop_with_streams_open(str(tmp_path / "store"), processes)
    assert code == 0
    assert err == "", err
    assert len(ends) == STREAMS  # every stream's connection was closed by the server


def test_open_streams_end_quietly_at_a_stop_on_postgresql(pg_url):
    code, err, ends = _stop_with_streams_open(pg_url, "1")
    assert code == 0
    assert err == "", err
    assert len(ends) == STREAMS
