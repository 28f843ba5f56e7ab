"""The Combat Phase's prompts, whole: who is asked, what, in which words and with which
choices -- the words are what a seat reads on the table page (docs/api.md: a prompt's
``text``) -- and the outcome of each answer, event by event (rules, "Combat Phase")."""

from __future__ import annotations

from typing import Any

from ledger.events import Event
from replay.prompts import Choose, Prompt
from replay.sow.engine import Engine
from replay.sow.events import (
    BattleClosed,
    DamageAssigned,
    DamageDealt,
    Exhausted,
    JoinChosen,
    LockChosen,
    PhaseBegan,
    Picked,
    Retreated,
    SiegeDefendersSent,
    SiegeEnded,
    StrikeChosen,
    StructureAttacked,
    UnitsReturned,
)
from tests.replay.sow.positions import engine_at

ATTACK: dict[str, Any] = {
    "phase": "combat",
    "cards": [
        {"id": "a1", "card": "Militia", "area": "units"},
        {"id": "a2", "card": "Raider", "area": "units"},
        {"id": "a3", "card": "Halberdier", "area": "units", "exhausted": True},
        {"id": "b1", "card": "Shieldbearer", "area": "units"},
        {"id": "b2", "card": "Militia", "area": "units"},
        {"id": "bf", "card": "Stone Wall", "area": "fortifications"},
    ],
}


def started(position: dict[str, Any]) -> tuple[Engine, list[Event]]:
    engine, _ = engine_at(position, "combat prompts")
    return engine, engine.start()


def names(events: list[Event]) -> list[str]:
    return [type(e).__name__ for e in events]


def test_declaring_attackers_and_defenders() -> None:
    """"The turn player declares which units to attack with" -- any of its ready units, or
    none; "The defending player can choose to meet the attacking player in pitched battle if
    they wish" -- with any of its ready units, or none."""
    engine, _ = started(ATTACK)
    assert engine.prompt == Prompt("A", "attackers", choose=Choose(["a1", "a2"], 0, 2),
                                   text="declare attackers (none: no attack)")
    assert engine.check(Picked("A", "attackers", [])) is None  # no attack is an answer
    engine.decide(Picked("A", "attackers", ["a1", "a2"]))
    assert engine.prompt == Prompt("B", "defenders", choose=Choose(["b1", "b2"], 0, 2),
                                   text="send units to meet them in pitched battle")
    assert engine.check(Picked("B", "defenders", [])) is None


def test_no_attack_ends_the_combat_phase() -> None:
    engine, _ = started(ATTACK)
    seen = engine.decide(Picked("A", "attackers", []))
    assert "AttackersDeclared" not in names(seen) and seen[1] == PhaseBegan("retrieval")
    assert engine.state.turn == "B"


def test_pitched_battle_tactics_and_damage_prompts() -> None:
    """Combat tactics ("the out of turn player can choose either a unit to lock in combat or
    a combat to join") and the damage split ("the controller of the unit decides how each
    unit distributes its damage among the enemy units")."""
    engine, _ = started(ATTACK)
    engine.decide(Picked("A", "attackers", ["a1", "a2"]))
    engine.decide(Picked("B", "defenders", ["b1"]))
    assert engine.prompt == Prompt("A", "tactics", options=[
        LockChosen("A", "a1", "b1"), LockChosen("A", "a2", "b1")],
        text="lock a unit, join a combat")
    # A decision naming one of A's unassigned units that is none of the three
    assert engine.check(DamageAssigned("A", "a1", "b1", 1)) == \
        "answer the tactics prompt with LockChosen, JoinChosen or StrikeChosen"
    seen = engine.decide(LockChosen("A", "a2", "b1"))
    # a1 joins (its only choice); each of A's units has one enemy: its damage is not asked
    assert names(seen) == ["LockChosen", "CombatLocked", "CombatJoined", "DamageAssigned",
                           "DamageAssigned"]
    # B's Shieldbearer (attack 1) against two: B splits, one enemy at a time.
    assert engine.prompt == Prompt("B", "damage", options=[0, 1], card="b1",
                                   text="b1 has 1 damage left: how much to a2?")
    seen = engine.decide(Picked("B", "damage", 0))
    assert seen[1:3] == [DamageAssigned("B", "b1", "a2", 0), DamageAssigned("B", "b1", "a1", 1)]
    # Raider 2 + Militia 1 = 3 damage to the Shieldbearer (health 4): it survives; the
    # Militia (health 2) takes 1 and survives.  Units on both sides go home.
    assert seen[3:8] == [DamageDealt("a2", "b1", "Shieldbearer", 2, 2),
                         DamageDealt("a1", "b1", "Shieldbearer", 1, 3),
                         DamageDealt("b1", "a1", "Militia", 1, 1),
                         UnitsReturned(["a1", "a2", "b1"]), BattleClosed("pitched")]


def test_siege_prompts_and_structure_attack() -> None:
    """"If the player does not wish to send any units to the Pitched Battle Zone, the
    attacking player besieges the defending player"; the siege is fought "as a normal
    pitched battle ... WITH the following exception: The attacking player can choose to
    attack a building or fortification with a unit"."""
    engine, _ = started(ATTACK)
    engine.decide(Picked("A", "attackers", ["a2"]))
    seen = engine.decide(Picked("B", "defenders", []))
    assert names(seen)[1:] == ["SiegeEntered", "PlayerBesieged", "BattleClosed", "SiegeStepBegan"]
    assert engine.prompt == Prompt("B", "siege_defenders", choose=Choose(["b1", "b2"], 0, 2),
                                   text="send units against the besiegers")
    assert engine.check(Picked("B", "siege_defenders", [])) is None
    seen = engine.decide(Picked("B", "siege_defenders", ["b2"]))
    assert seen[1] == SiegeDefendersSent("B", ["b2"])
    assert engine.prompt == Prompt("A", "tactics", options=[
        LockChosen("A", "a2", "b2"), StrikeChosen("A", "a2", "bf")],
        text="lock a unit, join a combat or attack a structure")
    seen = engine.decide(StrikeChosen("A", "a2", "bf"))
    # "Attacking buildings or fortifications exhausts the unit doing so"
    assert seen[1:3] == [StructureAttacked("a2", "bf", "Stone Wall"),
                         Exhausted("a2", "Raider", "siege attack")]
    assert engine.state.cards["bf"].damage == 2  # the Raider's attack, at once


def test_retreat_and_continue_prompts() -> None:
    """"If a player is in a city siege, they can declare to retreat their units during any
    player's Declare Attackers Step"; "If the attacker has units left, they may continue into
    a City Siege" (R20)."""
    siege = {"phase": "combat", "A": {"besieging": True},
             "cards": [{"id": "a1", "card": "Raider", "area": "siege"},
                       {"id": "a2", "card": "Halberdier", "area": "units"},
                       {"id": "b1", "card": "Militia", "area": "units"}]}
    engine, _ = started(siege)
    assert engine.prompt == Prompt("A", "retreat", options=["stay", "retreat"],
                                   text="retreat your besieging units?")
    seen = engine.decide(Picked("A", "retreat", "retreat"))
    assert seen[1:] == [Retreated("A", ["a1"]), SiegeEnded("A", "retreat")]
    assert engine.state.cards["a1"].area == "units" and not engine.state.players["A"].besieging
    engine.decide(Picked("A", "attackers", ["a2"]))
    seen = engine.decide(Picked("B", "defenders", ["b1"]))
    # Halberdier 3 against Militia 1/2: the Militia dies, the Halberdier is left.
    assert engine.prompt == Prompt("A", "siege", options=["besiege", "return"],
                                   text="continue into a City Siege?")
    seen = engine.decide(Picked("A", "siege", "return"))
    assert names(seen)[1:3] == ["UnitsReturned", "BattleClosed"]
    assert engine.state.cards["a2"].area == "units" and not engine.state.players["A"].besieging


def test_join_is_offered_once_a_combat_exists() -> None:
    engine, _ = started(ATTACK)
    engine.decide(Picked("A", "attackers", ["a1", "a2"]))
    engine.decide(Picked("B", "defenders", ["b1", "b2"]))
    engine.decide(LockChosen("A", "a1", "b1"))
    assert engine.prompt is not None and engine.prompt.seat == "B"
    assert JoinChosen("B", "b2", 0) in engine.prompt.options
    assert LockChosen("B", "b2", "a2") in engine.prompt.options
