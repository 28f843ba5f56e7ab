"""Words for a listed prompt's options (:mod:`replay.wotf.api`), as a player reads them on the
table: a seat by its player's name ("Bob (you)" to the seat asked), a card by its name and
where it is ("Sunspire Citadel (Ann's, realm 2)"), and, only where two options would still
read alike, what else tells them apart on the board (tapped or not, counters); never a card id.
The labels are not recorded: an answer is its decision, whatever the words."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ledger.events import SEATS
from replay.prompts import ordinal
from replay.wotf.state import CardState, GameState, controller_of


def option_labels(picks: list[Any], state: GameState, view: str,
                  players: Mapping[str, str] | None) -> list[str]:
    """One label per pick, in order; picks that would read alike get more detail."""
    who = dict(players or {})
    labels = [_plain(p, state, view, who) for p in picks]
    labels = _detailed(labels, picks, state, who)
    return _counted(labels)


def _plain(pick: Any, state: GameState, view: str, who: dict[str, str]) -> str:
    card = state.cards.get(pick) if isinstance(pick, str) else None
    if card is not None:
        return f"{card.name} ({_place(card, who)})"
    if isinstance(pick, str) and pick in SEATS:
        name = who.get(pick, pick)
        return f"{name} (you)" if pick == view else name
    return str(pick)


def _place(card: CardState, who: dict[str, str]) -> str:
    """Where a card is, in the words the board uses: whose, and which realm or zone."""
    seat = controller_of(card)
    whose = f"{who.get(seat, seat)}'s"
    if card.zone == "world" and card.realm is not None:
        return f"{whose}, realm {card.realm}"
    return f"{whose} {card.zone}"


def _detailed(labels: list[str], picks: list[Any], state: GameState,
              who: dict[str, str]) -> list[str]:
    seen = Counter(labels)
    out = []
    for label, pick in zip(labels, picks, strict=True):
        card = state.cards.get(pick) if isinstance(pick, str) else None
        if seen[label] > 1 and card is not None and card.zone == "world":
            label = f"{card.name} ({', '.join([_place(card, who), *_marks(card)])})"
        out.append(label)
    return out


def _marks(card: CardState) -> list[str]:
    """What the board shows of a card in The World besides its name: tapped or not, its
    counters."""
    marks = ["tapped" if card.tapped else "untapped"]
    marks += [f"{name} ×{count}" for name, count in sorted(card.counters.items()) if count]
    return marks


def _counted(labels: list[str]) -> list[str]:
    """Options that still read alike are numbered among themselves ("…, the second")."""
    total = Counter(labels)
    seen: Counter[str] = Counter()
    out = []
    for label in labels:
        if total[label] > 1:
            nth = seen[label]
            seen[label] += 1
            label = f"{label}, the {ordinal(nth)}"
        out.append(label)
    return out
