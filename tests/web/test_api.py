"""The recording API through Flask's test client: a match's whole life, and every role boundary.

Helpers here (``Api``, ``new_app``, ``drive``) are shared by the other ``test_api_*`` files.
"""

from __future__ import annotations

import json
import random

import pytest

from ledger.filestore import FileStore
from replay.replayer import Replay
from replay.wotf.cards import default_cards
from web.app import create_app
from web.config import Settings

ORGANIZER = "organizer-token-for-tests-0123456789"
SEATS = [{"player": "Ann", "preset": "solfera-blaze"}, {"player": "Bob", "preset": "thalwind-sky"}]


def new_app(tmp_path, **overrides):
    settings = Settings(store=tmp_path / "store", organizer_token=ORGANIZER,
                        secret_key="s" * 32, **overrides)
    return create_app(settings)


class Api:
    """A thin client: JSON in, ``(status, json)`` out, with a bearer token per call."""

    def __init__(self, app):
        self.app = app
        self.client = app.test_client()

    def call(self, method, path, token=None, body=None, raw=None, headers=None):
        headers = dict(headers or {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        kwargs = {"headers": headers}
        if body is not None:
            kwargs["json"] = body
        if raw is not None:
            kwargs["data"] = raw
            headers.setdefault("Content-Type", "application/json")
        response = self.client.open(path, method=method, **kwargs)
        data = response.get_json(silent=True)
        return response.status_code, data

    def create(self, **extra):
        status, data = self.call("POST", "/api/matches", ORGANIZER, {"seats": SEATS, **extra})
        assert status == 201, data
        return data["match_id"], data["tokens"]

    def state(self, mid, token):
        status, data = self.call("GET", f"/api/matches/{mid}/state", token)
        assert status == 200, data
        return data

    def decide(self, mid, token, decision, expected_seq):
        return self.call("POST", f"/api/matches/{mid}/decisions", token,
                         {"expected_seq": expected_seq, "decision": decision})


def choose(prompt, rng):
    """A legal decision for a prompt as the API lists it (random among the options)."""
    if prompt["choose"]:
        spec = prompt["choose"]
        if spec["multiset"]:
            return {"type": "Answered", "kind": prompt["kind"], "pick": spec["of"]}
        pick = rng.sample(sorted(set(spec["of"])), rng.randint(spec["min"], spec["max"]))
        return {"type": "Answered", "kind": prompt["kind"], "pick": pick}
    return rng.choice(prompt["options"])["decision"]


def drive(api, mid, tokens, rng, limit=3000):
    """Both seats decide through the API until the match ends; returns the decision count."""
    for count in range(limit):
        pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["A"])[1]
        if pending["prompt"] is None:
            return count
        seat = pending["prompt"]["seat"]
        status, prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])
        decision = choose(prompt["prompt"], rng)
        status, data = api.decide(mid, tokens[seat], decision, prompt["length"])
        assert status == 201, data
    raise AssertionError("the match did not end")


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path))


def _file(api, mid):
    return api.app.extensions["wonders"].store.path(mid)


# -- the whole life of a match ---------------------------------------------------------------


def test_a_match_is_recorded_from_creation_to_download_and_verifies(api):
    mid, tokens = api.create(tournament="Test Open", round=2, table=5)
    decisions = drive(api, mid, tokens, random.Random(3))
    assert decisions > 10
    final = api.state(mid, tokens["judge"])
    assert final["board"]["over"] and final["prompt"] is None and not final["live"]
    status, listing = api.call("GET", "/api/matches?tournament=Test+Open&round=2&table=5&ended=true")
    assert status == 200 and [m["match_id"] for m in listing["matches"]] == [mid]
    assert listing["matches"][0]["players"] == {"A": "Ann", "B": "Bob"}
    response = api.client.get(f"/api/public/matches/{mid}/file")
    assert response.status_code == 200 and response.mimetype == "application/x-ndjson"
    assert response.data == _file(api, mid).read_bytes()
    replay = Replay(list(FileStore.read_file(_file(api, mid))), default_cards())
    assert replay.engine.state.over and len(replay) == final["length"]


def test_created_tokens_are_random_distinct_and_stored_only_hashed(api, tmp_path):
    mid, tokens = api.create()
    assert len(set(tokens.values())) == 3 and all(len(t) >= 43 for t in tokens.values())
    stored = (tmp_path / "store" / ".tokens" / f"{mid}.json").read_text()
    assert not any(token in stored for token in tokens.values())
    assert set(json.loads(stored)) == {"A", "B", "judge"}


def test_an_illegal_deck_is_refused_with_the_rule_and_nothing_is_stored(api, tmp_path):
    bad = [{"player": "Ann", "deck": {"Blaze Drake": 5}}, SEATS[1]]
    status, data = api.call("POST", "/api/matches", ORGANIZER, {"seats": bad, "match_id": "bad-deck"})
    assert status == 422 and "rule 303" in data["message"] and "seat A" in data["message"]
    assert not (tmp_path / "store" / "bad-deck.jsonl").exists()


def test_a_taken_match_id_is_a_conflict(api):
    api.create(match_id="table-1")
    status, data = api.call("POST", "/api/matches", ORGANIZER, {"seats": SEATS, "match_id": "table-1"})
    assert status == 409 and "already exists" in data["message"]


# -- role boundaries ---------------------------------------------------------------------------


def _to_turn(api, mid, tokens):
    rng = random.Random(1)
    while True:
        pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]
        if pending["kind"] == "turn":
            return pending
        status, data = api.decide(mid, tokens[pending["seat"]], choose(pending, rng),
                                  api.state(mid, tokens["judge"])["length"])
        assert status == 201, data


def test_a_seat_token_cannot_act_for_the_other_seat(api):
    mid, tokens = api.create()
    prompt = _to_turn(api, mid, tokens)
    waiting = "B" if prompt["seat"] == "A" else "A"
    length = api.state(mid, tokens["judge"])["length"]
    before = _file(api, mid).read_bytes()
    status, data = api.decide(mid, tokens[waiting], {"type": "DrawDeclared"}, length)
    assert status == 422 and "rule 403.2" in data["message"]
    assert _file(api, mid).read_bytes() == before


def test_a_seat_never_sees_the_other_hand_or_any_deck_order(api):
    mid, tokens = api.create()
    _to_turn(api, mid, tokens)
    omniscient = api.state(mid, tokens["judge"])["board"]
    for seat, other in (("A", "B"), ("B", "A")):
        view = api.state(mid, tokens[seat])
        players = view["board"]["players"]
        assert view["perspective"] == seat
        assert players[other]["hand"] is None
        assert players[other]["hand_count"] == len(omniscient["players"][other]["hand"]) > 0
        assert players[seat]["hand"] == omniscient["players"][seat]["hand"]
        assert players[seat]["deck"] is None and players[other]["deck"] is None
        listed = api.call("GET", f"/api/matches/{mid}/events", tokens[seat])[1]
        text = json.dumps(listed)
        other_hand = {c["id"] for c in omniscient["players"][other]["hand"]}
        assert not any(f'"{cid}"' in text for cid in other_hand)
        shuffles = [e["event"] for e in listed["events"] if e["event"]["type"] == "DeckOrdered"]
        assert len(shuffles) == 2 and all(set(e["cards"]) == {"?"} for e in shuffles)  # hidden
    assert omniscient["players"]["A"]["deck"] is not None


def test_the_other_seats_prompt_shows_no_options(api):
    mid, tokens = api.create(previous_loser="B")  # rule 401: B chooses, no coin flip
    pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["A"])[1]["prompt"]
    assert pending["seat"] == "B" and not pending["yours"] and pending["options"] == []
    mulligan = _to_mulligan(api, mid, tokens)
    other = "B" if mulligan["seat"] == "A" else "A"
    seen = api.call("GET", f"/api/matches/{mid}/prompt", tokens[other])[1]["prompt"]
    assert seen["kind"] == "mulligan" and seen["choose"] is None and seen["labels"] == {}


def _to_mulligan(api, mid, tokens):
    rng = random.Random(2)
    while True:
        pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]
        if pending["kind"] == "mulligan":
            return pending
        api.decide(mid, tokens[pending["seat"]], choose(pending, rng),
                   api.state(mid, tokens["judge"])["length"])


def test_seats_cannot_take_back_or_rule_and_the_judge_cannot_decide(api):
    mid, tokens = api.create()
    for path, body in (("takeback", {"to_seq": 0}), ("notes", {"text": "hi"}),
                       ("ending", {"seat": "B"}),
                       ("manual", {"ops": [{"op": "tap", "card": "A1"}]})):
        status, data = api.call("POST", f"/api/matches/{mid}/{path}", tokens["A"], body)
        assert status == 403 and "only judge" in data["message"], (path, data)
    status, data = api.decide(mid, tokens["judge"], {"type": "Passed"}, 2)
    assert status == 403 and "seat" in data["message"]


def test_missing_wrong_and_foreign_tokens_are_refused(api):
    mid, tokens = api.create()
    _other_mid, other_tokens = api.create()
    for token in (None, "not-a-token", other_tokens["A"], other_tokens["judge"]):
        for method, path in (("GET", "state"), ("GET", "events"), ("GET", "prompt")):
            status, data = api.call(method, f"/api/matches/{mid}/{path}", token)
            assert status == 401 and data["error"] == "unauthenticated", (token, path)
        status, _ = api.decide(mid, token, {"type": "Passed"}, 2)
        assert status == 401
    status, data = api.call("POST", "/api/matches", None, {"seats": SEATS})
    assert status == 401
    status, data = api.call("POST", "/api/matches", tokens["judge"], {"seats": SEATS})
    assert status == 403 and "organizer" in data["message"]


def test_the_judge_reads_the_omniscient_view(api):
    mid, tokens = api.create()
    view = api.state(mid, tokens["judge"])
    assert view["perspective"] == "omniscient"
    assert all(p["deck"] is not None for p in view["board"]["players"].values())


# -- concurrency and illegal decisions ---------------------------------------------------------


def test_a_stale_expected_seq_is_a_409_and_nothing_is_written(api):
    mid, tokens = api.create(previous_loser="B")
    prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens["B"])[1]
    decision = prompt["prompt"]["options"][0]["decision"]
    status, _ = api.decide(mid, tokens["B"], decision, prompt["length"])
    assert status == 201
    before = _file(api, mid).read_bytes()
    status, data = api.decide(mid, tokens["B"], decision, prompt["length"])
    assert status == 409 and data["error"] == "conflict" and "expected seq" in data["message"]
    assert _file(api, mid).read_bytes() == before


def test_an_illegal_decision_is_a_422_citing_the_rule_and_writes_nothing(api):
    mid, tokens = api.create()
    prompt = _to_turn(api, mid, tokens)
    seat = prompt["seat"]
    view = api.state(mid, tokens[seat])
    card = next(c["id"] for c in view["board"]["players"][seat]["hand"] if c["type"] != "spell")
    before = _file(api, mid).read_bytes()
    status, data = api.decide(mid, tokens[seat], {"type": "PlayDeclared", "card": card, "realm": 5},
                              view["length"])
    assert status == 422 and data["error"] == "illegal"
    assert "realm 5 is not active" in data["message"] and "rule 404.2" in data["message"]
    assert _file(api, mid).read_bytes() == before


def test_an_answer_of_the_wrong_kind_is_a_422(api):
    mid, tokens = api.create(previous_loser="B")
    length = api.state(mid, tokens["B"])["length"]
    status, data = api.decide(mid, tokens["B"], {"type": "Answered", "kind": "first", "pick": "C"},
                              length)
    assert status == 422 and "not one of the legal options" in data["message"]


# -- malformed and oversized bodies -----------------------------------------------------------


@pytest.mark.parametrize("raw", [b"{", b"[]", b'{"expected_seq": -1, "decision": {"type": "Passed"}}',
                                 b'{"expected_seq": 2, "decision": {"type": "Teleported"}}',
                                 b'{"expected_seq": 2, "decision": {"type": "Passed", "seat": "B"}}',
                                 b'{"expected_seq": 2}', b""])
def test_malformed_bodies_are_a_400(api, raw):
    mid, tokens = api.create()
    status, data = api.call("POST", f"/api/matches/{mid}/decisions", tokens["B"], raw=raw)
    assert status == 400 and data["error"] == "malformed", data


def test_an_oversized_body_is_a_413(tmp_path):
    api = Api(new_app(tmp_path, max_body_bytes=2048))
    mid, tokens = api.create()
    raw = json.dumps({"expected_seq": 2, "decision": {"type": "Conceded", "reason": "x" * 5000}})
    status, data = api.call("POST", f"/api/matches/{mid}/decisions", tokens["B"], raw=raw.encode())
    assert status == 413 and data["error"] == "too_large"
    status, data = api.call("POST", "/api/import", ORGANIZER, raw=b"x" * (17 * 1024 * 1024))
    assert status == 413


def test_unknown_match_and_malformed_ids(api):
    status, data = api.call("GET", "/api/public/matches/nope/state")
    assert status == 404 and data["error"] == "not_found"
    status, data = api.call("GET", "/api/public/matches/..%2Fetc/state")
    assert status in (400, 404)
    status, data = api.call("GET", "/api/public/matches/.hidden/state")
    assert status == 400 and data["error"] == "malformed"
