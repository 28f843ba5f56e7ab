"""The Main Phase, whole: the options offered to the turn player, the words of every refusal,
and the events of playing a card and activating an ability (rules, "How to play cards",
"Main Phase")."""

from __future__ import annotations

from typing import Any

import pytest

from ledger.events import Event
from replay.prompts import Prompt
from replay.sow.actions import ACTIVATE_RULE, HAND_RULE, PLAY_RULE
from replay.sow.engine import Engine
from replay.sow.events import (
    ActivationChosen,
    CardPutIntoPlay,
    Exhausted,
    GoldSpent,
    LockChosen,
    MainPassed,
    PlayChosen,
)
from tests.replay.sow.positions import engine_at


def main_position(gold: int = 3) -> dict[str, Any]:
    return {
        "phase": "main", "A": {"gold": gold},
        "cards": [
            {"id": "a1", "card": "Militia"},
            {"id": "a2", "card": "Halberdier"},  # costs 3: exactly A's gold
            {"id": "a3", "card": "Iron Guard"},  # costs 4
            {"id": "a4", "card": "Wandering Sage", "area": "wonder_area"},
            {"id": "a5", "card": "Farm", "area": "discard"},
            {"id": "a6", "card": "Catapult", "area": "units"},
            {"id": "a7", "card": "Sun Priest", "area": "units", "exhausted": True},
            {"id": "a8", "card": "Observatory", "area": "buildings"},
            {"id": "a9", "card": "Scriptorium"},
            {"id": "b1", "card": "Militia"},
            {"id": "b2", "card": "Catapult", "area": "units"},
            {"id": "b3", "card": "Stone Wall", "area": "fortifications"},
        ],
    }


def started(gold: int = 3) -> Engine:
    engine, _ = engine_at(main_position(gold), "main phase")
    engine.start()
    return engine


def test_the_options_are_every_affordable_card_and_usable_ability_then_pass() -> None:
    """"To play a card a player pays the cost of the card": a card from the Culture Area or
    the Wonder area the player can pay for; an activated ability of a card in play whose cost
    (gold, "Exhaust") can be paid; and ending the Main Phase."""
    engine = started()
    assert engine.prompt == Prompt("A", "turn", options=[
        PlayChosen("A", "a1"), PlayChosen("A", "a2"), PlayChosen("A", "a4"),
        PlayChosen("A", "a9"),
        ActivationChosen("A", "a6", "catapult-volley"),
        ActivationChosen("A", "a8", "observatory-charts"),
        MainPassed("A")], text="play a card, activate an ability or pass")


@pytest.mark.parametrize(("decision", "reason"), [
    (PlayChosen("A", "a3"), f"Iron Guard costs 4 gold and you have 3 ({PLAY_RULE})"),
    (PlayChosen("A", "a5"), f"a5 is not a card in your Culture or Wonder area ({HAND_RULE})"),
    (PlayChosen("A", "b1"), f"b1 is not a card in your Culture or Wonder area ({HAND_RULE})"),
    (PlayChosen("A", "a6"), f"a6 is not a card in your Culture or Wonder area ({HAND_RULE})"),
    (PlayChosen("A", "zz"), f"zz is not a card in your Culture or Wonder area ({HAND_RULE})"),
    (ActivationChosen("A", "a7", "sun-priest-devotion"),
     f"Sun Priest is exhausted and cannot pay \"Exhaust\" (\"Units are exhausted the turn they "
     f"are played\"; {ACTIVATE_RULE})"),
    (ActivationChosen("A", "a9", "scriptorium-copy"), "a9 is not one of your cards in play"),
    (ActivationChosen("A", "b2", "catapult-volley"), "b2 is not one of your cards in play"),
    (ActivationChosen("A", "zz", "catapult-volley"), "zz is not one of your cards in play"),
    (ActivationChosen("A", "a6", "nope"),
     f"Catapult has no activated ability 'nope' ({ACTIVATE_RULE})"),
    (LockChosen("A", "a6", "b2"),
     "in the Main Phase \"players can play cards and activate abilities\" or end it; "
     "LockChosen is not one of those"),
])
def test_each_refusal_in_its_words(decision: Event, reason: str) -> None:
    assert started().check(decision) == reason


def test_an_ability_that_costs_more_gold_than_the_player_has() -> None:
    engine = started(gold=1)
    assert engine.check(ActivationChosen("A", "a6", "catapult-volley")) == \
        f"the cost is 2 gold and you have 1 ({ACTIVATE_RULE})"
    assert ActivationChosen("A", "a6", "catapult-volley") not in engine.main_options("A")
    assert engine.main_options("A") == [PlayChosen("A", "a1"), MainPassed("A")]


@pytest.mark.parametrize(("card", "events"), [
    # "Units are exhausted the turn they are played" -- a Hero fights as a unit (R5), played
    # from the Wonder area "as if it was in the player's Culture Area".
    ("a2", [GoldSpent("A", 3, "play Halberdier"),
            CardPutIntoPlay("A", "a2", "Halberdier", "culture", "units", True)]),
    ("a4", [GoldSpent("A", 3, "play Wandering Sage"),
            CardPutIntoPlay("A", "a4", "Wandering Sage", "wonder_area", "units", True)]),
    ("a9", [GoldSpent("A", 2, "play Scriptorium"),
            CardPutIntoPlay("A", "a9", "Scriptorium", "culture", "buildings", False)]),
])
def test_playing_a_card_pays_and_puts_it_into_its_area(card: str, events: list[Event]) -> None:
    engine = started()
    seen = engine.decide(PlayChosen("A", card))
    assert seen[1:3] == events
    assert engine.state.cards[card].area == events[1].to_area  # type: ignore[attr-defined]


def test_playing_a_card_with_a_when_played_ability_resolves_it() -> None:
    """Triggered: "such as a player playing a unit" -- the Scout's "When this is played, gain
    1 Gold"."""
    position = main_position(1)
    position["cards"].append({"id": "a10", "card": "Scout"})
    engine, _ = engine_at(position, "scout")
    engine.start()
    seen = engine.decide(PlayChosen("A", "a10"))
    assert [type(e).__name__ for e in seen][:4] == \
        ["PlayChosen", "GoldSpent", "CardPutIntoPlay", "AbilityResolved"]
    assert engine.state.players["A"].gold == 1  # paid 1, gained 1


def test_activating_pays_gold_and_exhausts_then_resolves() -> None:
    """"To activate such an ability, a player would have to pay 2 Gold and exhaust the card"."""
    engine = started()
    seen = engine.decide(ActivationChosen("A", "a6", "catapult-volley"))
    assert seen[1:3] == [GoldSpent("A", 2, "Catapult: catapult-volley"),
                         Exhausted("a6", "Catapult", "cost of catapult-volley")]
    assert engine.state.cards["b3"].damage == 2  # the only enemy structure: not asked
    assert engine.state.players["A"].gold == 1
    assert engine.prompt is not None and engine.prompt.kind == "turn"


def test_passing_ends_the_main_phase() -> None:
    """"When a player no longer can activate any abilities or play any cards or does not
    wish to do so, the Main Phase ends and the Combat Phase begins.\""""
    engine = started()
    engine.decide(MainPassed("A"))
    assert engine.state.phase == "combat"
    assert engine.prompt is not None and engine.prompt.kind == "attackers"
