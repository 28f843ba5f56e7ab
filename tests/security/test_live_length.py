"""A live match's length is not told to the public beyond the spectator delay (issue 13,
finding 9): not by the match list, not by one match's summary, not by the viewer's list, and
not by the viewer's page or its JSON (``/matches/<id>``, ``/step``, ``/timeline``)."""

from __future__ import annotations

import json
import random
import re

from tests.security.live import LiveApi, LiveServer
from tests.web.test_api import ORGANIZER, SEATS, Api, choose, new_app


def _live_match(api: Api) -> tuple[str, int]:
    """A live match 15 decisions in; returns its id and true length."""
    _, data = api.call("POST", "/api/matches", ORGANIZER, {"seats": SEATS})
    mid, tokens = data["match_id"], data["tokens"]
    rng = random.Random(2)
    for _ in range(15):
        seat = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]["seat"]
        prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]
        status, _ = api.decide(mid, tokens[seat], choose(prompt["prompt"], rng), prompt["length"])
        assert status == 201
    return mid, api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["length"]


def test_the_public_lists_do_not_tell_a_live_matchs_true_length(tmp_path):
    api = Api(new_app(tmp_path, spectator_delay=10))
    mid, true_length = _live_match(api)
    public = api.call("GET", f"/api/matches/{mid}")[1]
    listed = api.call("GET", "/api/matches")[1]["matches"][0]
    state = api.call("GET", f"/api/public/matches/{mid}/state")[1]
    assert public["length"] == listed["length"] == true_length - 10 < true_length
    assert state["length"] <= public["length"]
    page = api.client.get("/matches").get_data(as_text=True)
    assert f">{true_length}<" not in page


def test_the_viewer_page_and_its_json_do_not_tell_a_live_matchs_true_length(tmp_path):
    server = LiveServer(tmp_path / "store", spectator_delay=10)
    try:
        api = LiveApi(server)
        mid, true_length = _live_match(api)
        shown = true_length - 10
        assert api.call("GET", f"/api/public/matches/{mid}/state")[1]["length"] == shown
        step = api.call("GET", f"/matches/{mid}/step")[1]
        timeline = api.call("GET", f"/matches/{mid}/timeline")[1]
        assert step["length"] == timeline["length"] == shown == step["last"] + 1
        page = api.client.get(f"/matches/{mid}").get_data(as_text=True)
        embedded = re.findall(r'<script type="application/json" id="[^"]+">(.*?)</script>', page,
                              re.S)
        lengths = {json.loads(text).get("length") for text in embedded}
        assert lengths == {shown}, lengths
    finally:
        server.stop()


def test_a_delayed_event_does_not_tell_where_its_batch_ends(tmp_path):
    """Each event carries ``batch``, the seq of the last event of the batch it was recorded
    with.  The public's last event of a live match was often one of a batch that goes on past
    the delay -- ``batch`` then said how far (here: to the true last seq), in the events pages
    and the follow stream alike.  The public's events now say no seq past what they show."""
    server = LiveServer(tmp_path / "store", spectator_delay=1)
    try:
        api = LiveApi(server)
        mid, true_length = _live_match(api)
        before_last = next(iter(api.store.read(mid, true_length - 2)))
        assert before_last.batch == true_length - 1, "the last batch has one event: no test"
        shown = true_length - 1
        events = api.call("GET", f"/api/public/matches/{mid}/events")[1]["events"]
        follow = api.client.get(f"/api/matches/{mid}/follow?timeout=0").get_data(as_text=True)
        streamed = [json.loads(line[6:]) for line in follow.splitlines()
                    if line.startswith("data: {\"seq\"")]
        for listed in (events, streamed):
            assert [e["seq"] for e in listed] == list(range(shown))
            assert max(e["batch"] for e in listed) == shown - 1, listed[-1]
    finally:
        server.stop()
