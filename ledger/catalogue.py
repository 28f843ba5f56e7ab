"""The card catalogue (facts about published cards) and decklists checked against it.

:func:`load_catalogue` reads a catalogue CSV (``fixtures/catalogue/existence.csv``: set,
number, name, type, orbital, DBS, rarity -- see that directory's README) into a
:class:`Catalogue`, looked up by name or by set number.  A name is looked up by its key
(:func:`name_key`): Unicode NFKC (a decomposed ``Jän`` as a Mac pastes it is the composed one),
every apostrophe alike (a straight ``By'ylar`` finds the catalogue's curly one and the other
way round), runs of spaces (non-breaking ones too) as one, and case folded; a name not found
suggests the closest ones (:mod:`difflib`).

:func:`read_decklist` reads the ``count name`` lines of a decklist against any catalogue (a
game's pool made one, say), checking no deck rule. :func:`parse_decklist` reads a decklist
pasted as ``count name`` lines (``3 Glow Smith``, ``3x Glow Smith``, or a set number instead of
the name: ``2 004``; blank lines and ``#`` comments skipped) and checks it against the deck
rules of Wonders of The First (rule 303, v1.2 numbering): a main deck of exactly 50 cards; at
most as many copies of a card as its tier allows (303.1: legendary 1, primary 2, secondary 3 --
the catalogue has no tiers, so a card the pool does not know counts as secondary, the loosest);
tokens go to the archive (303.3: 1 to 50 tokens); trackers are not in-game objects and can't be
registered. The deck's DBS is the sum of its cards' and archive tokens' DBS (303.2). A card may
also come from the card pool (``extra``: name → :class:`Card` facts), which is how the original
pool's cards register.

An unknown name (with "did you mean …?" when a name is close), or a line that is not
``count name``, is one :class:`DecklistError` naming the line; a byte order mark (a file saved
by a Windows editor) before the first line is no part of it.  This module reads no other part
of the program (``ledger`` imports neither ``replay`` nor ``web``): the caller passes the
catalogue's path and the pool's facts.
"""

from __future__ import annotations

import csv
import difflib
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from ledger.errors import LedgerError

DECK_SIZE = 50  # rule 303: "Each player brings a main deck with 50 cards"
ARCHIVE_MAX = 50  # rule 303.3: "a minimum of 1 token and maximum 50 tokens"
TIER_COPIES = {"legendary": 1, "primary": 2, "secondary": 3}  # rule 303.1
MAX_LINES = 300
_LINE = re.compile(r"^(\d{1,3})\s*[xX×]?\s+(.+?)\s*$")
# the apostrophes people type or paste (curly, modifier letter, prime, backtick, acute, full width)
_APOSTROPHES = str.maketrans({c: "'" for c in "\u2018\u2019\u201b\u02bc\u2032`\u00b4\uff07"})
BOM = "\ufeff"


def name_key(name: str) -> str:
    """What two spellings of one card name share: NFKC, apostrophes alike, invisible format
    characters dropped, whitespace runs as one space, case folded."""
    text = unicodedata.normalize("NFKC", name.translate(_APOSTROPHES))
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    return " ".join(text.split()).casefold()


class DecklistError(LedgerError, ValueError):
    """A decklist that can't be registered (the message names the line or the rule)."""


@dataclass(frozen=True)
class Card:
    """What the catalogue says about one card."""

    name: str
    number: str = ""
    set: str = ""
    type: str = ""
    orbital: str = ""
    dbs: int = 0
    rarity: str = ""
    tier: str | None = None  # only for cards the pool knows (the catalogue has no tiers)
    in_pool: bool = False

    @property
    def token(self) -> bool:
        return self.type == "Token"


@dataclass
class Catalogue:
    cards: list[Card]
    _by_name: dict[str, Card] = field(default_factory=dict, repr=False)
    _by_number: dict[str, Card] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for card in self.cards:
            self._by_name.setdefault(name_key(card.name), card)
            if card.number:
                self._by_number.setdefault(card.number.upper(), card)

    def __len__(self) -> int:
        return len(self.cards)

    def named(self, name: str) -> Card | None:
        return self._by_name.get(name_key(name))

    def close_to(self, name: str, n: int = 3) -> list[str]:
        """The names of the cards whose names are closest to ``name`` (a typo's card)."""
        keys = difflib.get_close_matches(name_key(name), list(self._by_name), n=n, cutoff=0.75)
        return [self._by_name[k].name for k in keys]

    @property
    def numbers(self) -> bool:
        """Whether its cards have set numbers (a decklist may then give them instead)."""
        return bool(self._by_number)

    def numbered(self, number: str) -> Card | None:
        return self._by_number.get(number.strip().upper())

    def find(self, text: str) -> Card | None:
        """A card by name, set number (``004``, ``P-01``) or ``Existence 004``."""
        text = text.strip()
        found = self.named(text) or self.numbered(text)
        if found is None and " " in text:
            set_name, _, number = text.rpartition(" ")
            found = self.numbered(number)
            if found is not None and found.set.casefold() != set_name.casefold():
                found = None
        return found

    def with_pool(self, pool: list[Card]) -> Catalogue:
        """This catalogue plus the pool's cards: a pool card of a catalogue name gives it its
        tier (and marks it playable); a pool-only card is added as it is."""
        by_name = {name_key(c.name): c for c in pool}
        merged = []
        for card in self.cards:
            known = by_name.pop(name_key(card.name), None)
            merged.append(Card(card.name, card.number, card.set, card.type, card.orbital,
                               card.dbs, card.rarity, known.tier if known else None,
                               known is not None))
        return Catalogue(merged + [Card(c.name, c.number, c.set, c.type, c.orbital, c.dbs,
                                        c.rarity, c.tier, True) for c in by_name.values()])


def load_catalogue(path: str | Path) -> Catalogue:
    """The catalogue in a CSV file with the columns of ``fixtures/catalogue/existence.csv``."""
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    cards = []
    for n, row in enumerate(rows, start=2):
        try:
            cards.append(Card(name=row["name"].strip(), number=row["number"].strip(),
                              set=row["set"].strip(), type=row["type"].strip(),
                              orbital=row["orbital"].strip(), dbs=int(row["dbs"]),
                              rarity=(row.get("rarity") or "").strip()))
        except (KeyError, ValueError, AttributeError) as exc:
            raise DecklistError(f"{path}: line {n}: not a catalogue row ({exc})") from None
    return Catalogue(cards)


@dataclass(frozen=True)
class Decklist:
    """A registered deck: card name → copies, its archive, and its DBS total (303.2)."""

    cards: dict[str, int]
    archive: dict[str, int]
    dbs: int
    outside_pool: tuple[str, ...] = ()  # catalogue cards the pool has no rules data for

    def as_text(self) -> str:
        lines = [f"{n} {name}" for name, n in self.cards.items()]
        lines += [f"{n} {name}" for name, n in self.archive.items()]
        return "\n".join(lines)


def read_decklist(text: str, catalogue: Catalogue, where: str = "the catalogue",
                  example: str = "3 Glow Smith") -> list[tuple[int, int, Card]]:
    """The ``count name`` lines of ``text`` as ``(line number, count, card)``, each card found in
    ``catalogue`` (``where`` names it in an error: "the catalogue", "the State of Wonder card
    pool"; ``example`` is the line shown as a model); no deck rule is checked here.  A line
    that is not ``count name``, a card not found (with the closest names) or a count below 1
    is a :class:`DecklistError` naming the line."""
    lines = text.removeprefix(BOM).splitlines()
    if len(lines) > MAX_LINES:
        raise DecklistError(f"the decklist has {len(lines)} lines; at most {MAX_LINES}")
    found: list[tuple[int, int, Card]] = []
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        if not line or line.startswith(("#", "//")):
            continue
        match = _LINE.match(line)
        if match is None:
            raise DecklistError(f"line {number} ({line[:80]!r}): write it as 'count name', "
                                f"e.g. '{example}'")
        count, what = int(match.group(1)), match.group(2)
        card = catalogue.find(what)
        if card is None:
            close = catalogue.close_to(what[:200])
            hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
            how = " (a name as printed, or a set number such as 004)" \
                if catalogue.numbers else ""
            raise DecklistError(f"line {number}: no card {what[:80]!r} in {where}{hint}{how}")
        if count < 1:
            raise DecklistError(f"line {number}: {count} copies of {card.name}")
        found.append((number, count, card))
    return found


def parse_decklist(text: str, catalogue: Catalogue) -> Decklist:
    """The decklist in ``text`` checked against ``catalogue`` and rule 303 (see the module)."""
    cards: dict[str, int] = {}
    archive: dict[str, int] = {}
    dbs = 0
    outside: list[str] = []
    for number, count, card in read_decklist(text, catalogue):
        if card.type == "Tracker":
            raise DecklistError(f"line {number}: {card.name} is a tracker, not an in-game "
                                f"object; it is not part of a deck")
        into = archive if card.token else cards
        into[card.name] = into.get(card.name, 0) + count
        dbs += card.dbs * count
        if not card.in_pool and card.name not in outside:
            outside.append(card.name)
        limit = TIER_COPIES[card.tier or "secondary"]
        if not card.token and into[card.name] > limit:
            raise DecklistError(f"line {number}: {into[card.name]} copies of {card.name}; its "
                                f"tier ({card.tier or 'secondary: the most any tier allows'}) "
                                f"allows {limit} (rule 303.1)")
    total = sum(cards.values())
    if total != DECK_SIZE:
        raise DecklistError(f"the main deck has {total} cards; it must have exactly "
                            f"{DECK_SIZE} (rule 303)")
    tokens = sum(archive.values())
    if tokens > ARCHIVE_MAX:
        raise DecklistError(f"the archive has {tokens} tokens; at most {ARCHIVE_MAX} "
                            f"(rule 303.3)")
    return Decklist(cards, archive, dbs, tuple(outside))
