"""A seat pressing "call the judge" without end froze the other seat out of the match.

Each call is an event of the match, so every call made the other seat's ``expected_seq``
stale: with two threads of a seat calling (~100 calls a second) against a real ``wonders
serve``, 20 decisions of the other seat in a row -- each read its prompt afresh, then sent --
were all 409, and the judge's page listed every call.  A seat now has one open call: a new one
is refused (409, nothing written) while nothing has happened at the table since its last (no
move of the game, nothing the judge did; the other seat's calls and annotations don't count).
Under the same flood, the other seat's decisions go through (at most one 409 each, then a
reload).
"""

from __future__ import annotations

import random
import threading

import pytest

from tests.security.live import LiveApi, LiveServer
from tests.web.test_api import ORGANIZER, choose


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("calls") / "store", organizer=ORGANIZER,
                        threads=4)
    yield LiveApi(server)
    server.stop()


def pending_seat(api, mid, tokens) -> str:
    return api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]["seat"]


def decide(api, mid, tokens, seat, rng) -> int:
    """``seat`` decides as /play does: its prompt afresh, then a legal option."""
    prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]
    return api.decide(mid, tokens[seat], choose(prompt["prompt"], rng), prompt["length"])[0]


def call(api, mid, token, text="a question"):
    return api.call("POST", f"/api/matches/{mid}/judge-call", token, {"text": text})


def test_a_seat_has_one_open_call_until_something_happens_at_the_table(api):
    mid, tokens = api.create()
    status, first = call(api, mid, tokens["A"])
    assert status == 201, first
    seq = first["events"][0]["seq"]
    status, out = call(api, mid, tokens["A"], "again")
    assert status == 409 and out["error"] == "conflict", out
    assert f"seq {seq}" in out["message"] and "\n" not in out["message"]
    assert call(api, mid, tokens["B"])[0] == 201  # the other seat's own call
    assert call(api, mid, tokens["A"])[0] == 409  # (the other seat's call is no answer)
    assert decide(api, mid, tokens, pending_seat(api, mid, tokens), random.Random(1)) == 201
    assert call(api, mid, tokens["A"])[0] == 201  # a move since: a new call
    status, out = api.call("POST", f"/api/matches/{mid}/notes", tokens["judge"],
                           {"text": "coming"})
    assert status == 201, out
    assert call(api, mid, tokens["B"])[0] == 201  # the judge acted since B's call


def test_a_flood_of_calls_does_not_keep_the_other_seat_from_playing(api):
    mid, tokens = api.create()
    rng = random.Random(5)
    victim = pending_seat(api, mid, tokens)
    caller = "B" if victim == "A" else "A"
    stop = threading.Event()
    refused: list[int] = []

    def flood():
        while not stop.is_set():
            refused.append(call(api, mid, tokens[caller])[0])
    threads = [threading.Thread(target=flood) for _ in range(2)]
    for thread in threads:
        thread.start()
    try:
        recorded = 0
        for _ in range(6):
            if pending_seat(api, mid, tokens) != victim:
                break
            statuses = [decide(api, mid, tokens, victim, rng)]
            if statuses[0] == 409:  # a call came first: reload once
                statuses.append(decide(api, mid, tokens, victim, rng))
            assert statuses[-1] == 201, statuses
            recorded += 1
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert recorded >= 1
    assert refused.count(201) <= recorded + 1, refused.count(201)
