"""Catalogue cards entered at the table (docs/rulings.md R34): when the engine asks a seat for
the printed stats of one of its cards, and whether an entry answers it.

A match may use a catalogue card the pool has no rules data for: its file records the card's
catalogue facts only (``Card.entered_at_table``).  The first time such a card is where its owner
sees it -- drawn into the hand, or put anywhere but a deck or the archive -- and before anything
else is decided, the engine asks its owner for the stats printed on the physical card (a
``stats`` prompt); the answer (``CardStatsEntered``) joins the match's cards through the fold,
for every copy of that name (the first entry of a name is the one in force; the other seat
is still asked for its own copies, so that being asked or not says nothing).  Checking an
answer is here; applying it is :func:`replay.wotf.evolve.evolve`.  :func:`entry_form` is
what the seat's form offers (the ranges, the known classes and keywords).
"""

from __future__ import annotations

from typing import Any

from ledger.events import Event
from replay.prompts import Prompt
from replay.wotf.cards import (
    MAX_CLASSES,
    MAX_COST,
    MAX_POWER,
    ORBITALS,
    SIMPLE_KEYWORDS,
    CardDB,
    MatchCards,
    why_not_stats,
)
from replay.wotf.events import CardStatsEntered
from replay.wotf.state import GameState

#: Zones where a card is out of its owner's sight: a deck (rule 402: unknown order) and the
#: archive (tokens not yet made).
UNSEEN_ZONES = ("deck", "archive")


def entry_prompt(state: GameState, db: CardDB) -> Prompt | None:
    """The ``stats`` prompt for the first card (in the state's card order) that its owner sees
    and whose printed stats are not entered yet; ``None`` when there is none."""
    if not isinstance(db, MatchCards) or state.over:
        return None
    for cid, c in state.cards.items():
        if c.zone not in UNSEEN_ZONES and db.has_stats_to_enter(c.name, c.owner):
            return Prompt(c.owner, "stats", card=cid,
                          text=f"enter the printed cost, power, classes and keywords of "
                               f"{c.name} (from the card; ruling R34)")
    return None


def why_not_entry(state: GameState, db: CardDB, prompt: Prompt, decision: Event) -> str | None:
    """Why ``decision`` does not answer the ``stats`` prompt (``None`` if it does)."""
    if not isinstance(decision, CardStatsEntered) or decision.card != prompt.card:
        return (f"the pending prompt asks the printed stats of {prompt.card}; answer it with "
                f"CardStatsEntered(card={prompt.card!r})")
    c = state.cards[decision.card]
    if decision.name != c.name or decision.zone != c.zone:
        return (f"{decision.card} is {c.name} in {c.zone}, not {decision.name} in "
                f"{decision.zone}")
    base = db.base[c.name] if isinstance(db, MatchCards) else db[c.name]
    return why_not_stats(base, dict(decision.stats))


#: Classes the rules name (section 6, "Classes": Monster, Rite, Utility; equipment; the
#: Stoneseeker and story token classes); the known list adds every class of the pool's cards.
RULE_CLASSES = ("Equipment", "Monster", "Rite", "Stoneseeker", "Story Token", "Utility")


def known_classes(db: CardDB) -> list[str]:
    """The classes an entry may name: the rules' and every class of the pool in use and of
    the match's cards, sorted."""
    from replay.wotf.cards import default_cards

    found = set(RULE_CLASSES)
    for pool in (db, default_cards()):
        for card in pool:
            found.update(card.classes)
    return sorted(found)


def entry_form(engine: Any, prompt: Prompt) -> dict[str, Any]:
    """What the seat's form for a ``stats`` prompt shows and accepts: the card's catalogue
    facts, the ranges, the known classes and keywords, and the decision to send."""
    assert prompt.card is not None, "entry_prompt names the card"
    c = engine.state.cards[prompt.card]
    card = engine.db[c.name]
    return {"card": prompt.card, "name": c.name, "type": card.type, "orbital": card.orbital,
            "set": card.set, "number": card.number,
            "cost": {"min": 0, "max": MAX_COST},
            "power": {"min": 0, "max": MAX_POWER, "star": True,
                      "required": card.type == "wonder"},
            "classes": known_classes(engine.db), "max_classes": MAX_CLASSES,
            "keywords": sorted(SIMPLE_KEYWORDS), "link": list(ORBITALS),
            "answer": {"type": "CardStatsEntered", "card": prompt.card}}
