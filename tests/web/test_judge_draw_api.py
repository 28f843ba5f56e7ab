"""A judge's draw through a real server (``wonders serve``), both games: ``POST …/ending`` with
``kind`` ``draw`` and ``draw`` ``agreed`` or ``time`` records ``DrawGiven`` and the match ends
with no winner (docs/api.md; rulings R45, SoW R26).  Only the judge may: a seat's token is
refused (403), no token or the organizer's is not a token of the match (401), and nothing is
written; a body that doesn't fit its kind is a 400 naming the field.  Every role reads the
result as a draw, the record is final (a second ending, a take-back: 422) and
``wonders verify`` re-derives it."""

from __future__ import annotations

import random

import pytest

from ledger.filestore import FileStore
from replay.replayer import Replay
from tests.security.live import LiveApi, LiveServer
from tests.web.test_api import ORGANIZER
from tests.web.test_takeback_to_start import _create, _decide, _length, _verify

DRAWN = {"wotf": {"agreed": "The match ends in an agreed draw",
                  "time": "The match ends in a draw at time"},
         "sow": {"agreed": "The match ends in an agreed draw.",
                 "time": "The match ends in a draw at time."}}


@pytest.fixture
def server(tmp_path):
    running = LiveServer(tmp_path / "store", spectator_delay=0)
    yield running
    running.stop()


@pytest.mark.parametrize(("game", "kind"), [("wotf", "agreed"), ("wotf", "time"),
                                            ("sow", "agreed"), ("sow", "time")])
def test_only_the_judge_records_a_draw_and_every_role_reads_it(server, game, kind):
    api = LiveApi(server)
    mid, tokens = _create(api, game)
    _decide(api, mid, tokens, random.Random(7), 4)
    path = server.store / f"{mid}.jsonl"
    before, length = path.read_bytes(), _length(api, mid, tokens)
    body = {"kind": "draw", "draw": kind, "reason": "round 3", "expected_seq": length}
    for token, status_wanted in ((tokens["A"], 403), (tokens["B"], 403), (None, 401),
                                 (ORGANIZER, 401)):
        status, data = api.call("POST", f"/api/matches/{mid}/ending", token, body)
        assert status == status_wanted, (token, data)
    status, data = api.call("POST", f"/api/matches/{mid}/ending", tokens["A"], body)
    assert data["message"] == (f"match {mid}: a seat A token may not end the match (a "
                               f"concession, a game loss or a draw) (only judge)")
    for bad, field in (({"kind": "draw"}, "'draw' is 'agreed'"),
                       ({"kind": "draw", "draw": kind, "seat": "A"}, "a draw has no loser"),
                       ({"kind": "draw", "draw": "bored"}, "draw"),
                       ({"kind": "concession", "draw": kind, "seat": "A"}, "goes with kind"),
                       ({"kind": "game_loss"}, "names its seat")):
        status, data = api.call("POST", f"/api/matches/{mid}/ending", tokens["judge"], bad)
        assert status == 400 and field in data["message"], (bad, data)
    assert path.read_bytes() == before  # nothing written by any refusal

    status, data = api.call("POST", f"/api/matches/{mid}/ending", tokens["judge"], body)
    assert status == 201, data
    assert [e["event"]["type"] for e in data["events"]] == ["DrawGiven", "MatchEnded"]
    assert data["events"][0]["event"] == {"type": "DrawGiven", "kind": kind, "reason": "round 3",
                                          "judge": "judge"}
    said = {"agreed": "The judge records a draw: Ann and Bob agree to it (round 3)",
            "time": "The judge records a draw at time: the round's time ran out with the match "
                    "unfinished (round 3)"}[kind]
    assert data["events"][0]["text"].rstrip(".") == said
    assert data["events"][1]["text"].startswith(DRAWN[game][kind])
    for token in (tokens["A"], tokens["B"], tokens["judge"]):
        board = api.state(mid, token)["board"]
        assert board["over"] and board["winner"] is None and board["reason"] == kind
    status, summary = api.call("GET", f"/api/matches/{mid}")
    assert status == 200 and summary["ended"] and summary["winner"] is None
    status, view = api.call("GET", f"/api/public/matches/{mid}/state")
    assert status == 200 and view["board"]["winner"] is None and view["board"]["reason"] == kind
    assert api.client.get(f"/api/public/matches/{mid}/file").status_code == 200

    ended = path.read_bytes()
    status, data = api.call("POST", f"/api/matches/{mid}/ending", tokens["judge"],
                            {"kind": "draw", "draw": "time"})
    assert status == 422 and "the match is over" in data["message"], data
    status, data = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                            {"to_seq": 1})
    assert status == 422 and "its record is final" in data["message"], data
    assert path.read_bytes() == ended
    replay = Replay(list(FileStore(server.store).read(mid)), None)
    assert replay.engine.state.over and replay.engine.state.winner is None
    assert _verify(server.store).endswith("1 passed, 0 failed\n")
