"""The ability language: a card's rules text as data (``abilities`` in a card file).

Each entry of a card's ``abilities`` list is one :class:`Ability`: *when* it applies
(a timing), what it *costs*, under which *conditions*, and the *effects* it has, in order.
Effects name what they affect with a :class:`Selector` ("target enemy Wonder here",
"all lands you control", "up to 3 Wonders"), how much with an :class:`Amount`
(a number, or "for each stone you control"), and how long with a duration.

Everything here is validated by pydantic; a bad ability names the card, the ability and the
field.  ``docs/abilities.md`` documents every construct with an example; the interpreter is
:mod:`replay.wotf.scripts`.  The engine never names a card: what a card does is only this data.
"""

from __future__ import annotations

import hashlib
import json
from functools import cached_property
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, model_validator

Timing = Literal[
    "play",          # On Play: when played from hand, before it resolves and arrives
    "arrival",       # On Arrival: enters The World (played, put, created, returned)
    "attack",        # On Attack (battle step 1): this card's controller attacks here
    "defense",       # On Defense (battle step 2): this card's controller defends here
    "battle",        # On Battle (battle step 3): any battle here
    "battle_end",    # End of battle (battle step 6)
    "death",         # On Death: this card goes from The World to The Abyss
    "harvest",       # On Harvest: this card is harvested (a tap free ability)
    "round_start",   # On Round Start (403.1)
    "round",         # On Round N (403.1): ``round`` says which
    "round_end",     # On Round End (403.5)
    "whenever",      # "whenever …": ``event`` says which game event
    "activated",     # an activated ability: paid with ``cost`` on its controller's turn
    "static",        # a static ability: in force while the card is (``zone``)
    "replacement",   # "if … would …, … instead" (504): ``event`` says what it replaces
]
EventKind = Literal["arrives", "dies", "destroyed", "plays", "attacks", "defends", "harvested",
                    "banished", "targeted"]
What = Literal["wonder", "land", "item", "spell", "card", "equipped", "land_or_wonder"]
Side = Literal["yours", "enemy", "any"]
Zone = Literal["world", "hand", "deck", "abyss", "banishment", "archive"]
Resource = Literal["energy", "actions", "free_attacks", "faith"]
Duration = Literal["round", "ever"]
Per = Literal["round", "stones", "lands", "wonders_here", "enemies_here", "hand", "abyss",
              "counters", "named_class", "sacrificed_power", "max_power"]


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Amount(_Data):
    """A number derived from the game: ``times`` × (count of ``per``) + ``plus``."""

    per: Per
    times: float = 1
    plus: float = 0
    counter: str | None = None  # for per = "counters": which counter on this card


Number = int | float | Literal["inf"] | Amount


class Selector(_Data):
    """What an effect applies to (targets and selectors, rule 501.1 "target").

    ``pick``: ``target`` (choose ``count`` on resolution), ``up_to`` (choose 0..``count``),
    ``all``, ``this`` (the card with the ability), ``it`` (the card the triggering event is
    about, or the card chosen by the previous effect), ``equipped`` (the Wonder this equipment
    is equipped to), ``random`` is never used: randomness is a chance event.
    """

    pick: Literal["target", "up_to", "all", "this", "it", "equipped"] = "target"
    count: int = Field(default=1, ge=1)
    what: What = "wonder"
    side: Side = "any"
    owned: bool = False          # "you own" (owner, not controller)
    zone: Zone = "world"
    where: Literal["here", "adjacent", "any", "event", "there"] = "any"
    other: bool = False          # "another": not the card with the ability
    classes: tuple[str, ...] = ()
    named_class: bool = False    # of the class named by a ``name_class`` effect
    orbital: str | None = None
    name: str | None = None
    cost_max: int | None = None
    cost_min: int | None = None
    power_max: float | None = None
    power_min: float | None = None
    token: bool | None = None
    tapped: bool | None = None
    face_down: bool | None = None  # a face-down card (``true``) or a face-up one


class Cost(_Data):
    """What using an activated ability costs (404.4, Tap / Sacrifice / Faith abilities)."""

    tap: Literal["free", "action"] | None = None
    sacrifice: Literal["free", "action"] | None = None
    harvest: bool = False        # a harvest ability (tap free, many at once, 404.4)
    faith: int = 0
    energy: int = 0
    actions: int = 0
    discard: int = 0

    @property
    def spends_action(self) -> bool:
        return (self.tap == "action" or self.sacrifice == "action" or self.actions > 0)


class Condition(_Data):
    """When an ability is in force or an effect happens; every given field must hold."""

    hoard: int | None = None             # you control at least N stones (Hoard)
    kingdom: int | None = None           # you control N lands (of this orbital under v1.3.2)
    awakened: bool | None = None         # you seized a stone this round (Awaken)
    took_last_turn: bool | None = None   # you took the last turn (404.5.2: passing is not one)
    controls: Selector | None = None     # you control at least ``controls_count`` of these
    controls_count: int = 1
    round_min: int | None = None
    round_max: int | None = None
    copied_by_symbiosis: bool | None = None
    if_you_do: bool = False              # the previous effect of this ability happened


class Trigger(_Data):
    """The game event a "whenever" / "next time" / replacement ability waits for."""

    event: EventKind
    subject: Selector = Selector(pick="all", what="card")  # which card did it
    nth: int | None = None       # "the first/second/third time …" (per game, counted)
    nth_scope: Literal["game", "round"] = "game"
    next_time: bool = False      # "the next time …": triggers once (then the ability is spent)
    by: Side = "any"             # who did it ("whenever you play", "an opponent's spell")


OpName = Literal[
    "draw", "deny", "discard", "bury", "reveal", "seek", "destroy", "sacrifice", "banish",
    "portal", "return", "put", "move", "create_token", "counters", "power", "base_power",
    "multiply", "stun", "tap", "untap", "nullify", "gain", "lose", "control", "copy",
    "grant", "cant", "name_class", "distribute", "trigger_again", "seize_stone", "banish_realm",
    "nullify_effect", "turn_face_up",
    "play_from_deck", "symbiosis_any_power", "counts_as_stones",
]


Restriction = Literal["attack", "be_nullified", "untap", "be_tapped", "be_tapped_by_opponents",
                      "be_controlled",
                      "get_counters", "be_targeted", "be_destroyed", "be_banished"]
Where = Literal["here", "target", "any"]


class _Op(_Data):
    """What every effect may have: "you may" and a condition (``if_you_do`` and others)."""

    optional: bool = False            # "you may"
    condition: Condition | None = None


class Draw(_Op):
    """Draw N (one at a time); Deny N (the top N of your deck into The Abyss); Discard N;
    Reveal the top N of your deck."""

    do: Literal["draw", "deny", "discard", "reveal"]
    amount: Number = 1


class Seek(_Op):
    """Seek N: reveal the top N, you may play a ``match``-ing one for free, bury the rest."""

    do: Literal["seek"]
    amount: Number = 1
    match: Selector | None = None     # which card may be chosen
    realm: Where = "here"


class Affect(_Op):
    """Do something to the chosen cards: bury, destroy, sacrifice, banish, portal, stun, tap,
    untap, turn face up."""

    do: Literal["bury", "destroy", "sacrifice", "banish", "portal", "stun", "tap", "untap",
                "turn_face_up"]
    target: Selector | None = None


class Put(_Op):
    """Return / put cards from another area into a realm (they arrive); "at end of round"
    makes it a delayed effect."""

    do: Literal["return", "put"]
    target: Selector | None = None
    realm: Where = "here"
    at_round_end: bool = False


class Move(_Op):
    """Move: realm to realm (to an adjacent realm, or any)."""

    do: Literal["move"]
    target: Selector | None = None
    to: Literal["adjacent", "realm"] | None = None
    realm: Where = "here"


class CreateToken(_Op):
    """Create tokens (203): printed or stand-in; they arrive."""

    do: Literal["create_token"]
    token: TokenSpec | None = None
    realm: Where = "here"


class Counters(_Op):
    """Put N counters of a kind (+1, -1, shield, protector, …) on the chosen cards."""

    do: Literal["counters"]
    target: Selector | None = None
    amount: Number = 1
    counter: str | None = None
    up_to_amount: bool = False        # "up to N": the controller chooses 0..N


class Power(_Op):
    """"Gets +N", "double", "base power N" (rule 101.6 order); static or for a duration."""

    do: Literal["power", "multiply", "base_power"]
    target: Selector | None = None
    amount: Number = 1
    until: Duration = "ever"


class Nullify(_Op):
    """Nullify: temporary (this round) unless "are nullified"; "unless they spend N"."""

    do: Literal["nullify"]
    target: Selector | None = None
    temporary: bool = True
    unless_pay: int = 0


class Gain(_Op):
    """Gain or lose a resource."""

    do: Literal["gain", "lose"]
    amount: Number = 1
    resource: Resource | None = None


class Control(_Op):
    """Gain control (for the round, or for good)."""

    do: Literal["control"]
    target: Selector | None = None
    until: Duration = "ever"


class Copy(_Op):
    """Copy: a token copy of the chosen card arrives."""

    do: Literal["copy"]
    target: Selector | None = None
    realm: Where = "here"


class Grant(_Op):
    """The chosen cards get keywords."""

    do: Literal["grant"]
    target: Selector | None = None
    keywords: tuple[str, ...] = ()
    until: Duration = "ever"


class Cant(_Op):
    """A "can't" restriction on the chosen cards (rule 506)."""

    do: Literal["cant"]
    target: Selector | None = None
    restriction: Restriction | None = None
    until: Duration = "ever"


class NameClass(_Op):
    """Name a class (for ``named_class`` selectors)."""

    do: Literal["name_class"]


class Distribute(_Op):
    """Shuffle the chosen cards and distribute them over the active realms (face down?)."""

    do: Literal["distribute"]
    target: Selector | None = None
    faceup: bool = True


class TriggerAgain(_Op):
    """Trigger an on-arrival ability of another Wonder N times (not a copy, 507)."""

    do: Literal["trigger_again"]
    target: Selector | None = None
    times: int = 1


class RealmOp(_Op):
    """Seize a stone outside a battle, or banish a realm: here or a chosen realm."""

    do: Literal["seize_stone", "banish_realm"]
    realm: Where = "here"


class NullifyEffect(_Op):
    """Nullify the effect now choosing targets, unless its controller pays N."""

    do: Literal["nullify_effect"]
    unless_pay: int = 0


class StaticOnly(_Op):
    """Effects only a static ability has: play from the top of the deck, symbiosis "as if
    it had any power", counts as N stones."""

    do: Literal["play_from_deck", "symbiosis_any_power", "counts_as_stones"]
    target: Selector | None = None
    amount: Number = 1


OP_MODELS: tuple[type[_Op], ...] = (Draw, Seek, Affect, Put, Move, CreateToken, Counters, Power,
                                    Nullify, Gain, Control, Copy, Grant, Cant, NameClass,
                                    Distribute, TriggerAgain, RealmOp, NullifyEffect, StaticOnly)


class _UnknownEffect(_Data):
    """What an effect with an unknown ``do`` is checked as: the error names ``do``."""

    do: OpName


def _effect_kind(value: Any) -> str:
    """The tag of an effect: its ``do``, or ``"do"`` (:class:`_UnknownEffect`) if unknown."""
    do = value.get("do") if isinstance(value, dict) else getattr(value, "do", None)
    return do if isinstance(do, str) and do in get_args(OpName) else "do"


if TYPE_CHECKING:
    Op = (Draw | Seek | Affect | Put | Move | CreateToken | Counters | Power | Nullify | Gain
          | Control | Copy | Grant | Cant | NameClass | Distribute | TriggerAgain | RealmOp
          | NullifyEffect | StaticOnly)
else:
    #: One effect: ``do`` says what (the tag); each kind of effect has only its own
    #: parameters, validated per kind: a card file giving ``draw`` a ``target`` is an error
    #: naming the card, the ability, the effect, its kind and the field
    #: (``abilities.0.effects.1.draw.target``).
    # A union of a computed tuple of types: it has no ``X | Y`` spelling (UP007, RUF005).
    Op = Annotated[
        Union[tuple(Annotated[model, Tag(tag)] for model in OP_MODELS  # noqa: UP007, RUF005
                    for tag in get_args(model.model_fields["do"].annotation))
              + (Annotated[_UnknownEffect, Tag("do")],)],
        Discriminator(_effect_kind),
    ]


class TokenSpec(_Data):
    """A token an effect creates: the minimum requirements (203) or a printed one by name."""

    name: str | None = None           # a printed token from the archive (or the minimum name)
    type: Literal["wonder", "land", "item", "spell"] = "wonder"
    power: int = 1
    classes: tuple[str, ...] = ()
    copy_classes: bool = False        # "they get the same classes as the sacrificed Wonder"
    keywords: tuple[str, ...] = ()
    story: bool = False               # a story token (Stoneseekers)
    count: int = 1
    distributed: bool = False         # "distributed in any realms"


class Ability(_Data):
    """One ability of a card: timing × cost × conditions × effects."""

    when: Timing
    round: int | None = Field(default=None, ge=1, le=7)   # for ``when = "round"``
    on: Trigger | None = None          # for ``whenever`` and ``replacement``
    cost: Cost = Cost()
    condition: Condition = Condition()
    effects: tuple[Op, ...] = ()
    all_zones: bool = False            # stat-defining: works in every zone (rule 1, Power)
    text: str = ""                     # the quoted rules text this ability implements
    label: str = ""                    # short name shown in prompts and events
    id: str = ""                       # a stable name; default: derived from what it does

    @cached_property
    def stable_id(self) -> str:
        """The ability's stable name (rules revision 3): its ``id``, or ``<timing>-<hash>`` of
        what it does -- the same wherever the card lists it, whatever its wording says."""
        if self.id:
            return self.id
        meaning = self.model_dump(mode="json", exclude={"id", "text", "label"}, exclude_defaults=True)
        digest = hashlib.sha256(json.dumps(meaning, sort_keys=True).encode()).hexdigest()
        return f"{self.when}-{digest[:8]}"

    @model_validator(mode="after")
    def _consistent(self) -> Ability:
        if self.id and (self.id.isdigit() or "#" in self.id):
            raise ValueError("an ability id is a name: not a number, no '#'")
        if self.when == "round" and self.round is None:
            raise ValueError("when = 'round' needs round = N")
        if self.when in ("whenever", "replacement") and self.on is None:
            raise ValueError(f"when = {self.when!r} needs an 'on' trigger")
        if self.when != "activated" and self.cost != Cost():
            raise ValueError("only activated abilities have a cost")
        if self.when == "activated" and self.cost == Cost():
            raise ValueError("an activated ability needs a cost (tap, sacrifice, faith, …)")
        if not self.effects:
            raise ValueError("an ability needs at least one effect")
        return self


for _model in OP_MODELS:
    _model.model_rebuild()


def parse_abilities(raw: list[dict]) -> tuple[Ability, ...]:
    """Validate a card's raw ``abilities`` list (pydantic raises with the field path)."""
    return tuple(Ability.model_validate(entry) for entry in raw)


# -- the constructs of the language (what docs/abilities.md and the conformance cases cover) --

_SELECTOR_FLAGS = ("owned", "other", "classes", "named_class", "orbital", "name", "cost_max",
                   "cost_min", "power_max", "power_min", "token", "tapped", "face_down")
_COST_FIELDS = ("harvest", "faith", "energy", "actions", "discard")
_CONDITION_FIELDS = ("hoard", "kingdom", "awakened", "took_last_turn", "controls", "round_min",
                     "round_max", "copied_by_symbiosis", "if_you_do")
_TOKEN_FIELDS = ("name", "copy_classes", "keywords", "story", "distributed", "count")
_TRIGGER_FIELDS = ("nth", "next_time", "by")


def all_constructs() -> set[str]:
    """Every construct of the language, named ``kind:value`` (derived from the models)."""
    names = {f"when:{w}" for w in get_args(Timing)}
    names |= {f"do:{d}" for d in get_args(OpName)}
    names |= {f"event:{e}" for e in get_args(EventKind)}
    names |= {f"pick:{p}" for p in get_args(Selector.model_fields["pick"].annotation)}
    names |= {f"what:{w}" for w in get_args(What)}
    names |= {f"side:{s}" for s in get_args(Side)}
    names |= {f"zone:{z}" for z in get_args(Zone) if z != "archive"}
    names |= {f"where:{w}" for w in get_args(Selector.model_fields["where"].annotation)}
    names |= {f"select:{f}" for f in _SELECTOR_FLAGS}
    names |= {f"per:{p}" for p in get_args(Per)} | {"amount:inf"}
    names |= {f"until:{u}" for u in ("round", "ever")}
    names |= {"cost:tap=free", "cost:tap=action", "cost:sacrifice=free", "cost:sacrifice=action"}
    names |= {f"cost:{c}" for c in _COST_FIELDS}
    names |= {f"if:{c}" for c in _CONDITION_FIELDS}
    names |= {f"token:{t}" for t in _TOKEN_FIELDS}
    names |= {f"on:{t}" for t in _TRIGGER_FIELDS}
    names |= {f"resource:{r}" for r in get_args(Resource)}
    names |= {"op:optional", "op:up_to_amount", "op:at_round_end", "op:unless_pay",
              "op:continuous_nullify", "op:face_down", "static:all_zones"}
    return names


def constructs_of(ability: Ability) -> set[str]:
    """The constructs one ability uses (names as in :func:`all_constructs`)."""
    found = {f"when:{ability.when}"}
    if ability.all_zones:
        found.add("static:all_zones")
    if ability.on is not None:
        found.add(f"event:{ability.on.event}")
        found |= _selector_constructs(ability.on.subject)
        found |= {f"on:{f}" for f in _TRIGGER_FIELDS
                  if _is_set(getattr(ability.on, f)) and getattr(ability.on, f) != "any"}
    cost = ability.cost
    if cost.tap:
        found.add(f"cost:tap={cost.tap}")
    if cost.sacrifice:
        found.add(f"cost:sacrifice={cost.sacrifice}")
    found |= {f"cost:{c}" for c in _COST_FIELDS if getattr(cost, c)}
    found |= _condition_constructs(ability.condition)
    for op in ability.effects:
        found |= _op_constructs(op)
    return found


def _op_constructs(op: Op) -> set[str]:
    def param(name: str, default: Any = None) -> Any:
        return getattr(op, name, default)  # a parameter this kind of effect has, if any

    found = {f"do:{op.do}"}
    for name in ("target", "match"):
        if param(name) is not None:
            found |= _selector_constructs(param(name))
    found |= _amount_constructs(param("amount", 1))
    if op.do in ("power", "multiply", "base_power", "grant", "cant", "control", "nullify") \
            and param("until", "ever"):
        found.add(f"until:{param('until', 'ever')}")
    if param("resource"):
        found.add(f"resource:{param('resource')}")
    if op.condition is not None:
        found |= _condition_constructs(op.condition)
    token = param("token")
    if token is not None:
        found |= {f"token:{t}" for t in _TOKEN_FIELDS if _is_set(getattr(token, t))
                  and not (t == "count" and token.count == 1)}
    flags = {"op:optional": op.optional, "op:up_to_amount": param("up_to_amount", False),
             "op:at_round_end": param("at_round_end", False),
             "op:unless_pay": bool(param("unless_pay", 0)),
             "op:continuous_nullify": op.do == "nullify" and not param("temporary", True),
             "op:face_down": op.do == "distribute" and not param("faceup", True)}
    return found | {name for name, used in flags.items() if used}


def _selector_constructs(sel: Selector) -> set[str]:
    found = {f"pick:{sel.pick}", f"what:{sel.what}", f"side:{sel.side}", f"zone:{sel.zone}",
             f"where:{sel.where}"}
    return found | {f"select:{f}" for f in _SELECTOR_FLAGS if _is_set(getattr(sel, f))}


def _condition_constructs(cond: Condition) -> set[str]:
    found = {f"if:{c}" for c in _CONDITION_FIELDS if _is_set(getattr(cond, c))}
    if cond.controls is not None:
        found |= _selector_constructs(cond.controls)
    return found


def _is_set(value: object) -> bool:
    """A field given a value (``True`` counts, unlike ``value not in (None, False, 1)``)."""
    return value is not None and value is not False and value != ()


def _amount_constructs(value: Number) -> set[str]:
    if value == "inf":
        return {"amount:inf"}
    if isinstance(value, Amount):
        return {f"per:{value.per}"}
    return set()
