"""What a battle records and asks (rule 404.3.2, ``replay/wotf/battle.py``), event by event.

The conformance cases about battles check where cards and stones end up; the match file
records more: which battle began (and whether it was a free attack), both sides' power and the
result, the stone seized and from whom, the protector counter spent, each flight with its
reason, and the prompts a seat answers (the flier order of rule 502, the flight, the protector
to spend).  These tests pin that record for the shipped cases (``fixtures/conformance``).
"""

from __future__ import annotations

import tomllib

import pytest

from replay.wotf import conformance as C
from replay.wotf.events import (
    Answered,
    AttackDeclared,
    BattleResolved,
    BattleStarted,
    CardMoved,
    CounterChanged,
    EventCounted,
    FlightScheduled,
    FlightsCleared,
    ResourcesChanged,
    SeizePrevented,
    StoneSeized,
    TriggerDequeued,
    TriggerResolved,
    TriggersQueued,
    TurnEnded,
)
from replay.wotf.trigger import Trigger
from tests.replay.logged import case, run


def _flight(card: str, name: str, from_realm: int, to_realm: int) -> CardMoved:
    return CardMoved(card, name, "A", "world", "world", "flying", from_realm=from_realm,
                     to_realm=to_realm, controller="A")


def test_a_won_attack_records_the_battle_and_the_seized_centre_stone():
    """404.3.2: the battle begins (not a free attack: the action pays, 404.3), step 4 sums
    the powers (two 4-power hawks against nothing), step 5 the winner seizes the centre stone
    (the only source, so the engine answers for A)."""
    played = run(case("c-flying-the-attacker-orders-the-fliers"))
    assert played.steps[0].events == [
        AttackDeclared("A", 2),
        ResourcesChanged("A", "attack", actions=2),
        BattleStarted(2, "A", "B", free_attack=False),
        BattleResolved(2, "A", 8, 0, "attacker"),
        Answered("A", "stone", "center", auto=True),
        StoneSeized(2, "A", "center"),
    ]


def test_two_fliers_the_attacker_orders_their_moves_then_each_may_fly_revision_9():
    """Flying (v1.3.2, battle step 6) and 502 (revisions 8-9, docs/rulings.md R31): A orders
    the two flights, then each flier is offered the adjacent active realms or "no"."""
    played = run(case("c-flying-the-attacker-orders-the-fliers"), revision=9)
    order = played.steps[1].prompt
    assert order is not None
    assert (order["seat"], order["kind"], order["text"]) == \
        ("A", "order", "order your fliers' moves (rule 502)")
    assert order["choose"] == {"of": ["h1", "h2"], "min": 2, "max": 2, "ordered": True,
                               "multiset": False}
    for index, card in ((2, "h2"), (3, "h1")):
        fly = played.steps[index].prompt
        assert fly is not None
        assert (fly["seat"], fly["kind"], fly["card"], fly["text"]) == \
            ("A", "realm", card, "fly Sky Hawk to an adjacent realm?")
        assert [o["decision"]["pick"] for o in fly["options"]] == [1, 3, "no"]
    assert played.steps[2].events == [Answered("A", "realm", 3), _flight("h2", "Sky Hawk", 2, 3)]
    assert played.steps[3].events == [Answered("A", "realm", "no"), TurnEnded("A", "B")]


def test_two_fliers_are_end_of_battle_triggers_in_the_attackers_order():
    """Revision 10 (docs/rulings.md R42): each attacking flier is a `flying` trigger of the
    end-of-battle batch (404.3.2 step 6, 502): A orders the batch, it waits on the stack, and
    each flight resolves as its trigger, recorded with where it went."""
    played = run(case("c-flying-the-attacker-orders-the-fliers"))
    order = played.steps[1].prompt
    assert order is not None
    assert (order["seat"], order["kind"], order["text"]) == \
        ("A", "order", "order the triggered abilities (rule 502)")
    assert order["choose"]["of"] == ["h1", "h2"]
    h1, h2 = (Trigger(h, "A", "flying", 2) for h in ("h1", "h2"))
    assert played.steps[1].events == [Answered("A", "order", ["h2", "h1"]),
                                      TriggersQueued([h2, h1]), TriggerDequeued("h2", "flying")]
    assert played.steps[2].events == [
        Answered("A", "realm", 3),
        TriggerResolved("h2", "Sky Hawk", "flying", "A", "flies to realm 3"),
        _flight("h2", "Sky Hawk", 2, 3), TriggerDequeued("h1", "flying")]
    assert played.steps[3].events == [
        Answered("A", "realm", "no"), TriggerResolved("h1", "Sky Hawk", "flying", "A", "stays"),
        TurnEnded("A", "B")]


def test_v12_a_flight_is_scheduled_in_the_battle_and_taken_at_the_end_of_the_turn():
    """v1.2 Flying: the flier moves at the end of the turn: the battle schedules it, the end
    of the turn clears the schedule and asks."""
    played = run(case("c-flying-moves-after-the-battle-12"))
    assert played.steps[0].events[-2:] == [FlightScheduled(["hawk"]), FlightsCleared(["hawk"])]
    fly = played.steps[1].prompt
    assert fly is not None and (fly["seat"], fly["kind"], fly["card"]) == ("A", "realm", "hawk")
    assert played.steps[1].events == [Answered("A", "realm", 3), _flight("hawk", "Sky Hawk", 2, 3),
                                      TurnEnded("A", "B")]


def test_the_defender_chooses_the_protector_whose_counter_stops_the_seizure():
    """Protector (docs/rulings.md R6): the winning attacker's seizure is stopped by removing
    one protector counter from a protector in the battle, which the defender picks."""
    played = run(case("c-protector-the-defender-chooses-which"))
    assert played.steps[0].events[-1] == BattleResolved(1, "A", 5, 3, "attacker")
    ask = played.steps[1].prompt
    assert ask is not None
    assert (ask["seat"], ask["kind"], ask["text"]) == ("B", "target", "remove a protector counter from")
    assert [o["decision"]["pick"] for o in ask["options"]] == ["p1", "p2"]
    assert played.steps[1].events == [
        Answered("B", "target", "p2"),
        CounterChanged("p2", "protector", -1, 0),
        SeizePrevented(1, "p2"),
        TurnEnded("A", "B"),
    ]


def test_a_rage_attack_ends_with_its_wonder_sacrificed_for_rage():
    """Rage: "if you do, sacrifice this at the end of battle" -- recorded as a sacrifice for
    rage, and counted among A's sacrifices, after the defender seized the stone.  From
    revision 11 the sacrifice is an end-of-battle effect (404.3.2 step 6, R42): a lone
    `rage_sacrifice` trigger here, resolved (TriggerResolved) before the card moves; revision
    10 sacrificed it after the end-of-battle batch, with no trigger."""
    sacrificed = [
        CardMoved("boar", "Mad Boar", "A", "world", "abyss", "sacrifice: rage", from_realm=1),
        EventCounted("A:sacrifice", 1),
        TurnEnded("A", "B"),
    ]
    battle = [
        BattleStarted(1, "A", "B", free_attack=False),
        BattleResolved(1, "A", 4, 5, "defender"),
        Answered("B", "stone", "center", auto=True),
        StoneSeized(1, "B", "center"),
    ]
    played = run(case("c-rage-sacrificed-even-after-losing"))
    assert played.steps[1].events[2:] == [
        *battle, TriggerResolved("boar", "Mad Boar", "rage_sacrifice", "A", "sacrificed"),
        *sacrificed]
    played = run(case("c-rage-sacrificed-even-after-losing"), revision=10)
    assert played.steps[1].events[2:] == [*battle, *sacrificed]


def test_a_raging_fliers_sacrifice_is_ordered_with_its_flight():
    """Revision 11 (R42): Rage's sacrifice and Flying are one end-of-battle batch in the
    active player's order (502): queued in that order, the flight first, then the sacrifice
    in the realm the flier went to."""
    played = run(case("c-rage-a-raging-flier-flies-then-is-sacrificed"))
    order = played.steps[2].prompt
    assert order is not None and order["kind"] == "order"
    assert played.steps[2].events[:2] == [
        Answered("A", "order", ["boar:flying", "boar:rage_sacrifice"]),
        TriggersQueued([Trigger("boar", "A", "flying", 2), Trigger("boar", "A", "rage_sacrifice", 2)]),
    ]
    assert played.steps[3].events[-4:] == [
        TriggerResolved("boar", "Storm Boar", "rage_sacrifice", "A", "sacrificed"),
        CardMoved("boar", "Storm Boar", "A", "world", "abyss", "sacrifice: rage", from_realm=3),
        EventCounted("A:sacrifice", 1),
        TurnEnded("A", "B"),
    ]


ATTACKERS_OWN_PROTECTOR = """\
name = "protector-of-the-winning-attacker-does-not-stop-its-own-seizure"
rules = "1.3.2"
source = "Protector: 'a one-time stoppage of an enemy attack that would seize the stone'"
description = '''
A's Hill Brute carries a protector counter and wins its own attack: its attack is not an enemy
attack to it, so A seizes the stone and the counter stays.'''
[cards."Filler"]
type = "wonder"
power = 1
cost = 9
[cards."Hill Brute"]
type = "wonder"
power = 3
cost = 2
[cards."Stone Pup"]
type = "wonder"
power = 1
cost = 1
[state]
round = 1
turn = "A"
[state.A]
deck = ["Filler", "Filler", "Filler", "Filler", "Filler"]
[state.B]
deck = ["Filler", "Filler", "Filler", "Filler", "Filler"]
[[state.world]]
id = "brute"
card = "Hill Brute"
controller = "A"
realm = 1
counters = { "protector" = 1 }
[[state.world]]
id = "pup"
card = "Stone Pup"
controller = "B"
realm = 1
[[steps]]
player = "A"
action = "attack"
realm = 1
[expect]
prompt = "turn"
turn = "B"
[expect.stones]
"1" = "A"
[expect.cards."brute"]
counters = { "protector" = 1 }
"""


def test_a_protector_on_the_winning_attackers_side_does_not_stop_its_seizure():
    played = run(ATTACKERS_OWN_PROTECTOR)
    assert played.steps[0].events[-2:] == [StoneSeized(1, "A", "center"), TurnEnded("A", "B")]
    assert C.run_case(tomllib.loads(ATTACKERS_OWN_PROTECTOR)).passed


def _fliers_at_the_edge(realm: int) -> str:
    return f"""\
name = "two-fliers-in-realm-{realm}-of-2-are-ordered"
rules = "1.3.2"
source = "Flying: 'you may move it to an adjacent realm at end of battle'; 502 (docs/rulings.md R31)"
description = '''
Round 2: two fliers attack in realm {realm}, whose only adjacent active realm is
{3 - realm}: both can fly, so A orders their moves (revision 8).'''
[cards."Filler"]
type = "wonder"
power = 1
cost = 9
[cards."Sky Hawk"]
type = "wonder"
power = 4
cost = 3
keywords = ["flying"]
[state]
round = 2
turn = "A"
[state.A]
deck = ["Filler", "Filler", "Filler", "Filler", "Filler"]
[state.B]
deck = ["Filler", "Filler", "Filler", "Filler", "Filler"]
[[state.world]]
id = "h1"
card = "Sky Hawk"
controller = "A"
realm = {realm}
[[state.world]]
id = "h2"
card = "Sky Hawk"
controller = "A"
realm = {realm}
[[steps]]
player = "A"
action = "attack"
realm = {realm}
[[steps]]
player = "A"
expect_prompt = "order"
pick = ["h2", "h1"]
[[steps]]
player = "A"
expect_prompt = "realm"
pick = {3 - realm}
[[steps]]
player = "A"
expect_prompt = "realm"
pick = "no"
[expect]
[expect.cards.h1]
realm = {realm}
[expect.cards.h2]
realm = {3 - realm}
"""


@pytest.mark.parametrize("realm", [1, 2])
def test_a_flier_with_one_adjacent_active_realm_can_fly_on_either_side(realm):
    """A flier in realm 1 (only realm 2 beside it) or in the newest realm (only the one
    before it) can fly, so two of them are ordered by their controller (revision 8), and each
    is offered only its one adjacent active realm."""
    text = _fliers_at_the_edge(realm)
    played = run(text)
    fly = played.steps[2].prompt
    assert fly is not None and [o["decision"]["pick"] for o in fly["options"]] == [3 - realm, "no"]
    result = C.run_case(tomllib.loads(text))
    assert result.passed, result.line()


def test_a_stopped_seizure_removes_one_protector_counter_of_several():
    """Protector: "remove a protector counter" -- one, even from a card that has two: it
    stays a protector for the next enemy attack."""
    data = case("c-protector-the-defender-chooses-which")
    data["state"]["world"][3]["counters"] = {"protector": 2}
    data["expect"]["cards"]["p2"]["counters"] = {"protector": 1}
    played = run(data)
    assert played.steps[1].events[1] == CounterChanged("p2", "protector", -1, 1)
    result = C.run_case(data)
    assert result.passed, result.line()


def test_a_free_attack_is_recorded_as_one():
    """404.3 / Free Attack: the free attack is spent before actions, and the battle it starts
    is recorded as a free attack (the narration says so)."""
    played = run(case("c404.3-free-attack-is-spent-before-actions"))
    assert played.steps[0].events[1:3] == [
        ResourcesChanged("A", "attack", free_attacks=0),
        BattleStarted(1, "A", "B", free_attack=True),
    ]
