"""Evaluating the ability language against a state: selectors, amounts and conditions.

Pure questions about one state (through a :class:`~replay.wotf.queries.View`): which cards a
:class:`~replay.wotf.abilities.Selector` matches for a given source card, what an
:class:`~replay.wotf.abilities.Amount` is worth, whether a :class:`~replay.wotf.abilities.Condition`
holds.  Nothing here changes the state.
"""

from __future__ import annotations

import math
from typing import Protocol

import msgspec

from replay.wotf.abilities import Ability, Amount, Condition, Number, Selector
from replay.wotf.cards import ORBITALS, Card, CardDB
from replay.wotf.state import CardState, GameState, Seat, other


class Facts(Protocol):
    """The derived facts about a state the ability language is evaluated with (implemented by
    :class:`~replay.wotf.queries.View`; declared here so that this module needs no view)."""

    @property
    def s(self) -> GameState: ...
    @property
    def db(self) -> CardDB: ...
    def world(self) -> list[CardState]: ...
    def in_realm(self, realm: int, controller: str | None = None) -> list[CardState]: ...
    def definition(self, cid: str) -> Card: ...
    def classes(self, cid: str) -> tuple[str, ...]: ...
    def is_wonder(self, cid: str) -> bool: ...
    def power(self, cid: str) -> int | float: ...
    def base_power(self, cid: str) -> int | float: ...
    def stones_of(self, seat: str) -> int: ...
    def lands_controlled(self, seat: str) -> int: ...
    def has_null_mark(self, cid: str) -> bool: ...
    def abilities(self, cid: str, include_nullified: bool = False) -> list[Ability]: ...
    def may_have_timing(self, cid: str, when: str) -> bool: ...


class Context(msgspec.Struct):
    """Who is resolving what: the source card, its controller, and what the event was about.
    (A struct: one is made for every ability checked or resolved, and a struct is made
    several times faster than a dataclass; each gets its own ``chosen`` list.)"""

    source: str
    controller: Seat
    realm: int | None = None        # "here": where the source is (or was, when it triggered)
    subject: str | None = None      # the card the triggering event is about ("it")
    chosen: list[str] = []          # cards the previous effect chose ("it")
    did: bool = True                # whether the previous effect happened ("if you do")
    named_class: str | None = None  # the class named by ``name_class``
    sacrificed_power: int | float = 0
    nullified: bool = False         # an ability nullified this effect as it chose targets


def matches(v: Facts, sel: Selector, cid: str, ctx: Context) -> bool:
    """Whether card ``cid`` fits ``sel`` for an ability of ``ctx.source``."""
    c = v.s.cards[cid]
    casting = c.zone == "played" and sel.zone == "world" and sel.what in ("card", "spell")
    if c.zone != sel.zone and not casting:
        return False
    if sel.other and cid == ctx.source:
        return False
    if sel.zone == "world":
        controller = c.owner if casting else c.controller  # a spell being played is its player's
        if sel.side == "yours" and controller != ctx.controller:
            return False
        if sel.side == "enemy" and controller != other(ctx.controller):
            return False
        if not _where_fits(sel.where, c.realm, ctx):
            return False
    elif sel.side != "any" or sel.owned:
        owner_wanted = ctx.controller if sel.side != "enemy" else other(ctx.controller)
        if c.owner != owner_wanted:
            return False
    if sel.owned and c.owner != ctx.controller:
        return False
    if sel.face_down is not None and c.face_down != sel.face_down:
        return False
    if c.face_down:
        return sel.what == "card"  # a face-down card has no type (Face Down)
    if sel.what == "equipped":
        return v.s.cards[ctx.source].equipped_to == cid
    d = v.db[c.name]
    if not _type_fits(v, sel.what, cid, d.type):
        return False
    if sel.classes or (sel.named_class and ctx.named_class):  # most selectors name no class
        wanted_classes = set(sel.classes)
        if sel.named_class and ctx.named_class:
            wanted_classes.add(ctx.named_class)
        if not wanted_classes <= set(v.classes(cid)):
            return False
    if sel.orbital and d.orbital != sel.orbital:
        return False
    if sel.name and sel.name not in d.name:
        return False
    if sel.cost_max is not None and d.cost > sel.cost_max:
        return False
    if sel.cost_min is not None and d.cost < sel.cost_min:
        return False
    if sel.token is not None and c.token != sel.token:
        return False
    if sel.tapped is not None and c.tapped != sel.tapped:
        return False
    if sel.power_max is not None or sel.power_min is not None:
        power = v.power(cid) if c.zone == "world" else v.base_power(cid)
        if sel.power_max is not None and power > sel.power_max:
            return False
        if sel.power_min is not None and power < sel.power_min:
            return False
    return True


def _where_fits(where: str, realm: int | None, ctx: Context) -> bool:
    if where == "any" or ctx.realm is None:
        return True
    if where in ("here", "event", "there"):
        return realm == ctx.realm
    return realm is not None and abs(realm - ctx.realm) == 1  # adjacent


def _type_fits(v: Facts, what: str, cid: str, card_type: str) -> bool:
    if what == "card":
        return True
    if what == "wonder":
        return v.is_wonder(cid)
    if what == "land_or_wonder":  # "target land or Wonder" (Ayu Goss): no item, no spell
        return card_type == "land" or v.is_wonder(cid)
    return card_type == what


def candidates(v: Facts, sel: Selector, ctx: Context) -> list[str]:
    """Every card ``sel`` could pick for ``ctx`` (in zone order, then table order)."""
    if sel.pick == "this":
        return [ctx.source] if ctx.source in v.s.cards else []
    if sel.pick == "it":
        picked = ctx.chosen or ([ctx.subject] if ctx.subject else [])
        return [cid for cid in picked if cid in v.s.cards]
    if sel.pick == "equipped" or sel.what == "equipped":
        host = v.s.cards[ctx.source].equipped_to
        return [host] if host and v.s.cards[host].zone == sel.zone else []
    if sel.zone == "world":
        if sel.where in ("here", "event", "there") and ctx.realm is not None:
            # only the cards in that realm can fit (_where_fits), in The World's order
            pool = [c.id for c in v.in_realm(ctx.realm)]
        else:
            pool = [c.id for c in v.world()]
        if sel.what in ("card", "spell"):  # a spell being played is a card too (Nullify example)
            pool += [c.id for c in v.s.cards.values() if c.zone == "played"]
    else:
        pool = []
        for seat in ("A", "B"):
            cards = list(getattr(v.s.players[seat], sel.zone))
            if sel.zone == "deck":
                cards.sort(key=_id_order)  # never the deck's order: that is hidden (rule 402)
            pool += cards
    return [cid for cid in pool if matches(v, sel, cid, ctx)]


def _id_order(cid: str) -> tuple:
    """Card ids in natural order (A2 before A10)."""
    digits = "".join(ch for ch in cid if ch in "0123456789")
    return (cid.rstrip("0123456789"), int(digits) if digits else 0, cid)


def amount(v: Facts, value: Number, ctx: Context) -> int | float:
    """The value of a :data:`~replay.wotf.abilities.Number` for ``ctx``."""
    if value == "inf":
        return math.inf
    if not isinstance(value, Amount):
        return value
    seat = ctx.controller
    per = value.per
    n: int | float
    if per == "round":
        n = v.s.round
    elif per == "stones":
        n = v.stones_of(seat)
    elif per == "lands":
        n = v.lands_controlled(seat)
    elif per in ("wonders_here", "enemies_here"):
        side = seat if per == "wonders_here" else other(seat)
        n = sum(1 for c in v.in_realm(ctx.realm or 0, side) if v.is_wonder(c.id))
    elif per == "hand":
        n = len(v.s.players[seat].hand)
    elif per == "abyss":
        n = len(v.s.players[seat].abyss)
    elif per == "counters":
        n = v.s.cards[ctx.source].counters.get(value.counter or "+1", 0)
    elif per == "sacrificed_power":
        n = ctx.sacrificed_power
    elif per == "max_power":
        n = max((v.power(c.id) for c in v.world() if c.controller == seat and v.is_wonder(c.id)),
                default=0)
    else:  # named_class: Wonders you control of the named class
        n = sum(1 for c in v.world() if c.controller == seat and ctx.named_class
                in v.classes(c.id))
    return value.times * n + value.plus


def holds(v: Facts, cond: Condition, ctx: Context) -> bool:
    """Whether every part of ``cond`` holds for ``ctx`` (Hoard, Kingdom, Awaken …)."""
    seat = ctx.controller
    s = v.s
    if cond.if_you_do and not ctx.did:
        return False
    if cond.hoard is not None and v.stones_of(seat) < cond.hoard:
        return False
    if cond.kingdom is not None and kingdom_count(v, ctx) < cond.kingdom:
        return False
    if cond.awakened is not None and s.players[seat].seized_this_round != cond.awakened:
        return False
    if cond.took_last_turn is not None and (s.last_turn_taker == seat) != cond.took_last_turn:
        return False
    if cond.round_min is not None and s.round < cond.round_min:
        return False
    if cond.round_max is not None and s.round > cond.round_max:
        return False
    if cond.controls is not None:
        mine = Context(ctx.source, seat, ctx.realm)
        if len(candidates(v, cond.controls.model_copy(update={"side": "yours"}),
                          mine)) < cond.controls_count:
            return False
    if cond.copied_by_symbiosis is not None:
        copied = any(f"from:{ctx.source}" in c.gained for c in v.world())
        if copied != cond.copied_by_symbiosis:
            return False
    return True


def kingdom_count(v: Facts, ctx: Context) -> int:
    """Kingdom N: lands you control; under v1.3.2 only lands of the source's orbital."""
    orbital = v.definition(ctx.source).orbital
    any_orbital = v.s.ruleset == "1.2" or orbital not in ORBITALS
    count = 0
    for c in v.world():
        if c.controller != ctx.controller:
            continue
        d = v.definition(c.id)
        if d.type == "land" and (any_orbital or d.orbital == orbital):
            count += 1
    return count
