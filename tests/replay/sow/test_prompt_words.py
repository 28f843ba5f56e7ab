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
