"""The card database: card definitions as data, validated by pydantic (DESIGN.md section 3).

Card files are TOML files under ``fixtures/cards/``, each an array of ``[[card]]`` tables.
A validation error names the file, the card and the field.  The engine never names a card:
everything it knows about one comes from a :class:`Card`.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

import msgspec
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from replay.wotf.abilities import Ability, Amount, Condition

if TYPE_CHECKING:
    from ledger.events import MatchOpened
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
    # Whether its rules text is resolved by hand (a ``manual`` prompt): an explicit flag.  A
    # card file may leave it out, and then it is worked out once, as the card is loaded, from
    # the text beyond the keywords; a recorded definition always states it (schema 3).
    manual: bool = False
    # A catalogue card the pool has no rules data for (docs/rulings.md R34): the match records
    # its catalogue facts only, and its owner enters its printed cost, power, classes and
    # keywords at the table the first time it sees it (``CardStatsEntered``).
    entered_at_table: bool = False

    @model_validator(mode="before")
    @classmethod
    def _manual_flag(cls, data: Any) -> Any:
        if isinstance(data, dict) and "manual" not in data:
            data = {**data, "manual": _has_text_beyond_keywords(data)}
        return data

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

    @cached_property
    def has_unscripted_text(self) -> bool:
        """Its rules text is not scripted: it is resolved by a manual prompt (``manual``).
        (Kept, like the facts below: asked of every card at every legal-option listing.)"""
        return self.manual

    @property
    def base_power(self) -> int:
        """The printed power; ``*`` or none counts as 0 (rule 101.6: undefined * is 0)."""
        return self.power if isinstance(self.power, int) else 0

    def has_keyword(self, keyword: str) -> bool:
        return keyword in self.keywords

    # -- facts of the definition: a card never changes once made (frozen), so each is worked
    # out once and shared by every view of every match that uses this definition (a match's
    # stand-in or entered definition, 203 and R34, is another Card, with facts of its own)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Card:
        """A copy; one with changed fields works its facts out again (pydantic copies the
        cached ones with the rest)."""
        copied = super().model_copy(update=update, deep=deep)
        if update:
            for fact in _DEFINITION_FACTS:
                copied.__dict__.pop(fact, None)
        return copied

    @cached_property
    def timings(self) -> frozenset[str]:
        """The timings (``Ability.when``) of its printed abilities."""
        return frozenset(a.when for a in self.abilities)

    @cached_property
    def whenever_events(self) -> frozenset[str]:
        """The game events its "whenever" abilities name."""
        return frozenset(a.on.event for a in self.abilities if a.when == "whenever" and a.on is not None)

    @cached_property
    def counted_events(self) -> frozenset[str]:
        """The game events its abilities count ("the third time …", rule 511)."""
        return frozenset(a.on.event for a in self.abilities if a.on is not None and a.on.nth is not None)

    @cached_property
    def stat_defining(self) -> tuple[Ability, ...]:
        """Its static abilities that work in every zone ("this gets power equal to …", rule 1)."""
        return tuple(a for a in self.abilities if a.when == "static" and a.all_zones)

    @cached_property
    def may_lower_power(self) -> bool:
        """Whether the definition alone may make its power negative: a printed base below 0,
        or a stat-defining ability."""
        return self.base_power < 0 or bool(self.stat_defining)

    @cached_property
    def reads_stones(self) -> bool:
        """Whether an ability of it (a condition, of the ability or of an effect, or an
        amount anywhere in it) reads what seizing a stone writes: the stones a seat controls
        (Hoard, an amount per stone) or whether it seized one this round (Awaken)."""
        return any(_reads_stones(ability) for ability in self.abilities)

    @cached_property
    def links(self) -> frozenset[str]:
        """Orbital links this card gives (Link): a land links its own orbital by default."""
        links = {k.split(":", 1)[1] for k in self.keywords if k.startswith("link:")}
        if self.type == "land" and self.orbital and not links:
            links.add(self.orbital)
        return frozenset(links)

    @cached_property
    def attunement(self) -> str | None:
        """``""`` for plain attuned, the requirement for ``attuned:X``, ``None`` if not attuned."""
        for keyword in self.keywords:
            if keyword == "attuned":
                return ""
            if keyword.startswith("attuned:"):
                return keyword.split(":", 1)[1]
        return None


#: the facts of a definition :class:`Card` keeps once worked out (cached properties)
_DEFINITION_FACTS = ("timings", "whenever_events", "stat_defining", "may_lower_power", "links",
                     "has_unscripted_text", "attunement", "reads_stones")


def _reads_stones(value: object) -> bool:
    """:attr:`Card.reads_stones` of one part of an ability, walked through all its fields."""
    if isinstance(value, Condition) and (value.hoard is not None or value.awakened is not None):
        return True
    if isinstance(value, Amount) and value.per == "stones":
        return True
    if isinstance(value, BaseModel):
        return any(_reads_stones(part) for _, part in value)
    if isinstance(value, (list, tuple)):
        return any(_reads_stones(part) for part in value)
    if isinstance(value, dict):
        return any(_reads_stones(part) for part in value.values())
    return False


def _has_text_beyond_keywords(data: dict[str, Any]) -> bool:
    """Rules text beyond its keywords and no ``abilities`` (how a card file's ``manual`` flag
    is worked out when the file leaves it out)."""
    if data.get("abilities"):
        return False
    rest = str(data.get("text", ""))
    for sentence in _KEYWORD_SENTENCES.findall(rest):
        rest = rest.replace(sentence, "")
    return bool(rest.strip(" .\n"))


def ability_key(card: Card, index: int, revision: int) -> str:
    """How events name a card's ability: ``Card Name#<stable id>`` from rules revision 3,
    ``Card Name#<position>`` before (as the matches of those revisions recorded it)."""
    ability = card.abilities[index]
    return f"{card.name}#{ability.stable_id if revision >= 3 else index}"


def find_ability(db: CardDB, key: str) -> Ability:
    """The ability an :func:`ability_key` names."""
    name, part = key.rsplit("#", 1)
    abilities = db[name].abilities
    if part.isascii() and part.isdigit():  # int() refuses "²", which isdigit() takes
        return abilities[int(part)]
    for ability in abilities:
        if ability.stable_id == part:
            return ability
    raise CardDataError(f"card {name!r} has no ability {part!r}")


def definition(card: Card) -> dict[str, Any]:
    """A card's canonical definition, as a match file records it (DESIGN.md section 9):
    every field that differs from its default, in declaration order, and ``manual`` always."""
    data = card.model_dump(mode="json", exclude_defaults=True)
    data["manual"] = card.manual
    return data


def definitions_digest(definitions: list[dict[str, Any]]) -> str:
    """SHA-256 of the canonical JSON of a list of card definitions."""
    return hashlib.sha256(msgspec.json.encode(definitions)).hexdigest()


class CardDB:
    """Cards by name; later definitions of a name are an error.  A database never changes once
    built: a match's stand-in tokens are not added to it but folded into its state
    (:class:`MatchCards`)."""

    def __init__(self, cards: Iterable[Card] = ()):
        self._cards: dict[str, Card] = {}
        #: whether some card was added whose printed stats are entered at the table (R34);
        #: False means none is, so no such card needs asking about
        self.has_entered_cards = False
        for card in cards:
            self._add(card)

    def _add(self, card: Card, replace: bool = False) -> None:
        if card.name in self._cards and not replace:
            raise CardDataError(f"card {card.name!r} is defined twice")
        self._cards[card.name] = card
        if card.entered_at_table:
            self.has_entered_cards = True

    def __getitem__(self, name: str) -> Card:
        try:
            return self._cards[name]
        except KeyError:
            raise CardDataError(f"unknown card {name!r}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._cards

    def __iter__(self) -> Iterator[Card]:
        return iter(self._cards.values())

    def names(self) -> list[str]:
        """Every card's name, in the pool's order."""
        return [card.name for card in self]

    def __len__(self) -> int:
        return len(self._cards)

    @classmethod
    def from_definitions(cls, definitions: Iterable[dict[str, Any]], where: str = "") -> CardDB:
        """The cards a match file recorded (errors name ``where`` and the card)."""
        return cls(parse_card(d, f"{where}: recorded card {d.get('name', '?')!r}")
                   for d in definitions)

    def with_cards(self, extra: Iterable[Card]) -> CardDB:
        """A new database: these cards and ``extra``, replacing same-named ones (inline case
        cards)."""
        db = CardDB(self._cards.values())
        for card in extra:
            db._add(card, replace=True)
        return db


#: What a seat enters for a catalogue card at the table (``CardStatsEntered.stats``).
ENTERED_FIELDS = ("cost", "power", "classes", "keywords", "manual")
#: The ranges the entry accepts (the printed numbers of the cards in the pool and catalogue
#: are far inside them; a power may also be ``*``, rule 101.6).
MAX_COST, MAX_POWER, MAX_CLASSES = 30, 99, 6
CATALOGUE_TYPES = {"Wonder": "wonder", "Land": "land", "Item": "item", "Spell": "spell"}


def catalogue_entry(name: str, type_: str, orbital: str = "", set_: str = "",
                    number: str = "", dbs: int = 0, rarity: str = "") -> Card:
    """The definition a match records for a catalogue card the pool has no rules data for:
    its catalogue facts, no stats, its text resolved by hand (R34).  A catalogue type that
    is not one of the four card types (a token, a tracker) can't be entered at the table."""
    if type_ not in CATALOGUE_TYPES:
        raise CardDataError(f"catalogue card {name!r} is a {type_}: only a Wonder, Land, Item "
                            f"or Spell can have its stats entered at the table; import its "
                            f"stats into the pool instead")
    return Card(name=name, type=CATALOGUE_TYPES[type_],
                orbital=orbital if orbital in ORBITALS else None,
                set=set_ or None, number=number or None, dbs=dbs, rarity=rarity or None,
                manual=True, entered_at_table=True)


def why_not_stats(base: Card, stats: dict[str, Any]) -> str | None:
    """Why ``stats`` can't be the printed stats of the catalogue card ``base`` (``None`` if
    they can): only the :data:`ENTERED_FIELDS`, numbers in range, known keywords."""
    if not base.entered_at_table:
        return f"{base.name} is not a catalogue card awaiting its stats"
    extra = sorted(set(stats) - set(ENTERED_FIELDS))
    if extra:
        return f"{base.name}: {', '.join(extra)} can't be entered (only {', '.join(ENTERED_FIELDS)})"
    cost, power = stats.get("cost", 0), stats.get("power")
    if type(cost) is not int or not 0 <= cost <= MAX_COST:
        return f"{base.name}: cost must be a whole number from 0 to {MAX_COST}, not {cost!r}"
    if power is not None and power != "*" and (type(power) is not int or
                                               not 0 <= power <= MAX_POWER):
        return f"{base.name}: power must be a whole number from 0 to {MAX_POWER} or *, not {power!r}"
    if base.type == "wonder" and power is None:
        return f"{base.name} is a Wonder: enter its printed power (rule 101)"
    classes = stats.get("classes", [])
    if not isinstance(classes, list) or len(classes) > MAX_CLASSES or not all(
            isinstance(c, str) and 0 < len(c) <= 40 for c in classes):
        return f"{base.name}: classes must be a list of at most {MAX_CLASSES} names"
    if not isinstance(stats.get("manual", True), bool):
        return f"{base.name}: manual is true or false"
    try:
        merged_card(base, stats)
    except CardDataError as exc:
        return str(exc)
    return None


def merged_card(base: Card, stats: dict[str, Any]) -> Card:
    """A catalogue card with the printed stats its owner entered: its full definition."""
    return parse_card({**definition(base), **stats}, f"the stats entered for {base.name!r}")


class Defines(Protocol):
    """A state that records the stand-in tokens its match defined (name -> definition) and
    the seats' entries of catalogue cards' printed stats ("A:<name>" -> stats, R34)."""

    defined: dict[str, dict[str, Any]]
    entries: dict[str, dict[str, Any]]


class MatchCards(CardDB):
    """One match's cards as its state knows them at this point: the cards the match file
    records (or the pool's), and the stand-in tokens its events defined so far (203:
    ``TokenCreated.definition``, folded into the state's ``defined``).  Read-only, like every
    database: what a match adds lives in its state, so a snapshot of the state carries it and
    a fold derives it."""

    def __init__(self, base: CardDB, state: Defines):
        self.base: CardDB = base.base if isinstance(base, MatchCards) else base
        self._cards = self.base._cards  # read only: the recorded cards
        self._state = state
        #: the state whose definitions these are (read only): a name's definition changes
        #: only when ``defines.defined`` gains an entry (never replaced, R34 and 203)
        self.defines = state
        self._parsed: dict[str, tuple[dict[str, Any], Card]] = {}
        # the recorded cards whose definition the state never changes (none is entered at the
        # table, R34): looked up directly, the commonest question of the whole engine
        self._fixed: dict[str, Card] = self._cards if not self.base.has_entered_cards else {
            name: card for name, card in self._cards.items() if not card.entered_at_table}
        #: those cards by name (read only): ``fixed.get(name) or cards[name]`` is
        #: ``cards[name]`` without a Python call for the commonest names (the engine's views)
        self.fixed: dict[str, Card] = self._fixed

    def _defined(self, name: str) -> Card | None:
        """A stand-in token's definition, or a catalogue card's with the stats its owner
        entered (R34), as the state knows them now (a take-back may have undone an entry)."""
        data = self._state.defined.get(name)
        if data is None:
            return None
        cached = self._parsed.get(name)
        if cached is None or cached[0] is not data:
            base = self._cards.get(name)
            card = merged_card(base, data) if base is not None and base.entered_at_table \
                else parse_card(data, f"stand-in token {name!r}")
            cached = self._parsed[name] = (data, card)
        return cached[1]

    def __getitem__(self, name: str) -> Card:
        card = self._fixed.get(name)
        if card is not None:
            return card
        card = self._cards.get(name)
        if card is None or card.entered_at_table:
            card = self._defined(name) or card
        if card is None:
            raise CardDataError(f"unknown card {name!r}")
        return card

    def has_stats_to_enter(self, name: str, seat: str) -> bool:
        """A catalogue card whose printed stats ``seat`` has not entered yet (R34: each seat
        enters its own copies, so being asked never tells whether the other seat has)."""
        card = self._cards.get(name)
        return card is not None and card.entered_at_table and \
            f"{seat}:{name}" not in self._state.entries

    def __contains__(self, name: object) -> bool:
        return name in self._cards or name in self._state.defined

    def __iter__(self) -> Iterator[Card]:
        for name in self._cards:
            yield self[name]
        for name in self._state.defined:
            if name not in self._cards:
                card = self._defined(name)
                if card is not None:
                    yield card

    def __len__(self) -> int:
        return len(self._cards) + sum(1 for n in self._state.defined if n not in self._cards)


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
            db._add(card)
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


#: Recorded card sets already parsed, by their digest (checked against the definitions first),
#: with the canonical JSON the digest was worked out of: the matches of a corpus or a
#: tournament record the same few sets, and parsing one is ~1 ms of pydantic validation, a
#: twentieth of a match's re-derivation.  A match whose definitions encode to those very bytes
#: has that digest (no SHA-256 worked out again: ~1% of a re-derivation).  A database never
#: changes, so a match sharing one with another is safe.  Bounded: the oldest is dropped first.
_RECORDED: dict[str, tuple[bytes, CardDB]] = {}
_RECORDED_MAX = 64


def _remember(digest: str, encoded: bytes, db: CardDB) -> CardDB:
    while len(_RECORDED) >= _RECORDED_MAX:
        try:
            _RECORDED.pop(next(iter(_RECORDED)), None)
        except (StopIteration, RuntimeError):  # another thread changed it meanwhile
            break
    _RECORDED[digest] = (encoded, db)
    return db


#: The recorded definition lists already checked, by the identity of the list object: the
#: list itself (kept alive, so its id is not reused), the digest it was checked against and
#: its database.  Re-deriving a match again from the same decoded events (a reader's second
#: look, the bench's passes) then skips even the JSON encoding of the definitions (~¼ of an
#: engine's construction).  Events are never modified once decoded (the log is the truth):
#: a file altered on disk decodes to new lists, checked afresh.  Bounded like ``_RECORDED``.
_CHECKED: dict[int, tuple[list[dict[str, Any]], str, CardDB]] = {}


def _recorded_cards(opened: MatchOpened, where: str) -> CardDB:
    """The database of the definitions ``opened`` records, checked against their digest
    (:func:`definitions_digest` of exactly these bytes: one already checked is not hashed
    again, the very list already checked is not even encoded again)."""
    definitions = opened.cards
    checked = _CHECKED.get(id(definitions))
    if checked is not None and checked[0] is definitions and checked[1] == opened.cards_digest:
        return checked[2]
    db = _checked_cards(opened, where)
    while len(_CHECKED) >= _RECORDED_MAX:
        try:
            _CHECKED.pop(next(iter(_CHECKED)), None)
        except (StopIteration, RuntimeError):  # another thread changed it meanwhile
            break
    _CHECKED[id(definitions)] = (definitions, opened.cards_digest, db)
    return db


def _checked_cards(opened: MatchOpened, where: str) -> CardDB:
    """:func:`_recorded_cards` of a list not checked before: encoded, and hashed unless the
    bytes are those of a kept set."""
    encoded = msgspec.json.encode(opened.cards)
    known = _RECORDED.get(opened.cards_digest)
    if known is not None and known[0] == encoded:
        return known[1]  # the same bytes, so the same digest: checked when it was remembered
    digest = hashlib.sha256(encoded).hexdigest()
    if digest != opened.cards_digest:
        raise CardDataError(f"{where}: the recorded card definitions do not match their "
                            f"digest (cards_digest): the file was altered")
    known = _RECORDED.get(digest)  # (other bytes of this digest: only by a SHA-256 collision)
    return known[1] if known is not None else \
        _remember(digest, encoded, CardDB.from_definitions(opened.cards, where))


def match_cards(opened: MatchOpened, pool: CardDB) -> CardDB:
    """The cards of one match, its own copy: the definitions its ``MatchOpened`` records
    (checked against their digest), or -- for a file of schema ≤ 2, which recorded none --
    the pool's.  Every card either seat can use must be there."""
    where = f"match {opened.match_id}"
    # (a database never changes: sharing the pool is safe)
    db = _recorded_cards(opened, where) if opened.cards else pool
    for info in opened.seats:
        for entry in (*info.deck, *info.archive):
            if entry.card not in db:
                raise CardDataError(f"{where}: seat {info.seat} uses unknown card {entry.card!r}")
    return db


def used_definitions(opened: MatchOpened, pool: CardDB) -> list[dict[str, Any]]:
    """The canonical definitions of every card either seat can use, sorted by name."""
    names = sorted({e.card for info in opened.seats for e in (*info.deck, *info.archive)})
    return [definition(pool[name]) for name in names]
