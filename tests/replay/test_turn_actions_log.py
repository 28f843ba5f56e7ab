"""What the turn actions offer, record and refuse (rules 404.1-404.4, Harvest, R19;
``replay/wotf/actions.py``), pinned where a conformance case's end state can't see it: the
options a seat's turn prompt lists, each payment's recorded reason, the words of a cost's
prompt and of a refusal.
"""

from __future__ import annotations

import pytest

from replay.errors import IllegalDecisionError
from replay.wotf.events import (
    ActivationDeclared,
    CardMoved,
    CardTapped,
    EventCounted,
    HarvestDeclared,
    ResourcesChanged,
)
from tests.replay.logged import case, run, shown

FILLERS = """\
[cards."Filler"]
type = "wonder"
power = 1
cost = 9
[cards."Grunt"]
type = "wonder"
power = 2
cost = 1
"""

UNSCRIPTED_ACTIVATION = """\
name = "unscripted-activation-with-the-last-action"
rules = "1.3.2"
""" + FILLERS + """\
[state]
round = 4
turn = "A"
[state.A]
actions = 1
deck = ["Filler", "Filler", "Filler"]
[state.B]
deck = ["Filler", "Filler", "Filler"]
[[state.world]]
id = "oracle"
card = "Oracle of Whispers"
controller = "A"
realm = 2
[[steps]]
player = "A"
action = "activate"
card = "oracle"
"""


def _offered(prompt: dict | None) -> list[dict]:
    assert prompt is not None and prompt["kind"] == "turn"
    return [o["decision"] for o in prompt["options"]]


def test_r19_an_unscripted_card_is_offered_and_activated_with_the_last_action():
    """R19 (docs/rulings.md): a card whose text the engine can't read may be activated as a
    tap action: it is offered in the turn prompt, costs one action -- A's last one is enough
    -- recorded as paid to activate, then the manual prompt asks what it did."""
    played = run(UNSCRIPTED_ACTIVATION)
    assert {"type": "ActivationDeclared", "card": "oracle", "ability": 0, "targets": []} in \
        _offered(played.steps[0].prompt)
    assert played.steps[0].events == [ActivationDeclared("A", "oracle", 0),
                                      ResourcesChanged("A", "activate", actions=0)]
    manual = played.prompt
    assert manual is not None and (manual["seat"], manual["kind"], manual["card"]) == \
        ("A", "manual", "oracle")


def test_404_4_a_tap_ability_records_the_tap_then_its_payment():
    """404.4 (Cinder Totem: Tap Action, pay 1 energy): the card taps, then one resource
    change pays the action and the energy, recorded as paid to activate."""
    played = run(case("abilities/ab-tap-action-with-energy-cost"))
    assert played.steps[0].events[:3] == [
        ActivationDeclared("A", "totem", 0),
        CardTapped("totem", True),
        ResourcesChanged("A", "activate", energy=1, actions=1, faith=0),
    ]


def test_a_sacrifice_cost_is_recorded_as_a_sacrifice_for_the_cost():
    """Sacrifice Action (Stone Idol): the action is paid, then the card is sacrificed as the
    ability's cost, before the ability resolves (and counted among A's sacrifices)."""
    played = run(case("abilities/ab-sacrifice-action-destroys-an-item"))
    assert played.steps[0].events[1:4] == [
        ResourcesChanged("A", "activate", energy=0, actions=2, faith=0),
        CardMoved("idol", "Stone Idol", "A", "world", "abyss", "sacrifice: cost", from_realm=1),
        EventCounted("A:sacrifice", 1),
    ]


DISCARD_COST = """\
name = "a-discard-cost-asks-which"
rules = "1.3.2"
""" + FILLERS + """\
[state]
round = 3
turn = "A"
[state.A]
hand = [{ id = "c1", card = "Filler" }, { id = "c2", card = "Grunt" }]
deck = ["Filler", "Filler", "Filler", "Filler"]
[state.B]
deck = ["Filler", "Filler", "Filler", "Filler"]
[[state.world]]
id = "sov"
card = "Wraith Sovereign"
controller = "A"
realm = 1
[[steps]]
player = "A"
action = "activate"
card = "sov"
[[steps]]
player = "A"
pick = ["c2"]
"""


def test_404_4_a_discard_cost_asks_which_card_to_discard_to_pay():
    """404.4 (Wraith Sovereign: "Tap, discard a card, spend an action"): its controller picks
    exactly one card of its hand, which goes to The Abyss as a discard."""
    played = run(DISCARD_COST)
    ask = played.steps[1].prompt
    assert ask is not None
    assert (ask["seat"], ask["kind"], ask["card"], ask["text"]) == \
        ("A", "discard", "sov", "discard to pay")
    assert ask["choose"] == {"of": ["c1", "c2"], "min": 1, "max": 1, "ordered": False,
                             "multiset": False}
    assert played.steps[1].events[1] == CardMoved("c2", "Grunt", "A", "hand", "abyss", "discard")


TWO_HARVESTS = """\
name = "two-harvests-offered-alone-and-together"
rules = "1.3.2"
""" + FILLERS + """\
[state]
round = 3
turn = "A"
[state.A]
deck = ["Filler", "Filler", "Filler", "Filler"]
[state.B]
deck = ["Filler", "Filler", "Filler", "Filler"]
[[state.world]]
id = "h1"
card = "Quarry Hold"
controller = "A"
realm = 1
[[state.world]]
id = "h2"
card = "Quarry Hold"
controller = "A"
realm = 2
[[state.world]]
id = "theirs"
card = "Quarry Hold"
controller = "B"
realm = 3
[[state.world]]
id = "g"
card = "Grunt"
controller = "A"
realm = 1
"""


def test_harvest_each_harvestable_card_is_offered_alone_and_all_together():
    """Harvest: any number of cards may be harvested at once: the turn prompt offers each of
    A's harvestable cards alone and all of them together -- never B's."""
    played = run(TWO_HARVESTS)
    harvests = [d for d in _offered(shown(played.engine)) if d["type"] == "HarvestDeclared"]
    assert harvests == [{"type": "HarvestDeclared", "cards": ["h1"]},
                        {"type": "HarvestDeclared", "cards": ["h2"]},
                        {"type": "HarvestDeclared", "cards": ["h1", "h2"]}]


def test_harvest_of_a_card_the_seat_does_not_control_is_refused_in_the_same_words():
    """Harvest of B's card by A: refused naming Harvest and rule 510, the one sentence used
    for a card that is not there, not A's, or face down (it confirms nothing about it)."""
    played = run(TWO_HARVESTS)
    with pytest.raises(IllegalDecisionError) as refused:
        played.engine.decide(HarvestDeclared("A", ["theirs"]))
    assert str(refused.value).endswith(
        "theirs is not a face-up card A controls in The World (Harvest; a face-down card has "
        "no abilities, rule 510)")


CLOAKED_TAPPER = """\
name = "a-cloaked-wonders-tap-ability"
rules = "1.3.2"
""" + FILLERS + """\
[state]
round = 3
turn = "A"
[state.A]
energy = 2
hand = [{ id = "cloak", card = "Whisperleaf Cloak" }]
deck = ["Filler", "Filler", "Filler", "Filler"]
[state.B]
deck = ["Filler", "Filler", "Filler", "Filler"]
[[state.world]]
id = "autumn"
card = "Autumn, Essence Animated"
controller = "A"
realm = 1
[[steps]]
player = "A"
action = "play"
card = "cloak"
realm = 1
[[steps]]
player = "B"
action = "pass"
"""


@pytest.mark.parametrize(("revision", "why"), [
    (6, "Autumn, Essence Animated is tapped: a tap ability needs it untapped (Tap)"),
    (7, None),
])
def test_r22_a_cloaked_wonders_own_tap_cost_is_bound_only_before_revision_7(revision, why):
    """R22 (docs/rulings.md; Whisperleaf Cloak, "Opponents can't tap ... equipped Wonder"):
    revisions 1-6 let the Cloak bind every tap, so its controller can't pay a Tap cost of the
    equipped Wonder (Autumn's "Tap Free"); from revision 7 it binds opponents only."""
    played = run(CLOAKED_TAPPER, revision=revision)
    engine = played.engine
    assert engine.state.cards["cloak"].zone == "world"
    assert engine.prompt is not None and (engine.prompt.seat, engine.prompt.kind) == ("A", "turn")
    assert engine.check(ActivationDeclared("A", "autumn", 0)) == why
    offered = {"type": "ActivationDeclared", "card": "autumn", "ability": 0, "targets": []} in \
        _offered(shown(engine))
    assert offered is (why is None)
