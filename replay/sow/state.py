"""The state of a State of Wonder match: plain msgspec data, the fold of its events.

Only :func:`replay.sow.evolve.evolve` writes it.  Everything the engine needs between two
prompts lives here: the phase, whose turn it is, gold, every card instance with its area and
marks (exhausted, damage, progress and +1/+1 counters), the sieges in progress and the battle
being fought (its units, combats, and the damage splits already chosen).

Areas of a card (rules: "Zones & Areas"): ``culture`` (hand, hidden), ``wonder_area`` (hidden),
``state``, ``units``, ``buildings``, ``fortifications``, ``battle`` (the Pitched Battle Zone),
``siege`` (the Attacker Area of the *opponent's* city) and ``discard``.
"""

from __future__ import annotations

from typing import Literal

import msgspec

# Seats as the events spell them, re-exported: the engine's modules take them from here.
from ledger.events import SEATS as SEATS
from ledger.events import Seat as Seat

#: A seat field not set yet ("" in the encoded state): the turn and the first player before
#: the first turn begins, a battle's next actor before anyone has assigned.
Unset = Literal[""]
IN_PLAY = frozenset({"state", "units", "buildings", "fortifications", "battle", "siege"})
HIDDEN_AREAS = frozenset({"culture", "wonder_area"})


def other(seat: Seat) -> Seat:
    """The opponent of ``seat`` (two players)."""
    return "B" if seat == "A" else "A"


class CardState(msgspec.Struct):
    id: str
    name: str
    owner: Seat
    area: str
    exhausted: bool = False
    damage: int = 0
    progress: int = 0
    counters: int = 0  # +1/+1 counters


class PlayerState(msgspec.Struct):
    seat: Seat
    gold: int = 0
    besieging: bool = False  # a City Siege of this player's units in the opponent's city


class Battle(msgspec.Struct):
    """The battle being fought: a pitched battle or a city siege step."""

    step: str  # "pitched" | "siege"
    attacker: Seat
    defender: Seat
    units: list[str] = []  # every unit taking part, both sides
    combats: list[list[str]] = []  # units locked together, by combat index
    assigned: list[str] = []  # units locked, joined or striking a structure
    splits: dict[str, dict[str, int]] = {}  # unit -> damage it deals to each enemy
    actor: Seat | Unset = ""  # who assigns next in combat tactics ("": the turn player, who starts)


class SowState(msgspec.Struct):
    revision: int
    over: bool = False
    winner: Seat | None = None
    reason: str = ""
    phase: str = "setup"  # setup | start | main | combat | retrieval | end
    turn: Seat | Unset = ""
    turn_number: int = 0
    first: Seat | Unset = ""
    players: dict[Seat, PlayerState] = {}
    cards: dict[str, CardState] = {}
    battle: Battle | None = None

    def owned(self, seat: Seat, *areas: str) -> list[CardState]:
        """``seat``'s cards in any of ``areas``, in id order of creation."""
        return [c for c in self.cards.values() if c.owner == seat and c.area in areas]

    def turn_player(self) -> Seat:
        """Whose turn it is: set by the first ``TurnBegan``, before anything reads it."""
        assert self.turn, "no turn has begun"
        return self.turn

    def first_player(self) -> Seat:
        """Who goes first: set in the setup (``FirstPlayerDetermined``)."""
        assert self.first, "the first player is not determined yet"
        return self.first


def new_state(revision: int) -> SowState:
    return SowState(revision=revision, players={s: PlayerState(s) for s in SEATS})
