"""What the warehouse knows about a deck list: its hash, DBS total and archetype.

Events carry card *names*, not card stats, and the ledger never imports the card database
(``replay.wotf.cards``).  Facts about cards that the log does not carry (each card's orbital and
DBS) are passed in by the caller as plain data, a :data:`CardFacts` mapping
``card name -> CardFact(orbital, dbs)``; a card missing from it counts as DBS 0, no orbital.

The archetype rule lives here, once; ``replay.wotf.decks.Deck`` uses it too: the deck's
most-played orbital by card count, plus the second one when it has at least a quarter of the
main deck.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

import msgspec

from ledger.events import DeckEntry, MatchOpened

SECOND_ORBITAL_SHARE = 0.25
ARCHETYPE_SEPARATOR = "+"


class CardFact(msgspec.Struct, frozen=True):
    """The stats of one card the analytics need: its orbital (or ``None``) and its DBS (303.2)."""

    orbital: str | None = None
    dbs: int = 0


CardFacts = Mapping[str, CardFact]


def recorded_facts(opened: MatchOpened, facts: CardFacts) -> CardFacts:
    """The facts of a match's cards as its file recorded them (schema 3: ``MatchOpened.cards``),
    over ``facts`` (today's pool) for files that recorded none -- so an errata of today's pool
    never changes the analytics of a match recorded before it."""
    if not opened.cards:
        return facts
    merged = dict(facts)
    for card in opened.cards:
        merged[card["name"]] = CardFact(card.get("orbital"), int(card.get("dbs", 0)))
    return merged


def dbs_total(deck: Iterable[DeckEntry], archive: Iterable[DeckEntry], facts: CardFacts) -> int:
    """303.2: the DBS of every card in the deck plus every token in its archive."""
    total = 0
    for entry in [*deck, *archive]:
        fact = facts.get(entry.card)
        total += (fact.dbs if fact else 0) * entry.count
    return total


def main_orbitals(deck: Iterable[DeckEntry], facts: CardFacts) -> tuple[str, ...]:
    """The deck's archetype: its one or two most-played orbitals (sorted), ``()`` if none."""
    entries = list(deck)
    counts: Counter[str] = Counter()
    for entry in entries:
        fact = facts.get(entry.card)
        if fact is not None and fact.orbital:
            counts[fact.orbital] += entry.count
    if not counts:
        return ()
    ranked = counts.most_common()
    top = [ranked[0][0]]
    size = sum(entry.count for entry in entries)
    if len(ranked) > 1 and ranked[1][1] >= SECOND_ORBITAL_SHARE * size:
        top.append(ranked[1][0])
    return tuple(sorted(top))


def archetype(deck: Iterable[DeckEntry], facts: CardFacts) -> str:
    """The archetype as one string, e.g. ``"Petraia+Umbrathene"`` (``""`` if no orbital)."""
    return ARCHETYPE_SEPARATOR.join(main_orbitals(deck, facts))
