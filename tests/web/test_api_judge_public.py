"""Judge corrections, the public's delayed spectator view, downloads, imports, live follow,
the /play session, and two app instances (two workers) writing to one store."""

from __future__ import annotations

import json
import random

from ledger.filestore import FileStore
from replay.replayer import Replay
from replay.wotf.cards import default_cards
from tests.web.test_api import ORGANIZER, Api, choose, drive, new_app


def _step(api, mid, tokens, rng, count):
    for _ in range(count):
        pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]
        prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[pending["prompt"]["seat"]])[1]
        status, data = api.decide(mid, tokens[prompt["prompt"]["seat"]],
                                  choose(prompt["prompt"], rng), prompt["length"])
        assert status == 201, data


# -- judge ---------------------------------------------------------------------------------------


def test_the_judge_takes_back_and_the_state_is_restored(tmp_path):
    api = Api(new_app(tmp_path))
    mid, tokens = api.create()
    _step(api, mid, tokens, random.Random(4), 6)
    events = api.call("GET", f"/api/matches/{mid}/events", tokens["judge"])[1]["events"]
    target = [e for e in events if e["seq"] == e["batch"]][-3]["seq"]
    before = api.state(mid, tokens["judge"])
    status, data = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                            {"to_seq": target, "reason": "misclick", "expected_seq": before["length"]})
    assert status == 201 and data["events"][0]["event"]["type"] == "TakenBack"
    after = api.state(mid, tokens["judge"])
    replay = Replay(list(FileStore.read_file(api.app.extensions["wonders"].store.path(mid))),
                    default_cards())
    from replay.wotf.perspective import board
    assert after["board"] == board(replay.state_at(target), replay.db, "omniscient")
    inside = next(e["seq"] for e in events if e["seq"] != e["batch"])
    status, data = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"],
                            {"to_seq": inside})
    assert status == 422 and "not the end of a recorded batch" in data["message"]


def test_manual_effects_notes_and_a_game_loss(tmp_path):
    api = Api(new_app(tmp_path))
    mid, tokens = api.create()
    length = api.state(mid, tokens["judge"])["length"]
    status, data = api.call("POST", f"/api/matches/{mid}/manual", tokens["judge"],
                            {"ops": [{"op": "resource", "seat": "A", "resource": "energy", "value": 4}],
                             "note": "ruling 12", "expected_seq": length})
    assert status == 201, data
    assert api.state(mid, tokens["judge"])["board"]["players"]["A"]["energy"] == 4
    status, data = api.call("POST", f"/api/matches/{mid}/manual", tokens["judge"],
                            {"ops": [{"op": "tap", "card": "Z99"}]})
    assert status == 422 and "no card 'Z99'" in data["message"]
    status, data = api.call("POST", f"/api/matches/{mid}/manual", tokens["judge"],
                            {"ops": [{"op": "resource", "seat": "A", "resource": "energy", "value": "x"}]})
    assert status == 400
    status, _ = api.call("POST", f"/api/matches/{mid}/notes", tokens["judge"], {"text": "slow play warning"})
    assert status == 201
    status, data = api.call("POST", f"/api/matches/{mid}/ending", tokens["judge"],
                            {"seat": "B", "kind": "game_loss", "reason": "marked cards"})
    assert status == 201
    board = api.state(mid, tokens["A"])["board"]
    assert board["over"] and board["winner"] == "A" and board["reason"] == "game_loss"
    assert [e["event"]["type"] for e in data["events"]] == ["GameLossGiven", "MatchEnded"]
    assert data["events"][0]["text"] == \
        "The judge gives Bob a game loss: marked cards; Bob loses the match"  # players by name
    status, data = api.decide(mid, tokens["A"], {"type": "Passed"}, data["seq"])
    assert status == 422 and "the match is over" in data["message"]
    # the record re-derives: the game loss is fed to the engine like a concession
    replay = Replay(list(FileStore.read_file(api.app.extensions["wonders"].store.path(mid))),
                    default_cards())
    assert replay.engine.state.over and replay.engine.state.reason == "game_loss"


def test_a_seat_calls_the_judge_and_the_call_is_recorded(tmp_path):
    api = Api(new_app(tmp_path))
    mid, tokens = api.create()
    length = api.state(mid, tokens["judge"])["length"]
    status, data = api.call("POST", f"/api/matches/{mid}/judge-call", tokens["B"],
                            {"text": "is Glow Smith's ability once per turn?", "expected_seq": length})
    assert status == 201, data
    assert data["events"][0]["event"] == {"type": "JudgeCalled", "seat": "B",
                                          "text": "is Glow Smith's ability once per turn?"}
    events = api.call("GET", f"/api/matches/{mid}/events?from={length}", tokens["judge"])[1]
    assert events["events"][0]["text"] == \
        "Bob calls the judge: is Glow Smith's ability once per turn?"
    status, data = api.call("POST", f"/api/matches/{mid}/judge-call", tokens["judge"], {})
    assert status == 403 and "only a seat" in data["message"]
    # a call changes no state: the match goes on and re-derives
    _step(api, mid, tokens, random.Random(3), 3)
    replay = Replay(list(FileStore.read_file(api.app.extensions["wonders"].store.path(mid))),
                    default_cards())
    assert not replay.engine.state.over


# -- public --------------------------------------------------------------------------------------


def test_spectators_see_a_live_match_late_and_never_a_hand(tmp_path):
    api = Api(new_app(tmp_path, spectator_delay=5))
    mid, tokens = api.create()
    _step(api, mid, tokens, random.Random(5), 12)
    length = api.state(mid, tokens["judge"])["length"]
    status, view = api.call("GET", f"/api/public/matches/{mid}/state")
    assert status == 200 and view["perspective"] == "spectator" and view["live"]
    assert view["seq"] == length - 1 - 5 and view["prompt"] is None
    assert all(p["hand"] is None and p["deck"] is None for p in view["board"]["players"].values())
    status, events = api.call("GET", f"/api/public/matches/{mid}/events")
    assert events["next_seq"] == length - 5 and events["events"][-1]["seq"] == length - 6
    hands = {c["id"] for p in api.state(mid, tokens["judge"])["board"]["players"].values()
             for c in p["hand"]}
    text = json.dumps(events)
    assert not any(f'"{cid}"' in text for cid in hands)
    for perspective in ("A", "B", "omniscient"):
        status, data = api.call("GET", f"/api/public/matches/{mid}/state?as={perspective}")
        assert status == 403 and "live" in data["message"]
    status, data = api.call("GET", f"/api/public/matches/{mid}/file")
    assert status == 403


def test_a_finished_match_is_public_from_every_perspective(tmp_path):
    api = Api(new_app(tmp_path, spectator_delay=50))
    mid, tokens = api.create()
    drive(api, mid, tokens, random.Random(6))
    length = api.state(mid, tokens["judge"])["length"]
    for perspective in ("spectator", "A", "B", "omniscient"):
        status, view = api.call("GET", f"/api/public/matches/{mid}/state?as={perspective}")
        assert status == 200 and view["seq"] == length - 1 and view["perspective"] == perspective
    status, _data = api.call("GET", f"/api/public/matches/{mid}/state?as=judge")
    assert status == 400


# -- import ----------------------------------------------------------------------------------------


def _finished_file(tmp_path):
    api = Api(new_app(tmp_path / "source"))
    mid, tokens = api.create(match_id="imported-1")
    drive(api, mid, tokens, random.Random(7))
    return api.app.extensions["wonders"].store.path(mid).read_bytes()


def test_an_import_is_verified_then_stored(tmp_path):
    data = _finished_file(tmp_path)
    api = Api(new_app(tmp_path / "target"))
    status, out = api.call("POST", "/api/import", ORGANIZER, raw=data,
                           headers={"Content-Type": "application/x-ndjson"})
    assert (status == 201 and out["match_id"] == "imported-1" and "wins" in out["result"]) \
        or "draw" in out["result"]
    assert (tmp_path / "target" / "store" / "imported-1.jsonl").read_bytes() == data
    status, out = api.call("POST", "/api/import", ORGANIZER, raw=data)
    assert status == 409


def test_a_tampered_import_is_refused_with_the_verify_message_and_nothing_is_stored(tmp_path):
    data = _finished_file(tmp_path)
    lines = data.split(b"\n")
    lines[5] = lines[5].replace(b'"seq":5', b'"seq":5 ', 1).replace(b"round start", b"round_start")
    tampered = b"\n".join(lines)
    api = Api(new_app(tmp_path / "target"))
    for bad in (tampered, b"not json\n", data[: len(data) // 2].rsplit(b"\n", 3)[0] + b"\nxx"):
        status, out = api.call("POST", "/api/import", ORGANIZER, raw=bad)
        assert status in (400, 422), out
        assert "upload" in out["message"] or "verify" in out["message"]
    assert list((tmp_path / "target" / "store").glob("*.jsonl")) == []
    status, _ = api.call("POST", "/api/import", None, raw=data)
    assert status == 401


# -- live follow -----------------------------------------------------------------------------------


def test_follow_streams_events_for_the_callers_perspective(tmp_path):
    api = Api(new_app(tmp_path, spectator_delay=0, follow_timeout=1, follow_poll=0.05))
    mid, tokens = api.create()
    _step(api, mid, tokens, random.Random(8), 4)
    length = api.state(mid, tokens["judge"])["length"]
    response = api.client.get(f"/api/matches/{mid}/follow?from=0",
                              headers={"Authorization": f"Bearer {tokens['A']}"})
    assert response.mimetype == "text/event-stream"
    body = response.get_data(as_text=True)  # ends after the idle timeout
    messages = [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: {\"")]
    assert [m["seq"] for m in messages] == list(range(length))
    assert all(m["event"].get("order", ["?"])[0] == "?" for m in messages)
    public = api.client.get(f"/api/matches/{mid}/follow?from={length - 2}").get_data(as_text=True)
    assert f"id: {length - 1}" in public and f"id: {length - 3}" not in public


def test_follow_ends_when_the_match_has_ended(tmp_path):
    api = Api(new_app(tmp_path, follow_timeout=30, follow_poll=0.05))
    mid, tokens = api.create()
    drive(api, mid, tokens, random.Random(9))
    body = api.client.get(f"/api/matches/{mid}/follow?from=0").get_data(as_text=True)
    assert body.rstrip().endswith("event: end\ndata: {}") and '"MatchEnded"' in body


# -- the /play session ---------------------------------------------------------------------------


def test_play_entry_keeps_the_token_out_of_the_url_and_writes_need_csrf(tmp_path):
    api = Api(new_app(tmp_path))
    mid, tokens = api.create(previous_loser="B")
    response = api.client.get(f"/play/{mid}?token={tokens['B']}")
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/play/{mid}")
    cookie = api.client.get_cookie("session")
    assert cookie is not None and tokens["B"] not in cookie.value
    page = api.client.get(f"/play/{mid}").get_data(as_text=True)
    assert 'data-role="B"' in page and tokens["B"] not in page
    csrf = page.split('data-csrf="')[1].split('"')[0]
    status, view = api.call("GET", f"/api/matches/{mid}/state")
    assert status == 200 and view["perspective"] == "B"
    decision = {"expected_seq": view["length"], "decision": view["prompt"]["options"][0]["decision"]}
    status, data = api.call("POST", f"/api/matches/{mid}/decisions", body=decision)
    assert status == 403 and "CSRF" in data["message"]
    status, data = api.call("POST", f"/api/matches/{mid}/decisions", body=decision,
                            headers={"X-CSRF-Token": csrf})
    assert status == 201, data
    assert api.client.get(f"/play/{mid}?token=wrong").status_code == 401


# -- two workers, one store ------------------------------------------------------------------------


def test_two_app_instances_on_one_store_stay_consistent(tmp_path):
    first, second = Api(new_app(tmp_path)), Api(new_app(tmp_path))
    mid, tokens = first.create()
    rng = random.Random(10)
    for turn in range(30):
        api = (first, second)[turn % 2]
        prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]
        if prompt["prompt"] is None:
            break
        seat = prompt["prompt"]["seat"]
        status, data = api.decide(mid, tokens[seat], choose(prompt["prompt"], rng), prompt["length"])
        assert status == 201, data
        stale = (second, first)[turn % 2]
        status, data = stale.decide(mid, tokens[seat], {"type": "Passed"}, prompt["length"])
        assert status in (409, 422), data  # never a fork: the stale seq (or the turn) refuses it
    a, b = first.state(mid, tokens["judge"]), second.state(mid, tokens["judge"])
    assert a == b
    Replay(list(FileStore.read_file(first.app.extensions["wonders"].store.path(mid))), default_cards())


def test_an_imported_live_match_goes_on_being_recorded_with_its_new_tokens(tmp_path):
    source = Api(new_app(tmp_path / "source"))
    mid, tokens = source.create(match_id="half-1")
    _step(source, mid, tokens, random.Random(11), 8)
    data = source.app.extensions["wonders"].store.path(mid).read_bytes()
    target = Api(new_app(tmp_path / "target"))
    status, out = target.call("POST", "/api/import", ORGANIZER, raw=data)
    assert status == 201 and out["result"] == "in progress"
    assert out["tokens"]["A"] != tokens["A"]
    _step(target, mid, out["tokens"], random.Random(12), 3)
    assert target.state(mid, out["tokens"]["judge"])["length"] > out["length"]
    status, _ = target.call("GET", f"/api/matches/{mid}/state", tokens["A"])
    assert status == 401  # the source store's tokens mean nothing here


def _deck_with(card: str, copies: int) -> dict:
    """A legal 50-card deck (a fixture deck) with ``copies`` of ``card`` in place of others."""
    from replay.wotf.cards import FIXTURES
    from replay.wotf.decks import load_deck
    cards = dict(load_deck(FIXTURES / "decks" / "boundless-drift.toml").cards)
    excess = sum(cards.values()) + copies - 50
    for name in sorted(cards):
        taken = min(excess, cards[name])
        cards[name] -= taken
        excess -= taken
    cards = {name: count for name, count in cards.items() if count}
    cards[card] = cards.get(card, 0) + copies
    return cards


def test_an_unscripted_card_is_recorded_through_its_manual_prompt(tmp_path):
    api = Api(new_app(tmp_path))
    feline = "Oracle of Whispers"  # its text is not scripted: arriving raises a manual prompt
    status, created = api.call("POST", "/api/matches", ORGANIZER, {
        "seats": [{"player": "Ann", "deck": _deck_with(feline, 2)},
                  {"player": "Bob", "preset": "thalwind-sky"}], "previous_loser": "B"})
    assert status == 201, created
    mid, tokens = created["match_id"], created["tokens"]
    answers = {"first": "A", "side": "left", "mulligan": []}
    while True:
        prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]
        p = prompt["prompt"]
        if p["kind"] == "turn":
            break
        status, data = api.decide(mid, tokens[p["seat"]], {"type": "Answered", "kind": p["kind"],
                                                           "pick": answers[p["kind"]]}, prompt["length"])
        assert status == 201, data
    board = api.state(mid, tokens["judge"])["board"]
    cid = next(c["id"] for c in board["players"]["A"]["deck"] + board["players"]["A"]["hand"]
               if c["name"] == feline)
    status, data = api.call("POST", f"/api/matches/{mid}/manual", tokens["judge"], {"ops": [
        {"op": "move", "card": cid, "to_zone": "hand"},
        {"op": "resource", "seat": "A", "resource": "energy", "value": 10}], "note": "test setup"})
    assert status == 201, data
    prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens["A"])[1]
    play = next(o["decision"] for o in prompt["prompt"]["options"]
                if o["decision"].get("card") == cid and o["decision"].get("realm") == 1)
    status, data = api.decide(mid, tokens["A"], play, prompt["length"])
    assert status == 201, data
    prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens["A"])[1]
    assert prompt["prompt"]["kind"] == "manual" and prompt["prompt"]["card"] == cid
    assert prompt["prompt"]["options"][0]["decision"]["type"] == "ManualResolved"
    answer = {"type": "ManualResolved", "card": cid,
              "ops": [{"op": "counter", "card": cid, "counter": "+1", "value": 1}]}
    status, data = api.decide(mid, tokens["B"], answer, prompt["length"])
    assert status == 422  # B cannot answer A's prompt
    status, data = api.decide(mid, tokens["A"], dict(answer, ops=[{"op": "counter", "card": cid}]),
                              prompt["length"])
    assert status == 400 and "numeric value" in data["message"]
    status, data = api.decide(mid, tokens["A"], answer, prompt["length"])
    assert status == 201, data
    realm = api.state(mid, tokens["B"])["board"]["realms"][0]["cards"]["A"]
    assert [c["counters"] for c in realm if c["id"] == cid] == [{"+1": 1}]
