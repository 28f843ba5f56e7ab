"""``View``'s power under static abilities that change it ("gets +N", a multiplier, a base
power), and a growth counter outside The World: facts of rule 101.6's order of operations
that no pool card or conformance case reaches (no card of the pool multiplies power or sets a
base power with a static ability that is not stat-defining)."""

from replay.wotf.cards import CardDB, parse_card
from replay.wotf.engine import Engine
from replay.wotf.events import PlayDeclared
from replay.wotf.queries import View
from replay.wotf.state import CardState, GameState, PlayerState, new_realms


def _card(name: str, kind: str = "wonder", power: int | None = 2, effects=(), **more):
    data = {"name": name, "type": kind, "cost": 1, **more}
    if power is not None:
        data["power"] = power
    if effects:
        data["abilities"] = [{"when": "static", "effects": list(effects)}]
    return parse_card(data, f"test card {name!r}")


YOURS = {"pick": "all", "what": "wonder", "side": "yours"}
ENEMIES = {"pick": "all", "what": "wonder", "side": "enemy"}
DB = CardDB([
    _card("Grunt", power=3),
    _card("Filler", power=1),
    _card("Twin Banner", "item", None, [{"do": "multiply", "amount": 2, "target": YOURS}]),
    _card("Levelling Bell", "item", None, [{"do": "base_power", "amount": 5, "target": YOURS}]),
    _card("Blight Totem", "item", None, [{"do": "power", "amount": -2, "target": ENEMIES}]),
    _card("Green Vale", "land", None, orbital="Petraia"),
])


def _state(world=(), hand=()) -> GameState:
    """Round 3, A's turn; ``world``: (id, card, controller, realm); ``hand``: A's (id, card)."""
    s = GameState(phase="turns", round=3, turn="A", first="A", round1_first="A",
                  realms=new_realms())
    for seat in "AB":
        s.players[seat] = PlayerState(seat=seat, energy=5, actions=3)
        for n in range(4):
            cid = f"{seat}d{n}"
            s.cards[cid] = CardState(cid, "Filler", seat, "deck")
            s.players[seat].deck.append(cid)
    for cid, name, seat, realm in world:
        s.cards[cid] = CardState(cid, name, seat, "world", controller=seat, realm=realm)
    for cid, name in hand:
        s.cards[cid] = CardState(cid, name, "A", "hand")
        s.players["A"].hand.append(cid)
    return s


def test_101_6_a_static_multiplier_applies_after_the_additive_modifiers():
    s = _state([("g", "Grunt", "A", 1), ("banner", "Twin Banner", "A", 1), ("bg", "Grunt", "B", 1)])
    s.cards["g"].counters = {"+1": 1}
    view = View(s, DB)
    assert view.power("g") == (3 + 1) * 2
    assert view.power("bg") == 3  # "Wonders you control": not the opponent's
    assert view.side_power(1, "A") == (8, 1)


def test_101_6_a_static_base_power_replaces_the_printed_one_in_the_world_only():
    s = _state([("g", "Grunt", "A", 1), ("bell", "Levelling Bell", "A", 2)])
    s.cards["g"].counters = {"+1": 1}
    view = View(s, DB)
    assert view.base_power("g") == 5
    assert view.power("g") == 5 + 1  # base first, then the +1 counter
    s.cards["h"] = CardState("h", "Grunt", "A", "hand")  # a static applies in The World only
    assert View(s, DB).base_power("h") == 3


def test_growth_counts_lands_only_in_the_world():
    """Growth counter: the land is a legendary Wonder with power equal to the number of lands
    its controller controls -- a land with a growth counter outside The World (a judge's
    counter on a land in hand) has base power 0, not a count nor 1."""
    s = _state([("vale", "Green Vale", "A", 1), ("vale2", "Green Vale", "A", 2)],
               hand=[("seed", "Green Vale")])
    s.cards["vale"].counters = {"growth": 1}
    s.cards["seed"].counters = {"growth": 1}
    view = View(s, DB)
    assert view.power("vale") == 2
    assert view.base_power("seed") == 0 and view.power("seed") == 0


def test_101_6_a_wonder_a_static_ability_takes_below_zero_dies_when_the_static_arrives():
    """101.6 (a Wonder with negative power dies): B's 1-power Wonder at −1 under A's Blight
    Totem dies as the Totem comes into play; B's 3-power one, at 1, stays."""
    s = _state([("bf", "Filler", "B", 1), ("bg", "Grunt", "B", 1)], hand=[("totem", "Blight Totem")])
    engine = Engine(DB, s)
    engine.start()
    assert engine.view.has_power_statics() is False
    engine.decide(PlayDeclared("A", "totem", 1))
    assert engine.state.cards["totem"].zone == "world"
    assert engine.view.has_power_statics() is True
    assert engine.state.cards["bf"].zone == "abyss"
    assert engine.state.cards["bg"].zone == "world" and engine.view.power("bg") == 1
