"""Adversarial audit of hidden information and role boundaries, now that cards have scripted
abilities (docs/abilities.md): every view a seat, a spectator or the viewer gets of a live
match, checked against what it must not know (DESIGN.md section 4, replay/perspective.py).

Positions are set up through the API itself: a match is created with a deck holding the
cards under test, and the judge's manual effect puts them where the test needs them.
"""

from __future__ import annotations

import json
import random

import pytest

from tests.web.test_api import ORGANIZER, Api, _to_turn, new_app

# Seat A: the thalwind-sky deck with the ability cards this audit is about (50 cards).
DECK_A = {"Thalwind Spire": 3, "Sky Roc": 3, "Drift Dancer": 2, "Feather Seer": 3,
          "Cirrus Gull": 2, "Monsoon Wyvern": 3, "Hail Sovereign": 3, "Sky Roc of the North": 3,
          "Drift Dancer of the South": 3, "Feather Seer of the East": 3,
          "Cirrus Gull of the West": 1, "Gale Terrace": 2, "Windswept Steppe": 2,
          "Zephyr Boots": 2, "Tempest Bell": 2, "Gust Step": 2, "Cloud Veil": 2, "Squall": 1,
          "Deep Diver": 2, "Hand Puppeteer": 2, "Eye of the Maelstrom": 1, "Cyclone Regent": 1,
          "Autumn, Essence Animated": 1, "Dawn Revealer": 1}
UNSCRIPTED = "Oracle of Whispers"  # left unscripted on purpose: arriving raises a manual prompt


class Table:
    """One live match through the API, with the judge's hand to set up positions."""

    def __init__(self, tmp_path, deck=None, api=None, **settings):
        self.api = api if api is not None else Api(new_app(tmp_path, **settings))
        status, created = self.api.call("POST", "/api/matches", ORGANIZER, {
            "seats": [{"player": "Ann", "deck": deck or DECK_A},
                      {"player": "Bob", "preset": "thalwind-sky"}], "previous_loser": "B"})
        assert status == 201, created
        self.mid, self.tokens = created["match_id"], created["tokens"]
        _to_turn(self.api, self.mid, self.tokens)

    def get(self, path, role=None):
        token = self.tokens[role] if role else None
        status, data = self.api.call("GET", path.format(mid=self.mid), token)
        assert status == 200, data
        return data

    def text(self, path, role=None) -> str:
        return json.dumps(self.get(path, role))

    def omniscient(self) -> dict:
        return self.get("/api/matches/{mid}/state", "judge")["board"]

    def length(self) -> int:
        return self.get("/api/matches/{mid}/state", "judge")["length"]

    def card(self, seat, name) -> str:
        """The id of a card of ``seat`` called ``name`` (hand first, then deck)."""
        player = self.omniscient()["players"][seat]
        return next(c["id"] for c in player["hand"] + player["deck"] if c["name"] == name)

    def rule(self, ops):
        status, data = self.api.call("POST", f"/api/matches/{self.mid}/manual",
                                     self.tokens["judge"],
                                     {"expected_seq": self.length(), "ops": ops, "note": "setup"})
        assert status == 201, data

    def prompt(self, role) -> dict:
        return self.get("/api/matches/{mid}/prompt", role)

    def decide(self, role, decision, expected=None):
        return self.api.decide(self.mid, self.tokens[role], decision,
                               self.length() if expected is None else expected)

    def play(self, role, cid):
        pending = self.prompt(role)
        decision = next(o["decision"] for o in pending["prompt"]["options"]
                        if o["decision"].get("card") == cid)
        status, data = self.decide(role, decision, pending["length"])
        assert status == 201, data
        return data

    def follow(self, role=None, start=0) -> str:
        headers = {"Authorization": f"Bearer {self.tokens[role]}"} if role else {}
        response = self.api.client.get(f"/api/matches/{self.mid}/follow?timeout=0&from={start}",
                                       headers=headers)
        return response.get_data(as_text=True)


def _quotes(text: str, cid: str) -> bool:
    return f'"{cid}"' in text or f"({cid})" in text or f" {cid} " in text


def _seat_views(t: Table, role: str, start: int = 0) -> dict[str, str]:
    """Everything a seat reads of the match now (events from ``start``)."""
    return {"prompt": t.text("/api/matches/{mid}/prompt", role),
            "state": t.text("/api/matches/{mid}/state", role),
            "events": t.text(f"/api/matches/{{mid}}/events?from={start}", role),
            "follow": t.follow(role, start)}


def _public_views(t: Table, start: int = 0) -> dict[str, str]:
    """Everything the public reads of the live match now (events from ``start``)."""
    views = {"state": t.text("/api/public/matches/{mid}/state"),
             "events": t.text(f"/api/public/matches/{{mid}}/events?from={start}"),
             "follow": t.follow(None, start),
             "step": t.text("/matches/{mid}/step"),
             "timeline": t.text(f"/matches/{{mid}}/timeline?from={start}")}
    if start == 0:
        views["page"] = t.api.client.get(f"/matches/{t.mid}").get_data(as_text=True)
    return views


@pytest.fixture
def table(tmp_path):
    return Table(tmp_path, spectator_delay=0)


def _with_eye(t: Table) -> dict:
    """Eye of the Maelstrom in A's World: A may play the top card of its deck (a turn option).
    The judge puts the cards above the first Monsoon Wyvern (cost 1, not core) at the bottom,
    so the top card is playable."""
    player = t.omniscient()["players"]["A"]
    t.rule([{"op": "move", "card": c["id"], "to_zone": "deck"} for c in player["hand"]
            if c["name"] == "Monsoon Wyvern"] or [{"op": "resource", "seat": "A",
                                                   "resource": "faith", "value": 0}])
    deck = t.omniscient()["players"]["A"]["deck"]
    above = next(n for n, c in enumerate(deck) if c["name"] == "Monsoon Wyvern")
    t.rule([{"op": "move", "card": c["id"], "to_zone": "deck"} for c in deck[:above]] +
           [{"op": "move", "card": t.card("A", "Eye of the Maelstrom"), "to_zone": "world",
             "realm": 1, "seat": "A"},
            {"op": "resource", "seat": "A", "resource": "energy", "value": 20}])
    top = t.omniscient()["players"]["A"]["deck"][0]
    assert top["name"] == "Monsoon Wyvern"
    return top


# -- 1. a seat never receives the other seat's hand or any deck order ------------------------


def test_the_eye_of_the_maelstrom_deck_top_is_offered_to_its_seat_only(table):
    top = _with_eye(table)
    mine = table.prompt("A")["prompt"]
    assert top["id"] in [o["decision"].get("card") for o in mine["options"]]
    assert any("from the top of your deck" in o["label"] for o in mine["options"]
               if o["decision"].get("card") == top["id"])
    for where, text in {**_seat_views(table, "B"), **_public_views(table)}.items():
        assert not _quotes(text, top["id"]), f"the deck top {top['id']} leaks in {where}"


def _deep_diver_looks_into_the_deck(table) -> list[str]:
    """A's Monsoon Wyverns go into its deck and A plays Deep Diver (target: a Wonder with cost
    1 from the deck); returns the Wyverns' ids in deck order."""
    board = table.omniscient()["players"]["A"]
    wyverns = [c["id"] for c in board["hand"] if c["name"] == "Monsoon Wyvern"]
    table.rule([{"op": "move", "card": table.card("A", "Deep Diver"), "to_zone": "hand"},
                {"op": "resource", "seat": "A", "resource": "energy", "value": 20}] +
               [{"op": "move", "card": cid, "to_zone": "deck"} for cid in wyverns])
    table.play("A", table.card("A", "Deep Diver"))
    deck = [c["id"] for c in table.omniscient()["players"]["A"]["deck"]
            if c["name"] == "Monsoon Wyvern"]
    return deck


def test_a_deck_target_list_does_not_show_the_deck_order_even_to_its_owner(table):
    """A deck card's id is its place in the setup shuffle, so the options are handles
    (tests/security/test_deck_targets.py), listed in the handles' order."""
    deck = _deep_diver_looks_into_the_deck(table)
    pending = table.prompt("A")["prompt"]
    offered = [o["decision"]["pick"] for o in pending["options"]]
    assert pending["kind"] == "target" and len(offered) == len(deck) > 1
    assert offered == sorted(offered) and not set(offered) & set(deck)
    for where, text in {**_seat_views(table, "B"), **_public_views(table)}.items():
        assert not any(_quotes(text, cid) for cid in deck), f"deck targets leak in {where}"


def test_the_other_seats_hand_is_in_no_view_nor_in_a_refusal(table):
    hand_b = [c["id"] for c in table.omniscient()["players"]["B"]["hand"]]
    views = _seat_views(table, "A")
    for where, text in views.items():
        assert not any(_quotes(text, cid) for cid in hand_b), f"B's hand leaks in {where}"
    for cid in hand_b[:3]:  # refusals name the card asked about, never where it is
        status, data = table.decide("A", {"type": "PlayDeclared", "card": cid, "realm": 1})
        assert status == 422 and "hand" not in data["message"].replace("A's hand", "")
        assert "deck" not in data["message"]


def test_the_play_page_carries_no_board(table):
    page = table.api.client.get(f"/play/{table.mid}?token={table.tokens['B']}",
                                follow_redirects=True).get_data(as_text=True)
    board = table.omniscient()
    hidden = [c["id"] for c in board["players"]["A"]["hand"] + board["players"]["A"]["deck"]]
    assert not any(_quotes(page, cid) for cid in hidden)


# -- 2. a spectator sees nothing hidden -------------------------------------------------------


def _face_down(t: Table, *others: str) -> list[str]:
    """Autumn in A's World (with ``others``) banishes itself and puts three Wonders of A's
    Abyss into The World face down; returns their ids and the seq of the activation (rule
    510: which card is where is hidden; which cards they are was public in The Abyss)."""
    autumn = t.card("A", "Autumn, Essence Animated")
    board = t.omniscient()
    wonders = [c["id"] for c in board["players"]["A"]["hand"] + board["players"]["A"]["deck"]
               if c["type"] == "wonder" and c["id"] != autumn][:3]
    t.rule([{"op": "move", "card": cid, "to_zone": "world", "realm": 1, "seat": "A"}
            for cid in (autumn, *others)] +
           [{"op": "move", "card": cid, "to_zone": "abyss"} for cid in wonders])
    pending = t.prompt("A")
    activate = next(o["decision"] for o in pending["prompt"]["options"]
                    if o["decision"]["type"] == "ActivationDeclared"
                    and o["decision"]["card"] == autumn)
    status, data = t.decide("A", activate, pending["length"])
    assert status == 201, data
    down = [c["id"] for r in t.omniscient()["realms"] for c in r["cards"]["A"]]
    assert set(wonders) <= set(down)
    return wonders, pending["length"]


def test_face_down_cards_are_unnamed_for_seats_and_spectators(table):
    wonders, since = _face_down(table)
    for role in ("A", "B", None):
        state = table.get("/api/matches/{mid}/state", role) if role else \
            table.get("/api/public/matches/{mid}/state")
        cards = [c for r in state["board"]["realms"] for c in r["cards"]["A"]]
        assert not any(c["id"] in wonders for c in cards), f"face-down ids shown to {role}"
        assert sum(c.get("face_down", False) for c in cards) == len(wonders)
    for views in (_seat_views(table, "A", since), _seat_views(table, "B", since),
                  _public_views(table, since)):
        for where, text in views.items():
            assert not any(_quotes(text, cid) for cid in wonders), f"face-down ids leak: {where}"
    events = table.get("/api/public/matches/{mid}/events")["events"]
    moved = [e["event"] for e in events if e["event"].get("reason") == "distributed face down"]
    assert len(moved) == len(wonders) and all(e["card"] == "?" for e in moved)


def test_a_face_down_target_is_offered_by_a_handle_not_by_its_id(table):
    dawn = table.card("A", "Dawn Revealer")
    wonders, _ = _face_down(table, dawn)
    if table.prompt("A")["prompt"]["seat"] == "B":
        assert table.decide("B", {"type": "Passed"})[0] == 201
    table.play("A", dawn)  # Dawn Revealer: turn target face-down card you control face up
    pending = table.prompt("A")
    text = json.dumps(pending)
    assert pending["prompt"]["kind"] == "target"
    assert not any(_quotes(text, cid) for cid in wonders), "the face-down cards' ids are offered"
    assert all(o["label"] == "a face-down card in realm 1" for o in pending["prompt"]["options"])
    pick = pending["prompt"]["options"][0]["decision"]
    status, data = table.decide("A", pick, pending["length"])
    assert status == 201, data
    answered = [e["event"] for e in data["events"] if e["event"]["type"] == "Answered"]
    assert answered[0]["pick"] in wonders  # recorded as the card's id
    stale = dict(pick, pick="hidden-0123456789abcdef")
    assert table.decide("A", stale)[0] in (409, 422)


def test_a_manual_move_into_a_hand_is_unnamed_for_the_other_seat_and_spectators(table):
    board = table.omniscient()
    secret = board["players"]["A"]["deck"][5]["id"]
    table.rule([{"op": "move", "card": secret, "to_zone": "hand"}])
    for where, text in {**_seat_views(table, "B"), **_public_views(table)}.items():
        assert not _quotes(text, secret), f"the card moved into A's hand leaks in {where}"
    assert _quotes(table.text("/api/matches/{mid}/events", "A"), secret)


# -- 3. role boundaries of the new decisions -------------------------------------------------


def _deck_with_unscripted() -> dict:
    deck = dict(DECK_A)
    deck.pop("Autumn, Essence Animated")
    deck.pop("Dawn Revealer")
    deck[UNSCRIPTED] = 2
    return deck


@pytest.fixture
def manual(tmp_path):
    """A match at A's manual prompt for an unscripted card A just played."""
    t = Table(tmp_path, deck=_deck_with_unscripted(), spectator_delay=0)
    cid = t.card("A", UNSCRIPTED)
    t.rule([{"op": "move", "card": cid, "to_zone": "hand"},
            {"op": "resource", "seat": "A", "resource": "energy", "value": 20}])
    t.play("A", cid)
    assert t.prompt("A")["prompt"]["kind"] == "manual"
    return t, cid


def test_a_seat_cannot_answer_the_other_seats_manual_prompt(manual):
    t, cid = manual
    before = t.length()
    for ops in ([], [{"op": "counter", "card": cid, "counter": "+1", "value": 1}]):
        status, data = t.decide("B", {"type": "ManualResolved", "card": cid, "ops": ops})
        assert status == 422 and "it is A's manual prompt, not B's" in data["message"]
        assert "403.2" not in data["message"]  # a manual prompt is not a turn
    assert t.length() == before


def test_a_seat_cannot_resolve_a_card_that_is_not_the_prompts(manual):
    t, cid = manual
    other = t.omniscient()["players"]["A"]["hand"][0]["id"]
    status, data = t.decide("A", {"type": "ManualResolved", "card": other, "ops": []})
    assert status == 422 and cid in data["message"]


def test_a_seat_cannot_post_a_manual_answer_without_a_manual_prompt(table):
    cid = table.omniscient()["players"]["A"]["hand"][0]["id"]
    status, _ = table.decide("A", {"type": "ManualResolved", "card": cid, "ops": []})
    assert status == 422


def test_the_other_seats_manual_prompt_shows_no_options(manual):
    t, _ = manual
    seen = t.prompt("B")["prompt"]
    assert seen["kind"] == "manual" and not seen["yours"] and seen["options"] == []


def test_a_judges_manual_effect_is_checked_and_judge_only(manual):
    t, _ = manual
    before = t.length()
    for role in ("A", "B"):
        status, _ = t.api.call("POST", f"/api/matches/{t.mid}/manual", t.tokens[role],
                               {"expected_seq": before, "ops": []})
        assert status == 403
    status, data = t.api.call("POST", f"/api/matches/{t.mid}/manual", t.tokens["judge"],
                              {"expected_seq": before,
                               "ops": [{"op": "move", "card": "Z99", "to_zone": "hand"}]})
    assert status == 422 and "Z99" in data["message"]
    assert t.length() == before


def test_a_manual_answer_moving_a_card_to_hand_is_unnamed_for_the_other_seat(manual):
    t, cid = manual
    secret = t.omniscient()["players"]["A"]["deck"][3]["id"]
    status, data = t.decide("A", {"type": "ManualResolved", "card": cid, "ops": [
        {"op": "move", "card": secret, "to_zone": "hand"}]})
    assert status == 201, data
    for where, text in {**_seat_views(t, "B"), **_public_views(t)}.items():
        assert not _quotes(text, secret), f"the card A took into its hand leaks in {where}"


def test_a_manual_answer_cannot_pick_out_the_other_seats_hidden_cards(manual):
    t, cid = manual
    board = t.omniscient()["players"]["B"]
    before = t.length()
    refusals = set()
    for hidden in (board["hand"][0]["id"], board["deck"][0]["id"]):
        for op in ({"op": "move", "card": hidden, "to_zone": "abyss"},
                   {"op": "counter", "card": hidden, "counter": "+1", "value": 1}):
            status, data = t.decide("A", {"type": "ManualResolved", "card": cid, "ops": [op]})
            assert status == 403, data
            refusals.add(data["message"].replace(hidden, "<card>"))
    assert len(refusals) == 2  # one per op kind: the text never says where the card is
    assert t.length() == before


def test_a_manual_answer_may_touch_its_own_cards_and_resources(manual):
    """Its own cards (from its deck, the card itself) and its own resources; the other
    seat's cards and resources, stones and control are the judge's
    (tests/security/test_seat_manual_ops.py)."""
    t, cid = manual
    board = t.omniscient()
    own = board["players"]["A"]["deck"][0]["id"]
    ops = [{"op": "move", "card": own, "to_zone": "hand"},
           {"op": "counter", "card": cid, "counter": "+1", "value": 1},
           {"op": "tap", "card": cid},
           {"op": "resource", "seat": "A", "resource": "faith", "value": 1}]
    status, data = t.decide("A", {"type": "ManualResolved", "card": cid, "ops": ops})
    assert status == 201, data


def test_a_wrong_answer_is_refused_without_quoting_face_down_ids(table):
    dawn = table.card("A", "Dawn Revealer")
    wonders, _ = _face_down(table, dawn)
    if table.prompt("A")["prompt"]["seat"] == "B":
        assert table.decide("B", {"type": "Passed"})[0] == 201
    table.play("A", dawn)
    pending = table.prompt("A")
    for pick in ("A999", "hidden-0123456789abcdef", ["A1"]):
        status, data = table.decide("A", {"type": "Answered", "kind": "target", "pick": pick},
                                    pending["length"])
        assert status == 422, data
        assert not any(_quotes(data["message"], cid) or f"'{cid}'" in data["message"]
                       or f"{cid}," in data["message"] or f"{cid})" in data["message"]
                       for cid in wonders), data["message"]


def test_a_wrong_answer_is_refused_without_quoting_the_deck_order(table):
    deck = _deep_diver_looks_into_the_deck(table)
    status, data = table.decide("A", {"type": "Answered", "kind": "target", "pick": "A999"})
    assert status == 422
    listed = [cid for cid in deck if cid in data["message"]]
    order = sorted(listed, key=lambda cid: data["message"].index(cid))
    assert order == sorted(listed, key=lambda cid: int(cid[1:])), data["message"]


# -- 4. what a write answers is the caller's own view ------------------------------------------
#
# A POST that records events (a seat's decision or manual answer, a judge's ruling, take-back,
# ending or note) answers with the events it wrote.  To a seat they must be exactly what that
# seat reads at GET /events -- never the omniscient view: the batch of a seat's decision holds
# the setup shuffles (deck orders), the other seat's draws, a card put into a deck.  To the
# judge they are the judge's (omniscient) view.


def _as_seen(api, mid: str, token: str, reply: dict, judge: str) -> bool:
    """``reply`` (a 201 ``Recorded``) holds exactly the caller's view of the seqs it wrote;
    returns whether the judge's view of them differs (something was withheld from the
    caller).  A seat's reply is also checked directly: no deck order, no card of the other
    seat's hand, no card put into a deck."""
    events = reply["events"]
    assert events and reply["seq"] == events[-1]["seq"] + 1, reply
    first = events[0]["seq"]
    path = f"/api/matches/{mid}/events?from={first}&limit={len(events)}"
    status, mine = api.call("GET", path, token)
    assert status == 200, mine
    assert events == mine["events"], "a write's reply differs from the caller's own view of it"
    if mine["perspective"] in ("A", "B"):
        seat = mine["perspective"]
        for e in (out["event"] for out in events):
            if e["type"] == "DeckOrdered":
                assert set(e["cards"]) == {"?"}, f"a deck order in a reply to seat {seat}: {e}"
            if e["type"] == "CardMoved" and e.get("owner") != seat and \
                    "hand" in (e["from_zone"], e["to_zone"]) and "deck" in (e["from_zone"], e["to_zone"]):
                assert e["card"] == "?" and e["name"] == "?", f"the other seat's card: {e}"
            for op in e.get("ops") or []:
                if op.get("op") == "move" and op.get("to_zone") == "deck":
                    assert op["card"] == "?", f"a card put into a deck, named to seat {seat}: {e}"
    return events != api.call("GET", path, judge)[1]["events"]


def test_a_seats_decision_replies_are_its_own_view_through_setup_and_a_round_change(tmp_path):
    api = Api(new_app(tmp_path, spectator_delay=0))
    status, created = api.call("POST", "/api/matches", ORGANIZER, {
        "seats": [{"player": "Ann", "preset": "solfera-blaze"},
                  {"player": "Bob", "preset": "thalwind-sky"}], "previous_loser": "B"})
    assert status == 201, created
    mid, tokens = created["match_id"], created["tokens"]
    from tests.web.test_api import choose
    rng, withheld, replies, taken_back = random.Random(5), 0, 0, False
    while True:
        judge = api.call("GET", f"/api/matches/{mid}/state", tokens["judge"])[1]
        if judge["board"]["round"] >= 2 or judge["prompt"] is None:
            break
        seat = judge["prompt"]["seat"]
        pending = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]
        status, reply = api.decide(mid, tokens[seat], choose(pending["prompt"], rng),
                                   pending["length"])
        assert status == 201, reply
        replies += 1
        withheld += _as_seen(api, mid, tokens[seat], reply, tokens["judge"])
        if not taken_back and any(e["event"]["type"] == "DeckOrdered" for e in reply["events"]):
            # the judge takes the shuffles back: the seats decide again, the decks are
            # shuffled again, and those replies are checked too
            status, back = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"], {
                "to_seq": reply["events"][0]["seq"] - 1, "expected_seq": reply["seq"]})
            assert status == 201, back
            assert not _as_seen(api, mid, tokens["judge"], back, tokens["judge"])
            taken_back = True
        assert replies < 300, "round 2 never came"
    assert judge["board"]["round"] == 2 and taken_back
    # the setup shuffles (twice: before and after the take-back) and the other seat's
    # round-start draw were withheld
    assert withheld >= 3, f"only {withheld} of {replies} replies withheld anything"


def test_a_seats_manual_answer_reply_is_its_own_view(manual):
    t, cid = manual
    board = t.omniscient()["players"]["A"]
    own_deck, own_hand = board["deck"][0]["id"], board["hand"][0]["id"]
    ops = [{"op": "move", "card": own_deck, "to_zone": "hand"},
           {"op": "move", "card": own_hand, "to_zone": "deck"},  # which card: hidden, even to A
           {"op": "counter", "card": cid, "counter": "+1", "value": 1}]
    status, reply = t.decide("A", {"type": "ManualResolved", "card": cid, "ops": ops})
    assert status == 201, reply
    assert _as_seen(t.api, t.mid, t.tokens["A"], reply, t.tokens["judge"])
    answered = next(e["event"] for e in reply["events"] if e["event"]["type"] == "ManualResolved")
    assert [op["card"] for op in answered["ops"]] == [own_deck, "?", cid]


def test_the_judges_replies_are_the_judges_view(table):
    t, judge = table, table.tokens["judge"]
    secret = t.omniscient()["players"]["A"]["deck"][2]["id"]
    status, ruled = t.api.call("POST", f"/api/matches/{t.mid}/manual", judge, {
        "expected_seq": t.length(), "ops": [{"op": "move", "card": secret, "to_zone": "hand"}],
        "note": "a card into A's hand"})
    assert status == 201, ruled
    assert not _as_seen(t.api, t.mid, judge, ruled, judge)
    assert _quotes(json.dumps(ruled), secret)  # the judge sees which card
    back_to = ruled["events"][0]["seq"] - 1
    status, back = t.api.call("POST", f"/api/matches/{t.mid}/takeback", judge,
                              {"to_seq": back_to, "reason": "wrong card", "expected_seq": t.length()})
    assert status == 201, back
    assert not _as_seen(t.api, t.mid, judge, back, judge)
    assert back["events"][0]["event"]["type"] == "TakenBack"
    status, noted = t.api.call("POST", f"/api/matches/{t.mid}/notes", judge,
                               {"text": "taken back", "expected_seq": t.length()})
    assert status == 201 and not _as_seen(t.api, t.mid, judge, noted, judge)
    # after the take-back, a seat's decision is answered in its own view
    seat = t.prompt("judge")["prompt"]["seat"]
    pending = t.prompt(seat)
    option = next(o["decision"] for o in pending["prompt"]["options"]
                  if o["decision"]["type"] == "DrawDeclared")
    status, reply = t.decide(seat, option, pending["length"])
    assert status == 201, reply
    _as_seen(t.api, t.mid, t.tokens[seat], reply, judge)  # its own draw: it sees the card
    status, ended = t.api.call("POST", f"/api/matches/{t.mid}/ending", judge,
                               {"kind": "concession", "seat": "B", "expected_seq": t.length()})
    assert status == 201 and not _as_seen(t.api, t.mid, judge, ended, judge)


def test_a_state_of_wonder_seats_decision_replies_are_its_own_view(tmp_path):
    """State of Wonder through the same API: every decision's reply is the seat's own view,
    a take-back's the judge's.  (Its hidden setup -- the Wonder or Hero placed face down, the
    culture shuffled -- is recorded with the create, so here a seat's decision batch names no
    hidden card: this pins that the reply is the caller's view of exactly what was written.)"""
    from tests.web.test_sow_api import create
    api = Api(new_app(tmp_path, spectator_delay=0))
    mid, tokens = create(api)
    rng, replies, taken_back = random.Random(11), 0, False
    for _ in range(40):
        judge = api.call("GET", f"/api/matches/{mid}/prompt", tokens["judge"])[1]
        if judge["prompt"] is None:
            break
        seat = judge["prompt"]["seat"]
        prompt = api.call("GET", f"/api/matches/{mid}/prompt", tokens[seat])[1]
        spec = prompt["prompt"].get("choose")
        decision = ({**prompt["prompt"]["answer"],
                     "pick": rng.sample(spec["of"], rng.randint(spec["min"], spec["max"]))}
                    if spec else rng.choice(prompt["prompt"]["options"])["decision"])
        status, reply = api.decide(mid, tokens[seat], decision, prompt["length"])
        assert status == 201, reply
        replies += 1
        _as_seen(api, mid, tokens[seat], reply, tokens["judge"])
        if replies == 10:
            status, back = api.call("POST", f"/api/matches/{mid}/takeback", tokens["judge"], {
                "to_seq": reply["events"][0]["seq"] - 1, "expected_seq": reply["seq"]})
            assert status == 201, back
            assert not _as_seen(api, mid, tokens["judge"], back, tokens["judge"])
            taken_back = True
    assert taken_back and replies >= 20
