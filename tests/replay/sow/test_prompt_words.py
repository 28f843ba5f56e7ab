"""A State of Wonder prompt names cards in words on the table page, never by id
(replay/sow/labels.py): the damage split asks "how much to Raider?", and where two cards in
play share a name, says whose and where, then what else the board shows, then which one."""

from __future__ import annotations

from typing import Any

from replay.games import game
from replay.sow.engine import Engine
from replay.sow.events import LockChosen, Picked
from tests.replay.sow.positions import engine_at
from web.api.common import generic_prompt

SOW = game("sow")
PLAYERS = {"A": "Ann", "B": "Bob"}


def at_damage(cards: list[dict[str, Any]]) -> Engine:
    """A attacks with a1 and a2, B meets them with b1, a2 is locked with b1, a1 joins: B's
    Shieldbearer splits its damage."""
    engine, _ = engine_at({"phase": "combat", "cards": cards}, "prompt words")
    engine.start()
    engine.decide(Picked("A", "attackers", ["a1", "a2"]))
    engine.decide(Picked("B", "defenders", ["b1"]))
    engine.decide(LockChosen("A", "a2", "b1"))
    assert engine.prompt is not None and engine.prompt.kind == "damage"
    return engine


def words(engine: Engine, view: str = "B") -> str:
    return generic_prompt(SOW, engine, view, PLAYERS)["text"]


def test_the_damage_split_names_both_units():
    engine = at_damage([{"id": "a1", "card": "Militia", "area": "units"},
                        {"id": "a2", "card": "Raider", "area": "units"},
                        {"id": "b1", "card": "Shieldbearer", "area": "units"}])
    assert engine.prompt is not None and "a2" in engine.prompt.text  # the engine's own words
    assert words(engine) == "Shieldbearer has 1 damage left: how much to Raider?"
    assert words(engine, "A") == words(engine, "omniscient") == words(engine)


def test_a_name_two_cards_in_play_share_says_whose_and_where_then_which():
    engine = at_damage([{"id": "a1", "card": "Militia", "area": "units"},
                        {"id": "a2", "card": "Raider", "area": "units"},
                        {"id": "b1", "card": "Shieldbearer", "area": "units"},
                        {"id": "b2", "card": "Raider", "area": "units"}])
    assert words(engine) == ("Shieldbearer has 1 damage left: how much to "
                             "Raider (Ann's, pitched battle)?")
    engine = at_damage([{"id": "a1", "card": "Raider", "area": "units"},
                        {"id": "a2", "card": "Raider", "area": "units"},
                        {"id": "b1", "card": "Shieldbearer", "area": "units"}])
    text = words(engine)
    assert text.startswith("Shieldbearer has 1 damage left: how much to Raider (Ann's, "
                           "pitched battle, ") and text.endswith("), the second?"), text


# -- the listed options and picks: which card is which (as WotF's labels do, replay/wotf/labels.py)

def at_tactics() -> Engine:
    """A attacks with two Raiders; B meets them with two Militias, one of them damaged: A
    locks first ("The players alternate locking units into combat", rules text 004)."""
    engine, _ = engine_at({"phase": "combat", "cards": [
        {"id": "a1", "card": "Raider", "area": "units"},
        {"id": "a2", "card": "Raider", "area": "units"},
        {"id": "b1", "card": "Militia", "area": "units"},
        {"id": "b2", "card": "Militia", "area": "units", "damage": 1}]}, "option words")
    engine.start()
    engine.decide(Picked("A", "attackers", ["a1", "a2"]))
    assert engine.prompt is not None and engine.prompt.kind == "defenders"
    return engine


def test_defenders_of_one_name_are_told_apart_in_the_choice():
    engine = at_tactics()
    shown = generic_prompt(SOW, engine, "B", PLAYERS)
    labels = [shown["labels"][cid] for cid in shown["choose"]["of"]]
    assert len(set(labels)) == len(labels) == 2, labels
    assert "damage 1" in shown["labels"]["b2"] and "damage" not in shown["labels"]["b1"]
    assert not any(cid in label.split() for label in labels for cid in engine.state.cards)


def test_tactics_locks_say_which_unit_meets_which():
    engine = at_tactics()
    engine.decide(Picked("B", "defenders", ["b1", "b2"]))
    assert engine.prompt is not None and engine.prompt.kind == "tactics"
    shown = generic_prompt(SOW, engine, "A", PLAYERS)
    labels = [o["label"] for o in shown["options"]]
    assert len(labels) == 4 and len(set(labels)) == 4, labels  # was "Ann locks Raider with
    # Militia." four times over
    lock = next(o["label"] for o in shown["options"]
                if o["decision"] == {"type": "LockChosen", "unit": "a1", "enemy": "b2"})
    assert lock.startswith("Ann locks Raider (") and "damage 1" in lock, lock


def test_a_combat_to_join_is_named_by_its_units_not_its_index():
    engine = at_tactics()
    engine.decide(Picked("B", "defenders", ["b1", "b2"]))
    engine.decide(LockChosen("A", "a1", "b2"))
    shown = generic_prompt(SOW, engine, "B", PLAYERS)
    joins = [o["label"] for o in shown["options"] if o["decision"]["type"] == "JoinChosen"]
    assert joins == ["Bob sends Militia (Bob's, pitched battle, ready) into the combat of "
                     "Raider (Ann's, pitched battle, ready), the first and "
                     "Militia (Bob's, pitched battle, damage 1, ready)."], joins  # not "combat 1"
