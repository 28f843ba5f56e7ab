"""Slowloris: a client that opens as many connections as the server holds and sends a request's
bytes slowly, or nothing, kept every other client out.

waitress stops accepting at its connection limit (here 136: 100, plus the follow pool) and
closes a silent connection only after 120 s (a byte a minute keeps one open for ever): 150
sockets with unfinished headers on loopback, and ``GET /api/health`` timed out.  Against a
real ``wonders serve``, with the server full of such connections (and idle ones), a client
that sends its request at once is now answered within a second or two, a decision is
recorded, and a live-follow stream opened before the flood still gets its events
(:mod:`web.slowclients`).
"""

from __future__ import annotations

import http.client
import json
import socket
import time

import pytest

from tests.security.live import LiveApi, LiveServer
from tests.web.test_api import ORGANIZER

#: More connections than the server holds (max(100, 8 * threads) + 36 follow threads).
FLOOD = 150
PROMPT_S = 3.0  # a prompt client's answer, with the server full of slow ones


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = tmp_path_factory.mktemp("slow") / "store"
    server = LiveServer(store, organizer=ORGANIZER, threads=2, follow_timeout=30)
    yield server
    server.stop()


def flood(base: str, count: int) -> list[socket.socket]:
    """``count`` connections: most send half a request's headers, every third nothing."""
    host, port = base.split("//")[1].split(":")
    held = []
    for n in range(count):
        sock = socket.create_connection((host, int(port)), timeout=5)
        if n % 3:
            sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        held.append(sock)
    return held


def answered_in(base: str, path: str, method: str = "GET", body=None, token=None):
    host, port = base.split("//")[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=PROMPT_S)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    started = time.monotonic()
    try:
        connection.request(method, path, body=None if body is None else json.dumps(body),
                           headers=headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read()), time.monotonic() - started
    finally:
        connection.close()


def test_a_prompt_client_is_served_while_slow_ones_hold_every_connection(server):
    api = LiveApi(server)
    mid, tokens = api.create()
    stream = http.client.HTTPConnection(*server.base.split("//")[1].split(":"), timeout=10)
    stream.request("GET", f"/api/matches/{mid}/follow?from=0",  # (headers come with an event)
                   headers={"Authorization": f"Bearer {tokens['A']}"})
    follow = stream.getresponse()
    assert follow.status == 200
    held = flood(server.base, FLOOD)
    try:
        time.sleep(0.5)
        for _ in range(3):
            status, out, took = answered_in(server.base, "/api/health")
            assert status == 200 and out["ok"] and took < PROMPT_S, (out, took)
        seat = answered_in(server.base, f"/api/matches/{mid}/prompt",
                           token=tokens["judge"])[1]["prompt"]["seat"]
        status, prompt, _ = answered_in(server.base, f"/api/matches/{mid}/prompt",
                                        token=tokens[seat])
        assert status == 200, prompt
        decision = prompt["prompt"]["options"][0]["decision"]
        status, out, _ = answered_in(server.base, f"/api/matches/{mid}/decisions", "POST",
                                     {"expected_seq": prompt["length"], "decision": decision},
                                     tokens[seat])
        assert status == 201, out
        # the stream opened before the flood is no slow client: it gets the decision
        line = b""
        while not line.startswith(b"id: 2"):
            line = follow.fp.readline()
            assert line, "the live-follow stream was closed"
        # the slow connections were the ones closed to make room
        closed = 0
        for sock in held:
            sock.settimeout(0.01)
            try:
                closed += sock.recv(1) == b""
            except ConnectionError:
                closed += 1
            except TimeoutError:
                pass  # still open
        assert closed >= FLOOD - 136, closed
    finally:
        for sock in held:
            sock.close()
        stream.close()
