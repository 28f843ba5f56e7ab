"""Who sees what in State of Wonder: redacting events and the board view model.

Rules ("Zones & Areas"): the Culture Area and the Wonder Area are hidden areas -- "only the
corresponding player can see the area"; every other area is public.  Perspectives are
``omniscient``, each seat (``A``, ``B``) and ``spectator`` (sees no hidden area).  A
redacted event keeps its shape and blanks what the perspective may not see: the setup shuffle
of the other seat's culture, the name of a face-down Wonder or Hero, the other seat's deck list.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from ledger.events import Event, MatchOpened, as_seat
from replay.sow.cards import CardPool
from replay.sow.events import CardPutIntoPlay, CultureOrdered, WonderPlacedFaceDown
from replay.sow.queries import View
from replay.sow.state import HIDDEN_AREAS, SEATS, CardState, Seat, SowState

PERSPECTIVES = ("omniscient", "A", "B", "spectator")
HIDDEN_NAME = ""


def viewer_of(perspective: str) -> Seat | None:
    """The seat a perspective sees as (``None``: the spectator); raises on an unknown one."""
    if perspective not in PERSPECTIVES:
        raise ValueError(f"unknown perspective {perspective!r}: one of {', '.join(PERSPECTIVES)}")
    return as_seat(perspective) if perspective in SEATS else None


def hidden_ids(state: SowState) -> frozenset[str]:
    """Cards in a hidden area now (their identity is hidden from the other seat and spectators)."""
    return frozenset(c.id for c in state.cards.values() if c.area in HIDDEN_AREAS)


def can_see(perspective: str, seat: Seat) -> bool:
    """Whether ``perspective`` sees ``seat``'s hidden areas."""
    return perspective == "omniscient" or viewer_of(perspective) == seat


def redact(event: Event, perspective: str, hidden: Iterable[str] = ()) -> Event:
    """``event`` as ``perspective`` may see it."""
    if perspective == "omniscient":
        return event
    viewer_of(perspective)
    if isinstance(event, MatchOpened):
        return _redact_opened(event, perspective)
    if isinstance(event, CultureOrdered) and not can_see(perspective, event.seat):
        return msgspec.structs.replace(event, cards=[HIDDEN_NAME] * len(event.cards))
    if isinstance(event, WonderPlacedFaceDown) and not can_see(perspective, event.seat):
        return msgspec.structs.replace(event, name=HIDDEN_NAME)
    # Only the two events above name a card while it is in a hidden area: a card played from
    # the culture or the Wonder area is revealed by being played (CardPutIntoPlay), and a
    # retrieved card comes from the public discard pile.  ``hidden`` is therefore not needed.
    return event


def _redact_opened(opened: MatchOpened, perspective: str) -> MatchOpened:
    """The other seat's deck list would name its hidden cards (R15): it is left out, and so
    is its deck's name (a preset's name, "Ashen Raid", names its list: its Wonder and every
    card of its culture), and the embedded definitions (the viewer reads cards from the
    board)."""
    seats = [info if can_see(perspective, info.seat)
             else msgspec.structs.replace(info, deck=[], deck_name="")
             for info in opened.seats]
    return msgspec.structs.replace(opened, seats=seats, cards=[])


def card_names(state: SowState, perspective: str, events: Sequence[Event] = ()) -> dict[str, str]:
    """Card id -> name for the cards ``perspective`` may name: every card outside the hidden
    areas, the hidden cards of the perspective's own seat, and every card ``events`` show put
    into play -- a card played is revealed by being played (``CardPutIntoPlay`` names it), so
    the lines about it still name it once it is back in its owner's culture (a retrieval names
    it too: "Bob retrieves Shieldbearer"), never "a hidden card"."""
    shown = {e.card for e in events if isinstance(e, CardPutIntoPlay)}
    return {c.id: c.name for c in state.cards.values()
            if c.area not in HIDDEN_AREAS or can_see(perspective, c.owner) or c.id in shown}


# -- the board -------------------------------------------------------------------------


def _card_view(view: View, c: CardState) -> dict[str, Any]:
    card = view.card(c.id)
    out: dict[str, Any] = {"name": c.name, "type": card.type, "exhausted": c.exhausted,
                           "damage": c.damage}
    if card.type in ("unit", "hero"):
        out["attack"], out["health"] = view.attack(c.id), view.health(c.id)
    else:
        out["health"] = view.health(c.id)
    if card.type in ("wonder", "hero"):
        out["progress"], out["progress_rate"] = c.progress, card.progress_rate
    if c.counters:
        out["counters"] = c.counters
    return out


def _city(state: SowState, view: View, seat: Seat, perspective: str) -> dict[str, Any]:
    def area(name: str) -> list[dict[str, Any]]:
        return [_card_view(view, c) for c in state.owned(seat, name)]

    attackers = [_card_view(view, c) for c in state.cards.values()
                 if c.area == "siege" and c.owner != seat]
    visible = can_see(perspective, seat)
    culture = state.owned(seat, "culture")
    wonder_area = state.owned(seat, "wonder_area")
    player = state.players[seat]
    progress = view.progress_card(seat)
    return {
        "attackers": attackers,
        "fortifications": area("fortifications"),
        "units": area("units"),
        "buildings": area("buildings"),
        "state": area("state"),
        "wonder_area": ([c.name for c in wonder_area] if visible else len(wonder_area)),
        "culture": ([c.name for c in culture] if visible else len(culture)),
        "discard": [c.name for c in state.owned(seat, "discard")],
        "gold": player.gold,
        "income": view.income(seat),
        "progress": ({"card": progress.name, "counters": progress.progress,
                      "target": view.card(progress.id).progress_rate} if progress else None),
        "besieging": player.besieging,
    }


def board(state: SowState, cards: CardPool, perspective: str) -> dict[str, Any]:
    """The board view model for ``perspective``: JSON-ready, names not ids."""
    viewer_of(perspective)
    view = View(state, cards)
    battle = [_card_view(view, c) | {"owner": c.owner} for c in state.cards.values()
              if c.area == "battle"]
    return {
        "game": "sow",
        "perspective": perspective,
        "turn": state.turn_number,
        "turn_player": state.turn or None,
        "phase": state.phase,
        "over": state.over,
        "winner": state.winner,
        "reason": state.reason or None,
        "cities": {seat: _city(state, view, seat, perspective) for seat in SEATS},
        "pitched_battle": battle,
    }
