"""The events of State of Wonder: what its matches are made of, beyond the core ones.

Registered with the ledger (:mod:`ledger.registry`) under game ``sow`` when this module is
imported.  Kinds (DESIGN.md section 2):

* **decisions** -- what a seat chose at a prompt (``PlayChosen``, ``LockChosen``, ``Picked`` …);
* **chance** -- what randomness produced (``InitiativeTossed``, ``CultureOrdered``);
* **outcomes** -- what the rules derived (``GoldGained``, ``DamageDealt``, ``PlayerBesieged`` …).

Card instances are named by ids that name nothing: ``A-S`` (seat A's State), ``A-W`` (its Wonder
or Hero) and ``A1`` … ``A15`` for its culture in the order of the recorded setup shuffle
(``CultureOrdered``), so a public deck list is never joined to a hidden card by position.
Events carry the card *name* beside the id so that a log reads on its own.  The match ends with
the core ``MatchEnded``; its reasons are listed in :data:`END_REASONS`.
"""

from __future__ import annotations

import msgspec

from ledger import registry
from ledger.events import Conceded, Event, Seat, as_seat

__all__ = [
    "CHANCE",
    "DECISIONS",
    "DECISION_UNION",
    "END_REASONS",
    "EVENTS",
    "Pick",
    "TacticDecision",
    "TurnDecision",
]

#: Why a State of Wonder match ends (``MatchEnded.reason``); docs/rulings-sow.md R9, R14, R21
#: and R26 (a judge's draw: ``agreed`` or at ``time``).
END_REASONS = ("progress", "state_destroyed", "concession", "game_loss", "turn_limit", "agreed",
               "time")

Pick = int | str | list[str] | dict[str, int] | None

# --------------------------------------------------------------------------------------
# Decisions
# --------------------------------------------------------------------------------------


class PlayChosen(Event, frozen=True):
    """The turn player pays a card's cost and plays it from culture or the Wonder area."""

    seat: Seat
    card: str


class ActivationChosen(Event, frozen=True):
    """The turn player pays an activated ability's cost (before the semicolon) and uses it."""

    seat: Seat
    card: str
    ability: str


class MainPassed(Event, frozen=True):
    """The turn player ends the Main Phase."""

    seat: Seat


class LockChosen(Event, frozen=True):
    """Combat tactics: one of the seat's units and one enemy unit are locked in a new combat."""

    seat: Seat
    unit: str
    enemy: str


class JoinChosen(Event, frozen=True):
    """Combat tactics: one of the seat's units joins an existing combat (by index)."""

    seat: Seat
    unit: str
    combat: int


class StrikeChosen(Event, frozen=True):
    """City siege tactics: a besieging unit attacks a building, fortification, Wonder or State."""

    seat: Seat
    unit: str
    target: str


class Picked(Event, frozen=True):
    """An answer to any other prompt (attackers, defenders, retreat, target, damage split …)."""

    seat: Seat
    kind: str
    pick: Pick = None


# --------------------------------------------------------------------------------------
# Chance
# --------------------------------------------------------------------------------------


class InitiativeTossed(Event, frozen=True):
    """Initiative tied: a die or a coin says who goes first."""

    winner: Seat


class CultureOrdered(Event, frozen=True):
    """The setup shuffle of a seat's 15 cards (names): position k becomes instance ``<seat>k``."""

    seat: Seat
    cards: list[str]


# --------------------------------------------------------------------------------------
# Outcomes
# --------------------------------------------------------------------------------------


class StatePlaced(Event, frozen=True):
    seat: Seat
    card: str
    name: str


class WonderPlacedFaceDown(Event, frozen=True):
    seat: Seat
    card: str
    name: str  # redacted ("") for whoever may not see the Wonder area


class FirstPlayerDetermined(Event, frozen=True):
    seat: Seat
    by: str  # "initiative" or "toss"


class TurnBegan(Event, frozen=True):
    number: int
    seat: Seat


class PhaseBegan(Event, frozen=True):
    phase: str  # start | main | combat | retrieval | end


class GoldGained(Event, frozen=True):
    seat: Seat
    amount: int
    reason: str


class GoldSpent(Event, frozen=True):
    seat: Seat
    amount: int
    reason: str


class CardPutIntoPlay(Event, frozen=True):
    seat: Seat
    card: str
    name: str
    from_area: str
    to_area: str
    exhausted: bool


class Exhausted(Event, frozen=True):
    card: str
    name: str
    reason: str


class CardsReadied(Event, frozen=True):
    cards: list[str]


class WoundsHealed(Event, frozen=True):
    cards: list[str]


class ProgressAdded(Event, frozen=True):
    card: str
    name: str
    amount: int
    total: int


class AbilityResolved(Event, frozen=True):
    card: str
    name: str
    ability: str
    seat: Seat
    text: str


class CountersAdded(Event, frozen=True):
    card: str
    name: str
    amount: int


class DamageRepaired(Event, frozen=True):
    card: str
    name: str
    amount: int


class AttackersDeclared(Event, frozen=True):
    seat: Seat
    defender: Seat
    units: list[str]


class DefendersSent(Event, frozen=True):
    seat: Seat
    units: list[str]


class CombatLocked(Event, frozen=True):
    combat: int
    seat: Seat
    unit: str
    enemy: str


class CombatJoined(Event, frozen=True):
    combat: int
    seat: Seat
    unit: str


class DamageAssigned(Event, frozen=True):
    """Part of a unit's attack assigned to one enemy of its combat (dealt in the damage step)."""

    seat: Seat
    unit: str
    enemy: str
    amount: int


class DamageDealt(Event, frozen=True):
    source: str
    target: str
    name: str
    amount: int
    total: int  # the target's damage after this


class CardDestroyed(Event, frozen=True):
    card: str
    name: str
    owner: Seat
    reason: str


class UnitsReturned(Event, frozen=True):
    units: list[str]


class BattleClosed(Event, frozen=True):
    step: str


class PlayerBesieged(Event, frozen=True):
    attacker: Seat
    defender: Seat


class SiegeEntered(Event, frozen=True):
    seat: Seat
    units: list[str]


class SiegeStepBegan(Event, frozen=True):
    attacker: Seat
    defender: Seat
    units: list[str]


class SiegeDefendersSent(Event, frozen=True):
    seat: Seat
    units: list[str]


class StructureAttacked(Event, frozen=True):
    unit: str
    target: str
    name: str


class Retreated(Event, frozen=True):
    seat: Seat
    units: list[str]


class SiegeEnded(Event, frozen=True):
    seat: Seat  # the besieger
    reason: str  # "retreat" | "no units"


class CardRetrieved(Event, frozen=True):
    seat: Seat
    card: str
    name: str


class StateLost(Event, frozen=True):
    seat: Seat
    card: str
    name: str


class TurnClosed(Event, frozen=True):
    seat: Seat


DECISION_TYPES: tuple[type, ...] = (PlayChosen, ActivationChosen, MainPassed, LockChosen,
                                    JoinChosen, StrikeChosen, Picked)
CHANCE_TYPES: tuple[type, ...] = (InitiativeTossed, CultureOrdered)
OUTCOME_TYPES: tuple[type, ...] = (
    StatePlaced, WonderPlacedFaceDown, FirstPlayerDetermined, TurnBegan, PhaseBegan, GoldGained,
    GoldSpent, CardPutIntoPlay, Exhausted, CardsReadied, WoundsHealed, ProgressAdded,
    AbilityResolved, CountersAdded, DamageRepaired, AttackersDeclared, DefendersSent,
    CombatLocked, CombatJoined, DamageAssigned, DamageDealt, CardDestroyed, UnitsReturned,
    BattleClosed, PlayerBesieged, SiegeEntered, SiegeStepBegan, SiegeDefendersSent,
    StructureAttacked, Retreated, SiegeEnded, CardRetrieved, StateLost, TurnClosed)
EVENTS: tuple[type, ...] = DECISION_TYPES + CHANCE_TYPES + OUTCOME_TYPES
DECISIONS = frozenset(t.__name__ for t in DECISION_TYPES)
CHANCE = frozenset(t.__name__ for t in CHANCE_TYPES)

TurnDecision = PlayChosen | ActivationChosen | MainPassed
TacticDecision = LockChosen | JoinChosen | StrikeChosen
DECISION_UNION = (PlayChosen | ActivationChosen | MainPassed | LockChosen | JoinChosen
                  | StrikeChosen | Picked)


def decision_from(seat: str, body: dict[str, object]) -> Event:
    """A decision event from a JSON-like body ``{"type": "PlayChosen", "card": "A3"}``; the seat
    is the caller's.  Raises ValueError with the reason when the body is malformed."""
    if isinstance(body, dict) and body.get("type") == "Conceded":
        reason = body.get("reason", "")
        if not isinstance(reason, str):
            raise ValueError("malformed Conceded decision: 'reason' is a string")
        return Conceded(as_seat(seat), reason)
    if not isinstance(body, dict) or "type" not in body:
        raise ValueError("a decision body is an object with a 'type' field "
                         f"(one of {', '.join(sorted(DECISIONS))})")
    if body["type"] not in DECISIONS:
        raise ValueError(f"unknown decision type {body['type']!r}: expected one of "
                         f"{', '.join(sorted(DECISIONS))}")
    try:
        decided: Event = msgspec.convert({**body, "seat": seat}, DECISION_UNION)
    except msgspec.ValidationError as exc:
        raise ValueError(f"malformed {body['type']} decision: {exc}") from None
    return decided


registry.register("sow", EVENTS,
                  kinds={**{n: "decision" for n in DECISIONS}, **{n: "chance" for n in CHANCE}})
