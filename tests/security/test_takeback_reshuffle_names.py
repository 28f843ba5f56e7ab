"""Attack: reading a seat's new deck order from the words of events a take-back undid.

A judge's take-back to seq 0 starts the game again: the set-up's coin flip and shuffles are
drawn afresh (docs/api.md), so each card id -- its place in the setup shuffle -- now names
another card.  The undone events stay in the record, struck through; before, every answer
narrated them with the names of the match's *current* state: once the new shuffles were
recorded, "Feather Seer's ability starts resolving" stood where the table had read "Gust Step's
ability ..." -- B10 was now the tenth card of Bob's new shuffle, still in his deck -- for Ann,
for Bob and for every spectator (and a delayed spectator's events, before the take-back, were
named from the head's state the same way).  The judge's record of what happened changed its
words too.  Now an event is named from the state of the line it was recorded on.
"""

from __future__ import annotations

import random

from tests.web.test_api import ORGANIZER, SEATS, Api, choose, new_app

PERSPECTIVES = ("A", "B", "judge", "public")


def _texts(api, mid: str, tokens: dict, who: str) -> dict[int, str]:
    if who == "public":
        status, data = api.call("GET", f"/api/public/matches/{mid}/events?limit=2000")
    else:
        status, data = api.call("GET", f"/api/matches/{mid}/events?limit=2000", tokens[who])
    assert status == 200, data
    return {e["seq"]: e["text"] for e in data["events"]}


def _decide(api, mid: str, tokens: dict, rng: random.Random) -> str:
    """One decision by the seat asked; returns the kind of prompt it answered."""
    pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]
    assert pending is not None, "the match ended"
    status, prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[pending["seat"]])
    status, done = api.decide(mid, tokens[pending["seat"]], choose(prompt["prompt"], rng),
                              prompt["length"])
    assert status == 201, done
    return prompt["prompt"]["kind"]


def test_undone_events_keep_their_words_after_a_new_setup_shuffle(tmp_path, where):
    api = where or Api(new_app(tmp_path, spectator_delay=0))
    status, created = api.call("POST", "/api/matches", ORGANIZER, {"seats": SEATS})
    mid, tokens = created["match_id"], created["tokens"]
    rng = random.Random(1)
    for _ in range(40):
        _decide(api, mid, tokens, rng)
    before = {who: _texts(api, mid, tokens, who) for who in PERSPECTIVES}
    status, back = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                            {"to_seq": 0, "reason": "start again"})
    assert status == 201, back
    while api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]["kind"] \
            != "mulligan":
        _decide(api, mid, tokens, rng)
    for who in PERSPECTIVES:
        after = _texts(api, mid, tokens, who)
        changed = {seq: (text, after[seq]) for seq, text in before[who].items()
                   if after[seq] != text}
        assert not changed, (who, sorted(changed.items())[:3])


def test_a_delayed_spectator_reads_no_name_of_a_shuffle_past_its_delay(tmp_path):
    api = Api(new_app(tmp_path, spectator_delay=40))
    status, created = api.call("POST", "/api/matches", ORGANIZER, {"seats": SEATS})
    mid, tokens = created["match_id"], created["tokens"]
    rng = random.Random(1)
    for _ in range(40):
        _decide(api, mid, tokens, rng)
    before = _texts(api, mid, tokens, "public")
    status, back = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                            {"to_seq": 0, "reason": "start again"})
    assert status == 201, back
    while api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]["kind"] \
            != "mulligan":
        _decide(api, mid, tokens, rng)
    after = _texts(api, mid, tokens, "public")
    assert max(after) < back["events"][0]["seq"]  # the take-back is past the delay
    changed = {seq: (text, after[seq]) for seq, text in before.items() if after[seq] != text}
    assert not changed, sorted(changed.items())[:3]
