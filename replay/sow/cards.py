"""State of Wonder cards are data: pydantic-validated TOML definitions and the pool they form.

A card file (``fixtures/sow/cards/*.toml``) holds ``[[cards]]`` tables; every field is
described in ``docs/sow.md``.  Abilities are written in the game's small ability language
(:mod:`replay.sow.abilities` resolves them): each has a stable ``id``, a ``kind`` (static,
triggered, activated), an ``effect`` and its parameters.  The engine never names a card: it
reads types, numbers and abilities from here.

Every card of this pool is original and marked ``official = false``.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

import msgspec
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from replay.errors import CardDataError
from replay.resources import data_root

CardType = Literal["state", "wonder", "hero", "unit", "building", "fortification"]
AbilityKind = Literal["static", "triggered", "activated"]
Effect = Literal["income", "attack_bonus", "health_bonus", "gain_gold", "damage", "repair",
                 "progress", "counter", "ready", "retrieve", "damage_besiegers"]
When = Literal["setup", "play", "start_of_turn", "start_of_each_turn", "end_of_turn",
               "besieged", "besieging"]
Target = Literal["none", "enemy_unit", "own_unit", "own_exhausted_unit", "own_structure",
                 "enemy_structure"]

STATIC_EFFECTS = frozenset({"income", "attack_bonus", "health_bonus"})
#: effects whose target (if any) is chosen; the others need none
TARGETED = {"damage": ("enemy_unit", "enemy_structure"), "repair": ("own_structure",),
            "counter": ("own_unit",), "ready": ("own_exhausted_unit",)}
IN_PLAY_TYPES = {"unit": "units", "hero": "units", "building": "buildings",
                 "wonder": "buildings", "fortification": "fortifications", "state": "state"}
DECK_TYPES = frozenset({"unit", "building", "fortification"})


class Ability(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    kind: AbilityKind
    effect: Effect
    amount: int = 0
    when: When | None = None  # triggered abilities
    target: Target = "none"
    gold: int = 0  # activated: "Pay N Gold"
    exhaust: bool = False  # activated: "Exhaust"
    text: str = ""

    @model_validator(mode="after")
    def _coherent(self) -> Ability:
        if self.kind == "static" and self.effect not in STATIC_EFFECTS:
            raise ValueError(f"ability {self.id}: a static ability's effect is one of "
                             f"{sorted(STATIC_EFFECTS)}, not {self.effect!r}")
        if self.kind != "static" and self.effect in STATIC_EFFECTS:
            raise ValueError(f"ability {self.id}: {self.effect!r} is a static effect")
        if (self.kind == "triggered") != (self.when is not None):
            raise ValueError(f"ability {self.id}: 'when' is required for triggered abilities "
                             "and only for them")
        if self.kind != "activated" and (self.gold or self.exhaust):
            raise ValueError(f"ability {self.id}: only activated abilities have a cost")
        if self.kind == "activated" and not (self.gold or self.exhaust):
            raise ValueError(f"ability {self.id}: an activated ability has a cost "
                             "(gold and/or exhaust) before its semicolon")
        allowed = TARGETED.get(self.effect, ("none",))
        if self.target not in allowed:
            raise ValueError(f"ability {self.id}: effect {self.effect!r} takes a target among "
                             f"{list(allowed)}, not {self.target!r}")
        return self


class Card(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    type: CardType
    faction: str = "neutral"
    cost: int = 0
    attack: int = 0
    health: int = 0  # health, fortification value, or a State's player health
    progress_rate: int = 0
    income: int = 0
    initiative: int = 0
    abilities: tuple[Ability, ...] = ()
    text: str = ""
    official: bool = False

    @model_validator(mode="after")
    def _coherent(self) -> Card:
        if self.type in ("wonder", "hero") and self.progress_rate < 1:
            raise ValueError(f"{self.name}: a {self.type} needs a progress_rate of at least 1")
        if self.type not in ("wonder", "hero") and self.progress_rate:
            raise ValueError(f"{self.name}: only Wonders and Heroes have a progress rate")
        if self.type not in ("unit", "hero") and self.attack:
            raise ValueError(f"{self.name}: attack exists only on units (and heroes)")
        if self.type != "state" and (self.income or self.initiative):
            raise ValueError(f"{self.name}: income and initiative are printed on State cards")
        if self.type != "state" and self.health < 1:
            raise ValueError(f"{self.name}: health / fortification value must be at least 1")
        if self.type == "state" and self.health < 1:
            raise ValueError(f"{self.name}: a State's player health must be at least 1")
        if self.official:
            raise ValueError(f"{self.name}: this pool holds only original cards (official = false)")
        return self

    def ability(self, ability_id: str) -> Ability | None:
        return next((a for a in self.abilities if a.id == ability_id), None)

    def definition(self) -> dict[str, Any]:
        """The canonical definition (what a match file embeds)."""
        return self.model_dump(mode="json")


class CardPool:
    """Cards by name (the :class:`replay.game.Cards` protocol), and the names of the factions
    its card files name (``factions``: id -> name; a match's embedded cards have none)."""

    def __init__(self, cards: Iterable[Card] = (), factions: dict[str, str] | None = None):
        self.factions = dict(factions or {})
        self._cards: dict[str, Card] = {}
        for card in cards:
            if card.name in self._cards:
                raise CardDataError(f"card {card.name!r} is defined twice")
            self._cards[card.name] = card
        #: the definitions by name, read only (a lookup without ``__getitem__``'s call)
        self.by_name: Mapping[str, Card] = MappingProxyType(self._cards)
        abilities = [a for card in self._cards.values() for a in card.abilities]
        #: the effects of the pool's static abilities, and the triggers (``when``) of its
        #: triggered ones: a question about any other is answered without a look at the cards
        self.static_effects = frozenset(a.effect for a in abilities if a.kind == "static")
        self.trigger_whens = frozenset(a.when for a in abilities if a.kind == "triggered")

    def __contains__(self, name: object) -> bool:
        return name in self._cards

    def __getitem__(self, name: str) -> Card:
        try:
            return self._cards[name]
        except KeyError:
            raise CardDataError(f"unknown card {name!r}") from None

    def names(self) -> list[str]:
        return sorted(self._cards)

    def cards(self) -> list[Card]:
        return [self._cards[n] for n in self.names()]

    def with_cards(self, extra: Iterable[Card]) -> CardPool:
        """A copy where ``extra`` replaces or adds definitions (conformance cases)."""
        merged = dict(self._cards)
        merged.update({c.name: c for c in extra})
        return CardPool(merged.values(), self.factions)

    def faction_name(self, faction: str) -> str:
        """A faction as people read it: the name its card files give it, else its id."""
        return self.factions.get(faction, faction)

    def definitions(self, names: Iterable[str]) -> list[dict[str, Any]]:
        return [self[n].definition() for n in sorted(set(names))]

    @classmethod
    def from_definitions(cls, definitions: list[dict[str, Any]], where: str,
                         factions: dict[str, str] | None = None) -> CardPool:
        """A match's embedded cards; ``factions``: the names to show their factions by (a
        match records none: today's pool's)."""
        return cls((card_from(d, where) for d in definitions), factions)


def card_from(data: dict[str, Any], where: str) -> Card:
    try:
        return Card.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "card"
        raise CardDataError(f"{where}: card {data.get('name', '?')!r}: {field}: "
                            f"{first['msg']}") from None


def definitions_digest(definitions: list[dict[str, Any]]) -> str:
    """SHA-256 of the canonical JSON of a list of card definitions."""
    return hashlib.sha256(msgspec.json.encode(definitions)).hexdigest()


def cards_dir() -> Path:
    return data_root() / "sow" / "cards"


def _read(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise CardDataError(f"{path}: not valid TOML: {exc}") from None
    extra = set(data) - {"cards", "factions"}
    if extra:
        raise CardDataError(f"{path}: unknown top-level key(s) {sorted(extra)}; expected "
                            f"[[cards]] (and [factions])")
    return data


def load_file(path: Path) -> list[Card]:
    return [card_from(d, str(path)) for d in _read(path).get("cards", [])]


def load_factions(path: Path) -> dict[str, str]:
    """The faction names a card file gives (``[factions]``: ``ashen = "Ashen Horde"``)."""
    factions = _read(path).get("factions", {})
    if not isinstance(factions, dict):
        raise CardDataError(f"{path}: [factions] is a table of faction id = name")
    bad = next((k for k, v in factions.items() if not isinstance(v, str) or not v.strip()), None)
    if bad is not None:
        raise CardDataError(f"{path}: [factions]{'.' + bad if bad else ''}: each faction's "
                            f"name is a string (ashen = \"Ashen Horde\")")
    return {k: v.strip() for k, v in factions.items()}


def load_pool(directory: Path | None = None) -> CardPool:
    """The card pool of a directory of card files (default: the shipped pool)."""
    where = directory or cards_dir()
    files = sorted(where.glob("*.toml"))
    if not files:
        raise CardDataError(f"State of Wonder card pool {where}: no card files (*.toml)")
    return load_files(files)


def load_files(files: list[Path]) -> CardPool:
    """The pool of these card files: their cards and the faction names they give (one
    faction named two ways, or one name given to two factions -- one row of the match-ups
    for both --, is an error naming the file)."""
    factions: dict[str, str] = {}
    named: dict[str, str] = {}  # name -> the faction it names
    for path in files:
        for faction, name in load_factions(path).items():
            if factions.setdefault(faction, name) != name:
                raise CardDataError(f"{path}: faction {faction!r} is named {name!r} here and "
                                    f"{factions[faction]!r} in another card file")
            if named.setdefault(name, faction) != faction:
                raise CardDataError(f"{path}: faction {faction!r} is named {name!r}, the name "
                                    f"of faction {named[name]!r}: each faction's name is its own")
    return CardPool((card for path in files for card in load_file(path)), factions)
