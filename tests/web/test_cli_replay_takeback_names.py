"""``wonders replay --at N`` of an event a take-back to seq 0 undid names its cards as the
table read them.  The take-back starts the game again with new setup shuffles, and each id (a
place in the shuffle) then names another card; before, the command named every event's cards
from the file's last state: "Ann harvests Ember Herald" where the table had read "Ann
harvests Solfera Forge" (the same defect as the web's, tests/security/
test_takeback_reshuffle_names.py).  ``wonders replay`` as a real subprocess."""

from __future__ import annotations

import random
import shutil

from tests.web.test_api import ORGANIZER, SEATS, Api, choose, new_app
from tests.web.test_cli_analytics import ok


def _decide(api, mid: str, tokens: dict, rng: random.Random) -> str:
    pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]
    status, prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[pending["seat"]])
    status, done = api.decide(mid, tokens[pending["seat"]], choose(prompt["prompt"], rng),
                              prompt["length"])
    assert status == 201, done
    return prompt["prompt"]["kind"]


def test_an_undone_event_keeps_its_card_names_after_a_new_setup_shuffle(tmp_path):
    api = Api(new_app(tmp_path, spectator_delay=0))
    status, created = api.call("POST", "/api/matches", ORGANIZER, {"seats": SEATS})
    mid, tokens = created["match_id"], created["tokens"]
    rng = random.Random(1)
    for _ in range(40):
        _decide(api, mid, tokens, rng)
    events = api.call("GET", f"/api/matches/{mid}/events?limit=2000", tokens["judge"])[1]
    naming = [e["seq"] for e in events["events"]
              if e["seq"] > 30 and any(w in e["text"] for w in ("harvests", "'s ability",
                                                                "discards"))][:4]
    assert naming
    path = api.app.extensions["wonders"].store.path(mid)
    before = shutil.copy(path, tmp_path / "before.jsonl")
    status, back = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                            {"to_seq": 0, "reason": "start again"})
    assert status == 201, back
    while api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]["kind"] \
            != "mulligan":
        _decide(api, mid, tokens, rng)
    for seq in naming:
        for view in ("A", "omniscient"):
            was = ok("replay", before, "--at", seq, "--as", view).stdout
            now = ok("replay", path, "--at", seq, "--as", view).stdout
            assert now.splitlines()[0] == was.splitlines()[0], (seq, view)
