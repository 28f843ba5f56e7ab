"""One line of plain words per State of Wonder event: names, never ids.

``narrate(event, names, players)`` reads names from the event (events carry them) or from
``names`` (card id -> name, as :func:`replay.sow.perspective.card_names` gives them for a
perspective); a card the reader may not name is "a hidden card"; an ability a reason names by
its id reads as its printed text: the match's own card definitions' (``cards``, the pool its
file records), today's shipped data's only for a reader that has none.  Seats read as their players'
names (``players``: seat -> player), "player A" where the match names no one.
"""

from __future__ import annotations

import functools
import re
import weakref
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from ledger.events import (
    Annotated,
    Conceded,
    DrawGiven,
    Event,
    GameLossGiven,
    JudgeCalled,
    JudgeNote,
    MatchEnded,
    MatchOpened,
    TakenBack,
)
from replay.judges import DRAWN, draw_given, judge_named
from replay.sow import events as ev
from replay.sow.cards import load_pool

Names = Mapping[str, str]


def other(seat: str) -> str:
    return "B" if seat == "A" else "A"


def _name(names: Names, cid: str) -> str:
    return names.get(cid) or "a hidden card"


def _names(names: Names, cids: list[str]) -> str:
    return ", ".join(_name(names, c) for c in cids) or "nothing"


# A reason naming an ability, as the engine records it: "<card>: <ability id>" (gold gained or
# spent, replay/sow/abilities.py, actions.py) or "cost of <ability id>" (an exhausting cost).
ABILITY_REASON = re.compile(r"^(?:(?P<card>.+): |cost of )(?P<id>[a-z0-9]+(?:-[a-z0-9]+)+)$")


#: A card pool -> its ability texts (a match's pool is read once for all its events).
_TEXTS: weakref.WeakKeyDictionary[Any, dict[str, str]] = weakref.WeakKeyDictionary()


def ability_texts(cards: Any = None) -> dict[str, str]:
    """Ability id -> its printed text, from ``cards`` (a :class:`~replay.sow.cards.CardPool`:
    the match's own), else from today's shipped card data."""
    if cards is None:
        return _shipped_texts()
    texts = _TEXTS.get(cards)
    if texts is None:
        texts = _TEXTS[cards] = _texts_of(cards)
    return texts


@functools.cache
def _shipped_texts() -> dict[str, str]:
    return _texts_of(load_pool())


def _texts_of(cards: Any) -> dict[str, str]:
    return {a.id: a.text.rstrip(".") for card in cards.cards() for a in card.abilities if a.text}


def _why(reason: str, texts: Mapping[str, str]) -> str:
    """A recorded reason in words: an ability by its text (or "its ability"), never its id."""
    m = ABILITY_REASON.match(reason)
    if m is None:
        return reason
    if m["card"] is None:
        return "the cost of its ability"
    text = texts.get(m["id"])
    return f"{m['card']}: “{text}”" if text else f"{m['card']}'s ability"


Seat = Callable[[str | None], str]
Line = Callable[[Any, Names, Seat], str]

LINES: dict[type, Line] = {
    MatchOpened: lambda e, s, p: ("A match of State of Wonder opens: "
                                  f"{' vs '.join(seat.player for seat in e.seats)}."),
    MatchEnded: lambda e, s, p: (f"{p(e.winner)} wins the match ({e.reason.replace('_', ' ')}); "
                                 f"{p(other(e.winner))} loses." if e.winner
                                 else f"The match ends in {DRAWN[e.reason]}." if e.reason in DRAWN
                                 else f"The match ends in a draw ({e.reason.replace('_', ' ')})."),
    Conceded: lambda e, s, p: _conceded(e, p(e.seat)),
    TakenBack: lambda e, s, p: (f"Take-back: the match returns to event {e.to_seq} ({e.by})"
                                f"{': ' + e.reason if e.reason else ''}."),
    JudgeNote: lambda e, s, p: f"{judge_named(e.judge)} notes: {e.text}",
    GameLossGiven: lambda e, s, p: (f"{judge_named(e.judge)} gives {p(e.seat)} a game loss"
                                    f"{': ' + e.reason if e.reason else ''}; {p(e.seat)} loses "
                                    "the match."),
    DrawGiven: lambda e, s, p: f"{draw_given(e, p)}.",
    JudgeCalled: lambda e, s, p: f"{p(e.seat)} calls the judge{': ' + e.text if e.text else ''}.",
    Annotated: lambda e, s, p: f"{e.name} notes on event {e.about}: {e.text}",
    ev.PlayChosen: lambda e, s, p: f"{p(e.seat)} plays {_name(s, e.card)}.",
    ev.ActivationChosen: lambda e, s, p: f"{p(e.seat)} activates {_name(s, e.card)}.",
    ev.MainPassed: lambda e, s, p: f"{p(e.seat)} ends the Main Phase.",
    ev.LockChosen: lambda e, s, p: f"{p(e.seat)} locks {_name(s, e.unit)} with {_name(s, e.enemy)}.",
    ev.JoinChosen: lambda e, s, p: f"{p(e.seat)} sends {_name(s, e.unit)} into combat {e.combat + 1}.",
    ev.StrikeChosen: lambda e, s, p: f"{p(e.seat)} sends {_name(s, e.unit)} against {_name(s, e.target)}.",
    ev.Picked: lambda e, s, p: _picked(e, s, p),
    ev.InitiativeTossed: lambda e, s, p: f"The initiative toss goes to {p(e.winner)}.",
    ev.CultureOrdered: lambda e, s, p: f"{p(e.seat)} shuffles the 15 cards of their culture.",
    ev.StatePlaced: lambda e, s, p: f"{p(e.seat)} places the State {e.name} face up.",
    ev.WonderPlacedFaceDown: lambda e, s, p: (f"{p(e.seat)} places {e.name or 'a Wonder or Hero'} "
                                           "face down."),
    ev.FirstPlayerDetermined: lambda e, s, p: f"{p(e.seat)} goes first (by {e.by}).",
    ev.TurnBegan: lambda e, s, p: f"Turn {e.number}: {p(e.seat)}'s turn begins.",
    ev.PhaseBegan: lambda e, s, p: f"The {e.phase} phase begins.",
    ev.CardPutIntoPlay: lambda e, s, p: (f"{p(e.seat)} puts {e.name} into play"
                                      f"{' exhausted' if e.exhausted else ''}."),
    ev.CardsReadied: lambda e, s, p: f"Readied: {_names(s, e.cards)}.",
    ev.WoundsHealed: lambda e, s, p: f"Units heal: {_names(s, e.cards)}.",
    ev.ProgressAdded: lambda e, s, p: f"{e.name} gains {e.amount} progress ({e.total}).",
    ev.AbilityResolved: lambda e, s, p: f"{e.name}: {e.text}",
    ev.CountersAdded: lambda e, s, p: (f"{e.name} gets {e.amount} +1/+1 "
                                       f"counter{'' if e.amount == 1 else 's'}."),
    ev.DamageRepaired: lambda e, s, p: f"{e.amount} damage is removed from {e.name}.",
    ev.AttackersDeclared: lambda e, s, p: f"{p(e.seat)} attacks {p(e.defender)} with {_names(s, e.units)}.",
    ev.DefendersSent: lambda e, s, p: f"{p(e.seat)} meets them in pitched battle with {_names(s, e.units)}.",
    ev.CombatLocked: lambda e, s, p: f"{_name(s, e.unit)} and {_name(s, e.enemy)} are locked in combat.",
    ev.CombatJoined: lambda e, s, p: f"{_name(s, e.unit)} joins combat {e.combat + 1}.",
    ev.DamageAssigned: lambda e, s, p: f"{_name(s, e.unit)} will deal {e.amount} to {_name(s, e.enemy)}.",
    ev.DamageDealt: lambda e, s, p: f"{_name(s, e.source)} deals {e.amount} damage to {e.name}.",
    ev.CardDestroyed: lambda e, s, p: f"{p(e.owner)}'s {e.name} is destroyed.",
    ev.UnitsReturned: lambda e, s, p: f"Back to their cities: {_names(s, e.units)}.",
    ev.BattleClosed: lambda e, s, p: (f"The {'city siege' if e.step == 'siege' else 'pitched battle'}"
                                      " is over."),
    ev.PlayerBesieged: lambda e, s, p: f"{p(e.attacker)} besieges {p(e.defender)}.",
    ev.SiegeEntered: lambda e, s, p: (f"{p(e.seat)}'s {_names(s, e.units)} "
                                      f"{'enters' if len(e.units) == 1 else 'enter'} the siege."),
    ev.SiegeStepBegan: lambda e, s, p: f"{p(e.attacker)}'s city siege of {p(e.defender)} is fought.",
    ev.SiegeDefendersSent: lambda e, s, p: f"{p(e.seat)} defends the city with {_names(s, e.units)}.",
    ev.StructureAttacked: lambda e, s, p: f"{_name(s, e.unit)} attacks {e.name}.",
    ev.Retreated: lambda e, s, p: f"{p(e.seat)} retreats {_names(s, e.units)}.",
    ev.SiegeEnded: lambda e, s, p: f"{p(e.seat)}'s siege ends ({e.reason}).",
    ev.CardRetrieved: lambda e, s, p: f"{p(e.seat)} retrieves {e.name}.",
    ev.StateLost: lambda e, s, p: f"{p(e.seat)} loses the State {e.name}.",
    ev.TurnClosed: lambda e, s, p: f"{p(e.seat)}'s turn ends.",
}


GAME_LOSS = "game loss (judge)"  # how a judge's game loss is recorded (web/api/judge.py)


def _conceded(e: Conceded, who: str) -> str:
    """A concession, or a judge's game loss (recorded as the seat conceding) read as one."""
    if e.reason.startswith(GAME_LOSS):
        why = e.reason[len(GAME_LOSS):].lstrip(": ")
        return f"The judge gives {who} a game loss{': ' + why if why else ''}; {who} loses the match."
    return f"{who} concedes and loses the match{' (' + e.reason + ')' if e.reason else ''}."


def _picked(e: ev.Picked, s: Names, p: Seat) -> str:
    pick, kind = e.pick, e.kind.replace("_", " ")
    if isinstance(pick, list):
        return f"{p(e.seat)} picks {_names(s, pick)} ({kind})."
    if isinstance(pick, str) and (e.kind in ("target", "retrieve") or pick in s):
        return f"{p(e.seat)} picks {_name(s, pick)} ({kind})."
    return f"{p(e.seat)} answers {str(pick).replace('_', ' ')} ({kind})."


#: The events whose line names a recorded reason (``_why``: in words, from the card texts).
Reasoned = Callable[[Any, Seat, Callable[[str], str]], str]
REASONED: dict[type, Reasoned] = {
    ev.GoldGained: lambda e, p, why: f"{p(e.seat)} gains {e.amount} gold ({why(e.reason)}).",
    ev.GoldSpent: lambda e, p, why: f"{p(e.seat)} spends {e.amount} gold ({why(e.reason)}).",
    ev.Exhausted: lambda e, p, why: f"{e.name} is exhausted ({why(e.reason)}).",
}


def narrate(event: Event, names: Names, players: Names | None = None, cards: Any = None) -> str:
    """``event``'s line; ``cards``: the match's own card pool, for the texts of abilities a
    reason names by id (today's shipped data without it)."""
    seats = players or {}

    def seat(who: str | None) -> str:
        return "no one" if who is None else seats.get(who) or f"player {who}"

    reasoned = REASONED.get(type(event))
    if reasoned is not None:
        texts = ability_texts(cards)
        return reasoned(event, seat, lambda reason: _why(reason, texts))
    line = LINES.get(type(event))
    if line is None:
        return f"{type(event).__name__}."
    return line(event, names, seat)


def describe(event: Event) -> str:
    """A short technical description (for errors and divergences): the type and fields."""
    fields = msgspec.structs.asdict(event)
    return f"{type(event).__name__}(" + ", ".join(f"{k}={v!r}" for k, v in fields.items()) + ")"
