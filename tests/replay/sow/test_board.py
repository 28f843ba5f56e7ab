"""The State of Wonder board view model, whole, for a hand-built position: every area of both
cities, the Pitched Battle Zone, effective stats, income, progress -- and the hidden areas
(rules, "Zones & Areas": "This is a Hidden Area, only the corresponding player can see the
area") shown by name to their owner only, as a count to everyone else."""

from __future__ import annotations

from typing import Any

import pytest

from replay.sow.perspective import board, card_names
from replay.sow.state import SowState
from tests.replay.sow.positions import position

POSITION: dict[str, Any] = {
    "turn": "A", "phase": "combat", "turn_number": 3,
    "A": {"gold": 5, "besieging": True, "state": {"card": "Red Steppe", "damage": 2}},
    "B": {"gold": 2, "state": "Ironhold"},
    "cards": [
        {"id": "a1", "card": "Militia", "area": "units", "exhausted": True, "counters": 1},
        {"id": "a2", "card": "Raider", "area": "siege"},
        {"id": "a3", "card": "Armory", "area": "buildings"},
        {"id": "a4", "card": "Barracks", "area": "buildings"},
        {"id": "a5", "card": "Colossus", "area": "buildings", "progress": 2},
        {"id": "a6", "card": "Quarry", "area": "culture"},
        {"id": "a7", "card": "Sun Spire", "area": "wonder_area"},
        {"id": "a8", "card": "Scout", "area": "discard"},
        {"id": "a9", "card": "Palisade", "area": "fortifications", "damage": 1},
        {"id": "a10", "card": "Mercenary", "area": "battle"},
        {"id": "a11", "card": "Farm", "area": "buildings"},
        {"id": "b1", "card": "Wandering Sage", "area": "units", "progress": 3},
        {"id": "b2", "card": "Shieldbearer", "area": "battle"},
        {"id": "b3", "card": "Militia", "area": "culture"},
        {"id": "b4", "card": "Colossus", "area": "wonder_area"},
    ],
}


def unit(name: str, attack: int, health: int, **marks: Any) -> dict[str, Any]:
    return {"name": name, "type": "unit", "exhausted": False, "damage": 0,
            "attack": attack, "health": health} | marks


def structure(name: str, kind: str, health: int, **marks: Any) -> dict[str, Any]:
    return {"name": name, "type": kind, "exhausted": False, "damage": 0, "health": health} | marks


# Worked by hand from fixtures/sow/cards: A's Armory ("Your units get +1 attack") and Barracks
# (+1 health) count for A's units only, and for no structure; a +1/+1 counter adds to both
# (rules: "Static Abilities are always on ... as long as the source of the ability is in play").
CITY_A: dict[str, Any] = {
    "attackers": [],
    "fortifications": [structure("Palisade", "fortification", 3, damage=1)],
    "units": [unit("Militia", 3, 4, exhausted=True, counters=1)],
    "buildings": [structure("Armory", "building", 4), structure("Barracks", "building", 4),
                  structure("Colossus", "wonder", 9, progress=2, progress_rate=7),
                  structure("Farm", "building", 2)],
    "state": [structure("Red Steppe", "state", 14, damage=2)],
    "discard": ["Scout"],
    "gold": 5,
    # Red Steppe's income 4 and the Farm's "Income +1"; the Quarry in the culture is not in play.
    "income": 5,
    "progress": {"card": "Colossus", "counters": 2, "target": 7},
    "besieging": True,
}
CITY_B: dict[str, Any] = {
    "attackers": [unit("Raider", 3, 2)],  # A's besieger, with A's bonuses
    "fortifications": [],
    "units": [{"name": "Wandering Sage", "type": "hero", "exhausted": False, "damage": 0,
               "attack": 1, "health": 3, "progress": 3, "progress_rate": 9}],
    "buildings": [],
    "state": [structure("Ironhold", "state", 20)],
    "discard": [],
    "gold": 2,
    "income": 3,
    "progress": {"card": "Wandering Sage", "counters": 3, "target": 9},
    "besieging": False,
}
HIDDEN = {"A": {"culture": ["Quarry"], "wonder_area": ["Sun Spire"]},
          "B": {"culture": ["Militia"], "wonder_area": ["Colossus"]}}


def expected(perspective: str) -> dict[str, Any]:
    cities = {}
    for seat, city in (("A", CITY_A), ("B", CITY_B)):
        sees = perspective in ("omniscient", seat)
        hidden = {area: names if sees else len(names) for area, names in HIDDEN[seat].items()}
        cities[seat] = city | hidden
    return {
        "game": "sow", "perspective": perspective, "turn": 3, "turn_player": "A",
        "phase": "combat", "over": False, "winner": None, "reason": None,
        "cities": cities,
        "pitched_battle": [unit("Mercenary", 4, 3, owner="A"),
                           unit("Shieldbearer", 1, 4, owner="B")],
    }


def built() -> tuple[SowState, Any]:
    return position(POSITION, "board")


@pytest.mark.parametrize("perspective", ["omniscient", "A", "B", "spectator"])
def test_the_whole_board_of_a_position(perspective: str) -> None:
    state, cards = built()
    assert board(state, cards, perspective) == expected(perspective)


def test_a_finished_match_and_no_turn_yet() -> None:
    state, cards = built()
    state.over, state.winner, state.reason, state.turn = True, "B", "state_destroyed", ""
    seen = board(state, cards, "spectator")
    assert (seen["over"], seen["winner"], seen["reason"], seen["turn_player"]) == \
        (True, "B", "state_destroyed", None)


def test_no_progress_card_in_play_is_none() -> None:
    """A Wonder still face down in the Wonder area makes no progress (not in play)."""
    state, cards = built()
    del state.cards["a5"]
    assert board(state, cards, "A")["cities"]["A"]["progress"] is None


@pytest.mark.parametrize(("perspective", "hidden_named"), [
    ("omniscient", {"a6", "a7", "b3", "b4"}), ("A", {"a6", "a7"}), ("B", {"b3", "b4"}),
    ("spectator", set())])
def test_card_names_name_hidden_cards_to_their_owner_only(
        perspective: str, hidden_named: set[str]) -> None:
    state, _ = built()
    names = card_names(state, perspective)
    hidden = {"a6", "a7", "b3", "b4"}
    assert set(names) == (set(state.cards) - hidden) | hidden_named
    assert all(names[cid] == state.cards[cid].name for cid in names)
