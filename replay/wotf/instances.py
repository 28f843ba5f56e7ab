"""The card instances of a match and their ids.

Each copy of a card in a seat's deck or archive is one instance with an id.  From schema 3 a
deck's instances come into being with the setup shuffle (``DeckOrdered``): the card at
position k is ``<seat><k>``, so an id names nothing.  Files of schema ≤ 2 numbered deck
instances in deck-list order (``A1`` … ``A50``) from the start.  Archive instances (public,
303.3) are ``A-T1`` … in list order; tokens made during play are ``A-t1`` ….
"""

from __future__ import annotations

from ledger.events import MatchOpened


def card_instances(opened: MatchOpened) -> dict[str, list[tuple[str, str]]]:
    """Each seat's deck instances (key ``"A"``) and archive instances (key ``"A-archive"``),
    as ``(id, card name)`` pairs in list order."""
    out: dict[str, list[tuple[str, str]]] = {}
    for info in opened.seats:
        deck = [name for entry in info.deck for name in [entry.card] * entry.count]
        archive = [name for entry in info.archive for name in [entry.card] * entry.count]
        out[info.seat] = ([] if ids_by_shuffle(opened) else
                          [(f"{info.seat}{n}", name) for n, name in enumerate(deck, start=1)])
        out[f"{info.seat}-archive"] = [(f"{info.seat}-T{n}", name)
                                       for n, name in enumerate(archive, start=1)]
    return out


def ids_by_shuffle(opened: MatchOpened) -> bool:
    """Whether the match's deck ids are drawn by its setup shuffle (schema 3 and later)."""
    return opened.schema_version >= 3


def deck_names(opened: MatchOpened, seat: str) -> list[str]:
    """A seat's deck as card names, in deck-list order (what its setup shuffle permutes)."""
    info = next(i for i in opened.seats if i.seat == seat)
    return [name for entry in info.deck for name in [entry.card] * entry.count]
