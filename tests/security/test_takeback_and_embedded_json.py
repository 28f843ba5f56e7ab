"""Two attacks on the recording service (issue 13, findings 2 and 5), kept so they can't return.

* A take-back past ``MatchEnded`` reopened a finished match whose file -- with both deck orders --
  was already public; play then went on with known decks.
* A seat-chosen token name (``<!--<script>``) broke the public viewer page: the JSON embedded in
  it only escaped ``</``.
"""

from __future__ import annotations

import json
import random
import re

from ledger.filestore import FileStore
from replay.recorder import Recorder
from replay.wotf.bots import RandomBot
from replay.wotf.events import ManualEffect, ManualOp
from tests.replay.helpers import opened, small_db
from tests.web.test_api import ORGANIZER, SEATS, Api, new_app


def _store(api) -> FileStore:
    return api.store if getattr(api, "live", False) else api.app.extensions["wonders"].store


def test_a_take_back_cannot_reopen_an_ended_match(tmp_path, where):
    api = where or Api(new_app(tmp_path))
    status, data = api.call("POST", "/api/matches", ORGANIZER, {"seats": SEATS})
    mid, tokens = data["match_id"], data["tokens"]
    rng = random.Random(4)
    ends = []
    for _ in range(12):  # a few batches, then a concession ends the match
        pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]
        seat = pending["seat"]
        prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]
        from tests.web.test_api import choose
        status, answer = api.decide(mid, tokens[seat], choose(prompt["prompt"], rng),
                                    prompt["length"])
        assert status == 201, answer
        ends.append(answer["seq"] - 1)
    status, ended = api.call("POST", f"/api/matches/{mid}/ending", tokens["judge"],
                             {"kind": "concession", "seat": "A"})
    assert status == 201, ended
    path = _store(api).path(mid)
    before = path.read_bytes()
    status, refused = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                               {"to_seq": ends[5], "reason": "oops"})
    assert status == 422 and "ended" in refused["message"] and "final" in refused["message"]
    assert path.read_bytes() == before
    summary = api.call("GET", f"/api/matches/{mid}", ORGANIZER)[1]
    assert summary["ended"] is True and summary["winner"] == "B", summary


def test_a_token_name_a_player_chose_cannot_break_the_viewer_page(tmp_path, where):
    api = where or Api(new_app(tmp_path))
    store = _store(api)
    recorder = Recorder.open(store, small_db(), opened(), rng=random.Random(3))
    bot = RandomBot(random.Random(5))
    while recorder.engine.prompt.kind != "turn":
        recorder.submit(bot.decide(recorder.engine))
    evil = "<!--<script>alert(1)</script>&"
    recorder.manual(ManualEffect("Judge Jo", [ManualOp("token", seat="A", realm=1, name=evil)]))
    recorder.concede("A")
    page = api.client.get("/matches/m-test").get_data(as_text=True)
    embedded = re.search(r'<script type="application/json" id="initial-timeline">(.*?)</script>',
                         page, re.S)
    assert embedded is not None
    text = embedded.group(1)
    assert "<" not in text and ">" not in text and "&" not in text  # nothing the HTML parser reads
    assert evil in json.dumps(json.loads(text), ensure_ascii=False)  # the same data for JSON
    assert page.count("<script") == page.count("</script>")
