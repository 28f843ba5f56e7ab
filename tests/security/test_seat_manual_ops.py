"""Attack: a seat's manual answer rewriting the public game (issue 13, finding 4).

A ``manual`` prompt asks the seat whose unscripted card resolved what the card did, as
primitive operations (``ManualResolved``).  A hostile seat answered with operations on the
other side -- the opponent's energy and actions set to 0, a stone taken, control of the
opponent's card -- and they were applied, because the operations were only checked for
existence.  A seat's answer may touch only its own cards and its own resources; everything
else is a ruling the judge enters (``POST /manual``): 403, one line, naming the judge.
"""

from __future__ import annotations

import pytest

from tests.web.test_api_hidden_info import UNSCRIPTED, Table, _deck_with_unscripted


@pytest.fixture
def manual(tmp_path, where):
    """A at the manual prompt of the unscripted card it just played; a card of B's in realm 1."""
    t = Table(tmp_path, deck=_deck_with_unscripted(), api=where, spectator_delay=0)
    cid = t.card("A", UNSCRIPTED)
    theirs = t.omniscient()["players"]["B"]["hand"][0]["id"]
    t.rule([{"op": "move", "card": cid, "to_zone": "hand"},
            {"op": "move", "card": theirs, "to_zone": "world", "realm": 1, "seat": "B"},
            {"op": "resource", "seat": "A", "resource": "energy", "value": 20}])
    t.play("A", cid)
    assert t.prompt("A")["prompt"]["kind"] == "manual"
    return t, cid, theirs


def _answer(t: Table, cid: str, ops: list[dict]):
    return t.decide("A", {"type": "ManualResolved", "card": cid, "ops": ops})


def _refused(t: Table, cid: str, ops: list[dict]) -> str:
    before = t.length()
    board = t.omniscient()
    status, data = _answer(t, cid, ops)
    assert status == 403, f"a seat's manual answer was applied: {ops} -> {status} {data}"
    message = data["message"]
    assert "\n" not in message and "judge must enter it" in message, message
    assert f"/api/matches/{t.mid}/manual" in message
    assert t.length() == before and t.omniscient() == board, "something was written"
    return message


def test_a_seat_can_not_set_the_opponents_resources(manual):
    t, cid, _ = manual
    _refused(t, cid, [{"op": "resource", "seat": "B", "resource": "energy", "value": 0},
                      {"op": "resource", "seat": "B", "resource": "actions", "value": 0}])
    _refused(t, cid, [{"op": "resource", "seat": "B", "resource": "faith", "value": 5}])


def test_a_seat_can_not_take_a_stone(manual):
    t, cid, _ = manual
    for stone in ({"op": "stone", "realm": 1, "seat": "A"},
                  {"op": "stone", "realm": 1, "value": "center"}):
        _refused(t, cid, [stone])


def test_a_seat_can_not_change_control(manual):
    t, cid, theirs = manual
    _refused(t, cid, [{"op": "control", "card": theirs, "seat": "A"}])
    _refused(t, cid, [{"op": "control", "card": cid, "seat": "B"}])  # giving control away too


def test_a_seat_can_not_touch_the_opponents_cards(manual):
    t, cid, theirs = manual
    for op in ({"op": "tap", "card": theirs},
               {"op": "counter", "card": theirs, "counter": "-1", "value": 3},
               {"op": "move", "card": theirs, "to_zone": "abyss"},
               {"op": "power", "card": theirs, "value": -5, "duration": "ever"}):
        _refused(t, cid, [op])


def test_a_seat_can_not_hand_its_cards_or_tokens_to_the_opponent(manual):
    t, cid, _ = manual
    own = t.omniscient()["players"]["A"]["deck"][0]["id"]
    _refused(t, cid, [{"op": "move", "card": own, "to_zone": "world", "realm": 1, "seat": "B"}])
    _refused(t, cid, [{"op": "token", "seat": "B", "name": "Sky Roc", "realm": 1}])


def test_one_bad_op_refuses_the_whole_answer(manual):
    t, cid, _ = manual
    _refused(t, cid, [{"op": "counter", "card": cid, "counter": "+1", "value": 1},
                      {"op": "resource", "seat": "B", "resource": "energy", "value": 0}])


def test_the_seat_may_touch_its_own_cards_and_resources(manual):
    t, cid, _ = manual
    own = t.omniscient()["players"]["A"]["deck"][0]["id"]
    status, data = _answer(t, cid, [
        {"op": "move", "card": own, "to_zone": "world", "realm": 1},
        {"op": "counter", "card": cid, "counter": "+1", "value": 1},
        {"op": "tap", "card": cid},
        {"op": "resource", "seat": "A", "resource": "energy", "value": 3},
        {"op": "token", "seat": "A", "name": "Sky Roc", "realm": 1}])
    assert status == 201, data
    assert t.omniscient()["players"]["A"]["energy"] == 3


def test_the_judge_enters_what_the_seat_may_not(manual):
    t, cid, theirs = manual
    ops = [{"op": "resource", "seat": "B", "resource": "energy", "value": 0},
           {"op": "tap", "card": theirs}]
    _refused(t, cid, ops)
    status, data = t.api.call("POST", f"/api/matches/{t.mid}/manual", t.tokens["judge"],
                              {"expected_seq": t.length(), "ops": ops, "note": "ruling"})
    assert status == 201, data
    assert t.omniscient()["players"]["B"]["energy"] == 0


def test_a_refused_manual_answer_does_not_name_the_seats_deck_cards(manual):
    """A seat can't see its deck's order, but a wrong operation on the n-th card of its deck
    (``deck:A:n``) was refused naming that card and its id ("manual op 1 (move): Squall
    (A12): a position is top or bottom, not 'middle'"): asking for each place in turn read
    the whole deck order, and nothing was recorded.  The refusal now names the operation
    and why, and the card only as hidden; the judge's refusal still names it."""
    t, cid, _ = manual
    deck = t.omniscient()["players"]["A"]["deck"]
    before = t.length()
    for n, card in enumerate(deck[:3], start=1):
        for ops in ([{"op": "move", "card": f"deck:A:{n}", "to_zone": "deck", "value": "middle"}],
                    [{"op": "move", "card": f"deck:A:{n}", "to_zone": "abyss", "value": "top"}],
                    [{"op": "move", "card": card["id"], "to_zone": "abyss", "value": "top"}]):
            status, data = _answer(t, cid, ops)
            assert status == 422 and "manual op 1 (move)" in data["message"], data
            assert card["name"] not in data["message"] and f"({card['id']})" not in \
                data["message"], data["message"]
            assert "hidden from seat A" in data["message"]
    assert t.length() == before
    status, data = t.api.call("POST", f"/api/matches/{t.mid}/manual", t.tokens["judge"], {
        "expected_seq": before, "note": "ruling",
        "ops": [{"op": "move", "card": "deck:A:1", "to_zone": "abyss", "value": "top"}]})
    assert status == 422 and f"{deck[0]['name']} ({deck[0]['id']})" in data["message"], data
