"""``evolve``: the only writer of a State of Wonder state (DESIGN.md section 2).

``initial_state`` is the state at seq 0; ``evolve(state, event)`` applies one event in place
and returns the state.  Decisions change nothing by themselves -- the engine answers each with
outcome events -- so a state is the fold of chance and outcome events.  ``fold`` folds a list.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from ledger.events import Conceded, Event, MatchEnded, MatchOpened
from replay.sow import events as ev
from replay.sow.revisions import effective
from replay.sow.state import Battle, CardState, Seat, SowState, new_state, other

Handler = Callable[[SowState, Any], None]


def initial_state(opened: MatchOpened) -> SowState:
    return new_state(effective(opened.rules_revision))


def _place(state: SowState, seat: Seat, cid: str, name: str, area: str) -> None:
    state.cards[cid] = CardState(cid, name, seat, area)


def _ordered(s: SowState, e: ev.CultureOrdered) -> None:
    for k, name in enumerate(e.cards, start=1):
        _place(s, e.seat, f"{e.seat}{k}", name, "culture")


def _turn_began(s: SowState, e: ev.TurnBegan) -> None:
    s.turn, s.turn_number, s.phase = e.seat, e.number, "start"


def _first(s: SowState, e: ev.FirstPlayerDetermined) -> None:
    s.first = e.seat


def _phase(s: SowState, e: ev.PhaseBegan) -> None:
    s.phase = e.phase


def _gained(s: SowState, e: ev.GoldGained) -> None:
    s.players[e.seat].gold += e.amount


def _spent(s: SowState, e: ev.GoldSpent) -> None:
    s.players[e.seat].gold -= e.amount


def _put_into_play(s: SowState, e: ev.CardPutIntoPlay) -> None:
    c = s.cards[e.card]
    c.area, c.exhausted = e.to_area, e.exhausted


def _exhausted(s: SowState, e: ev.Exhausted) -> None:
    s.cards[e.card].exhausted = True


def _struck(s: SowState, e: ev.StructureAttacked) -> None:
    assert s.battle is not None
    s.battle.assigned.append(e.unit)
    s.battle.actor = other(s.cards[e.unit].owner)


def _readied(s: SowState, e: ev.CardsReadied) -> None:
    for cid in e.cards:
        s.cards[cid].exhausted = False


def _healed(s: SowState, e: ev.WoundsHealed) -> None:
    for cid in e.cards:
        s.cards[cid].damage = 0


def _progress(s: SowState, e: ev.ProgressAdded) -> None:
    s.cards[e.card].progress = e.total


def _counters(s: SowState, e: ev.CountersAdded) -> None:
    s.cards[e.card].counters += e.amount


def _repaired(s: SowState, e: ev.DamageRepaired) -> None:
    c = s.cards[e.card]
    c.damage = max(0, c.damage - e.amount)


def _attackers(s: SowState, e: ev.AttackersDeclared) -> None:
    for u in e.units:
        s.cards[u].area = "battle"
    s.battle = Battle("pitched", e.seat, e.defender, units=list(e.units))


def _defenders(s: SowState, e: ev.DefendersSent) -> None:
    assert s.battle is not None
    for u in e.units:
        s.cards[u].area = "battle"
    s.battle.units.extend(e.units)


def _locked(s: SowState, e: ev.CombatLocked) -> None:
    assert s.battle is not None
    s.battle.combats.append([e.unit, e.enemy])
    s.battle.assigned.extend([e.unit, e.enemy])
    s.battle.actor = other(e.seat)


def _joined(s: SowState, e: ev.CombatJoined) -> None:
    assert s.battle is not None
    s.battle.combats[e.combat].append(e.unit)
    s.battle.assigned.append(e.unit)
    s.battle.actor = other(e.seat)


def _assigned(s: SowState, e: ev.DamageAssigned) -> None:
    assert s.battle is not None
    s.battle.splits.setdefault(e.unit, {})[e.enemy] = e.amount


def _dealt(s: SowState, e: ev.DamageDealt) -> None:
    s.cards[e.target].damage = e.total


def _destroyed(s: SowState, e: ev.CardDestroyed) -> None:
    """"Whenever a card dies, is destroyed or is discarded it is put into the discard pile";
    it leaves play with nothing on it (R18)."""
    c = s.cards[e.card]
    c.area, c.exhausted, c.damage, c.progress, c.counters = "discard", False, 0, 0, 0
    if s.battle is not None and e.card in s.battle.units:
        s.battle.units.remove(e.card)


def _returned(s: SowState, e: ev.UnitsReturned) -> None:
    for u in e.units:
        s.cards[u].area = "units"


def _closed(s: SowState, e: ev.BattleClosed) -> None:
    s.battle = None


def _besieged(s: SowState, e: ev.PlayerBesieged) -> None:
    s.players[e.attacker].besieging = True


def _entered(s: SowState, e: ev.SiegeEntered) -> None:
    for u in e.units:
        s.cards[u].area = "siege"


def _siege_step(s: SowState, e: ev.SiegeStepBegan) -> None:
    s.battle = Battle("siege", e.attacker, e.defender, units=list(e.units))


def _siege_defenders(s: SowState, e: ev.SiegeDefendersSent) -> None:
    assert s.battle is not None
    s.battle.units.extend(e.units)


def _retreated(s: SowState, e: ev.Retreated) -> None:
    for u in e.units:
        s.cards[u].area = "units"


def _siege_ended(s: SowState, e: ev.SiegeEnded) -> None:
    s.players[e.seat].besieging = False


def _retrieved(s: SowState, e: ev.CardRetrieved) -> None:
    s.cards[e.card].area = "culture"


def _ended(s: SowState, e: MatchEnded) -> None:
    s.over, s.winner, s.reason = True, e.winner, e.reason


HANDLERS: dict[type, Handler] = {
    ev.StatePlaced: lambda s, e: _place(s, e.seat, e.card, e.name, "state"),
    ev.WonderPlacedFaceDown: lambda s, e: _place(s, e.seat, e.card, e.name, "wonder_area"),
    ev.CultureOrdered: _ordered,
    ev.FirstPlayerDetermined: _first,
    ev.TurnBegan: _turn_began,
    ev.PhaseBegan: _phase,
    ev.GoldGained: _gained,
    ev.GoldSpent: _spent,
    ev.CardPutIntoPlay: _put_into_play,
    ev.Exhausted: _exhausted,
    ev.StructureAttacked: _struck,
    ev.CardsReadied: _readied,
    ev.WoundsHealed: _healed,
    ev.ProgressAdded: _progress,
    ev.CountersAdded: _counters,
    ev.DamageRepaired: _repaired,
    ev.AttackersDeclared: _attackers,
    ev.DefendersSent: _defenders,
    ev.CombatLocked: _locked,
    ev.CombatJoined: _joined,
    ev.DamageAssigned: _assigned,
    ev.DamageDealt: _dealt,
    ev.CardDestroyed: _destroyed,
    ev.UnitsReturned: _returned,
    ev.BattleClosed: _closed,
    ev.PlayerBesieged: _besieged,
    ev.SiegeEntered: _entered,
    ev.SiegeStepBegan: _siege_step,
    ev.SiegeDefendersSent: _siege_defenders,
    ev.Retreated: _retreated,
    ev.SiegeEnded: _siege_ended,
    ev.CardRetrieved: _retrieved,
    MatchEnded: _ended,
}


def evolve(state: SowState, event: Event) -> SowState:
    """Apply one event to ``state`` (in place) and return it."""
    handler = HANDLERS.get(type(event))
    if handler is not None:
        handler(state, event)
    return state


def fold(opened: MatchOpened, events: Iterable[Event]) -> SowState:
    """The state after ``events`` (which follow ``opened``), from seq 0."""
    state = initial_state(opened)
    for event in events:
        evolve(state, event)
    return state


def encoded(state: SowState) -> bytes:
    """The canonical encoding of a state (what the fold property compares)."""
    return msgspec.json.encode(state)


__all__ = ["Conceded", "encoded", "evolve", "fold", "initial_state"]
