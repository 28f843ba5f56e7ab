"""The card database: card definitions as data, validated by pydantic (DESIGN.md section 3).

Card files are TOML files under ``fixtures/cards/``, each an array of ``[[card]]`` tables.
A validation error names the file, the card and the field.  The engine never names a card:
everything it knows about one comes from a :class:`Card`.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from replay.abilities import Ability
from replay.errors import CardDataError

ORBITALS = ("Petraia", "Thalwind", "Solfera", "Umbrathene", "Heliosynth", "Boundless")
CARD_TYPES = ("wonder", "land", "item", "spell")
TIERS = ("legendary", "primary", "secondary")
SIMPLE_KEYWORDS = frozenset(
    {"flying", "deathstrike", "guardian", "rage", "unstable", "attuned", "symbiosis", "call",
     "heart of a legend"})
_PARAM_KEYWORD = re.compile(r"^(attuned|link):(.+)$")

_KEYWORD_SENTENCES = re.compile(
    r"(?i)(?:flying|deathstrike|guardian|rage|unstable|symbiosis|call|heart of a legend|"
    r"equipment|no effect|attuned(?: \w+)?|\w+ link)\.")


class Card(BaseModel):
    """One card's printed stats (rule 101) plus its keywords and optional scripted abilities."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    type: Literal["wonder", "land", "item", "spell"]
    classes: tuple[str, ...] = ()
    tier: Literal["legendary", "primary", "secondary"] = "secondary"
    cost: int = Field(default=0, ge=0)
    power: int | Literal["*"] | None = None
    orbital: Literal["Petraia", "Thalwind", "Solfera", "Umbrathene", "Heliosynth",
                     "Boundless"] | None = None
    core: bool = False
    faction: str | None = None
    rarity: str | None = None
    set: str | None = None
    number: str | None = None
    dbs: int = Field(default=0, ge=0)
    token: bool = False
    keywords: tuple[str, ...] = ()
    text: str = ""
    abilities: tuple[Ability, ...] = ()
    official: bool = True  # False: stats chosen here because the rules texts don't give them

    @field_validator("keywords")
    @classmethod
    def _known_keywords(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for keyword in value:
            if keyword in SIMPLE_KEYWORDS:
                continue
            match = _PARAM_KEYWORD.match(keyword)
            if match is None:
                raise ValueError(f"unknown keyword {keyword!r}")
            if match.group(1) == "link" and match.group(2) not in ORBITALS:
                raise ValueError(f"link needs an orbital, got {match.group(2)!r}")
        return value

    @property
    def has_unscripted_text(self) -> bool:
        """Rules text beyond its keywords and no ``abilities``: resolved by a manual prompt."""
        if self.abilities:
            return False
        rest = self.text
        for sentence in _KEYWORD_SENTENCES.findall(rest):
            rest = rest.replace(sentence, "")
        return bool(rest.strip(" .\n"))

    @property
    def base_power(self) -> int:
        """The printed power; ``*`` or none counts as 0 (rule 101.6: undefined * is 0)."""
        return self.power if isinstance(self.power, int) else 0

    def has_keyword(self, keyword: str) -> bool:
        return keyword in self.keywords

    @property
    def links(self) -> frozenset[str]:
        """Orbital links this card gives (Link): a land links its own orbital by default."""
        links = {k.split(":", 1)[1] for k in self.keywords if k.startswith("link:")}
        if self.type == "land" and self.orbital and not links:
            links.add(self.orbital)
        return frozenset(links)

    @property
    def attunement(self) -> str | None:
        """``""`` for plain attuned, the requirement for ``attuned:X``, ``None`` if not attuned."""
        for keyword in self.keywords:
            if keyword == "attuned":
                return ""
            if keyword.startswith("attuned:"):
                return keyword.split(":", 1)[1]
        return None


class CardDB:
    """Cards by name; later definitions of a name are an error."""

    def __init__(self, cards: Iterable[Card] = ()):
        self._cards: dict[str, Card] = {}
        for card in cards:
            self.add(card)

    def add(self, card: Card, replace: bool = False) -> None:
        if card.name in self._cards and not replace:
            raise CardDataError(f"card {card.name!r} is defined twice")
        self._cards[card.name] = card

    def __getitem__(self, name: str) -> Card:
        try:
            return self._cards[name]
        except KeyError:
            raise CardDataError(f"unknown card {name!r}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._cards

    def __iter__(self):
        return iter(self._cards.values())

    def __len__(self) -> int:
        return len(self._cards)

    def with_cards(self, extra: Iterable[Card]) -> "CardDB":
        """A copy with ``extra`` added, replacing same-named cards (inline case cards)."""
        db = CardDB(self._cards.values())
        for card in extra:
            db.add(card, replace=True)
        return db


def parse_card(data: dict[str, Any], where: str) -> Card:
    """Validate one card table; errors name ``where`` and the field."""
    try:
        return Card.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(card)"
        raise CardDataError(f"{where}: field {field!r}: {first['msg']}") from None


def load_card_file(path: str | Path) -> list[Card]:
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise CardDataError(f"{path}: cannot read card file ({exc})") from None
    unknown = set(data) - {"card"}
    if unknown:
        raise CardDataError(f"{path}: unknown top-level key(s) {sorted(unknown)}; use [[card]]")
    cards = []
    for index, table in enumerate(data.get("card", []), start=1):
        name = table.get("name", "?") if isinstance(table, dict) else "?"
        cards.append(parse_card(table, f"{path}: card #{index} ({name})"))
    return cards


def load_cards(paths: Iterable[str | Path] | None = None) -> CardDB:
    """Load card files (default: the card pool in use, :func:`replay.resources.cards_dir`:
    ``--cards DIR``, ``$WONDERS_CARDS`` or the shipped pool).  A pool with no cards is an error."""
    from replay import resources

    pool = None
    if paths is None:
        pool = resources.cards_dir()
        paths = resources.card_files(pool)
    paths = list(paths)
    db = CardDB()
    for path in paths:
        for card in load_card_file(path):
            if card.name in db:
                raise CardDataError(f"{path}: card {card.name!r} is already defined elsewhere")
            db.add(card)
    if not len(db):
        if pool is not None:
            raise CardDataError(f"card pool {pool} is empty: its card files define no cards")
        where = ", ".join(map(str, paths)) or "no card files"
        raise CardDataError(f"{where}: no cards defined (an empty card pool)")
    return db


_DEFAULT: dict[Path, CardDB] = {}


def default_cards() -> CardDB:
    """The card database of the pool in use (:func:`replay.resources.cards_dir`), loaded once
    per pool."""
    from replay import resources

    pool = resources.cards_dir().resolve()
    if pool not in _DEFAULT:
        _DEFAULT[pool] = load_cards()
    return _DEFAULT[pool]


def __getattr__(name: str) -> Any:
    """``FIXTURES``: the data directory (kept for old imports; use :mod:`replay.resources`)."""
    if name == "FIXTURES":
        from replay import resources
        return resources.data_root()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
