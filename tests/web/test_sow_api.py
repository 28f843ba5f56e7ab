"""State of Wonder through the recording API: an organizer creates a ``game: "sow"`` match,
each seat polls its prompt and decides (a State of Wonder bot chooses, reading the match file
as any client could), until the match ends -- in-process and through a real server.  The
other seat and the spectator never see a seat's culture or a face-down Wonder or Hero; the
finished match verifies."""

from __future__ import annotations

import json
import random

import msgspec
import pytest

from ledger.filestore import FileStore
from replay.games import game
from replay.replayer import Replay
from replay.verify import verify_file
from tests.web.test_api import ORGANIZER, Api, new_app

SOW = game("sow")


def sow_seats():
    decks = SOW.sample_decks(SOW.default_cards())[:2]
    return [{"player": player, "deck_name": deck.name,
             "deck": {e.card: e.count for e in deck.entries()}}
            for player, deck in zip(("Ann", "Bob"), decks, strict=True)]


def create(api, **extra):
    status, data = api.call("POST", "/api/matches", ORGANIZER,
                            {"game": "sow", "seats": sow_seats(), **extra})
    assert status == 201, data
    return data["match_id"], data["tokens"]


def body_of(event) -> dict:
    data = msgspec.to_builtins(event)
    data.pop("seat", None)
    return data


def hidden_names(state, seat: str, viewer: str | None = None,
                 ever_public: frozenset[str] = frozenset()) -> set[str]:
    """The names of ``seat``'s cards in its hidden areas (culture, Wonder area) that
    ``viewer`` may never have read: a name public now or once (``ever_public``: the ids of
    cards that have been outside a hidden area), or in the viewer's own deck, is no secret."""
    hidden = SOW.hidden_ids(state)
    secret = {c.name for c in state.cards.values() if c.id in hidden and c.owner == seat}
    public = {c.name for c in state.cards.values()
              if c.id not in hidden or c.id in ever_public or c.owner == viewer}
    return secret - public


def public_ids(replay, start: int) -> set[str]:
    """Cards outside a hidden area at some seq from ``start`` on."""
    out: set[str] = set()
    for seq in range(start, len(replay)):
        state = replay.state_at(seq)
        out |= {c.id for c in state.cards.values()} - SOW.hidden_ids(state)
    return out


def leaks(data, names: set[str]) -> set[str]:
    """Which of ``names`` a JSON answer names (as a whole string value)."""
    found: set[str] = set()

    def walk(value):
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, str) and value in names:
            found.add(value)
    walk(data)
    return found


def play_out(api, store_path, mid, tokens, seed=1, limit=2000, check_every=7):
    """Both seats decide through the API, a bot choosing, until the match ends; every few
    decisions the other seat's and the spectator's views are checked for hidden cards."""
    rng = random.Random(seed)
    bots = {seat: SOW.bots[sorted(SOW.bots)[0]](random.Random(rng.random())) for seat in "AB"}
    replay = Replay(list(FileStore.read_file(store_path(mid))), SOW.default_cards())
    ever = public_ids(replay, 0)
    for count in range(limit):
        status, pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])
        assert status == 200, pending
        if pending["prompt"] is None:
            return count, replay
        seat = pending["prompt"]["seat"]
        other = "B" if seat == "A" else "A"
        status, mine = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])
        assert status == 200 and mine["prompt"]["yours"], mine
        status, theirs = api.call("GET", f"/api/matches/{mid}/prompt", tokens[other])
        assert not theirs["prompt"]["yours"] and not theirs["prompt"]["options"] \
            and theirs["prompt"]["choose"] is None
        engine = replay.engine
        assert engine.prompt is not None and engine.prompt.seat == seat
        decision = bots[seat].decide(engine, engine.prompt)
        body = body_of(decision)
        if mine["prompt"]["options"] and isinstance(engine.prompt.options[0], msgspec.Struct):
            assert body in [o["decision"] for o in mine["prompt"]["options"]]
        status, data = api.call("POST", f"/api/matches/{mid}/decisions", tokens[seat],
                                {"expected_seq": mine["length"], "decision": body})
        assert status == 201, data
        before = len(replay)
        replay.extend([s.event for s in FileStore.read_file(store_path(mid))][before:])
        ever |= public_ids(replay, before)
        assert leaks(data, hidden_names(replay.engine.state, other, seat, ever)) == set()
        if count % check_every == 0:
            check_hidden(api, mid, tokens, replay, ever)
    raise AssertionError("the match did not end")


def check_hidden(api, mid, tokens, replay, ever):
    state = replay.engine.state
    for viewer, token in (("A", tokens["A"]), ("B", tokens["B"]), ("spectator", None)):
        secret = set().union(*(hidden_names(state, s, viewer, ever) for s in "AB"
                               if s != viewer))
        if token is None:
            shown = [api.call("GET", f"/api/public/matches/{mid}/state")[1],
                     api.call("GET", f"/api/public/matches/{mid}/events")[1]]
        else:
            shown = [api.call("GET", f"/api/matches/{mid}/state", token)[1],
                     api.call("GET", f"/api/matches/{mid}/events", token)[1]]
        assert leaks(shown, secret) == set(), viewer
        board = shown[0]["board"]
        for seat in "AB":
            city = board["cities"][seat]
            if viewer not in (seat, "omniscient"):
                assert isinstance(city["culture"], int) and isinstance(city["wonder_area"], int)


@pytest.fixture
def api(tmp_path):
    return Api(new_app(tmp_path, spectator_delay=0))


def store_of(api):
    return api.app.extensions["wonders"].store.path


def test_a_sow_match_is_recorded_through_the_api_and_verifies(api):
    mid, tokens = create(api, tournament="SoW Open")
    status, summary = api.call("GET", f"/api/matches/{mid}")
    assert status == 200 and summary["ruleset"] == SOW.rulesets[0] and summary["game"] == "sow"
    decisions, replay = play_out(api, store_of(api), mid, tokens)
    assert decisions > 5 and replay.engine.state.over
    final = api.state(mid, tokens["judge"])
    assert final["board"]["game"] == "sow" and final["board"]["over"] and not final["live"]
    assert final["prompt"] is None
    result = verify_file(store_of(api)(mid))
    assert result.ok, result
    # once over, every perspective is public: the events are narrated, never blank
    status, page = api.call("GET", f"/api/public/matches/{mid}/events?as=A&limit=50")
    assert status == 200 and all(e["text"] for e in page["events"])


def test_the_follow_stream_never_names_the_other_seats_hidden_cards(api):
    mid, tokens = create(api)
    replay = Replay(list(FileStore.read_file(store_of(api)(mid))), SOW.default_cards())
    state = replay.engine.state
    for viewer, token in (("B", tokens["B"]), ("spectator", None)):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = api.client.get(f"/api/matches/{mid}/follow?timeout=0", headers=headers)
        text = response.get_data(as_text=True)
        events = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: {")]
        assert events, text
        secret = hidden_names(state, "A", "B" if viewer == "B" else None)
        assert secret and leaks(events, secret) == set(), viewer


def test_a_create_names_a_game_this_program_has_and_a_ruleset_of_it(api):
    status, data = api.call("POST", "/api/matches", ORGANIZER, {"game": "chess", "seats": sow_seats()})
    assert status == 400 and "unknown game 'chess'" in data["message"]
    status, data = api.call("POST", "/api/matches", ORGANIZER,
                            {"game": "sow", "ruleset": "1.3.2", "seats": sow_seats()})
    assert status == 400 and "ruleset '1.3.2'" in data["message"]


def test_a_sow_deck_is_checked_by_its_game(api):
    seats = sow_seats()
    seats[0]["deck"] = {"No Such Card": 3}
    status, data = api.call("POST", "/api/matches", ORGANIZER, {"game": "sow", "seats": seats})
    assert status == 422 and "seat A (Ann)" in data["message"]


def test_a_sow_match_has_no_judges_operations(api):
    mid, tokens = create(api)
    status, data = api.call("POST", f"/api/matches/{mid}/manual", tokens["judge"],
                            {"ops": [{"op": "tap", "card": "A1"}]})
    assert status == 422 and "this game has no judge's operations" in data["message"]


def test_a_malformed_sow_decision_is_one_clear_line(api):
    mid, tokens = create(api)
    status, pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])
    seat = pending["prompt"]["seat"]
    status, data = api.call("POST", f"/api/matches/{mid}/decisions", tokens[seat],
                            {"expected_seq": pending["length"], "decision": {"type": "Nope"}})
    assert status == 400 and "unknown decision type 'Nope'" in data["message"]
    assert "\n" not in data["message"]


def test_a_sow_match_through_a_real_server(tmp_path):
    from tests.security.live import LiveApi, LiveServer
    server = LiveServer(tmp_path / "store", spectator_delay=0)
    try:
        live = LiveApi(server)
        mid, tokens = create(live)
        _, replay = play_out(live, lambda m: server.store / f"{m}.jsonl", mid, tokens,
                                     seed=9, check_every=25)
        assert replay.engine.state.over
        assert verify_file(server.store / f"{mid}.jsonl").ok
    finally:
        server.stop()


def test_a_finished_sow_match_file_imports_and_is_shown_as_its_game(api, tmp_path):
    mid, tokens = create(api)
    play_out(api, store_of(api), mid, tokens, seed=2, check_every=1000)
    data = store_of(api)(mid).read_bytes()
    other = Api(new_app(tmp_path / "other"))
    status, out = other.call("POST", "/api/import", ORGANIZER, raw=data)
    assert status == 201 and out["divergence"] is None and out["result"] != "in progress", out
    status, state = other.call("GET", f"/api/public/matches/{mid}/state?as=A")
    assert status == 200 and state["board"]["game"] == "sow"
    page = other.client.get(f"/matches/{mid}")
    assert page.status_code == 200 and b"State of Wonder" in page.data


def test_a_sow_match_is_played_to_the_end_with_only_what_the_prompt_offers(api):
    """Like ``/play``: each decision is one of the prompt's listed options, or a ``choose``
    answered in the ``answer`` body it names -- never built by the client."""
    mid, tokens = create(api)
    rng = random.Random(3)
    kinds = set()
    for _ in range(3000):
        status, pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])
        if pending["prompt"] is None:
            break
        seat = pending["prompt"]["seat"]
        status, mine = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])
        prompt = mine["prompt"]
        kinds.add(prompt["kind"])
        if prompt.get("choose") is not None:
            spec = prompt["choose"]
            assert "answer" in prompt, prompt  # the body a chosen list is sent in
            pick = rng.sample(spec["of"], rng.randint(spec["min"], spec["max"]))
            body = {**prompt["answer"], "pick": pick}
        else:
            assert prompt["options"], f"no answer offered to a {prompt['kind']} prompt"
            body = rng.choice(prompt["options"])["decision"]
        status, data = api.call("POST", f"/api/matches/{mid}/decisions", tokens[seat],
                                {"expected_seq": mine["length"], "decision": body})
        assert status == 201, (prompt, body, data)
    else:
        raise AssertionError("the match did not end")
    assert api.state(mid, tokens["judge"])["board"]["over"]
    assert {"turn"} < kinds  # turn prompts and at least one answer prompt were offered
    assert verify_file(store_of(api)(mid)).ok
