"""Rules details that conformance cases can't express: prerelease core, several stones in a
realm, infinite and indeterminate power."""

import math

from replay.wotf.cards import Card, CardDB
from replay.wotf.engine import Engine
from replay.wotf.events import Answered, AttackDeclared, PlayDeclared
from replay.wotf.queries import View
from replay.wotf.state import CardState, Effect, GameState, PlayerState, new_realms

DB = CardDB([Card(name="Brute", type="wonder", power=3, cost=2),
             Card(name="Core Titan", type="wonder", power=5, cost=3, orbital="Petraia", core=True)])


def position(fmt="constructed", **stones):
    s = GameState(phase="turns", round=3, turn="A", first="A", round1_first="A",
                  realms=new_realms(), format=fmt)
    for seat in "AB":
        s.players[seat] = PlayerState(seat=seat, energy=5, actions=3)
        for n in range(4):
            cid = f"{seat}d{n}"
            s.cards[cid] = CardState(cid, "Brute", seat, "deck")
            s.players[seat].deck.append(cid)
    s.cards["titan"] = CardState("titan", "Core Titan", "A", "hand")
    s.players["A"].hand.append("titan")
    s.cards["brute"] = CardState("brute", "Brute", "A", "world", controller="A", realm=1)
    for realm, owners in stones.items():
        s.realms[int(realm[1:]) - 1].stones = owners
    engine = Engine(DB, s)
    engine.start()
    return engine


def test_304_1_prerelease_ignores_the_core_requirement():
    assert "needs a Petraia link" in position().check(PlayDeclared("A", "titan", 1))
    engine = position("prerelease")
    assert engine.check(PlayDeclared("A", "titan", 1)) is None


def test_404_3_2_several_stones_the_winner_chooses_one_per_battle():
    engine = position(r1=["center", "B"])
    engine.decide(AttackDeclared("A", 1))
    assert engine.prompt.kind == "stone" and engine.prompt.options == ["center", "B"]
    engine.decide(Answered("A", "stone", "B"))
    assert engine.state.realms[0].stones == ["center", "A"]  # one stone per battle won


def test_102_infinite_power_and_indeterminate_is_zero():
    engine = position()
    view = View(engine.state, DB)
    brute = engine.state.cards["brute"]
    brute.effects.append(Effect("power+", math.inf))
    assert view.power("brute") == math.inf
    brute.effects.append(Effect("power+", -math.inf))  # ∞ − ∞ is indeterminate: 0
    view.changed()  # a view's facts stand until it is told the state changed (the engine's emit)
    assert view.power("brute") == 0


def test_power_order_of_operations_base_then_additive_then_multiplicative():
    engine = position()
    brute = engine.state.cards["brute"]
    brute.effects += [Effect("power*", 2), Effect("power+", 1)]
    brute.counters = {"+1": 1}
    assert View(engine.state, DB).power("brute") == (3 + 1 + 1) * 2
    brute.effects.append(Effect("base", 0))  # stun: base power 0
    assert View(engine.state, DB).power("brute") == (0 + 1 + 1) * 2
