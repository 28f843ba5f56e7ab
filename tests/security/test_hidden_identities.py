"""Attack: inferring which face-down card is which (issue 13, finding 3).

Autumn, Essence Animated puts Wonders from The Abyss into The World face down (rule 510:
"Until they are turned face up they don't count as any card type and have no effect on the
game"): which card is where is hidden from both seats and the public.  Each test drives the
recording API the way a hostile seat or spectator would and checks one way in which the
identity leaked:

(a) the turn options offered to activate a face-down card by id (its manual prompt then
    showed the card and its text to both seats);
(b) the opaque handles offered for face-down cards came in card-id order;
(c) a raw card id was accepted in place of a handle;
(d) the opponent's board listed face-down cards in id order among the face-up ones;
(e) a delayed spectator read events naming a card its board still showed face down.
"""

from __future__ import annotations

import json

import pytest

from tests.web.test_api_hidden_info import DECK_A, Table, _public_views, _quotes
from web.api.handles import handle_of

SECRET = "s" * 32  # tests.web.test_api.new_app's secret key
ORACLE = "Oracle of Whispers"  # its text is not scripted: activating it raises a manual prompt
DECK = {**{k: v for k, v in DECK_A.items() if k != "Cirrus Gull of the West"}, ORACLE: 1}
KEEP = ("Autumn, Essence Animated", "Dawn Revealer", ORACLE)


@pytest.fixture
def table(tmp_path, where):
    """A live match, in-process or on a real ``wonders serve`` (``where``)."""
    return Table(tmp_path, deck=DECK, api=where, spectator_delay=0)


def _ids(t: Table, names, count: int, exclude=()) -> list[str]:
    """Ids of A's cards called ``names``, then other Wonders of A up to ``count``."""
    player = t.omniscient()["players"]["A"]
    pool = player["hand"] + player["deck"]
    chosen = [t.card("A", name) for name in names]
    chosen += [c["id"] for c in pool if c["type"] == "wonder" and c["name"] not in KEEP
               and c["id"] not in chosen and c["id"] not in exclude][:count - len(chosen)]
    return chosen


def _distribute(t: Table, count: int, include=(), world=(), face_up=0,
                public=False) -> list[str]:
    """``count`` Wonders of A (``include`` among them) go to A's Abyss (through The World if
    ``public``: everyone sees which cards they are), Autumn, the cards ``world`` and
    ``face_up`` other Wonders to realm 1; A activates Autumn, which puts the Wonders of the
    Abyss into The World face down.  Returns their ids; then it is A's turn again."""
    autumn = t.card("A", "Autumn, Essence Animated")
    down = _ids(t, include, count)
    up = [t.card("A", name) for name in world] + \
        (_ids(t, (), face_up, exclude=down) if face_up else [])
    ops = [{"op": "move", "card": cid, "to_zone": "world", "realm": 1, "seat": "A"}
           for cid in (autumn, *up)]
    if public:
        ops += [{"op": "move", "card": cid, "to_zone": "world", "realm": 1, "seat": "A"}
                for cid in down]
    ops += [{"op": "move", "card": cid, "to_zone": "abyss"} for cid in down]
    t.rule([*ops, {"op": "resource", "seat": "A", "resource": "actions", "value": 5},
            {"op": "resource", "seat": "A", "resource": "energy", "value": 20}])
    t.play("A", autumn)  # Autumn's "Tap Free: ... Distribute them ..., face down."
    board = t.omniscient()
    assert set(down) <= {c["id"] for r in board["realms"] for c in r["cards"]["A"]}
    if t.prompt("A")["prompt"]["seat"] == "B":
        assert t.decide("B", {"type": "Passed"})[0] == 201
    assert t.prompt("A")["prompt"]["seat"] == "A"
    return down


def _dawn_prompt(t: Table, count: int = 5):
    """Face-down cards and A's Dawn Revealer ("turn target face-down card you control face
    up") target prompt offering them."""
    dawn = t.card("A", "Dawn Revealer")
    down = _distribute(t, count, world=("Dawn Revealer",))
    t.play("A", dawn)
    pending = t.prompt("A")
    assert pending["prompt"]["kind"] == "target"
    return down, pending


# -- (a) a face-down card can't be activated or named ----------------------------------------


def test_a_face_down_card_is_not_offered_for_activation(table):
    down = _distribute(table, 3, include=(ORACLE,))
    pending = table.prompt("A")
    offered = {o["decision"].get("card") for o in pending["prompt"]["options"]
               if o["decision"]["type"] in ("ActivationDeclared", "HarvestDeclared")}
    assert not offered & set(down), "a face-down card is offered for activation"
    assert not any(_quotes(json.dumps(pending), cid) for cid in down)
    assert ORACLE not in json.dumps(pending)


def test_a_face_down_card_can_not_be_activated_by_its_id(table):
    down = _distribute(table, 3, include=(ORACLE,))
    oracle, before = down[0], table.length()
    status, data = table.decide("A", {"type": "ActivationDeclared", "card": oracle}, before)
    assert status == 422, data
    assert ORACLE not in data["message"]
    # refused in the very words used for a card that is not there: it confirms nothing
    _, missing = table.decide("A", {"type": "ActivationDeclared", "card": "A999"}, before)
    assert data["message"].replace(oracle, "<id>") == missing["message"].replace("A999", "<id>")
    assert table.length() == before
    seen = table.prompt("B")["prompt"]  # no manual prompt shows the hidden card or its text
    assert seen["kind"] == "turn" and seen["card"] is None
    assert "look at the top three cards" not in json.dumps(seen)


# -- (b) handles say nothing by their order ----------------------------------------------------


def test_face_down_handles_are_ordered_by_the_handle_not_by_card_id(table):
    down, pending = _dawn_prompt(table)
    picks = [o["decision"]["pick"] for o in pending["prompt"]["options"]]
    assert len(picks) == len(down) and all(p.startswith("hidden-") for p in picks)
    salt = f"{table.mid}:{pending['length']}"
    in_card_order = [handle_of(SECRET, salt, cid) for cid in sorted(down, key=lambda c: int(c[1:]))]
    assert set(picks) == set(in_card_order)
    assert picks == sorted(picks), f"handles in card-id order {in_card_order}, not by handle"
    for o in pending["prompt"]["options"]:
        assert o["label"] == "a face-down card in realm 1"


# -- (c) a raw card id is no handle ----------------------------------------------------------


def test_a_raw_card_id_is_refused_in_place_of_a_handle(table):
    down, pending = _dawn_prompt(table, 3)
    refusals = {}
    for pick in (down[0], "A999", [down[1]]):
        status, data = table.decide("A", {"type": "Answered", "kind": "target", "pick": pick},
                                    pending["length"])
        assert status == 422, f"{pick!r} was accepted in place of a handle: {data}"
        refusals[repr(pick)] = data["message"].replace(repr(pick), "<pick>")
    assert refusals[repr(down[0])] == refusals[repr("A999")], \
        "the refusal of a face-down card's id differs from a wrong id's: it confirms the card"
    assert table.length() == pending["length"]


# -- (d) the board lists face-down cards by nothing of theirs ----------------------------------


def test_the_board_lists_face_down_cards_after_the_face_up_ones(table):
    down = _distribute(table, 5, face_up=4)
    boards = {"B": table.get("/api/matches/{mid}/state", "B")["board"],
              "A": table.get("/api/matches/{mid}/state", "A")["board"],
              "spectator": table.get("/api/public/matches/{mid}/state")["board"]}
    for who, board in boards.items():
        cards = board["realms"][0]["cards"]["A"]
        flags = [bool(c.get("face_down")) for c in cards]
        assert sum(flags) == len(down) and len(cards) - sum(flags) >= 4
        assert flags == sorted(flags), f"{who}: face-down cards listed among face-up ones"
        faces = [c for c in cards if c.get("face_down")]
        assert all(c == faces[0] and c["id"] == "?" for c in faces), f"{who}: {faces}"


# -- (e) events name no card the viewer's board shows face down --------------------------------


def test_a_delayed_spectator_sees_no_event_naming_a_card_face_down_on_its_board(table):
    dawn = table.card("A", "Dawn Revealer")
    down = _distribute(table, 3, world=("Dawn Revealer",), public=True)
    face_down_at = table.length() - 1  # every event so far: A's cards face down, A to play
    table.play("A", dawn)
    pending = table.prompt("A")
    status, _ = table.decide("A", pending["prompt"]["options"][0]["decision"], pending["length"])
    assert status == 201
    events = table.get(f"/api/matches/{{mid}}/events?from={face_down_at}", "judge")["events"]
    turned = [e["event"]["card"] for e in events if e["event"].get("reason") == "turned face up"]
    assert len(turned) == 1 and turned[0] in down  # face up now, live; not yet for the public
    # the public now sees the match up to face_down_at: all three still face down there
    if getattr(table.api, "live", False):
        pytest.skip("moves the spectator delay of the in-process app: in-process only")
    svc = table.api.app.extensions["wonders"]
    svc.settings = svc.settings.model_copy(
        update={"spectator_delay": table.length() - 1 - face_down_at})
    state = table.get("/api/public/matches/{mid}/state")
    assert state["seq"] == face_down_at
    shown = [c for r in state["board"]["realms"] for c in r["cards"]["A"]]
    assert sum(bool(c.get("face_down")) for c in shown) == len(down)
    for where, text in _public_views(table).items():
        for cid in down:
            assert not _quotes(text, cid), \
                f"{where}: names {cid}, face down on the spectator's board"
