"""Decks: TOML deck files, validated against the card database (rule 303).

A deck file has ``name`` (its id: what a match records as the seat's deck name), optional
``title`` (the deck as people read it: ``solfera-blaze`` is *Solfera Blaze*; :func:`deck_title`
shows a recorded deck name by it), ``player`` and ``format``, a ``[cards]`` table (card name →
copies) and an optional ``[archive]`` of printed tokens.  :func:`validate_deck` lists every
problem: 50 main-deck cards, tier copy limits (legendary 1, primary 2, secondary 3), known
cards, no tokens in the main deck (token lands may start there in the prerelease and draft
formats, R40), an archive of 1–50 tokens if there is one, and one copy of each legendary story
token in it (from rules revision 9, R40).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ledger.events import DeckEntry
from replay import resources
from replay.errors import CardDataError
from replay.wotf import deckfacts
from replay.wotf.cards import CardDB

DECK_SIZE = 50
COPY_LIMITS = {"legendary": 1, "primary": 2, "secondary": 3}  # 303.1
#: Formats whose main deck may hold token lands (304.1 Prerelease: "Players can include token
#: lands in their starting decks"; Unknown Lands: "They can't start the game in a main deck
#: except in some formats like draft and prerelease"; docs/rulings.md R40).
TOKEN_LAND_FORMATS = frozenset({"prerelease", "draft"})
#: From this rules revision an archive holds one copy of each legendary story token (R40);
#: a match recorded before it is never refused for it (an import re-checks its decks).
STORY_TOKEN_REVISION = 9


class Deck(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    title: str | None = Field(default=None, min_length=1)
    player: str | None = None
    format: str = "constructed"
    cards: dict[str, int]
    archive: dict[str, int] = {}
    path: str | None = None

    @property
    def shown_name(self) -> str:
        """The deck as people read it: its title, else its name."""
        return self.title or self.name

    def entries(self) -> list[DeckEntry]:
        return [DeckEntry(card, count) for card, count in self.cards.items()]

    def archive_entries(self) -> list[DeckEntry]:
        return [DeckEntry(card, count) for card, count in self.archive.items()]

    def size(self) -> int:
        return sum(self.cards.values())

    def dbs(self, db: CardDB) -> int:
        """303.2: the DBS of every card in the deck and every token in its archive."""
        return deckfacts.dbs_total(self.entries(), self.archive_entries(), card_facts(db))

    def main_orbitals(self, db: CardDB) -> tuple[str, ...]:
        """The deck's archetype: its one or two most-played orbitals (the ledger's rule, so
        the analytics warehouse and the decks agree)."""
        return deckfacts.main_orbitals(self.entries(), card_facts(db))


def card_facts(db: CardDB) -> dict[str, deckfacts.CardFact]:
    """What the ledger's deck facts need of each card: its orbital and its DBS."""
    return {card.name: deckfacts.CardFact(card.orbital, card.dbs) for card in db}


def load_deck(path: str | Path, db: CardDB | None = None) -> Deck:
    """Read a deck file; a bad file or field is a :class:`CardDataError` naming both."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise CardDataError(f"{path}: cannot read deck file ({exc})") from None
    try:
        deck = Deck.model_validate(dict(data, path=str(path)))
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "(deck)"
        raise CardDataError(f"{path}: {field}: {first['msg']}") from None
    if db is not None:
        for table in ("cards", "archive"):
            for name in getattr(deck, table):
                if name not in db:
                    raise CardDataError(f'{path}: {table}."{name}": unknown card')
    return deck


@cache
def _shipped_titles() -> dict[str, str]:
    """The shipped deck files' titles by their name (id); read once."""
    titles = {}
    for path in sorted(resources.decks_dir().glob("*.toml")):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue  # reading the deck itself says what is wrong with it
        if isinstance(data.get("name"), str) and isinstance(data.get("title"), str):
            titles[data["name"]] = data["title"]
    return titles


def deck_title(deck_name: str) -> str:
    """A recorded deck name as people read it: a shipped deck's title for its id
    (``solfera-blaze`` -> *Solfera Blaze*: matches record the id), else the name itself."""
    return _shipped_titles().get(deck_name, deck_name)


def validate_deck(deck: Deck, db: CardDB, rules_revision: int | None = None) -> list[str]:
    """Every problem with a deck (an empty list when it is legal), in its ``format``;
    ``rules_revision``: a recorded match's (None: a deck for a new match)."""
    problems = []
    if deck.size() != DECK_SIZE:
        problems.append(f"the main deck has {deck.size()} cards; it must have {DECK_SIZE} (rule 303)")
    for name, count in deck.cards.items():
        problems += _main_deck_problems(deck, db, name, count)
    problems += _archive_problems(deck, db, rules_revision)
    return problems


def _main_deck_problems(deck: Deck, db: CardDB, name: str, count: int) -> list[str]:
    """303, 303.1, 203 and 304.1 for one main-deck entry."""
    if name not in db:
        return [f'cards."{name}": unknown card']
    card, problems = db[name], []
    if count < 1:
        problems.append(f'cards."{name}": {count} copies')
    if card.token and not (card.type == "land" and deck.format in TOKEN_LAND_FORMATS):
        problems.append(f'cards."{name}": a token can\'t start in the main deck (rule 203; '
                        f'token lands only in prerelease and draft, 304.1)')
    limit = COPY_LIMITS[card.tier]
    if count > limit:
        problems.append(f'cards."{name}": {count} copies of a {card.tier} card; at most '
                        f'{limit} (rule 303.1)')
    return problems


def _archive_problems(deck: Deck, db: CardDB, rules_revision: int | None) -> list[str]:
    """303.3 and Story Tokens: 1–50 printed tokens; one of each legendary story token."""
    problems = []
    tokens = sum(deck.archive.values())
    if deck.archive and not 1 <= tokens <= 50:
        problems.append(f"the archive has {tokens} tokens; it holds 1–50 (rule 303.3)")
    story_limit = rules_revision is None or rules_revision >= STORY_TOKEN_REVISION
    for name, count in deck.archive.items():
        if name not in db:
            problems.append(f'archive."{name}": unknown card')
        elif not db[name].token:
            problems.append(f'archive."{name}": only printed tokens go in the archive (rule 303.3)')
        elif story_limit and count > 1 and _legendary_story_token(db, name):
            problems.append(f'archive."{name}": {count} copies of a legendary story token; at '
                            f'most 1 per archive (Story Tokens)')
    return problems


def _legendary_story_token(db: CardDB, name: str) -> bool:
    """Story Tokens: "identified by their class story token"; this one is legendary."""
    card = db[name]
    return card.tier == "legendary" and any(k.lower() == "story token" for k in card.classes)


def load_decks(paths: Iterable[str | Path] | None = None, db: CardDB | None = None) -> list[Deck]:
    """Load deck files (default: the shipped decks, :func:`replay.resources.decks_dir`), checked."""
    if paths is None:
        paths = sorted(resources.decks_dir().glob("*.toml"))
    decks = [load_deck(p, db) for p in paths]
    if not decks:
        raise CardDataError("no deck files found")
    if db is not None:
        for deck in decks:
            problems = validate_deck(deck, db)
            if problems:
                raise CardDataError(f"{deck.path}: {problems[0]}")
    return decks
