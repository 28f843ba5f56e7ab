"""A token replaced by another process or server stops working everywhere at once.

An organizer reissues or revokes a table's token from the console of one server, or with
``wonders tournament`` in another process; every other server recording on the same store must
refuse the old token from its next request, not after a restart.  The file book re-reads a
token file that was replaced (a new inode); the PostgreSQL book reads the database on every
check.  A live-follow stream opened with a token ends when the token is replaced: it sends
nothing of that role's view past the replacement (a seat's own draws, the judge's deck order).
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import time

import pytest

from ledger.stores import open_store
from tests.security.live import LiveApi, LiveServer
from tests.web.test_api import ORGANIZER, Api, choose, new_app
from tests.web.test_tournaments import decklist
from web.app import create_app
from web.config import Settings
from web.tokens import TokenBook, hash_token, new_token


def _state(api: Api, mid: str, token: str) -> int:
    return api.call("GET", f"/api/matches/{mid}/state", token)[0]


def test_a_token_replaced_by_another_process_stops_working_on_a_running_server(tmp_path):
    api = Api(new_app(tmp_path))
    mid, old = api.create()
    assert _state(api, mid, old["A"]) == 200  # read once: the server now knows the tokens
    new = TokenBook(tmp_path / "store").issue(mid)  # another process replaces them
    assert _state(api, mid, old["A"]) == 401
    assert _state(api, mid, new["A"]) == 200


def test_a_token_replaced_on_one_postgresql_server_stops_working_on_another(pg_url, postgres_cluster):
    settings = Settings(store=pg_url, organizer_token=ORGANIZER, secret_key="s" * 32)
    first, second = Api(create_app(settings)), Api(create_app(settings))
    mid, old = first.create()
    assert _state(second, mid, old["judge"]) == 200
    # A third server reissues the judge's token (as the organizer console does).
    new = new_token()
    store = open_store(pg_url)
    hashes = dict(store.token_hashes(mid), judge=hash_token(new))
    with store._tx() as conn:
        conn.execute("UPDATE wonders_tokens SET hashes = %s WHERE match_id = %s",
                     [json.dumps(hashes), mid])
    assert _state(first, mid, old["judge"]) == 401
    assert _state(second, mid, old["judge"]) == 401
    assert _state(second, mid, new) == 200
    assert _state(first, mid, old["A"]) == 200  # the other roles' tokens are untouched


class Stream:
    """A live-follow stream read on a thread: the SSE messages as ``(event, data)``."""

    def __init__(self, base: str, path: str, token: str):
        host, port = base.split("//")[1].rsplit(":", 1)
        self.conn = http.client.HTTPConnection(host, int(port), timeout=60)
        self.conn.request("GET", path, headers={"Authorization": f"Bearer {token}"})
        self.response = self.conn.getresponse()
        assert self.response.status == 200
        self.messages: list[tuple[str, dict]] = []
        self.ended = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        kind = "message"
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    kind = line[len("event: "):]
                elif line.startswith("data: "):
                    self.messages.append((kind, json.loads(line[len("data: "):])))
        finally:
            self.ended.set()

    def seqs(self) -> list[int]:
        return [data["seq"] for kind, data in self.messages if kind == "event"]


def _record(api: Api, mid: str, tokens: dict, rng: random.Random, count: int) -> int:
    """``count`` decisions by whichever seat is asked; returns the match's length."""
    for _ in range(count):
        seat = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]["seat"]
        prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]
        status, data = api.decide(mid, tokens[seat], choose(prompt["prompt"], rng),
                                  prompt["length"])
        assert status == 201, data
    return api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["length"]


@pytest.mark.parametrize("role", ["B", "judge"])
def test_a_follow_stream_ends_when_the_organizer_revokes_its_token(tmp_path, role):
    server = LiveServer(tmp_path / "store", spectator_delay=0, follow_timeout=30)
    try:
        api = LiveApi(server)
        _s, made = api.call("POST", "/api/tournaments", ORGANIZER, {"name": "Friday"})
        tid = made["tournament_id"]
        for player, deck in (("Ann", "solfera-blaze"), ("Bob", "thalwind-sky")):
            status, data = api.call("POST", f"/api/tournaments/{tid}/players", ORGANIZER,
                                    {"player": player, "decklist": decklist(deck)})
            assert status == 201, data
        _s, started = api.call("POST", f"/api/tournaments/{tid}/rounds", ORGANIZER)
        table = started["tables"][0]
        mid, tokens = table["match_id"], dict(table["tokens"])
        stream = Stream(server.base, f"/api/matches/{mid}/follow", tokens[role])
        rng = random.Random(3)
        length = _record(api, mid, tokens, rng, 3)
        deadline = time.monotonic() + 10
        while (not stream.seqs() or stream.seqs()[-1] < length - 1) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert stream.seqs()[-1] == length - 1  # the stream is live
        where = {"round": 1, "table": table["table"], "role": role}
        status, _ = api.call("POST", f"/api/tournaments/{tid}/revoke", ORGANIZER, where)
        assert status == 200
        assert api.call("GET", f"/api/matches/{mid}/state", tokens[role])[0] == 401
        status, data = api.call("POST", f"/api/tournaments/{tid}/reissue", ORGANIZER, where)
        assert status == 201, data
        tokens[role] = data["tokens"][role]
        _record(api, mid, tokens, rng, 10)  # play goes on
        assert stream.ended.wait(10), "the revoked token's stream is still open"
        assert max(stream.seqs()) < length, "events were sent to a revoked token"
        kind, error = stream.messages[-1]
        assert kind == "error" and error["error"] == "unauthenticated", stream.messages[-1]
        assert "revoked" in error["message"] and mid in error["message"]
        stream.conn.close()
    finally:
        server.stop()
