"""Attack (a demanding user's): two answers to one prompt -- a second tap on the same phone,
or the other seat's phone at the same moment -- where the prompt asked a seat to enter a
card's printed stats (a catalogue card the pool has no rules data for, docs/rulings.md R34).

Exactly one is recorded; the other must be a 409 saying the match moved on since its prompt.
Before, the seat's answer was checked against the prompt pending *now* before its
``expected_seq`` was: the repeated entry was a 422 "no stats entry of A3 is pending for seat
A" (the /play page, which takes a 409 on its own second tap as "already recorded", showed it
as an error), and the other seat's was a 422 about whose prompt it was, not the 409 that says
someone recorded first.
"""

from __future__ import annotations

import random

from tests.web.test_api import Api, choose, new_app
from tests.web.test_real_cards import STATS, start_kai_vs_ann


def _to_stats(api, mid: str, tokens: dict, kai: str) -> dict:
    rng = random.Random(1)
    for _ in range(200):
        _, pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens[kai])
        if pending["prompt"]["kind"] == "stats" and pending["prompt"]["yours"]:
            return pending
        seat = pending["prompt"]["seat"]
        _, mine = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])
        status, done = api.decide(mid, tokens[seat], choose(mine["prompt"], rng), mine["length"])
        assert status == 201, done
    raise AssertionError("no stats prompt")


def test_a_second_answer_to_a_stats_prompt_is_a_conflict(tmp_path, where):
    api = where or Api(new_app(tmp_path))
    _tid, mid, tokens, kai = start_kai_vs_ann(api)
    other = "B" if kai == "A" else "A"
    pending = _to_stats(api, mid, tokens, kai)
    answer = {**pending["prompt"]["entry"]["answer"], **STATS}
    status, done = api.decide(mid, tokens[kai], answer, pending["length"])
    assert status == 201, done
    length = api.call("GET", f"/api/matches/{mid}/prompt", tokens[kai])[1]["length"]
    for seat in (kai, other):  # the second tap, the other phone
        status, refused = api.decide(mid, tokens[seat], answer, pending["length"])
        assert status == 409 and refused["error"] == "conflict", (seat, refused)
        assert f"expected seq {pending['length']}" in refused["message"]
        assert "recorded since" in refused["message"]
        assert api.call("GET", f"/api/matches/{mid}/prompt", tokens[kai])[1]["length"] == length
