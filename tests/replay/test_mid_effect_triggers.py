"""Triggers set off in the middle of an effect (docs/rulings.md R47, rules revision 13).

501 (v1.2; v1.3.2 section 5 the same): "When a triggered effect is created, the controller of
that effect resolves it immediately. If it triggers in the middle of another effect resolving,
finish the first effect before resolving the second. For example, you play a spell that says
'Destroy target Wonder and draw a card.' This triggers another card's ability that reads
'Whenever a Wonder dies, you may deny 1.' In this case, you draw the card before you deny 1."

From revision 13 a trigger set off by one of a scripted effect's operations waits on the stack
(``TriggersDeferred``) until the effect's last operation is done (``EffectFinished``), then the
waiting triggers resolve in the active player's order (502).  Revisions 1-12 resolved every
trigger inside the operation that set it off: their order is pinned here too.  The cards are
the test cards of ``fixtures/cards/rulings.toml`` (Slay and Learn, Mourner, Theft and Purge).
"""

from __future__ import annotations

from typing import Any

from ledger.events import Event
from replay.wotf import conformance as C
from replay.wotf.cards import default_cards
from replay.wotf.engine import Engine
from replay.wotf.events import (
    Answered,
    CardMoved,
    EffectFinished,
    PlayDeclared,
    ResolutionEnded,
    TriggersDeferred,
)
from replay.wotf.evolve import evolve
from replay.wotf.revisions import MID_EFFECT_TRIGGERS_WAIT_REVISION, RULES_REVISION

FILLER = {"Filler": {"type": "wonder", "power": 1, "cost": 9}, "Pup": {"type": "wonder",
                                                                       "power": 1, "cost": 1}}


def _engine(state: dict[str, Any], revision: int) -> tuple[Engine, list[Event]]:
    db = C._case_cards(FILLER, default_cards())
    built = C.build_state(state, "1.3.2", db)
    built.revision = revision
    engine = Engine(db, built)
    return engine, list(engine.start())


def _slay(revision: int) -> tuple[Engine, list[Event]]:
    """501's example: A plays Slay and Learn on B's Wonder beside A's Mourner, and says yes
    to Mourner's deny."""
    engine, log = _engine({"round": 3, "turn": "A",
                           "A": {"energy": 3, "actions": 3, "deck": ["Filler"] * 4,
                                 "hand": [{"id": "slay", "card": "Slay and Learn"}]},
                           "B": {"actions": 0, "deck": ["Filler"] * 4},
                           "world": [{"id": "m", "card": "Mourner", "controller": "A", "realm": 1},
                                     {"id": "v", "card": "Filler", "controller": "B", "realm": 1}]},
                          revision)
    log += engine.decide(PlayDeclared("A", "slay", None, []))
    log += engine.decide(Answered("A", "target", "v"))
    assert engine.prompt is not None and engine.prompt.kind == "may"  # "you may deny 1"
    log += engine.decide(Answered("A", "may", "yes"))
    return engine, log


def _purge(revision: int) -> Engine:
    """A takes B's Pup (power 1) beside A's unequipped Ember Brand (+2), then destroys every
    Wonder with power 2 or less."""
    engine, _ = _engine({"round": 3, "turn": "A",
                         "A": {"energy": 3, "actions": 3, "deck": ["Filler"] * 4,
                               "hand": [{"id": "purge", "card": "Theft and Purge"}]},
                         "B": {"actions": 0, "deck": ["Filler"] * 4},
                         "world": [{"id": "pup", "card": "Pup", "controller": "B", "realm": 2},
                                   {"id": "brand", "card": "Ember Brand", "controller": "A",
                                    "realm": 2}]},
                        revision)
    engine.decide(PlayDeclared("A", "purge", None, []))
    if engine.prompt is not None and engine.prompt.kind == "target":
        engine.decide(Answered("A", "target", "pup"))
    return engine


def _deck_reasons(log: list[Event]) -> list[str]:
    return [e.reason for e in log if isinstance(e, CardMoved) and e.from_zone == "deck"]


def test_the_current_revision_is_the_one_that_defers():
    assert RULES_REVISION >= MID_EFFECT_TRIGGERS_WAIT_REVISION == 13


def test_501s_example_draws_before_the_death_trigger_denies():
    engine, log = _slay(13)
    assert _deck_reasons(log) == ["effect", "deny"]
    # the death trigger waited on the stack while the draw happened, then resolved
    names = [type(e).__name__ for e in log]
    assert names.index("TriggersDeferred") < names.index("EffectFinished")
    draw = next(i for i, e in enumerate(log) if isinstance(e, CardMoved) and e.reason == "effect")
    assert names.index("TriggersDeferred") < draw < names.index("EffectFinished")
    assert engine.state.stack is None


def test_revision_12_denies_before_the_draw():
    _, log = _slay(12)
    assert _deck_reasons(log) == ["deny", "effect"]
    assert not any(isinstance(e, (TriggersDeferred, EffectFinished)) for e in log)


def test_triggers_waiting_for_the_effect_are_on_the_stack_at_the_order_prompt():
    """Two Mourners: both triggers wait for Slay and Learn; at the order prompt (502) that
    follows its draw, they are still waiting on its resolution in the state; once ordered,
    the effect is finished and they resolve in that order."""
    engine, log = _engine({"round": 3, "turn": "A",
                           "A": {"energy": 3, "actions": 3, "deck": ["Filler"] * 4,
                                 "hand": [{"id": "slay", "card": "Slay and Learn"}]},
                           "B": {"actions": 0, "deck": ["Filler"] * 4},
                           "world": [{"id": "m1", "card": "Mourner", "controller": "A", "realm": 1},
                                     {"id": "m2", "card": "Mourner", "controller": "B", "realm": 2},
                                     {"id": "v", "card": "Filler", "controller": "B", "realm": 1}]},
                          13)
    log += engine.decide(PlayDeclared("A", "slay", None, []))
    log += engine.decide(Answered("A", "target", "v"))
    assert engine.prompt is not None and engine.prompt.kind == "order"
    assert _deck_reasons(log) == ["effect"]  # drawn before anything denies
    stack = engine.state.stack
    assert stack is not None and [r.source for r in stack.resolving] == ["slay"]
    assert [t.source for t in stack.resolving[0].waiting] == ["m1", "m2"]
    log += engine.decide(Answered("A", "order", ["m2", "m1"]))
    assert engine.state.stack is not None and not engine.state.stack.resolving[0].waiting
    assert engine.prompt is not None and engine.prompt.kind == "may" and engine.prompt.seat == "B"


def test_an_equip_set_off_by_a_change_of_control_waits_for_the_rest_of_the_effect():
    """By 501 the Pup dies at power 1 before the Brand could equip it; the Brand stays
    unequipped (its trigger finds no ally when it resolves)."""
    engine = _purge(13)
    assert engine.state.cards["pup"].zone == "abyss"
    assert engine.state.cards["brand"].equipped_to is None


def test_revision_12_equips_at_the_change_of_control():
    """Revisions 11-12: the Brand equips inside the control operation, so the Pup survives
    the destruction at power 3."""
    engine = _purge(12)
    assert engine.state.cards["pup"].zone == "world"
    assert engine.state.cards["brand"].equipped_to == "pup"


def test_the_new_stack_events_fold():
    """The new stack events fold onto a state (evolve): deferred triggers wait on the
    innermost resolution and leave it when it is finished."""
    from replay.wotf.events import ResolutionStarted
    from replay.wotf.trigger import Trigger

    engine, _ = _engine({"round": 3, "turn": "A", "A": {"deck": ["Filler"]},
                         "B": {"deck": ["Filler"]}}, 13)
    s = engine.state
    t = Trigger("m", "A", "ab:x", 1)
    evolve(s, ResolutionStarted("slay", "ab:y"))
    evolve(s, TriggersDeferred([t]))
    assert s.stack is not None and s.stack.resolving[-1].waiting == [t]
    evolve(s, EffectFinished("slay", "ab:y"))
    assert s.stack.resolving[-1].waiting == [] and s.stack.resolving[-1].finished
    evolve(s, ResolutionEnded("slay", "ab:y"))
    assert s.stack is None
