"""The event bus for triggers: one place where keywords and scripted abilities listen.

When a game event happens that abilities may trigger on (a card arrives, dies, is played,
attacks, a round starts …), the rules run it on the bus (``g.run_event("arrives", …)``,
modelled on Pokémon Showdown's ``runEvent``): every handler registered for that event, in
registration order, returns the :class:`~replay.wotf.trigger.Trigger` objects it sets off,
and the caller resolves them together (502: the active player orders them).  Handlers run
while the event's subject is still where the event found it (rule 1: "whenever a Wonder
dies" sees a Wonder), so callers run the event before they change the state.

:func:`wire` is the registration table: which keyword (rules section 7) and which ability
timing (``docs/abilities.md``) listens to which event, in the order their triggers are
collected.  The bus knows no component: handlers are plain callables.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import msgspec

from replay.wotf.state import Seat
from replay.wotf.trigger import Trigger


class Occurrence(msgspec.Struct, frozen=True, gc=False):
    """One game event as the handlers see it: what it is about, who did it, where.  (A
    struct: one is made for every game event run on the bus, and a struct is made several
    times faster than a frozen dataclass.)"""

    event: str
    subject: str | None = None  # the card the event is about ("it"), if any
    by: Seat | None = None  # the seat that did it (the card's controller, the player)
    realm: int | None = None  # where it happened
    how: str = ""  # "dies": destroyed, sacrifice, died

    @property
    def card(self) -> str:
        """The card the event is about (for the events that are about one)."""
        assert self.subject is not None, f"{self.event!r} names no card"
        return self.subject

    @property
    def place(self) -> int:
        """The realm the event happened in (for the events that happen in one)."""
        assert self.realm is not None, f"{self.event!r} names no realm"
        return self.realm


Handler = Callable[[Occurrence], list[Trigger]]


class Bus:
    """Handlers by event name; :meth:`run` collects the triggers of one occurrence."""

    def __init__(self) -> None:
        self._handlers: dict[str, list[Handler]] = {}

    def on(self, event: str, *handlers: Handler) -> None:
        """Register handlers for ``event`` (after those already registered)."""
        self._handlers.setdefault(event, []).extend(handlers)

    def run(self, occurrence: Occurrence) -> list[Trigger]:
        """Every trigger the occurrence sets off, in registration order."""
        found: list[Trigger] = []
        for handler in self._handlers.get(occurrence.event, ()):
            found += handler(occurrence)
        return found


class Keywords(Protocol):
    """The keyword handlers (:class:`replay.wotf.effects.Effects`)."""

    def on_arrival_keywords(self, o: Occurrence) -> list[Trigger]: ...
    def guardians(self, o: Occurrence) -> list[Trigger]: ...
    def equip(self, o: Occurrence) -> list[Trigger]: ...
    def equip_on_move(self, o: Occurrence) -> list[Trigger]: ...
    def equip_on_control(self, o: Occurrence) -> list[Trigger]: ...
    def ascend(self, o: Occurrence) -> list[Trigger]: ...
    def unstable(self, o: Occurrence) -> list[Trigger]: ...
    def deathstrike(self, o: Occurrence) -> list[Trigger]: ...


class Abilities(Protocol):
    """The scripted-ability handlers (:class:`replay.wotf.scripts.Scripts`)."""

    def own(self, timing: str) -> Handler: ...
    def in_world(self, timing: str) -> Handler: ...
    def whenever(self, event: str, of_wonders: bool = False) -> Handler: ...


def wire(bus: Bus, keywords: Keywords, abilities: Abilities) -> Bus:
    """Who listens to what.  The order is the order triggers are collected in."""
    # A card arrives (On Arrival; rage, call, symbiosis; "whenever … arrives"; Guardian; Equip).
    bus.on("arrives", keywords.on_arrival_keywords, abilities.own("arrival"),
           abilities.whenever("arrives"), keywords.guardians, keywords.equip)
    # Guardian: an enemy moves into the realm; Equip (revision 10): an ally moves in.
    bus.on("moves_into", keywords.guardians, keywords.equip_on_move)
    # Equip (revision 11): a card's control changes (505.1), beside the new controller's
    # unequipped equipment.
    bus.on("control_changes", keywords.equip_on_control)
    # 403.1: On Round Start, On Round N; Celestial Counter: Ascend on round 7.
    bus.on("round_starts", abilities.in_world("round_start"), abilities.in_world("round"),
           keywords.ascend)
    # 403.5: On Round End; Unstable.
    bus.on("round_ends", abilities.in_world("round_end"), keywords.unstable)
    # A card goes from The World to The Abyss (On Death, "whenever … dies / is destroyed").
    bus.on("dies", abilities.own("death"), abilities.whenever("dies"))
    bus.on("destroyed", abilities.whenever("destroyed"))
    # 404.2: a card is played (On Play of a card that arrives; "whenever … plays").
    bus.on("plays", abilities.own("play"), abilities.whenever("plays"))
    bus.on("harvested", abilities.own("harvest"), abilities.whenever("harvested"))
    bus.on("banished", abilities.whenever("banished"))
    bus.on("targeted", abilities.whenever("targeted"))
    # 404.3.2 steps 1-3 and 6, per card of the side in the battle's realm.
    bus.on("attacks", abilities.own("attack"), abilities.whenever("attacks", of_wonders=True))
    bus.on("defends", abilities.own("defense"), abilities.whenever("defends", of_wonders=True))
    bus.on("battles", abilities.own("battle"))
    bus.on("battle_ends", abilities.own("battle_end"))
    bus.on("wins_battle", keywords.deathstrike)  # Deathstrike: its side won or tied
    return bus
