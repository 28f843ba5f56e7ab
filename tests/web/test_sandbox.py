"""Play from here (issue 18, item 5) through the JSON API: the sandbox at seq N offers what the
engine offered the recorder there, plays tried moves in memory only, a link is a position,
bad moves get one clear line, and a live match has none."""

from __future__ import annotations

import random

from ledger.filestore import FileStore
from replay.replayer import Replay
from replay.sandbox import opening_seq
from replay.wotf import api as wotf_api
from replay.wotf.cards import default_cards
from tests.web.test_api import Api, drive, new_app
from web.models import OptionOut
from web.narration import players_of


def _ended(tmp_path):
    api = Api(new_app(tmp_path))
    mid, tokens = api.create()
    drive(api, mid, tokens, random.Random(11))
    path = api.app.extensions["wonders"].store.path(mid)
    return api, mid, tokens, path, Replay(list(FileStore.read_file(path)), default_cards())


def test_the_sandbox_offers_the_recorders_options_at_every_decision_point(tmp_path):
    api, mid, _tokens, path, replay = _ended(tmp_path)
    before = path.read_bytes()
    checked = 0
    for seq in range(0, len(replay) - 1, 9):
        start = opening_seq(replay, seq)
        status, out = api.call("GET", f"/api/public/matches/{mid}/sandbox?seq={seq}")
        assert status == 200, out
        assert out["seq"] == start >= seq
        engine = replay.engine_after(start)
        # the seats named by their players, as on the seats' pages ("Ann", not "A")
        expected = wotf_api.prompt_view(engine, "omniscient", lambda cid: cid,
                                        players_of(replay.events[0]))
        if expected is None:
            assert out["prompt"] is None
            continue
        assert out["prompt"]["seat"] == expected["seat"]
        # as the API's model writes them (a turn option's ``subject``; null for the others)
        shown = [OptionOut(**o).model_dump() for o in expected.get("options", [])]
        assert out["prompt"]["options"] == shown
        if expected.get("options"):  # the decision the record holds is one of them
            recorded = wotf_api._without_seat(replay.events[start + 1])
            assert recorded in [o["decision"] for o in expected["options"]]
            assert expected["options"][out["recorded_option"]]["decision"] == recorded
            checked += 1
    assert checked > 5
    assert path.read_bytes() == before  # nothing written


def test_tried_moves_are_played_in_memory_and_a_link_is_a_position(tmp_path):
    api, mid, _tokens, _path, replay = _ended(tmp_path)
    seq = next(s for s in range(replay.index.rounds[2], len(replay))
               if (e := replay.engine_after(opening_seq(replay, s))).prompt is not None
               and e.prompt.kind == "turn")
    status, first = api.call("GET", f"/api/public/matches/{mid}/sandbox?seq={seq}")
    assert status == 200
    draw = next(i for i, o in enumerate(first["prompt"]["options"]) if o["label"] == "Draw a card")
    url = f"/api/public/matches/{mid}/sandbox?seq={seq}&moves={draw}"
    status, one = api.call("GET", url)
    assert status == 200 and len(one["played"]) == 1 and one["board"] != first["board"]
    assert api.call("GET", url)[1] == one  # the same link, the same position
    status, bad = api.call("GET", f"/api/public/matches/{mid}/sandbox?seq={seq}&moves=999")
    assert status == 422 and bad["message"].startswith("move 1 (999): there are")
    status, bad = api.call("GET", f"/api/public/matches/{mid}/sandbox?seq={seq}&moves=1;2")
    assert status == 422 and "is not a move" in bad["message"]
    status, bad = api.call("GET", f"/api/public/matches/{mid}/sandbox?seq={len(replay) + 5}")
    assert status == 400 and "has seq 0.." in bad["message"]


def test_a_live_match_has_no_sandbox(tmp_path):
    api = Api(new_app(tmp_path))
    mid, _tokens = api.create()
    status, out = api.call("GET", f"/api/public/matches/{mid}/sandbox?seq=0")
    assert status == 403 and "live" in out["message"]


def test_a_state_of_wonder_match_plays_from_any_moment(tmp_path):
    from tests.web.test_sow_api import create, play_out
    api = Api(new_app(tmp_path, spectator_delay=0))
    mid, tokens = create(api)
    _, replay = play_out(api, api.app.extensions["wonders"].store.path, mid, tokens)
    tried = 0
    for seq in range(0, len(replay), max(1, len(replay) // 12)):
        status, out = api.call("GET", f"/api/public/matches/{mid}/sandbox?seq={seq}")
        assert status == 200, (seq, out)
        assert out["seq"] >= seq and out["board"]["game"] == "sow"
        if out["prompt"] and out["prompt"]["options"]:
            # the options name the players, as the seats' pages do ("Ann plays Raider."), never
            # "player A"
            labels = [o["label"] for o in out["prompt"]["options"]]
            assert not any("player A" in x or "player B" in x for x in labels), labels
            if out["prompt"]["kind"] == "turn":
                assert all(x.startswith(("Ann ", "Bob ")) for x in labels), labels
            status, moved = api.call("GET", f"/api/public/matches/{mid}/sandbox?seq={seq}&moves=0")
            assert status == 200 and len(moved["played"]) == 1, moved
            tried += 1
    assert tried > 5


def test_a_choose_prompt_that_allows_none_is_answered_by_picking_none(tmp_path):
    """``p`` alone picks nothing: the move a "choose 0 to 3" prompt records when its seat keeps
    every card (the form's button with nothing checked makes it); a number there is no move."""
    api, mid, _tokens, _path, replay = _ended(tmp_path)
    for seq in range(len(replay)):
        status, out = api.call("GET", f"/api/public/matches/{mid}/sandbox?seq={seq}")
        choose = (out.get("prompt") or {}).get("choose")
        if status == 200 and choose and choose["min"] == 0 and not out["prompt"]["options"]:
            break
    else:
        raise AssertionError("no choose prompt that allows none in the match")
    at = out["seq"]
    status, none = api.call("GET", f"/api/public/matches/{mid}/sandbox?seq={at}&moves=p")
    assert status == 200, none
    assert len(none["played"]) == 1 and none["seq"] == at and none["prompt"] != out["prompt"]
    response = api.client.get(f"/matches/{mid}/sandbox/pick?seq={at}")
    assert response.status_code == 302 and response.location.endswith(f"seq={at}&moves=p")
    status, bad = api.call("GET", f"/api/public/matches/{mid}/sandbox?seq={at}&moves=0")
    assert status == 422
    assert bad["message"] == (f"move 1 (0): this prompt asks for picks of its {len(choose['of'])} "
                              f"cards (like p0.2, p alone for none), not an option number")
