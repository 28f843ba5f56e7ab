"""Triggers set off in the middle of an effect (docs/rulings.md R47, an open question).

501 (v1.2; v1.3.2 section 5 the same): "When a triggered effect is created, the controller of
that effect resolves it immediately. If it triggers in the middle of another effect resolving,
finish the first effect before resolving the second. For example, you play a spell that says
'Destroy target Wonder and draw a card.' This triggers another card's ability that reads
'Whenever a Wonder dies, you may deny 1.' In this case, you draw the card before you deny 1."

The engine resolves every trigger inside the operation that sets it off -- a death's, an
arrival's, a move's, and (revision 11, R43) the equip trigger of a change of control -- before
the effect's remaining operations.  R47 says when they should resolve (after the effect) and why
revision 12 does not change it yet; these tests state the rule and fail today (strict xfail), so
the change, when it comes, shows here.
"""

from __future__ import annotations

from typing import Any

import pytest

from ledger.events import Event
from replay.wotf import conformance as C
from replay.wotf.cards import default_cards, parse_card
from replay.wotf.engine import Engine
from replay.wotf.events import Answered, CardMoved, PlayDeclared

OPEN = "R47: a trigger set off in the middle of an effect resolves at once, not after it (501)"
FILLER = {"Filler": {"type": "wonder", "power": 1, "cost": 9}, "Pup": {"type": "wonder",
                                                                       "power": 1, "cost": 1}}
SLAY = {"name": "Slay and Learn", "type": "spell", "cost": 1, "abilities": [
    {"when": "play", "text": "Destroy target Wonder and draw a card.",
     "effects": [{"do": "destroy", "target": {"what": "wonder"}}, {"do": "draw", "amount": 1}]}]}
MOURNER = {"name": "Mourner", "type": "wonder", "power": 3, "cost": 3, "abilities": [
    {"when": "whenever", "on": {"event": "dies", "subject": {"what": "wonder"}},
     "text": "Whenever a Wonder dies, deny 1.", "effects": [{"do": "deny", "amount": 1}]}]}
PURGE = {"name": "Theft and Purge", "type": "spell", "cost": 1, "abilities": [
    {"when": "play", "text": "Gain control of target enemy Wonder. Destroy all Wonders with "
                             "power 2 or less.",
     "effects": [{"do": "control", "target": {"what": "wonder", "side": "enemy"}},
                 {"do": "destroy", "target": {"pick": "all", "what": "wonder",
                                              "power_max": 2}}]}]}


def _engine(state: dict[str, Any], *cards: dict[str, Any]) -> tuple[Engine, list[Event]]:
    db = C._case_cards(FILLER, default_cards()).with_cards(
        [parse_card(card, str(n)) for n, card in enumerate(cards)])
    engine = Engine(db, C.build_state(state, "1.3.2", db))
    return engine, list(engine.start())


@pytest.mark.xfail(strict=True, reason=OPEN)
def test_501s_example_draws_before_the_death_trigger_denies():
    engine, log = _engine({"round": 3, "turn": "A",
                           "A": {"energy": 3, "actions": 3, "deck": ["Filler"] * 4,
                                 "hand": [{"id": "slay", "card": "Slay and Learn"}]},
                           "B": {"actions": 0, "deck": ["Filler"] * 4},
                           "world": [{"id": "m", "card": "Mourner", "controller": "A", "realm": 1},
                                     {"id": "v", "card": "Filler", "controller": "B", "realm": 1}]},
                          SLAY, MOURNER)
    log += engine.decide(PlayDeclared("A", "slay", None, []))
    log += engine.decide(Answered("A", "target", "v"))
    reasons = [e.reason for e in log if isinstance(e, CardMoved) and e.from_zone == "deck"]
    assert reasons == ["effect", "deny"]  # today: ["deny", "effect"]


@pytest.mark.xfail(strict=True, reason=OPEN)
def test_an_equip_set_off_by_a_change_of_control_waits_for_the_rest_of_the_effect():
    """A takes B's Pup (power 1) beside A's unequipped Ember Brand (+2), then destroys every
    Wonder with power 2 or less: the Brand's equip waits until the effect is finished, so the
    Pup dies at power 1 and the Brand stays unequipped."""
    engine, log = _engine({"round": 3, "turn": "A",
                           "A": {"energy": 3, "actions": 3, "deck": ["Filler"] * 4,
                                 "hand": [{"id": "purge", "card": "Theft and Purge"}]},
                           "B": {"actions": 0, "deck": ["Filler"] * 4},
                           "world": [{"id": "pup", "card": "Pup", "controller": "B", "realm": 2},
                                     {"id": "brand", "card": "Ember Brand", "controller": "A",
                                      "realm": 2}]},
                          PURGE)
    log += engine.decide(PlayDeclared("A", "purge", None, []))
    if engine.prompt is not None and engine.prompt.kind == "target":
        log += engine.decide(Answered("A", "target", "pup"))
    assert engine.state.cards["pup"].zone == "abyss"  # today: equipped first, power 3, alive
    assert engine.state.cards["brand"].equipped_to is None
