"""Static abilities in force: "gets", "are nullified", "can't", granted keywords.

A static ability (``when = "static"``) changes how the game sees other cards while its
source is in The World (or in every zone, for stat-defining abilities, rule 1 "Power").
:func:`compute` gathers every static in force into a :class:`Statics` table that
:class:`~replay.wotf.queries.View` consults for power, keywords, nullification and restrictions.
The table is computed from the facts of a view that consults no statics
(:meth:`~replay.wotf.queries.View.without_statics`): a static ability never sees the
effect of statics, its own included.

Order (rule 508 and the Nullify game term): continuous nullification is settled first
("can't be nullified" wins over "nullify", and a nullified card's statics do nothing), then
power modifiers, grants and restrictions are collected from the cards still in force.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from replay.wotf.abilities import Ability, Op
from replay.wotf.selectors import Context, Facts, amount, candidates, holds
from replay.wotf.state import CardState, controller_of


@dataclass(slots=True)
class Statics:
    power_add: dict[str, int | float] = field(default_factory=lambda: defaultdict(float))
    power_mul: dict[str, int | float] = field(default_factory=dict)
    base: dict[str, int | float] = field(default_factory=dict)
    grants: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    nullified: set[str] = field(default_factory=set)
    cant: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    any_power: set[str] = field(default_factory=set)
    deck_play: set[str] = field(default_factory=set)      # seats who may play their deck's top
    extra_stones: dict[str, int] = field(default_factory=lambda: defaultdict(int))


EMPTY = Statics()
_NUMERIC = ("power", "multiply", "base_power", "counts_as_stones")
#: the effects that change a card's power (power_add, power_mul, base of the table)
POWER_OPS = ("power", "multiply", "base_power")
#: the effects that fill each other part of the table: a question about one part needs no
#: table while no static ability in force has one of its effects
NULLIFY_OPS = frozenset({"nullify", "cant:be_nullified"})  # nullified, and cant["be_nullified"]
GRANT_OPS = frozenset({"grant"})
CANT_OPS = frozenset({"cant"})  # any restriction (cant_ops: one of them)
DECK_OPS = frozenset({"play_from_deck"})
STONE_OPS = frozenset({"counts_as_stones"})
ANY_POWER_OPS = frozenset({"symbiosis_any_power"})


_CANT_OPS: dict[str, frozenset[str]] = {}


def cant_ops(restriction: str) -> frozenset[str]:
    """The effects that fill the static table's "can't" entries of one restriction (rule
    506): a "can't" of that restriction (:func:`op_keys`)."""
    found = _CANT_OPS.get(restriction)
    if found is None:
        found = _CANT_OPS[restriction] = frozenset({f"cant:{restriction}"})
    return found


def op_keys(ops: Iterable[Op]) -> Iterator[str]:
    """What each effect may fill in the table: its ``do`` (``cant`` for any restriction), and
    for a "can't" also ``cant:<restriction>`` (:data:`NULLIFY_OPS`, :func:`cant_ops`)."""
    for op in ops:
        yield op.do
        if op.do == "cant":
            yield f"cant:{getattr(op, 'restriction', None)}"


def sources(v: Facts, cards: Iterable[CardState] | None = None) -> list[tuple[str, Ability]]:
    """(card id, ability) of every static ability on a card in The World (on ``cards`` of
    it, in its order, when the caller knows the others have none)."""
    found = []
    for c in v.world() if cards is None else cards:
        if not v.may_have_timing(c.id, "static"):
            continue  # no static ability printed on it, none copied (Symbiosis)
        for ability in v.abilities(c.id, include_nullified=True):
            if ability.when == "static":
                found.append((c.id, ability))
    return found


def reads_last_turn(found: Iterable[tuple[str, Ability]]) -> bool:
    """Whether a condition of these static abilities (the ability's own, or one of its
    effects') asks who took the last turn (404.5.2, ``took_last_turn``): the one fact a turn
    action writes that :func:`compute` reads (:data:`replay.wotf.evolve.TURN_ACTIONS`)."""
    return any(ability.condition.took_last_turn is not None
               or any(op.condition is not None and op.condition.took_last_turn is not None
                      for op in ability.effects)
               for _, ability in found)


def compute(v: Facts, found: list[tuple[str, Ability]]) -> Statics:
    table = Statics()
    _settle_nullify(v, found, table)
    for cid, ability in found:
        if cid in table.nullified or (v.has_null_mark(cid) and not (
                v.s.revision >= 7 and "be_nullified" in table.cant.get(cid, ()))):
            # Can't be nullified (Nullify): such a card keeps its null counters but they do
            # nothing, so the statics it grants keep working (revision 7; before, a null mark
            # switched them off anyway).
            continue
        ctx = Context(cid, controller_of(v.s.cards[cid]), v.s.cards[cid].realm)  # in The World
        if not holds(v, ability.condition, ctx):
            continue
        for op in ability.effects:
            if op.condition is not None and not holds(v, op.condition, ctx):
                continue
            _apply(v, op, ctx, table)
    return table


def _settle_nullify(v: Facts, found: list[tuple[str, Ability]], table: Statics) -> None:
    protected: set[str] = set()
    for cid, ability in found:
        for op in ability.effects:
            if op.do == "cant" and op.restriction == "be_nullified" and op.target is not None:
                ctx = Context(cid, controller_of(v.s.cards[cid]), v.s.cards[cid].realm)  # in The World
                protected |= set(candidates(v, op.target, ctx))
    for cid, ability in found:
        if not any(op.do == "nullify" for op in ability.effects):
            continue  # nothing to settle here: its effects nullify nothing
        if v.has_null_mark(cid) and cid not in protected:
            continue
        ctx = Context(cid, controller_of(v.s.cards[cid]), v.s.cards[cid].realm)  # in The World
        if not holds(v, ability.condition, ctx):
            continue
        for op in ability.effects:
            if op.do == "nullify" and op.target is not None:
                table.nullified |= set(candidates(v, op.target, ctx)) - protected
    table.cant.update({cid: {"be_nullified"} for cid in protected})


def _apply(v: Facts, op: Op, ctx: Context, table: Statics) -> None:
    target = getattr(op, "target", None)  # the effect's own parameters (abilities.Op)
    targets = candidates(v, target, ctx) if target is not None else [ctx.source]
    value = amount(v, getattr(op, "amount", 1), ctx) if op.do in _NUMERIC else 0
    for cid in targets:
        if op.do == "power":
            table.power_add[cid] += value
        elif op.do == "multiply":
            table.power_mul[cid] = table.power_mul.get(cid, 1) * value
        elif op.do == "base_power":
            table.base[cid] = value
        elif op.do == "grant":
            table.grants[cid] += list(getattr(op, "keywords", ()))
        elif op.do == "cant" and op.restriction:
            table.cant[cid].add(op.restriction)
        elif op.do == "symbiosis_any_power":
            table.any_power.add(cid)
    if op.do == "play_from_deck":
        table.deck_play.add(ctx.controller)
    elif op.do == "counts_as_stones":
        table.extra_stones[ctx.controller] += int(value)
