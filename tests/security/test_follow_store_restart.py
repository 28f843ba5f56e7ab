"""A live-follow stream open while its PostgreSQL restarts.

The stream's reads (the match's head, the store's wait) raised ``StoreUnavailableError`` inside
the response body: waitress logged a full traceback and the client's chunked stream simply
broke.  Now the stream ends with the one-line JSON ``error`` message (``unavailable``), as a
revoked token's stream does, and the server logs one line.  A real server process on a
PostgreSQL cluster of the test's own, stopped (``immediate``) under the open stream.
"""

from __future__ import annotations

import http.client
import json
import time
from urllib.parse import urlsplit

import pytest

from ledger.pgcluster import ClusterUnavailable, start_cluster
from tests.postgres import _missing
from tests.security.live import LiveApi, LiveServer


@pytest.fixture
def cluster():
    try:
        found = start_cluster()
    except ClusterUnavailable as exc:
        _missing(str(exc))
    try:
        yield found
    finally:
        found.stop()


def _open_stream(base: str, mid: str, token: str) -> http.client.HTTPResponse:
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    conn.request("GET", f"/api/matches/{mid}/follow?from=0",
                 headers={"Authorization": f"Bearer {token}"})
    response = conn.getresponse()
    assert response.status == 200
    return response


def _messages_until(response, wanted: str) -> list[str]:
    """The SSE lines read until one starting with ``wanted`` (or the end of the stream)."""
    lines = []
    while True:
        raw = response.readline()
        if not raw:
            return lines
        lines.append(raw.decode().rstrip("\n"))
        if lines[-1].startswith(wanted):
            return lines


def test_a_stream_open_while_postgresql_stops_ends_with_one_error_line(cluster, tmp_path):
    log = tmp_path / "serve.log"
    server = LiveServer(cluster.url, log=log, spectator_delay=0)
    try:
        mid, tokens = LiveApi(server).create()
        stream = _open_stream(server.base, mid, tokens["judge"])
        assert "id: 0" in _messages_until(stream, "id: 0")
        cluster.halt("immediate")
        started = time.monotonic()
        lines = _messages_until(stream, "data: {\"error\"")
        assert "event: error" in lines, lines
        error = json.loads(lines[-1].removeprefix("data: "))
        assert error["error"] == "unavailable" and "\n" not in error["message"], error
        assert "the stream ends" in error["message"], error
        assert stream.read() == b"\n"  # the end of the message, then a whole chunked end
        assert time.monotonic() - started < 30
    finally:
        server.stop()
        cluster.serve()  # for its stop()
    text = log.read_text()
    assert "Traceback" not in text, text[-2000:]
    assert sum("live-follow stream ends" in line for line in text.splitlines()) == 1, text


def test_the_first_request_after_an_immediate_restart_is_served(cluster):
    """The pool handed out a connection the restart had closed: that request got 503.  Each
    connection is now checked as it is handed out (without a round trip) and replaced."""
    server = LiveServer(cluster.url, spectator_delay=0)
    try:
        api = LiveApi(server)
        mid, tokens = api.create()
        for _ in range(3):
            for _ in range(4):  # several pooled connections in use before the restart
                assert api.call("GET", f"/api/matches/{mid}/state", tokens["judge"])[0] == 200
            cluster.halt("immediate")
            cluster.serve()
            status, data = api.call("GET", f"/api/matches/{mid}/state", tokens["judge"])
            assert status == 200, data
    finally:
        server.stop()
