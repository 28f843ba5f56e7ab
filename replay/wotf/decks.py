"""Decks: TOML deck files, validated against the card database (rule 303).

A deck file has ``name``, optional ``player`` and ``format``, a ``[cards]`` table (card name →
copies) and an optional ``[archive]`` of printed tokens.  :func:`validate_deck` lists every
problem: 50 main-deck cards, tier copy limits (legendary 1, primary 2, secondary 3), known
cards, no tokens in the main deck, an archive of 1–50 tokens if there is one.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ledger.events import DeckEntry
from replay import resources
from replay.errors import CardDataError
from replay.wotf import deckfacts
from replay.wotf.cards import CardDB

DECK_SIZE = 50
COPY_LIMITS = {"legendary": 1, "primary": 2, "secondary": 3}  # 303.1


class Deck(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    player: str | None = None
    format: str = "constructed"
    cards: dict[str, int]
    archive: dict[str, int] = {}
    path: str | None = None

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


def validate_deck(deck: Deck, db: CardDB) -> list[str]:
    """Every problem with a deck (an empty list when it is legal)."""
    problems = []
    if deck.size() != DECK_SIZE:
        problems.append(f"the main deck has {deck.size()} cards; it must have {DECK_SIZE} (rule 303)")
    for name, count in deck.cards.items():
        if name not in db:
            problems.append(f'cards."{name}": unknown card')
            continue
        card = db[name]
        if count < 1:
            problems.append(f'cards."{name}": {count} copies')
        if card.token:
            problems.append(f'cards."{name}": a token can\'t start in the main deck (rule 203)')
        limit = COPY_LIMITS[card.tier]
        if count > limit:
            problems.append(f'cards."{name}": {count} copies of a {card.tier} card; at most '
                            f'{limit} (rule 303.1)')
    tokens = sum(deck.archive.values())
    if deck.archive and not 1 <= tokens <= 50:
        problems.append(f"the archive has {tokens} tokens; it holds 1–50 (rule 303.3)")
    for name in deck.archive:
        if name not in db:
            problems.append(f'archive."{name}": unknown card')
        elif not db[name].token:
            problems.append(f'archive."{name}": only printed tokens go in the archive (rule 303.3)')
    return problems


def load_decks(paths=None, db: CardDB | None = None) -> list[Deck]:
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
