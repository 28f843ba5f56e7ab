"""A live match's length is not told to the public beyond the spectator delay (issue 13,
finding 9): not by the match list, not by one match's summary, not by the viewer's list."""

from __future__ import annotations

import random

from tests.web.test_api import ORGANIZER, SEATS, Api, choose, new_app


def test_the_public_lists_do_not_tell_a_live_matchs_true_length(tmp_path):
    api = Api(new_app(tmp_path, spectator_delay=10))
    _, data = api.call("POST", "/api/matches", ORGANIZER, {"seats": SEATS})
    mid, tokens = data["match_id"], data["tokens"]
    rng = random.Random(2)
    for _ in range(15):
        seat = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]["seat"]
        prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]
        status, _ = api.decide(mid, tokens[seat], choose(prompt["prompt"], rng), prompt["length"])
        assert status == 201
    true_length = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["length"]
    public = api.call("GET", f"/api/matches/{mid}")[1]
    listed = api.call("GET", "/api/matches")[1]["matches"][0]
    state = api.call("GET", f"/api/public/matches/{mid}/state")[1]
    assert public["length"] == listed["length"] == true_length - 10 < true_length
    assert state["length"] <= public["length"]
    page = api.client.get("/matches").get_data(as_text=True)
    assert f">{true_length}<" not in page
