"""One line of plain words per State of Wonder event: names, never ids.

``narrate(event, names)`` reads names from the event (events carry them) or from ``names``
(card id -> name, as :func:`replay.sow.perspective.card_names` gives them for a perspective);
a card the reader may not name is "a hidden card".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from ledger.events import (
    Annotated,
    Conceded,
    Event,
    GameLossGiven,
    JudgeCalled,
    JudgeNote,
    MatchEnded,
    MatchOpened,
    TakenBack,
)
from replay.sow import events as ev

Names = Mapping[str, str]


def _name(names: Names, cid: str) -> str:
    return names.get(cid) or "a hidden card"


def _names(names: Names, cids: list[str]) -> str:
    return ", ".join(_name(names, c) for c in cids) or "nothing"


Line = Callable[[Any, Names], str]

LINES: dict[type, Line] = {
    MatchOpened: lambda e, s: f"A match of State of Wonder opens ({e.match_id}).",
    MatchEnded: lambda e, s: (f"{e.winner} wins ({e.reason.replace('_', ' ')})." if e.winner
                              else f"The match ends in a draw ({e.reason.replace('_', ' ')})."),
    Conceded: lambda e, s: f"{e.seat} concedes.",
    TakenBack: lambda e, s: f"Taken back to event {e.to_seq}{': ' + e.reason if e.reason else ''}.",
    JudgeNote: lambda e, s: f"Judge {e.judge}: {e.text}",
    GameLossGiven: lambda e, s: f"Judge {e.judge} gives {e.seat} a game loss"
                                f"{': ' + e.reason if e.reason else ''}.",
    JudgeCalled: lambda e, s: f"{e.seat} calls the judge{': ' + e.text if e.text else ''}.",
    Annotated: lambda e, s: f"{e.name} notes on event {e.about}: {e.text}",
    ev.PlayChosen: lambda e, s: f"{e.seat} plays {_name(s, e.card)}.",
    ev.ActivationChosen: lambda e, s: f"{e.seat} activates {_name(s, e.card)}.",
    ev.MainPassed: lambda e, s: f"{e.seat} ends the Main Phase.",
    ev.LockChosen: lambda e, s: f"{e.seat} locks {_name(s, e.unit)} with {_name(s, e.enemy)}.",
    ev.JoinChosen: lambda e, s: f"{e.seat} sends {_name(s, e.unit)} into combat {e.combat + 1}.",
    ev.StrikeChosen: lambda e, s: f"{e.seat} sends {_name(s, e.unit)} against {_name(s, e.target)}.",
    ev.Picked: lambda e, s: _picked(e, s),
    ev.InitiativeTossed: lambda e, s: f"The initiative toss goes to {e.winner}.",
    ev.CultureOrdered: lambda e, s: f"{e.seat} shuffles the 15 cards of their culture.",
    ev.StatePlaced: lambda e, s: f"{e.seat} places the State {e.name} face up.",
    ev.WonderPlacedFaceDown: lambda e, s: (f"{e.seat} places {e.name or 'a Wonder or Hero'} "
                                           "face down."),
    ev.FirstPlayerDetermined: lambda e, s: f"{e.seat} goes first (by {e.by}).",
    ev.TurnBegan: lambda e, s: f"Turn {e.number}: {e.seat}'s turn begins.",
    ev.PhaseBegan: lambda e, s: f"The {e.phase} phase begins.",
    ev.GoldGained: lambda e, s: f"{e.seat} gains {e.amount} gold ({e.reason}).",
    ev.GoldSpent: lambda e, s: f"{e.seat} spends {e.amount} gold ({e.reason}).",
    ev.CardPutIntoPlay: lambda e, s: (f"{e.seat} puts {e.name} into play"
                                      f"{' exhausted' if e.exhausted else ''}."),
    ev.Exhausted: lambda e, s: f"{e.name} is exhausted ({e.reason}).",
    ev.CardsReadied: lambda e, s: f"Readied: {_names(s, e.cards)}.",
    ev.WoundsHealed: lambda e, s: f"Units heal: {_names(s, e.cards)}.",
    ev.ProgressAdded: lambda e, s: f"{e.name} gains {e.amount} progress ({e.total}).",
    ev.AbilityResolved: lambda e, s: f"{e.name}: {e.text}",
    ev.CountersAdded: lambda e, s: f"{e.name} gets {e.amount} +1/+1 counter(s).",
    ev.DamageRepaired: lambda e, s: f"{e.amount} damage is removed from {e.name}.",
    ev.AttackersDeclared: lambda e, s: f"{e.seat} attacks {e.defender} with {_names(s, e.units)}.",
    ev.DefendersSent: lambda e, s: f"{e.seat} meets them in pitched battle with {_names(s, e.units)}.",
    ev.CombatLocked: lambda e, s: f"{_name(s, e.unit)} and {_name(s, e.enemy)} are locked in combat.",
    ev.CombatJoined: lambda e, s: f"{_name(s, e.unit)} joins combat {e.combat + 1}.",
    ev.DamageAssigned: lambda e, s: f"{_name(s, e.unit)} will deal {e.amount} to {_name(s, e.enemy)}.",
    ev.DamageDealt: lambda e, s: f"{_name(s, e.source)} deals {e.amount} damage to {e.name}.",
    ev.CardDestroyed: lambda e, s: f"{e.name} ({e.owner}) is destroyed.",
    ev.UnitsReturned: lambda e, s: f"Back to their cities: {_names(s, e.units)}.",
    ev.BattleClosed: lambda e, s: f"The {'city siege' if e.step == 'siege' else 'pitched battle'} is over.",
    ev.PlayerBesieged: lambda e, s: f"{e.attacker} besieges {e.defender}.",
    ev.SiegeEntered: lambda e, s: f"{_names(s, e.units)} enter the siege ({e.seat}).",
    ev.SiegeStepBegan: lambda e, s: f"{e.attacker}'s city siege of {e.defender} is fought.",
    ev.SiegeDefendersSent: lambda e, s: f"{e.seat} defends the city with {_names(s, e.units)}.",
    ev.StructureAttacked: lambda e, s: f"{_name(s, e.unit)} attacks {e.name}.",
    ev.Retreated: lambda e, s: f"{e.seat} retreats {_names(s, e.units)}.",
    ev.SiegeEnded: lambda e, s: f"{e.seat}'s siege ends ({e.reason}).",
    ev.CardRetrieved: lambda e, s: f"{e.seat} retrieves {e.name}.",
    ev.StateLost: lambda e, s: f"{e.seat} loses the State {e.name}.",
    ev.TurnClosed: lambda e, s: f"{e.seat}'s turn ends.",
}


def _picked(e: ev.Picked, s: Names) -> str:
    pick = e.pick
    if isinstance(pick, list):
        return f"{e.seat} picks {_names(s, pick)} ({e.kind})."
    if isinstance(pick, str) and e.kind in ("target", "retrieve"):
        return f"{e.seat} picks {_name(s, pick)} ({e.kind})."
    return f"{e.seat} answers {pick} ({e.kind})."


def narrate(event: Event, names: Names) -> str:
    line = LINES.get(type(event))
    return line(event, names) if line is not None else f"{type(event).__name__}."


def describe(event: Event) -> str:
    """A short technical description (for errors and divergences): the type and fields."""
    fields = msgspec.structs.asdict(event)
    return f"{type(event).__name__}(" + ", ".join(f"{k}={v!r}" for k, v in fields.items()) + ")"
