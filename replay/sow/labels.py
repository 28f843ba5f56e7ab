"""A State of Wonder card in a prompt's words, as a player finds it on the board: its name, and
where two cards in play share that name, whose it is and where ("Raider (Bob's, pitched
battle)"), then what the board shows of it (damage, exhausted, counters), then its place in
the board's order ("the second"); never its id.  The engine's prompt texts name cards by id
(the engine never names a card); :func:`prompt_text` puts these words in for one perspective.
The words are not recorded: an answer is its pick, whatever the text.

:func:`option_label` does the same for a listed option (a turn's play or activation, a
combat-tactics lock, join or strike): two Militias of the opponent in a pitched battle read as
which is which, and a combat to join by the units locked in it ("the combat of Raider and
Militia"), never by its index."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ledger.events import Event
from replay.prompts import ordinal
from replay.sow import narrate
from replay.sow.events import JoinChosen
from replay.sow.perspective import card_names
from replay.sow.state import IN_PLAY, CardState, SowState

AREAS = {"battle": "pitched battle", "siege": "besieging", "units": "units",
         "buildings": "buildings", "fortifications": "fortifications", "state": "State"}
WORD = re.compile(r"[A-Za-z0-9-]+")
CARD_FIELDS = ("card", "unit", "enemy", "target")  # a decision's fields that hold a card id


def prompt_text(state: SowState, text: str, view: str, players: Mapping[str, str] | None) -> str:
    """``text`` with every card id the view may name turned into the card's words (a card it
    may not name: "a hidden card")."""
    names = card_names(state, view)

    def words(m: re.Match[str]) -> str:
        cid = m.group()
        if cid not in state.cards:
            return cid
        return card_label(state, cid, players) if cid in names else "a hidden card"
    return WORD.sub(words, text)


def option_label(state: SowState, option: Event, view: str,
                 players: Mapping[str, str] | None) -> str:
    """A listed option (a decision event) in ``view``'s words: its cards as
    :func:`card_label` tells them apart (a card ``view`` may not name stays "a hidden card")."""
    names = card_names(state, view)
    locked: list[str] = []
    if isinstance(option, JoinChosen) and state.battle is not None:
        locked = state.battle.combats[option.combat]
    ids = [getattr(option, f, None) for f in CARD_FIELDS] + locked
    said = {cid: card_label(state, cid, players) if cid in names else "a hidden card"
            for cid in ids if isinstance(cid, str) and cid in state.cards}
    if isinstance(option, JoinChosen) and locked:  # the combat: the units locked in it
        seat = (players or {}).get(option.seat) or f"player {option.seat}"
        return (f"{seat} sends {said[option.unit]} into the combat of "
                f"{' and '.join(said[c] for c in locked)}.")
    return narrate.narrate(option, said, players)


def card_label(state: SowState, cid: str, players: Mapping[str, str] | None) -> str:
    """The card's name, with as much more as tells it from the cards in play of that name."""
    card = state.cards[cid]
    alike = [c for c in state.cards.values() if c.area in IN_PLAY and c.name == card.name]
    if card.area not in IN_PLAY or len(alike) <= 1:
        return card.name
    for describe in (_place, _marks):
        alike = [c for c in alike if describe(c, players) == describe(card, players)]
        if len(alike) <= 1:
            return f"{card.name} ({describe(card, players)})"
    nth = [c.id for c in alike].index(cid)  # the board lists a place's cards in this order
    return f"{card.name} ({_marks(card, players)}), the {ordinal(nth)}"


def _place(card: CardState, players: Mapping[str, str] | None) -> str:
    owner = (players or {}).get(card.owner) or f"player {card.owner}"
    return f"{owner}'s, {AREAS.get(card.area, card.area)}"


def _marks(card: CardState, players: Mapping[str, str] | None) -> str:
    marks = [_place(card, players)]
    if card.damage:
        marks.append(f"damage {card.damage}")
    marks.append("exhausted" if card.exhausted else "ready")
    if card.counters:
        marks.append(f"counters {card.counters}")
    return ", ".join(marks)
