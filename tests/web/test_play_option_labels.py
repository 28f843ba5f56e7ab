"""A turn prompt's options as /play lists them (replay/wotf/api.py, replay/wotf/labels.py):
two copies of a card never read alike -- what tells them apart is said (the realm, from the
hand or on the board, the board's marks, a copy number as a last resort), by name, never
by id.  A real match through the API; the judge's manual effect sets the position."""

from __future__ import annotations

import random
import re

import pytest

from tests.web.test_api import _to_turn, choose
from tests.web.test_api_hidden_info import Table

ID = re.compile(r"\b[AB]\d+\b")


def _ids(t: Table, seat: str, name: str) -> list[str]:
    """The ids of ``seat``'s cards called ``name`` out of play: in hand, deck or abyss (the
    end of round 1 may have discarded one, 403.5: the deal is the OS's randomness)."""
    player = t.omniscient()["players"][seat]
    return [c["id"] for c in player["hand"] + player["deck"] + player["abyss"]
            if c["name"] == name]


def _to_round_two(t: Table) -> None:
    """Both seats pass round 1 away (403.4); the round-end and round-start prompts answered."""
    while t.omniscient()["round"] < 2:
        pending = t.prompt("judge")["prompt"]
        decision = {"type": "Passed"} if pending["kind"] == "turn" else \
            choose(pending, random.Random(1))
        status, data = t.decide(pending["seat"], decision)
        assert status == 201, data
    _to_turn(t.api, t.mid, t.tokens)


@pytest.fixture
def turn(tmp_path) -> tuple[Table, dict, list[str]]:
    t = Table(tmp_path)
    return (t, *two_copies_turn(t))


def two_copies_turn(t: Table) -> tuple[dict, list[str]]:
    """A's turn in round 2 with two Sky Roc of the North and two Cloud Veil in hand, and a
    Tempest Bell (Tap Free: an activated ability) in each of realms 1 and 2: the prompt (as
    seat A's) and the bells' ids.  ``t``: a new table (its API in-process or a real server's)."""
    _to_round_two(t)
    if t.prompt("judge")["prompt"]["seat"] == "B":
        status, data = t.decide("B", {"type": "Passed"})
        assert status == 201, data
    bells = _ids(t, "A", "Tempest Bell")
    t.rule([*({"op": "move", "card": cid, "to_zone": "hand"}
              for cid in _ids(t, "A", "Sky Roc of the North")[:2] + _ids(t, "A", "Cloud Veil")),
            *({"op": "move", "card": cid, "to_zone": "world", "realm": realm, "seat": "A"}
              for realm, cid in enumerate(bells, start=1)),
            {"op": "move", "card": _ids(t, "A", "Sky Roc")[0], "to_zone": "world", "realm": 1,
             "seat": "A"},
            {"op": "resource", "seat": "A", "resource": "energy", "value": 20},
            {"op": "resource", "seat": "A", "resource": "actions", "value": 3}])
    pending = t.prompt("A")["prompt"]
    assert pending["kind"] == "turn" and pending["seat"] == "A"
    return pending, bells


def test_two_copies_of_a_card_give_options_that_read_differently(turn):
    _, pending, bells = turn
    labels = [o["label"] for o in pending["options"]]
    assert len(set(labels)) == len(labels), sorted(labels)
    assert not any(ID.search(label) for label in labels)
    by_card: dict[str, set[str]] = {}
    for o in pending["options"]:
        if o["decision"].get("card") is not None:
            by_card.setdefault(o["subject"], set()).add(o["decision"]["card"])
    assert all(len(cards) == 1 for cards in by_card.values()), by_card  # /play's first tap
    activations = {o["decision"]["card"]: o["label"] for o in pending["options"]
                   if o["decision"]["type"] == "ActivationDeclared"}
    assert activations[bells[0]] == "Activate Tempest Bell in realm 1 (ability 1)"
    assert activations[bells[1]] == "Activate Tempest Bell in realm 2 (ability 1)"
    rocs = sorted(o["label"] for o in pending["options"] if o["decision"]["type"] == "PlayDeclared"
                  and o["decision"]["realm"] == 2 and "Sky Roc of the North" in o["label"])
    assert rocs == ["Play Sky Roc of the North (copy 1) into realm 2",
                    "Play Sky Roc of the North (copy 2) into realm 2"]
