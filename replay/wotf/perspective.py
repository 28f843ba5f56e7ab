"""Perspectives: what one viewer may see of a state and of the events (DESIGN.md section 4).

* ``omniscient`` -- everything, deck order included (a judge, or anyone after the match);
* ``A`` / ``B`` -- that seat's own hand; the opponent's hand only as a count; no deck order;
* ``spectator`` -- public information only: both hands as counts.

A card's identity is hidden from a viewer when it moves between places that viewer cannot
see (a deck, a hidden hand): the event then shows ``?`` for the card and its name.  Card ids
are hidden too, because an id names a position in the public deck list.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from itertools import islice
from typing import Any

import msgspec

from ledger.events import Event, recorded_number
from replay.wotf import buryorder
from replay.wotf.cards import CardDB
from replay.wotf.events import (
    Answered,
    CardMoved,
    CardPutOnTop,
    CardStatsEntered,
    DeckOrdered,
    DeckShuffled,
    ManualEffect,
    ManualOp,
    ManualResolved,
    Mulliganed,
    TakenBack,
    TokenCreated,
    Trigger,
    TriggersDeferred,
    TriggersQueued,
)
from replay.wotf.ops import FACE_DOWN as LEGACY_FACE_DOWN
from replay.wotf.queries import View
from replay.wotf.state import GameState

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


def is_identified(state: GameState, cid: str, perspective: str) -> bool:
    """Whether ``perspective`` sees which card ``cid`` is in ``state``: not a card in a deck
    (no seat sees a deck's order), in the other seat's hand or face down in The World (rule
    510: not even its controller's view names it).  Words about a card a viewer can't see
    (a refusal's reason) must not name it: a name beside an id, or beside a place in a
    deck, would tell the viewer what its board and events keep from it."""
    card = state.cards.get(cid)
    if card is None or perspective == "omniscient":
        return True
    if card.zone == "world" and card.face_down:
        return False
    return _zone_visible(perspective, card.zone, card.owner)


def face_down_ids(state: GameState) -> frozenset[str]:
    """Ids of the cards face down in ``state``.  Pass the state at the viewer's horizon (the
    last seq it may see: for a live match's spectator, the delayed one), never a later one:
    a card face down there is hidden in every event up to it -- the ones that named it
    before it went face down (its name beside its id), the one that put it face down and
    the ones about it since -- while a card turned face up later still shows as it was."""
    return frozenset(cid for cid, c in state.cards.items() if c.face_down)


def redact_event(event: Event, perspective: str, hidden: Collection[str] = (),
                 log: Sequence[Event] = (), seq: int | None = None) -> Event:
    """The event as ``perspective`` may see it (hidden card identities replaced by ``?``).

    ``hidden`` names the cards face down at the viewer's horizon (:func:`face_down_ids`):
    any event naming one of them -- before it went face down, the move that put it there, a
    tap, a counter, an answer, a judge's operation -- shows ``?`` instead (Face Down, rule
    510: nobody but the omniscient view knows which face-down card is which).

    ``log`` and ``seq``: the match's events as written and the event's place among them.
    With them, an owner's bury order stays its own (R46, :mod:`replay.wotf.buryorder`): the
    answer that chose it shows ``?`` and the group's moves come in a canonical order.  A
    ``bury_order`` answer (revision 12) is told by its kind alone: it shows ``?`` without them."""
    if perspective == "omniscient":
        return event
    event = buryorder.as_seen(event, log, -1 if seq is None else seq, perspective)
    event = _redact(event, perspective)
    return _hide(event, hidden) if hidden else event


def board_seq(log: Sequence[Event], seq: int, perspective: str) -> int:
    """The seq whose board ``perspective`` is shown at ``seq`` of ``log`` (the match's
    events): ``seq``, but inside the moves of a group buried in an order ``perspective`` may
    not know, the board before them (R46, :func:`replay.wotf.buryorder.board_seq`)."""
    return buryorder.board_seq(log, seq, perspective)


def _hide(event: Event, hidden: Collection[str]) -> Event:
    """``event`` with every mention of a ``hidden`` card replaced by ``?``: its id in any
    field that names a card (the card, a source, a wonder, picks, lists, a judge's
    operations), its name beside it, and any text that quotes it (a trigger's detail)."""
    def unseen(value: object) -> object:
        if isinstance(value, list):
            return [HIDDEN if isinstance(v, str) and v in hidden else v for v in value]
        return HIDDEN if isinstance(value, str) and value in hidden else value
    changes = {}
    for field in event.__struct_fields__:
        value = getattr(event, field)
        if field in _CARD_FIELDS or (field in _CARD_LISTS and isinstance(value, list)):
            seen = unseen(value)
            if seen != value:
                changes[field] = seen
    if changes.get("card") == HIDDEN and hasattr(event, "name"):
        changes["name"] = HIDDEN
    if changes.get("card") == HIDDEN and isinstance(event, CardStatsEntered):
        changes["stats"] = {}  # a face-down card's printed stats would name it
    if HIDDEN in (changes.get("card"), changes.get("source")) and \
            isinstance(getattr(event, "ability", None), str):
        changes["ability"] = HIDDEN  # "ab:<Card Name>#<id>" names the card (the stack events)
    detail, key = getattr(event, "detail", None), getattr(event, "key", None)
    if isinstance(detail, str) and _quotes_any(detail, hidden):
        changes["detail"] = HIDDEN
    if isinstance(key, str) and _quotes_any(key, hidden):
        changes["key"] = HIDDEN  # a count keyed by a card ("A3:once")
    if isinstance(event, (ManualEffect, ManualResolved)):
        ops = [msgspec.structs.replace(op, card=unseen(op.card)) for op in event.ops]
        if ops != event.ops:
            changes["ops"] = ops
    if isinstance(event, (TriggersQueued, TriggersDeferred)):
        queued = [_hide_trigger(t, hidden) for t in event.triggers]
        if queued != event.triggers:
            changes["triggers"] = queued
    return msgspec.structs.replace(event, **changes) if changes else event


def _hide_trigger(t: Trigger, hidden: Collection[str]) -> Trigger:
    """A queued trigger naming a hidden card: its source hides its ability label too (which
    names the card), as in the other stack events."""
    if t.source in hidden:
        t = msgspec.structs.replace(t, source=HIDDEN, ability=HIDDEN)
    if t.subject in hidden:
        t = msgspec.structs.replace(t, subject=HIDDEN)
    return t


#: Fields of events that hold one card id, and fields that may hold a list of them.
_CARD_FIELDS = ("card", "source", "wonder", "pick")
_CARD_LISTS = ("cards", "order", "targets")  # targets: a play's or activation's chosen cards


def _quotes_any(text: str, hidden: Collection[str]) -> bool:
    words = set(text.replace(",", " ").replace(":", " ").replace("(", " ")
                .replace(")", " ").split())
    return any(cid in words for cid in hidden)


def _redact(event: Event, perspective: str) -> Event:
    if isinstance(event, CardMoved):
        if _put_face_down(event):
            return msgspec.structs.replace(event, card=HIDDEN, name=HIDDEN)  # Face Down
        if _zone_visible(perspective, event.from_zone, event.owner) or \
                _zone_visible(perspective, event.to_zone, event.owner):
            return event
        return msgspec.structs.replace(event, card=HIDDEN, name=HIDDEN)
    if isinstance(event, CardStatsEntered) and \
            not _zone_visible(perspective, event.zone, event.seat):
        # R34: entered while the card was hidden from this viewer (its owner's hand): which
        # card, and its stats (which would name it), stay hidden; the board shows the stats
        # once the card is public.
        return msgspec.structs.replace(event, card=HIDDEN, name=HIDDEN, stats={})
    if isinstance(event, DeckShuffled):
        return msgspec.structs.replace(event, order=[HIDDEN] * len(event.order))
    if isinstance(event, CardPutOnTop):
        return msgspec.structs.replace(event, card=HIDDEN)  # which card is on top: a deck order
    if isinstance(event, DeckOrdered):
        return msgspec.structs.replace(event, cards=[HIDDEN] * len(event.cards))
    if isinstance(event, Mulliganed) and not can_see_hand(perspective, event.seat):
        return msgspec.structs.replace(event, cards=[HIDDEN] * len(event.cards))
    if isinstance(event, Answered) and event.kind == "mulligan" and \
            not can_see_hand(perspective, event.seat):
        picked = event.pick if isinstance(event.pick, list) else []
        return msgspec.structs.replace(event, pick=[HIDDEN] * len(picked))
    if isinstance(event, (ManualEffect, ManualResolved)):
        return msgspec.structs.replace(event, ops=[_redact_op(op, perspective) for op in event.ops])
    return event


def _redact_op(op: ManualOp, perspective: str) -> ManualOp:
    """A manual operation that puts a card into a hand or a deck doesn't say which card, except
    to whoever may see that hand; the CardMoved it causes is redacted the same way."""
    if op.op in ("reveal", "look") and not shown_to(op, perspective):
        return msgspec.structs.replace(op, card=HIDDEN)
    if op.op == "move" and op.to_zone in ("hand", "deck") and op.card is not None:
        owner = op.card[0] if op.card[:1] in ("A", "B") else None
        if op.to_zone == "deck" or not (owner and can_see_hand(perspective, owner)):
            return msgspec.structs.replace(op, card=HIDDEN)
    return op


def shown_to(op: ManualOp, perspective: str) -> bool:
    """Whether a ``reveal`` or ``look`` operation shows its card to ``perspective``: a reveal
    to its seat (or, naming none, to everyone), a look to the seat that looks only."""
    if perspective == "omniscient":
        return True
    if op.op == "reveal":
        return op.seat is None or op.seat == perspective
    return op.op == "look" and op.seat == perspective


def known_cards(events: Sequence[Event], perspective: str) -> frozenset[str]:
    """The cards ``perspective`` has been shown by a judge's ruling or a seat's manual answer
    (a ``reveal`` to it or to everyone, a ``look`` by it) and still knows, after ``events``
    (a match's events from seq 0, ``events[seq]``, up to the viewer's horizon).  A card is
    known from the operation on, wherever it goes (into a hand, face down: the viewer saw it
    go), until it goes into a deck or its deck is shuffled; a take-back restores what was
    known at its seq."""
    types = list(map(type, events))
    first = _first_showing(types)
    if first is None:
        return frozenset()  # nothing was ever shown: nothing is known
    known: set[str] = set()
    now: frozenset[str] = frozenset()  # ``known`` after the last event, one object while unchanged
    history: list[frozenset[str]] = [now] * first  # nothing was known before the first showing
    for event, cls in zip(islice(events, first, None), types[first:], strict=True):
        changes = _CHANGES_KNOWN_BY_TYPE.get(cls)
        if changes is None:
            changes = _CHANGES_KNOWN_BY_TYPE[cls] = issubclass(cls, _CHANGES_KNOWN)
        if changes:  # (every other event leaves ``known`` as it is)
            if isinstance(event, TakenBack) and event.to_seq < len(history):
                known = set(history[event.to_seq])
            elif isinstance(event, _SHOWS):
                known |= {op.card for op in event.ops
                          if op.card and op.op in ("reveal", "look") and shown_to(op, perspective)}
            elif isinstance(event, CardMoved) and event.to_zone == "deck":
                known.discard(event.card)
            elif isinstance(event, DeckShuffled):
                known = {cid for cid in known if cid not in event.order}
            now = frozenset(known)
        history.append(now)
    return now


def _first_showing(types: list[type]) -> int | None:
    """The index of the first event that may show a card (a manual reveal or look), if any."""
    showing = [cls for cls in set(types) if issubclass(cls, _SHOWS)]
    return min(types.index(cls) for cls in showing) if showing else None


#: :func:`known_cards` runs on every read of a board, over every event of the match.  Until the
#: first event that shows a card (:data:`_SHOWS`) nothing is known, so it starts there (found
#: by the events' types: a scan at C speed); from there it tests each event's type once (a dict
#: lookup: ``isinstance`` against an event class costs several times more) and makes a new set
#: only where one of :data:`_CHANGES_KNOWN` may have changed what is known.
_SHOWS = (ManualEffect, ManualResolved)
_CHANGES_KNOWN = (TakenBack, *_SHOWS, CardMoved, DeckShuffled)
_CHANGES_KNOWN_BY_TYPE: dict[type, bool] = {}


def known_board(state: GameState, db: CardDB, perspective: str,
                known: Collection[str], view: View | None = None) -> dict[str, list[dict[str, Any]]]:
    """Per seat, the cards ``perspective`` knows (:func:`known_cards`) where the board doesn't
    show them: in a hand it can't see, in a deck (with the position from the top), face down.
    Empty for the omniscient view, which sees them all anyway.  ``view``: as for :func:`board`."""
    out: dict[str, list[dict[str, Any]]] = {seat: [] for seat in state.players}
    if perspective == "omniscient":
        return out
    v = _view_of(state, db, view)
    for cid in sorted(known):
        c = state.cards.get(cid)
        if c is None:
            continue
        entry: dict[str, Any] = {"id": cid, "name": c.name, "zone": c.zone}
        p = state.players[c.owner]
        if c.zone == "deck" and cid in p.deck:
            entry["position"] = p.deck.index(cid) + 1  # 1: the top card
        elif c.zone == "hand" and not can_see_hand(perspective, c.owner):
            pass
        elif c.zone == "world" and c.face_down:
            entry["realm"] = c.realm
        else:
            continue  # in view anyway
        entry["type"] = v.definition(cid).type
        out[c.owner].append(entry)
    return out


def _put_face_down(event: CardMoved) -> bool:
    """The card was put face down (schema 3 says so; older files said it in the reason)."""
    return (event.face_down and event.from_zone != "world") or event.reason == LEGACY_FACE_DOWN


def card_names(state: GameState, perspective: str, events: Iterable[Any] = ()) -> dict[str, str]:
    """Card id -> name, for narrating events that carry only an id (counters, taps, effects,
    control: all about cards in view).  A card that was ever put face down stays unnamed
    except for the omniscient view.  (``events`` are any events: :data:`_NAMING_KIND` sorts
    them by class, so each is read as the class it is.)"""
    hidden: set[str] = set()
    # A token that has ceased to exist (203) is gone from the state; its creation was public.
    gone: dict[str, str] = {}
    unseen = perspective != "omniscient"
    for e in events:  # one pass, one type lookup per event (see _NAMING_KIND)
        kind = _NAMING_KIND.get(type(e))
        if kind is None:
            kind = _NAMING_KIND[type(e)] = _naming_kind(type(e))
        if kind == _MOVED:
            if unseen and _put_face_down(e):
                hidden.add(e.card)
        elif kind == _TOKEN:
            gone[e.card] = e.name
    return {**gone, **{cid: c.name for cid, c in state.cards.items() if cid not in hidden}}


#: What :func:`card_names` looks at in an event, by the event's class: it runs over every event
#: of a match for each answer that narrates, and a dict lookup costs a fraction of
#: ``isinstance`` against an event class.
_NAMING_KIND: dict[type, int] = {}
_OTHER, _MOVED, _TOKEN = 0, 1, 2


def _naming_kind(cls: type) -> int:
    if issubclass(cls, CardMoved):
        return _MOVED
    return _TOKEN if issubclass(cls, TokenCreated) else _OTHER


def board(state: GameState, db: CardDB, perspective: str = "omniscient",
          view: View | None = None) -> dict[str, Any]:
    """A JSON-able picture of the state from ``perspective``: realms, resources, zones.

    ``view``: a :class:`View` of exactly ``state`` kept current by its owner -- an engine's,
    which :meth:`Engine.emit <replay.wotf.engine.Engine.emit>` tells of every event -- so the
    facts it already worked out (powers, keywords, the cards in each realm) are not worked
    out again; without one, a fresh view (:func:`engine_board` is the usual way in)."""
    check_perspective(perspective)
    v = _view_of(state, db, view)
    realms = []
    for realm in state.realms:
        sides: dict[str, list] = {"A": [], "B": []}
        down: dict[str, int] = {"A": 0, "B": 0}
        for c in v.in_realm(realm.number):
            if c.face_down and perspective != "omniscient":
                down[c.controller or c.owner] += 1  # listed below, after the face-up cards
            else:
                sides[c.controller or c.owner].append(_world_card(v, c.id))
        for seat, count in down.items():
            # Face Down (rule 510): which card it is is hidden, so nothing about the card may
            # decide where it is listed -- not its id, not its place among the face-up cards.
            # Face-down cards come after the face-up ones, all alike (no id, no key).
            sides[seat] += [dict(_FACE_DOWN_CARD) for _ in range(count)]
        realms.append({"number": realm.number, "active": v.is_active_realm(realm.number),
                       "stones": list(realm.stones), "controller": v.realm_controller(realm.number),
                       "cards": sides})
    players = {}
    for seat, p in state.players.items():
        show_hand = can_see_hand(perspective, seat)
        players[seat] = {
            "energy": recorded_number(p.energy), "actions": recorded_number(p.actions),
            "free_attacks": recorded_number(p.free_attacks), "faith": recorded_number(p.faith),
            "stones": v.stones_of(seat),
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


def _view_of(state: GameState, db: CardDB, view: View | None) -> View:
    """``view`` if it is one of ``state`` (a view of another state would answer about that
    one), else a fresh view."""
    if view is None:
        return View(state, db)
    if view.s is not state:
        raise ValueError("a kept View answers about its own state, not the one to draw")
    return view


def engine_board(engine: Any, perspective: str) -> dict[str, Any]:
    """The board of an engine's state (a match's head) through the engine's own view, which
    the engine keeps current event by event: the same picture :func:`board` draws with a
    fresh view (tests/replay/test_board_kept_view.py compares them after every event)."""
    return board(engine.state, engine.db, perspective, view=engine.view)


def engine_known_board(engine: Any, perspective: str,
                       events: Sequence[Event]) -> dict[str, list[dict[str, Any]]]:
    """:func:`known_board` of an engine's state, after ``events`` (the match's, from seq 0),
    through the engine's own view."""
    return known_board(engine.state, engine.db, perspective, known_cards(events, perspective),
                       view=engine.view)


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
