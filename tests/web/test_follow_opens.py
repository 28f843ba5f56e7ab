"""A live-follow stream answers at once, even when it has nothing to send yet.

waitress sends an answer's status and headers with its first bytes of body, and a stream
wrote nothing until an event came: a seat following its match from its length (the next
event) or the public following a live match from past the spectator delay got no answer at
all -- not even ``200`` -- until the next event or the idle timeout (15 s by default), when the
headers came with an empty body (schemathesis: "Read timed out after 10.0 seconds"; an
``EventSource`` never saw ``open``).  Against a real ``wonders serve``, the stream now opens
with an SSE comment, so the headers arrive at once; the events follow as before.
"""

from __future__ import annotations

import http.client
import time

import pytest

from tests.security.live import LiveApi, LiveServer
from tests.web.test_api import ORGANIZER

PROMPT_S = 2.0  # the idle timeout below is 10 s: an answer within this came before it


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("opens") / "store", organizer=ORGANIZER,
                        threads=2, follow_timeout=10)
    yield LiveApi(server)
    server.stop()


@pytest.mark.parametrize("who", ["A", "public"])
def test_a_quiet_stream_answers_at_once(api, who):
    mid, tokens = api.create()
    length = api.state(mid, tokens["judge"])["length"]
    host, port = api.server.base.split("//")[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=5)
    headers = {"Authorization": f"Bearer {tokens['A']}"} if who == "A" else {}
    started = time.monotonic()
    try:
        connection.request("GET", f"/api/matches/{mid}/follow?from={length}", headers=headers)
        response = connection.getresponse()  # (waited for the first bytes of body)
        assert response.status == 200
        assert response.getheader("Content-Type").startswith("text/event-stream")
        first = response.readline()
        assert first.startswith(b": following " + mid.encode()), first
        assert time.monotonic() - started < PROMPT_S
        if who == "A":  # and the next event still comes down the same stream
            seat = api.call("GET", f"/api/matches/{mid}/prompt",
                            tokens["judge"])[1]["prompt"]["seat"]
            prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]
            status, _ = api.decide(mid, tokens[seat], prompt["prompt"]["options"][0]["decision"],
                                   prompt["length"])
            assert status == 201
            line = b""
            while not line.startswith(b"id: "):
                line = response.readline()
                assert line, "the stream ended"
            assert line == f"id: {length}\n".encode()
    finally:
        connection.close()
