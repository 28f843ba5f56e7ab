"""The manual operations through the API, as the /play form sends them: a judge's ruling
(POST …/manual) puts a card on top of a deck, reveals one to a seat, lets a seat look at one,
shuffles a deck (a recorded chance event, hidden from the seats); a seat's answer to its own
manual prompt reveals and puts on top.  Every seat's board and events show exactly what the
operations showed it; a bad operation is one clear line and writes nothing."""

from __future__ import annotations

import pytest

from tests.web.test_api import ORGANIZER, Api, new_app
from tests.web.test_api_judge_public import _deck_with


def _setup(api: Api, mid: str, tokens: dict[str, str]) -> None:
    answers = {"first": "A", "side": "left", "mulligan": []}
    while True:
        prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]
        p = prompt["prompt"]
        if p["kind"] == "turn":
            return
        status, data = api.decide(mid, tokens[p["seat"]], {"type": "Answered", "kind": p["kind"],
                                                           "pick": answers[p["kind"]]}, prompt["length"])
        assert status == 201, data


@pytest.fixture
def table(tmp_path):
    api = Api(new_app(tmp_path))
    mid, tokens = api.create(previous_loser="B")
    _setup(api, mid, tokens)
    return api, mid, tokens


def _ruling(api, mid, tokens, ops, note="ruling"):
    length = api.state(mid, tokens["judge"])["length"]
    return api.call("POST", f"/api/matches/{mid}/manual", tokens["judge"],
                    {"ops": ops, "note": note, "expected_seq": length})


def _events(api, mid, token, since):
    return api.call("GET", f"/api/matches/{mid}/events?from={since}", token)[1]["events"]


def test_the_judge_puts_a_card_on_top_of_a_deck(table):
    api, mid, tokens = table
    board = api.state(mid, tokens["judge"])["board"]
    card = board["players"]["A"]["hand"][0]
    since = api.state(mid, tokens["judge"])["length"]
    status, data = _ruling(api, mid, tokens, [{"op": "move", "card": card["id"], "to_zone": "deck",
                                               "value": "top"}])
    assert status == 201, data
    assert [e["event"]["type"] for e in data["events"]] == ["ManualEffect", "CardMoved",
                                                             "CardPutOnTop"]
    assert api.state(mid, tokens["judge"])["board"]["players"]["A"]["deck"][0]["id"] == card["id"]
    on_top = [e for e in _events(api, mid, tokens["B"], since)
              if e["event"]["type"] == "CardPutOnTop"]
    assert on_top[0]["event"]["card"] == "?"
    status, data = _ruling(api, mid, tokens, [{"op": "move", "card": board["players"]["A"]["hand"][1]["id"],
                                               "to_zone": "deck"}])
    assert status == 201
    deck = api.state(mid, tokens["judge"])["board"]["players"]["A"]["deck"]
    assert deck[-1]["id"] == board["players"]["A"]["hand"][1]["id"]  # no position: the bottom


def test_a_reveal_to_a_seat_and_a_look_are_seen_by_that_seat_only(table):
    api, mid, tokens = table
    board = api.state(mid, tokens["judge"])["board"]
    revealed = board["players"]["B"]["hand"][0]
    looked = board["players"]["A"]["deck"][2]
    since = api.state(mid, tokens["judge"])["length"]
    status, data = _ruling(api, mid, tokens, [{"op": "reveal", "card": revealed["id"], "seat": "A"},
                                              {"op": "look", "card": looked["id"], "seat": "B"}])
    assert status == 201, data
    seen_a = api.state(mid, tokens["A"])["board"]["known"]
    seen_b = api.state(mid, tokens["B"])["board"]["known"]
    assert [(c["id"], c["name"], c["zone"]) for c in seen_a["B"]] == \
        [(revealed["id"], revealed["name"], "hand")]
    assert seen_a["A"] == [] and seen_b["B"] == []  # (a seat's own: it sees them anyway)
    assert [(c["name"], c["zone"], c["position"]) for c in seen_b["A"]] == \
        [(looked["name"], "deck", 3)]
    ops_a = _events(api, mid, tokens["A"], since)[0]["event"]["ops"]
    ops_b = _events(api, mid, tokens["B"], since)[0]["event"]["ops"]
    assert [op["card"] for op in ops_a] == [revealed["id"], "?"]
    assert [op["card"] for op in ops_b] == ["?", looked["id"]]
    assert "known" not in api.state(mid, tokens["judge"])["board"]  # the judge sees it all


def test_a_reveal_to_everyone_is_public(table):
    api, mid, tokens = table
    revealed = api.state(mid, tokens["judge"])["board"]["players"]["A"]["hand"][0]
    status, _ = _ruling(api, mid, tokens, [{"op": "reveal", "card": revealed["id"]}])
    assert status == 201
    for seat in ("B",):
        assert [c["id"] for c in api.state(mid, tokens[seat])["board"]["known"]["A"]] == [revealed["id"]]


def test_a_shuffle_is_a_chance_event_hidden_from_the_seats(table):
    api, mid, tokens = table
    before = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]
    status, data = _ruling(api, mid, tokens, [{"op": "shuffle", "seat": "B"}], note="searched")
    assert status == 201, data
    kinds = [e["event"]["type"] for e in data["events"]]
    assert kinds == ["ManualEffect", "DeckShuffled"]
    deck = [c["id"] for c in api.state(mid, tokens["judge"])["board"]["players"]["B"]["deck"]]
    assert data["events"][-1]["event"]["order"] == deck
    for seat in ("A", "B"):
        shuffled = [e for e in _events(api, mid, tokens[seat], 0) if e["event"]["type"] == "DeckShuffled"]
        assert set(shuffled[-1]["event"]["order"]) == {"?"}
        assert api.state(mid, tokens[seat])["board"]["players"]["B"]["deck"] is None
    after = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]["prompt"]
    assert (after["seat"], after["kind"]) == (before["seat"], before["kind"])


@pytest.mark.parametrize(("op", "status", "words"), [
    ({"op": "move", "card": "A1", "to_zone": "abyss", "value": "top"}, 422,
     "manual op 1 (move): "),
    ({"op": "move", "card": "A1", "to_zone": "deck", "value": "middle"}, 422,
     "a position is top or bottom, not 'middle'"),
    ({"op": "look", "card": "A1"}, 422, "a look names the seat that looks"),
    ({"op": "shuffle"}, 422, "a shuffle names the seat whose deck it shuffles"),
    ({"op": "reveal", "card": "Z99"}, 422, "manual op 1 (reveal): no card 'Z99'"),
    ({"op": "peek", "card": "A1"}, 400, "op"),
])
def test_a_bad_operation_is_one_line_and_writes_nothing(table, op, status, words):
    api, mid, tokens = table
    length = api.state(mid, tokens["judge"])["length"]
    got, data = _ruling(api, mid, tokens, [op])
    assert got == status and words in data["message"] and "\n" not in data["message"], data
    assert api.state(mid, tokens["judge"])["length"] == length


def test_a_shuffle_comes_last_in_a_ruling(table):
    api, mid, tokens = table
    card = api.state(mid, tokens["judge"])["board"]["players"]["A"]["hand"][0]["id"]
    status, data = _ruling(api, mid, tokens, [{"op": "shuffle", "seat": "A"},
                                              {"op": "move", "card": card, "to_zone": "deck"}])
    assert status == 422 and "a shuffle is the last operation of a ruling" in data["message"]


def _oracle_prompt(tmp_path):
    """A match where seat A played Oracle of Whispers (unscripted): its manual prompt pends."""
    api = Api(new_app(tmp_path))
    oracle = "Oracle of Whispers"  # its text is not scripted: arriving raises a manual prompt
    status, created = api.call("POST", "/api/matches", ORGANIZER, {
        "seats": [{"player": "Ann", "deck": _deck_with(oracle, 2)},
                  {"player": "Bob", "preset": "thalwind-sky"}], "previous_loser": "B"})
    assert status == 201, created
    mid, tokens = created["match_id"], created["tokens"]
    _setup(api, mid, tokens)
    board = api.state(mid, tokens["judge"])["board"]
    cid = next(c["id"] for c in board["players"]["A"]["deck"] + board["players"]["A"]["hand"]
               if c["name"] == oracle)
    status, data = _ruling(api, mid, tokens, [
        {"op": "move", "card": cid, "to_zone": "hand"},
        {"op": "resource", "seat": "A", "resource": "energy", "value": 10}])
    assert status == 201, data
    prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens["A"])[1]
    play = next(o["decision"] for o in prompt["prompt"]["options"]
                if o["decision"].get("card") == cid and o["decision"].get("realm") == 1)
    assert api.decide(mid, tokens["A"], play, prompt["length"])[0] == 201
    prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens["A"])[1]
    assert prompt["prompt"]["kind"] == "manual"
    return api, mid, tokens, cid, prompt


def test_a_seat_answers_its_manual_prompt_with_a_reveal_and_a_put_on_top(tmp_path):
    api, mid, tokens, cid, prompt = _oracle_prompt(tmp_path)
    hand = [c["id"] for c in api.state(mid, tokens["A"])["board"]["players"]["A"]["hand"]]
    shuffle = {"type": "ManualResolved", "card": cid, "ops": [{"op": "shuffle", "seat": "B"}]}
    status, data = api.decide(mid, tokens["A"], shuffle, prompt["length"])
    assert status == 403 and "shuffles seat B's deck" in data["message"], data
    answer = {"type": "ManualResolved", "card": cid, "ops": [
        {"op": "reveal", "card": hand[0]},
        {"op": "move", "card": hand[0], "to_zone": "deck", "value": "top"}]}
    status, data = api.decide(mid, tokens["A"], answer, prompt["length"])
    assert status == 201, data
    assert api.state(mid, tokens["judge"])["board"]["players"]["A"]["deck"][0]["id"] == hand[0]
    # B saw the card revealed; it then went into a deck, where B no longer knows it
    assert "known" not in api.state(mid, tokens["B"])["board"]
    answered = [e for e in _events(api, mid, tokens["B"], prompt["length"])
                if e["event"]["type"] == "ManualResolved"]
    assert answered[0]["event"]["ops"][0]["card"] == hand[0]


def test_a_seat_names_the_top_cards_of_a_deck_it_can_not_see_by_their_place(tmp_path):
    """ "Look at the top three cards of any deck and put them back in any order": the seat
    names them as places (``deck:B:1``); the record names the cards."""
    api, mid, tokens, cid, prompt = _oracle_prompt(tmp_path)
    deck_b = [c["id"] for c in api.state(mid, tokens["judge"])["board"]["players"]["B"]["deck"]]
    places = ["deck:B:1", "deck:B:2", "deck:B:3"]
    too_far = {"type": "ManualResolved", "card": cid,
               "ops": [{"op": "look", "card": "deck:B:99", "seat": "A"}]}
    status, data = api.decide(mid, tokens["A"], too_far, prompt["length"])
    assert status == 422 and "seat B's deck has" in data["message"] and \
        "no card 99 from the top" in data["message"], data
    deck_a = [c["id"] for c in api.state(mid, tokens["judge"])["board"]["players"]["A"]["deck"]]
    reorder_b = dict(too_far, ops=[{"op": "move", "card": "deck:B:1", "to_zone": "deck",
                                    "value": "top"}])
    status, data = api.decide(mid, tokens["A"], reorder_b, prompt["length"])
    assert status == 403  # rearranging B's deck is a ruling for the judge
    answer = {"type": "ManualResolved", "card": cid, "ops": [
        *({"op": "look", "card": place, "seat": "A"} for place in places),
        *({"op": "move", "card": place, "to_zone": "deck", "value": "top"}
          for place in ("deck:A:2", "deck:A:1", "deck:A:3"))]}
    status, data = api.decide(mid, tokens["A"], answer, prompt["length"])
    assert status == 201, data
    recorded = next(e["event"] for e in data["events"] if e["event"]["type"] == "ManualResolved")
    assert [op["card"] for op in recorded["ops"]][:3] == deck_b[:3]  # the cards, not places
    after = [c["id"] for c in api.state(mid, tokens["judge"])["board"]["players"]["A"]["deck"]]
    assert after[:3] == [deck_a[2], deck_a[0], deck_a[1]]
    known = api.state(mid, tokens["A"])["board"]["known"]["B"]
    assert [(c["id"], c["position"]) for c in known] == sorted(zip(deck_b[:3], (1, 2, 3), strict=True))
    for_b = next(e["event"] for e in _events(api, mid, tokens["B"], prompt["length"])
                 if e["event"]["type"] == "ManualResolved")
    assert [op["card"] for op in for_b["ops"]][:3] == ["?", "?", "?"]  # A looked, not B


def test_a_seat_shuffles_its_own_deck_in_its_answer(tmp_path):
    """ "… then shuffle your deck": from rules revision 8 the seat's own answer may shuffle its
    own deck; the order is a recorded chance event (DeckShuffled) that no seat sees."""
    api, mid, tokens, cid, prompt = _oracle_prompt(tmp_path)
    deck = [c["id"] for c in api.state(mid, tokens["judge"])["board"]["players"]["A"]["deck"]]
    answer = {"type": "ManualResolved", "card": cid, "ops": [
        {"op": "move", "card": "deck:A:5", "to_zone": "hand"}, {"op": "shuffle", "seat": "A"}]}
    status, data = api.decide(mid, tokens["A"], answer, prompt["length"])
    assert status == 201, data
    assert "DeckShuffled" in [e["event"]["type"] for e in data["events"]]
    after = [c["id"] for c in api.state(mid, tokens["judge"])["board"]["players"]["A"]["deck"]]
    assert sorted(after) == sorted(deck[:4] + deck[5:])
    assert deck[4] in [c["id"] for c in api.state(mid, tokens["A"])["board"]["players"]["A"]["hand"]]
    for seat in ("A", "B"):
        shuffled = [e for e in _events(api, mid, tokens[seat], prompt["length"])
                    if e["event"]["type"] == "DeckShuffled"]
        assert set(shuffled[-1]["event"]["order"]) == {"?"}
