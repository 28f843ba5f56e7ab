"""State of Wonder deck lists: loading deck files and saying why a deck is not legal.

A deck file (``fixtures/sow/decks/*.toml``)::

    name = "Ironhold Walls"
    state = "Ironhold"
    wonder = "The Bastion Eternal"       # the Wonder or Hero
    [cards]                               # the 15 cards of the culture, name = copies
    "Shieldbearer" = 3

Rules ("Getting started", deck building): 15 cards plus 1 Wonder or Hero plus 1 State (a total
of 17: docs/rulings-sow.md R1); no more than 3 building, fortification or unit cards of one
name; faction cards only from the State's faction.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import msgspec

from ledger.events import DeckEntry
from replay.errors import CardDataError
from replay.resources import data_root
from replay.sow.cards import DECK_TYPES, CardPool

CULTURE_SIZE = 15  # R1: "a deck of 15 cards plus 1 Wonder or Hero card and 1 State card"
MAX_COPIES = 3


class Deck(msgspec.Struct, frozen=True):
    name: str
    state: str
    wonder: str
    cards: dict[str, int]

    def entries(self) -> list[DeckEntry]:
        """The deck as ``SeatInfo.deck`` records it: State, Wonder/Hero, then the culture."""
        return [DeckEntry(self.state), DeckEntry(self.wonder),
                *(DeckEntry(n, c) for n, c in sorted(self.cards.items()))]

    def archive_entries(self) -> list[DeckEntry]:
        """State of Wonder has no archive (``SeatInfo.archive`` stays empty)."""
        return []


def decks_dir() -> Path:
    return data_root() / "sow" / "decks"


def load_deck(path: Path) -> Deck:
    try:
        return msgspec.convert(tomllib.loads(path.read_text(encoding="utf-8")), Deck,
                               strict=True)
    except (tomllib.TOMLDecodeError, msgspec.ValidationError) as exc:
        raise CardDataError(f"{path}: {exc}") from None


def shipped_decks() -> dict[str, Deck]:
    return {d.name: d for d in load_decks([decks_dir()])}


def load_decks(paths: Sequence[Path]) -> list[Deck]:
    """The decks of deck files or directories of them, in path order."""
    files: list[Path] = []
    for path in paths:
        files += sorted(path.glob("*.toml")) if path.is_dir() else [path]
    return [load_deck(f) for f in files]


def entries_problems(entries: list[DeckEntry], pool: CardPool) -> list[str]:
    """Why a deck given as ``SeatInfo.deck`` entries is not legal (empty when it is)."""
    unknown = [e.card for e in entries if e.card not in pool]
    if unknown:
        return [f"unknown card {n!r}" for n in unknown]
    counts: Counter[str] = Counter()
    for e in entries:
        counts[e.card] += e.count
    states = [n for n in counts for _ in range(counts[n]) if pool[n].type == "state"]
    wonders = [n for n in counts for _ in range(counts[n]) if pool[n].type in ("wonder", "hero")]
    culture = {n: c for n, c in counts.items() if pool[n].type in DECK_TYPES}
    problems = []
    if len(states) != 1:
        problems.append(f"a deck has exactly 1 State card (\"A player can only have 1 State card "
                        f"in their deck\"), this one has {len(states)}")
    if len(wonders) != 1:
        problems.append(f"a deck has exactly 1 Wonder or Hero card (\"A player can only have 1 "
                        f"Hero or Wonder card in their deck\"), this one has {len(wonders)}")
    size = sum(culture.values())
    if size != CULTURE_SIZE:
        problems.append(f"a deck has {CULTURE_SIZE} cards besides its State and its Wonder or "
                        f"Hero (docs/rulings-sow.md R1), this one has {size}")
    for name, count in sorted(culture.items()):
        if count > MAX_COPIES:
            problems.append(f"{name!r}: {count} copies; \"A player may have no more than 3 "
                            f"building, fortification or unit cards with the same name\"")
    if len(states) == 1:
        faction = pool[states[0]].faction
        for name in sorted(counts):
            card = pool[name]
            if card.type != "state" and card.faction not in ("neutral", faction):
                problems.append(f"{name!r} is a card of {pool.faction_name(card.faction)}; "
                                f"\"You may only use faction cards from the same faction as "
                                f"your state\" (your State {states[0]!r} is of "
                                f"{pool.faction_name(faction)})")
    return problems


def deck_problems(deck: Deck | list[DeckEntry], pool: CardPool) -> list[str]:
    """Why a deck is not legal: a deck (anything with ``entries()``) or its entries."""
    entries = deck.entries() if hasattr(deck, "entries") else list(deck)
    return entries_problems(entries, pool)
