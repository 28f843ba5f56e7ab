"""The read-only questions of ``replay.sow.queries.View`` on a hand-built position, each answer
worked out by hand from the rules' sentence it implements."""

from __future__ import annotations

from typing import Any

from replay.sow.queries import View
from tests.replay.sow.positions import position

POSITION: dict[str, Any] = {
    "turn": "A",
    "A": {"state": {"card": "Red Steppe", "damage": 3}},
    "B": {"state": "Ironhold"},
    "cards": [
        {"id": "a1", "card": "Militia", "area": "units"},
        {"id": "a2", "card": "Raider", "area": "units", "exhausted": True},
        {"id": "a3", "card": "Wandering Sage", "area": "units"},
        {"id": "a4", "card": "Militia", "area": "battle", "exhausted": True},
        {"id": "a5", "card": "Raider", "area": "siege"},
        {"id": "a6", "card": "Farm", "area": "buildings", "damage": 1},
        {"id": "a7", "card": "Market", "area": "buildings"},
        {"id": "a8", "card": "Palisade", "area": "fortifications", "damage": 2},
        {"id": "a9", "card": "Militia", "area": "culture"},
        {"id": "a10", "card": "Raider", "area": "discard", "exhausted": True},
        {"id": "b1", "card": "Militia", "area": "units"},
        {"id": "b2", "card": "Shieldbearer", "area": "battle"},
        {"id": "b3", "card": "Raider", "area": "siege"},
        {"id": "b4", "card": "Guard Tower", "area": "fortifications"},
        {"id": "b5", "card": "Farm", "area": "buildings", "damage": 1},
        {"id": "b6", "card": "Colossus", "area": "buildings"},
        {"id": "b7", "card": "Marshal Kedra", "area": "units"},
        {"id": "b8", "card": "Quarry", "area": "wonder_area"},
    ],
}


def view() -> View:
    state, cards = position(POSITION, "queries")
    return View(state, cards)


def test_ability_targets() -> None:
    """Units are targets wherever they fight (Unit Area, Pitched Battle Zone, a siege), never
    from the culture or the discard pile; a structure to repair is a damaged one of yours."""
    v = view()
    assert v.targets("A", "enemy_unit") == ["b1", "b2", "b3", "b7"]
    assert v.targets("B", "enemy_unit") == ["a1", "a2", "a3", "a4", "a5"]
    assert v.targets("A", "own_unit") == ["a1", "a2", "a3", "a4", "a5"]
    assert v.targets("A", "own_exhausted_unit") == ["a2", "a4"]
    assert v.targets("B", "own_exhausted_unit") == []
    assert v.targets("A", "own_structure") == ["A-S", "a6", "a8"]
    assert v.targets("B", "own_structure") == ["b5"]
    assert v.targets("A", "enemy_structure") == ["b4", "b5", "b6"]
    assert v.targets("A", "no such target") == []


def test_siege_targets_fortifications_first() -> None:
    """"Fortifications has to be attacked before your opponent can attack anything else in
    your city"; then the buildings (a Wonder among them) and the State -- never a Hero (R7)."""
    v = view()
    assert v.siege_targets("B") == ["b4"]
    assert v.siege_targets("A") == ["a8"]
    del v.state.cards["b4"]
    assert v.siege_targets("B") == ["B-S", "b5", "b6"]


def test_units_at_home_ready_and_besieging() -> None:
    """Exhausted units "cannot attack or defend"; besiegers are a seat's units in the other
    city's Attacker area."""
    v = view()
    assert v.home_units("A") == ["a1", "a2", "a3"]
    assert v.ready_home_units("A") == ["a1", "a3"]
    assert v.home_units("B") == ["b1", "b7"]
    assert v.besiegers("A") == ["a5"] and v.besiegers("B") == ["b3"]
    assert [c.id for c in v.in_play("B")] == ["B-S", "b1", "b2", "b3", "b4", "b5", "b6", "b7"]


def test_income_is_the_state_card_plus_income_abilities_in_play() -> None:
    """"a State Card with an income of 4 and a card that has the following ability "Income +1"
    ... would gain 5 Gold"; a card in the Wonder area is not in play."""
    v = view()
    assert v.income("A") == 4 + 1 + 1  # Red Steppe, Farm, Market
    assert v.income("B") == 3 + 1  # Ironhold, Farm (the Quarry is in the Wonder area)
    del v.state.cards["A-S"]
    assert v.income("A") == 2  # no State card: the abilities alone
    assert v.state_card("A") is None and v.state_card("B") is v.state.cards["B-S"]


def test_progress_card_is_the_wonder_or_hero_in_play() -> None:
    v = view()
    assert v.progress_card("A") is v.state.cards["a3"]  # a Hero in the Unit Area
    assert v.progress_card("B") is v.state.cards["b6"]  # the Wonder, before the Hero (id order)
    del v.state.cards["a3"]
    assert v.progress_card("A") is None


def test_lethal_at_damage_equal_to_health() -> None:
    """"Units which have been dealt damage equal to or more than their health are destroyed"."""
    v = view()
    v.state.cards["a1"].damage = 1
    assert not v.is_lethal("a1")
    v.state.cards["a1"].damage = 2
    assert v.is_lethal("a1")
    assert v.is_unit("a3") and v.is_unit("a1") and not v.is_unit("a6")


def test_triggered_abilities_in_card_order() -> None:
    """Ironhold's and the Guard Tower's "besieged" triggers, both in play."""
    v = view()
    assert [(cid, a.id) for cid, a in v.triggered("B", "besieged")] == \
        [("B-S", "ironhold-boiling-oil"), ("b4", "guard-tower-volley")]
    assert v.triggered("A", "besieged") == []
