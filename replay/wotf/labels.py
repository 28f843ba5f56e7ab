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


# -- the cards a turn prompt's options act with -----------------------------------------------


def card_words(cids: list[str], state: GameState) -> dict[str, str]:
    """Words for each card a seat's turn options act with (all the seat's own), distinct among
    cards that differ: the name (a deck card: "from the top of your deck"); where two share
    a name, where each is ("from your hand", "in realm 3"); where still alike, the board's
    marks; as a last resort a copy number ("copy 2") -- copies in one hand are alike in all
    but which one is played, and the option still records that one."""
    words = {cid: _base(cid, state) for cid in dict.fromkeys(cids)}
    words = _apart(words, lambda cid, word: _where(cid, state, word))
    words = _apart(words, lambda cid, word: _marked(cid, state, word))
    return _copies(words)


def _base(cid: str, state: GameState) -> str:
    card = state.cards.get(cid)
    if card is None:
        return cid
    return f"{card.name} from the top of your deck" if card.zone == "deck" else card.name


def _where(cid: str, state: GameState, word: str) -> str:
    card = state.cards.get(cid)
    if card is None or card.zone == "deck":
        return word
    if card.zone == "world" and card.realm is not None:
        return f"{card.name} in realm {card.realm}"
    return f"{card.name} from your {card.zone}"


def _marked(cid: str, state: GameState, word: str) -> str:
    card = state.cards.get(cid)
    if card is None or card.zone != "world":
        return word
    return f"{word} ({', '.join(_marks(card))})"


def _apart(words: dict[str, str], more: Any) -> dict[str, str]:
    """``more(cid, word)`` for the cards whose words another card shares, where it tells some
    of them apart (two copies both in hand gain nothing from "from your hand")."""
    groups: dict[str, list[str]] = {}
    for cid, word in words.items():
        groups.setdefault(word, []).append(cid)
    out = dict(words)
    for word, cids in groups.items():
        longer = {cid: more(cid, word) for cid in cids}
        if len(cids) > 1 and len(set(longer.values())) > 1:
            out.update(longer)
    return out


def _copies(words: dict[str, str]) -> dict[str, str]:
    total = Counter(words.values())
    seen: Counter[str] = Counter()
    out = {}
    for cid, word in words.items():
        if total[word] > 1:
            seen[word] += 1
            word = f"{word} (copy {seen[word]})"
        out[cid] = word
    return out
