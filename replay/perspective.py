"""Perspectives: what one viewer may see of a state and of the events (DESIGN.md section 4).

* ``omniscient`` -- everything, deck order included (a judge, or anyone after the match);
* ``A`` / ``B`` -- that seat's own hand; the opponent's hand only as a count; no deck order;
* ``spectator`` -- public information only: both hands as counts.

A card's identity is hidden from a viewer when it moves between places that viewer cannot
see (a deck, a hidden hand): the event then shows ``?`` for the card and its name.  Card ids
are hidden too, because an id names a position in the public deck list.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import msgspec

from ledger.events import (Answered, CardMoved, DeckOrdered, DeckShuffled, Event, HarvestDeclared,
                           ManualEffect, ManualOp, ManualResolved, Mulliganed, recorded_number)
from replay.cards import CardDB
from replay.queries import View
from replay.ops import FACE_DOWN as LEGACY_FACE_DOWN
from replay.state import GameState

PERSPECTIVES = ("omniscient", "A", "B", "spectator")
HIDDEN = "?"


def check_perspective(perspective: str) -> str:
    if perspective not in PERSPECTIVES:
        raise ValueError(f"unknown perspective {perspective!r} (use one of {', '.join(PERSPECTIVES)})")
    return perspective


def can_see_hand(perspective: str, seat: str) -> bool:
    return perspective in ("omniscient", seat)


def _zone_visible(perspective: str, zone: str, seat: str) -> bool:
    if zone == "deck":
        return perspective == "omniscient"
    if zone == "hand":
        return can_see_hand(perspective, seat)
    return True


def face_down_ids(state: GameState) -> frozenset[str]:
    """Ids of the cards face down now: their ids would name them (ids follow deck lists)."""
    return frozenset(cid for cid, c in state.cards.items() if c.face_down)


def redact_event(event: Event, perspective: str, hidden: Collection[str] = ()) -> Event:
    """The event as ``perspective`` may see it (hidden card identities replaced by ``?``).

    ``hidden`` names cards that are face down now (:func:`face_down_ids`): any event naming
    one of them (a tap, a counter, an answer, a judge's operation) shows ``?`` instead."""
    if perspective == "omniscient":
        return event
    event = _redact(event, perspective)
    return _hide(event, hidden) if hidden else event


def _hide(event: Event, hidden: Collection[str]) -> Event:
    def unseen(value):
        if isinstance(value, list):
            return [HIDDEN if v in hidden else v for v in value]
        return HIDDEN if isinstance(value, str) and value in hidden else value
    changes = {}
    if getattr(event, "card", None) in hidden:
        changes["card"] = HIDDEN
        if hasattr(event, "name"):
            changes["name"] = HIDDEN
    if isinstance(event, Answered):
        changes["pick"] = unseen(event.pick)
    if isinstance(event, HarvestDeclared):
        changes["cards"] = unseen(event.cards)
    if isinstance(event, (ManualEffect, ManualResolved)):
        changes["ops"] = [msgspec.structs.replace(op, card=unseen(op.card)) for op in event.ops]
    return msgspec.structs.replace(event, **changes) if changes else event


def _redact(event: Event, perspective: str) -> Event:
    if isinstance(event, CardMoved):
        if _put_face_down(event):
            return msgspec.structs.replace(event, card=HIDDEN, name=HIDDEN)  # Face Down
        if _zone_visible(perspective, event.from_zone, event.owner) or \
                _zone_visible(perspective, event.to_zone, event.owner):
            return event
        return msgspec.structs.replace(event, card=HIDDEN, name=HIDDEN)
    if isinstance(event, DeckShuffled):
        return msgspec.structs.replace(event, order=[HIDDEN] * len(event.order))
    if isinstance(event, DeckOrdered):
        return msgspec.structs.replace(event, cards=[HIDDEN] * len(event.cards))
    if isinstance(event, Mulliganed) and not can_see_hand(perspective, event.seat):
        return msgspec.structs.replace(event, cards=[HIDDEN] * len(event.cards))
    if isinstance(event, Answered) and event.kind == "mulligan" and \
            not can_see_hand(perspective, event.seat):
        return msgspec.structs.replace(event, pick=[HIDDEN] * len(event.pick or []))
    if isinstance(event, (ManualEffect, ManualResolved)):
        return msgspec.structs.replace(event, ops=[_redact_op(op, perspective) for op in event.ops])
    return event


def _redact_op(op: ManualOp, perspective: str) -> ManualOp:
    """A manual operation that puts a card into a hand or a deck doesn't say which card, except
    to whoever may see that hand; the CardMoved it causes is redacted the same way."""
    if op.op == "move" and op.to_zone in ("hand", "deck") and op.card is not None:
        owner = op.card[0] if op.card[:1] in ("A", "B") else None
        if op.to_zone == "deck" or not (owner and can_see_hand(perspective, owner)):
            return msgspec.structs.replace(op, card=HIDDEN)
    return op


def _put_face_down(event: CardMoved) -> bool:
    """The card was put face down (schema 3 says so; older files said it in the reason)."""
    return (event.face_down and event.from_zone != "world") or event.reason == LEGACY_FACE_DOWN


def card_names(state: GameState, perspective: str, events=()) -> dict[str, str]:
    """Card id -> name, for narrating events that carry only an id (counters, taps, effects,
    control: all about cards in view).  A card that was ever put face down stays unnamed
    except for the omniscient view."""
    hidden: set[str] = set()
    if perspective != "omniscient":
        hidden = {e.card for e in events if isinstance(e, CardMoved) and _put_face_down(e)}
    return {cid: c.name for cid, c in state.cards.items() if cid not in hidden}


def board(state: GameState, db: CardDB, perspective: str = "omniscient") -> dict[str, Any]:
    """A JSON-able picture of the state from ``perspective``: realms, resources, zones."""
    check_perspective(perspective)
    v = View(state, db)
    realms = []
    for realm in state.realms:
        sides: dict[str, list] = {"A": [], "B": []}
        for c in v.in_realm(realm.number):
            hidden = c.face_down and perspective != "omniscient"
            sides[c.controller].append(_FACE_DOWN_CARD if hidden else _world_card(v, c.id))
        realms.append({"number": realm.number, "active": v.is_active_realm(realm.number),
                       "stones": list(realm.stones), "controller": v.realm_controller(realm.number),
                       "cards": sides})
    players = {}
    for seat, p in state.players.items():
        show_hand = can_see_hand(perspective, seat)
        players[seat] = {
            "energy": recorded_number(p.energy), "actions": p.actions,
            "free_attacks": p.free_attacks, "faith": recorded_number(p.faith), "stones": v.stones_of(seat),
            "hand_count": len(p.hand),
            "hand": [_card(v, cid) for cid in p.hand] if show_hand else None,
            "deck_count": len(p.deck),
            "deck": [_card(v, cid) for cid in p.deck] if perspective == "omniscient" else None,
            "abyss": [_card(v, cid) for cid in p.abyss],
            "banishment": [_card(v, cid) for cid in p.banishment],
        }
    return {"perspective": perspective, "round": state.round, "phase": state.phase,
            "turn": state.turn, "first": state.first, "over": state.over,
            "winner": state.winner, "reason": state.reason, "ruleset": state.ruleset,
            "realms": realms, "players": players}


_FACE_DOWN_CARD = {"id": HIDDEN, "name": "face-down card", "type": None, "cost": None,
                   "orbital": None, "face_down": True}


def _card(v: View, cid: str) -> dict[str, Any]:
    card = v.definition(cid)
    return {"id": cid, "name": card.name, "type": card.type, "cost": card.cost,
            "orbital": card.orbital}


def _world_card(v: View, cid: str) -> dict[str, Any]:
    c = v.card(cid)
    out = _card(v, cid)
    out.update(tapped=c.tapped, token=c.token, counters=dict(c.counters),
               equipped_to=c.equipped_to, keywords=sorted(v.keywords(cid)))
    if v.is_wonder(cid):
        out["power"] = recorded_number(v.power(cid))  # JSON has no infinity
    return out
