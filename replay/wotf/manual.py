"""Manual effects: primitive operations applied as given (DESIGN.md sections 2 and 3).

Two things use them: a judge's ruling (``ManualEffect``) and the answer to a ``manual``
prompt (``ManualResolved``), raised when a card whose rules text is not scripted would
apply.  Each :class:`~ledger.events.ManualOp` is applied as given; nothing is checked against
the rules, because the point is to record what the rules engine cannot express.
:func:`why_not_ops` only checks that every operation names things that exist (the card, the
zone, an active realm, a resource).  Who may enter what is :func:`why_not_seat_ops`: a seat
answering its own manual prompt touches only its own cards and resources; the rest is the
judge's.
"""

from __future__ import annotations

import re
from typing import Any, Literal, Protocol

import msgspec

from ledger.events import Event, Seat, as_seat
from replay.counted import counted
from replay.prompts import Choose, Prompt
from replay.wotf.events import (
    CardMoved,
    CardPutOnTop,
    CardTapped,
    ControlChanged,
    ManualEffect,
    ManualOp,
    ResourcesChanged,
    StonesSet,
)
from replay.wotf.perspective import is_identified
from replay.wotf.state import GameState
from replay.wotf.table import Flow, MatchOver, Rules, Table


class Judged(Rules, Protocol):
    """The engine as a judge's ruling applies to it: the rules' vocabulary, the outcomes of
    the current step (``out``) and ``stop`` (no prompt pending once the match ended)."""

    out: list[Event]
    prompt: Prompt | None

    def stop(self) -> None: ...

    def settle_prompt(self) -> None: ...

ZONES = ("hand", "deck", "abyss", "banishment", "world")
RESOURCES = ("energy", "actions", "faith", "free_attacks")


def why_not_manual(engine: Table, effect: ManualEffect) -> str | None:
    return why_not_ops(engine, at_positions(engine.state, effect.ops), ruling=True)


#: A card named by where it is in a deck, not by its id: ``deck:<seat>:<n>``, the n-th card
#: from the top of that seat's deck (the form's choice for a seat, who can't see its deck:
#: "look at the top three cards of any deck").  Turned into the card's id before anything is
#: recorded (:func:`at_positions`), so the record always names the card.
DECK_PLACE = re.compile(r"^deck:([AB]):([1-9][0-9]{0,2})$")


#: How far into a deck a seat's own answer may look: its top or its bottom this many cards
#: (the texts that let a player look into a deck look at "the top three cards", "the bottom
#: card"); a seat that could look anywhere read the other seat's whole deck order in one
#: answer (40 looks), and its own -- hidden from both seats alike (docs/rulings.md R48).
SEAT_LOOK_DEPTH = 5


def is_near_an_end(deck: list[str], card_id: str) -> bool:
    """Whether ``card_id`` is among the top or the bottom :data:`SEAT_LOOK_DEPTH` cards of
    ``deck`` (top card first)."""
    place = deck.index(card_id)
    return place < SEAT_LOOK_DEPTH or place >= len(deck) - SEAT_LOOK_DEPTH


def at_positions(state: GameState, ops: list[ManualOp]) -> list[ManualOp]:
    """``ops`` with every card named by its place in a deck (:data:`DECK_PLACE`) named by its
    id, as of ``state`` (before any of them applies); a place with no card stays as it is, for
    :func:`why_not_ops` to refuse."""
    out = []
    for op in ops:
        found = DECK_PLACE.match(op.card or "")
        if found:
            deck = state.players[found.group(1)].deck
            n = int(found.group(2))
            if n <= len(deck):
                op = msgspec.structs.replace(op, card=deck[n - 1])
        out.append(op)
    return out


def _no_place(s: GameState, card: str | None) -> str | None:
    found = DECK_PLACE.match(card or "")
    if not found:
        return None
    size = len(s.players[found.group(1)].deck)
    return (f"seat {found.group(1)}'s deck has {counted(size, 'card')}: there is no card "
            f"{found.group(2)} from the top")


#: Where a card is hidden from someone, so that revealing it or looking at it means something.
HIDDEN_ZONES = ("hand", "deck")
POSITIONS = ("top", "bottom")


def why_not_ops(engine: Table, ops: list[ManualOp], ruling: bool = False,
                viewer: str = "omniscient") -> str | None:
    """Why these operations can't be applied (``None`` if every one names real things).

    ``viewer``: who reads the reason -- the judge (``omniscient``) or the seat answering its
    own manual prompt, to whom a card it can't see (its deck's cards, face-down cards) is
    not named: a seat naming its deck's cards by place (``deck:A:3``) read each one's name
    and id in the refusal of a wrong operation, and so its whole deck order, without
    recording anything.

    ``ruling``: a judge's ruling (``ManualEffect``).  A shuffle's order is a chance event
    answered once every operation is applied: after a ruling (:func:`apply_manual`), or, from
    rules revision 8, after a seat's answer to its ``manual`` prompt ("shuffle your deck" is
    printed text; :meth:`Engine.resolve_manually`).  Before revision 8 only a ruling could."""
    s = engine.state
    shuffled: list[str] = []
    for n, op in enumerate(ops, start=1):
        where = f"manual op {n} ({op.op})"
        if op.op in ("move", "counter", "tap", "control", "power", "reveal", "look") and \
                op.card not in s.cards:
            return f"{where}: {_no_place(s, op.card) or f'no card {op.card!r}'}"
        if shuffled and op.op != "shuffle":
            return (f"{where}: comes after a shuffle of {shuffled[0]}'s deck; a shuffle is the "
                    f"last operation of a ruling (enter what follows as another ruling)")
        if op.op == "move" and op.value is not None and op.value not in POSITIONS:
            return f"{where}: {_named(s, op, viewer)}: a position is top or bottom, not {op.value!r}"
        if op.op == "move" and op.value is not None and op.to_zone != "deck":
            return (f"{where}: {_named(s, op, viewer)}: a position ({op.value}) is for a move to a "
                    f"deck, not to {op.to_zone}")
        if op.op in ("reveal", "look"):
            why = _why_not_shown(s, op)
            if why:
                return f"{where}: {_named(s, op, viewer)}: {why}"
        if op.op == "shuffle":
            if op.seat not in ("A", "B"):
                return f"{where}: a shuffle names the seat whose deck it shuffles, not {op.seat!r}"
            if not ruling and s.revision < 8:
                return (f"{where}: a shuffle is a chance event; a seat's answer can't shuffle -- "
                        f"the judge enters it as a ruling (POST …/manual)")
            if getattr(engine, "prompt", None) is None:
                return f"{where}: the match is over; there is no deck to shuffle for it"
            if op.seat in shuffled:
                return f"{where}: seat {op.seat}'s deck is already shuffled by this ruling"
            shuffled.append(op.seat)
        if op.op == "move" and (op.to_zone not in ZONES or (op.to_zone == "world" and not op.realm)):
            return f"{where}: move needs to_zone in {ZONES} (and a realm for world)"
        if op.op in ("resource", "control", "stone") and op.seat not in ("A", "B", None):
            return f"{where}: bad seat {op.seat!r}"
        if op.op == "resource" and op.resource not in RESOURCES:
            return f"{where}: resource must be one of {RESOURCES}"
        if op.op == "stone" and not (op.realm and 1 <= op.realm <= 7):
            return f"{where}: stone needs a realm 1..7"
        if op.op == "counter" and not isinstance(op.value, (int, float)):
            return f"{where}: counter needs a numeric value (the change)"
        if op.op == "move" and op.to_zone == "world" and not engine.view.is_active_realm(op.realm or 0):
            return f"{where}: realm {op.realm} is not active (rule 301.1)"
        if op.op == "token" and not (op.seat in ("A", "B") and op.name
                                     and engine.view.is_active_realm(op.realm or 0)):
            return f"{where}: token needs a seat, a name and an active realm"
        if op.op == "power" and (not isinstance(op.value, (int, float)) or
                                 op.duration not in ("round", "ever")):
            return f"{where}: power needs a numeric value and a duration (round or ever)"
    return None


def _named(s: GameState, op: ManualOp, viewer: str = "omniscient") -> str:
    """The card an operation names, as a reason says it to ``viewer``: its name and id, or
    only that it is hidden where the viewer can't see which card it is."""
    card = s.cards.get(op.card) if op.card else None
    if card is None:
        return repr(op.card)
    if not is_identified(s, card.id, viewer):
        return f"a card hidden from {'seat ' + viewer if viewer in ('A', 'B') else viewer}"
    return f"{card.name} ({card.id})"


def _why_not_shown(s: GameState, op: ManualOp) -> str | None:
    """Why ``op`` (a reveal or a look) can't show its card (``None`` if it can)."""
    if op.op == "look" and op.seat not in ("A", "B"):
        return f"a look names the seat that looks (A or B), not {op.seat!r}"
    if op.op == "reveal" and op.seat not in ("A", "B", None):
        return f"a reveal is to seat A, B or everyone (no seat), not {op.seat!r}"
    card = s.cards[op.card or ""]
    if card.zone not in HIDDEN_ZONES and not (card.zone == "world" and card.face_down):
        return (f"is in the {card.zone}, seen by everyone: only a card in a hand, a deck or "
                f"face down can be {'revealed' if op.op == 'reveal' else 'looked at'}")
    return None


def why_not_seat_ops(state: GameState, seat: str, ops: list[ManualOp]) -> str | None:
    """Why ``seat`` may not enter these operations itself, answering its own ``manual``
    prompt (``None`` if it may).  A seat's answer records what its own card did to its own
    side: its own cards (owned and, in The World, controlled by it), its own resources and
    tokens, a shuffle of its own deck.  Anything touching the other seat's cards or
    resources, the stones or control is a ruling for the judge (``ManualEffect``).  The
    reason says which operation and why, never where a card it names is (the other seat's
    hand or deck are hidden)."""
    for n, op in enumerate(ops, start=1):
        where = f"manual op {n} ({op.op})"
        if op.op in ("control", "stone"):
            return f"{where} changes {'control' if op.op == 'control' else 'the stones'}"
        if op.op in ("resource", "token") and op.seat != seat:
            return f"{where} is not for seat {seat}'s own {op.op}s"
        if op.op == "shuffle" and op.seat != seat:
            return f"{where} shuffles seat {op.seat}'s deck: a seat's answer shuffles its own only"
        if op.op == "look" and op.seat != seat:
            return f"{where} lets seat {op.seat} look: a seat's answer shows cards to itself only"
        if op.op in ("move", "counter", "tap", "power", "reveal", "look"):
            card = state.cards.get(op.card) if op.card else None
            if card is None:
                continue  # no such card: why_not_ops says so
            own = card.owner == seat and (card.zone != "world" or card.controller == seat)
            if op.op == "look" and card.zone == "deck":
                # "look at the top three cards of any deck": shown to itself only, and only
                # near the top or the bottom -- the middle is a ruling (docs/rulings.md R48)
                if not is_near_an_end(state.players[card.owner].deck, card.id):
                    return (f"{where} looks at a deck card more than {SEAT_LOOK_DEPTH} from "
                            f"its top and its bottom: a seat's answer looks at a deck's top or "
                            f"bottom {SEAT_LOOK_DEPTH} cards only; the rest is a ruling for the "
                            f"judge")
                continue
            if not own:
                return f"{where} names a card that is not seat {seat}'s own"
            if op.op == "move" and op.seat not in (None, seat):
                return f"{where} puts a card under seat {op.seat}'s control"
    return None


def apply_manual(engine: Judged, effect: ManualEffect) -> list:
    """Apply a judge's ruling; returns ``[effect, *the outcome events it produced]``."""
    effect = msgspec.structs.replace(effect, ops=at_positions(engine.state, effect.ops))
    engine.out = [effect]
    try:
        apply_ops(engine, effect.ops)
    except MatchOver:  # a deck emptied (405, revision 5): the match ended, no more ops
        engine.stop()
        return engine.out
    seats = shuffled_seats(effect.ops)
    if seats:
        _shuffle_first(engine, seats)
    else:
        engine.settle_prompt()  # R34: a card the ruling put in its owner's sight is entered first
    return engine.out


def apply_ops(engine: Rules, ops: list[ManualOp]) -> None:
    for op in ops:
        _APPLY[op.op](engine, op)


def shuffles(seats: list[Seat], state: GameState) -> Flow:
    """The chance events of the decks these operations shuffled, one ``chance`` prompt per
    deck (``DeckShuffled``: a full permutation of the deck, hidden from the seats)."""
    for seat in seats:
        deck = list(state.players[seat].deck)
        yield Prompt("chance", "chance", choose=Choose(deck, len(deck), len(deck), ordered=True),
                     text=f"shuffle {seat}")


def shuffled_seats(ops: list[ManualOp]) -> list[Seat]:
    """The seats whose decks these operations shuffle, in order."""
    return [as_seat(op.seat) for op in ops if op.op == "shuffle"]


def _shuffle_first(engine: Judged, seats: list[Seat]) -> None:
    """A ruling shuffled these decks: their orders are chance events (``DeckShuffled``, hidden
    from the seats like every deck order), asked for as ``chance`` prompts before the prompt
    that was pending when the ruling was entered, which then is pending again.  The recorder
    answers them with its random source; the replayer feeds the recorded ones."""
    # The procedure's own prompt (a catalogue card's stats entry asked before it is asked
    # again once the shuffles are answered, R34).
    before: Prompt | None = getattr(engine, "procedure_prompt", None) or getattr(engine, "prompt", None)
    flow: Flow | None = getattr(engine, "_flow", None)
    assert before is not None and flow is not None, "why_not_ops: a shuffle needs a live match"

    def shuffling() -> Flow:
        yield from shuffles(seats, engine.state)
        answer = yield before
        while True:
            try:
                pending = flow.send(answer)
            except StopIteration as done:
                return done.value
            answer = yield pending

    run = shuffling()
    engine.prompt = next(run)
    setattr(engine, "_flow", run)  # noqa: B010 - the engine's flow, resumed after the shuffles


# What an operation names, narrowed: :func:`why_not_ops` (and the API's ``ManualOpIn``) checked
# it before any operation is applied; what comes from outside and is a seat goes through
# ``as_seat``.


def _card(op: ManualOp) -> str:
    assert op.card is not None, "why_not_ops: a card operation names a card"
    return op.card


def _realm(op: ManualOp) -> int:
    assert op.realm is not None, "why_not_ops: a stone, a token, a move into The World name a realm"
    return op.realm


def _number(op: ManualOp) -> float:
    assert isinstance(op.value, (int, float)), "why_not_ops: a counter or power value is a number"
    return op.value


def _stone_side(value: object) -> Literal["center", "A", "B"]:
    """A stone op's value: "center" or a seat (``ValueError`` for anything else)."""
    return "center" if value == "center" else as_seat(value)


def _move(engine: Rules, op: ManualOp) -> None:
    c = engine.state.cards[_card(op)]
    if op.to_zone == "world" and c.zone == "world":
        engine.emit(CardMoved(c.id, c.name, c.owner, "world", "world", "manual", c.realm, op.realm,
                              c.controller, face_down=c.face_down))
        return
    assert op.to_zone is not None, "why_not_ops: a move names its zone"
    engine.move(_card(op), op.to_zone, "manual", realm=op.realm, controller=op.seat or c.owner)
    if op.value == "top" and c.zone == "deck":  # into a deck: the bottom, unless "top"
        engine.emit(CardPutOnTop(c.id, c.owner))


def _shown(engine: Rules, op: ManualOp) -> None:
    """A reveal or a look changes no state: the operation itself is the record of who saw
    which card (:func:`replay.wotf.perspective.known_cards`)."""


def _shuffle(engine: Rules, op: ManualOp) -> None:
    """The order is a chance event asked for once every operation applied (:func:`apply_manual`)."""


def _counter(engine: Rules, op: ManualOp) -> None:
    engine.add_counters(_card(op), op.counter or "+1", int(_number(op)))


def _resource(engine: Rules, op: ManualOp) -> None:
    assert op.resource is not None, "why_not_ops: a resource op names one of RESOURCES"
    value = op.value
    if op.resource in ("actions", "free_attacks"):
        value = int(float(value or 0))  # counted one by one (R26)
    totals: dict[str, Any] = {op.resource: value}  # applied as given (see the module doc)
    engine.emit(ResourcesChanged(as_seat(op.seat), "manual", **totals))


def _tap(engine: Rules, op: ManualOp) -> None:
    engine.emit(CardTapped(_card(op), bool(op.value if op.value is not None else True)))


def _control(engine: Rules, op: ManualOp) -> None:
    engine.emit(ControlChanged(_card(op), as_seat(op.seat)))


def _stone(engine: Rules, op: ManualOp) -> None:
    owner = op.seat or _stone_side(op.value or "center")
    engine.emit(StonesSet(_realm(op), [owner]))


def _token(engine: Rules, op: ManualOp) -> None:
    made_up = engine.stand_in(op.name, "wonder", None)
    engine.place_token(as_seat(op.seat), made_up.name, _realm(op), stand_in=made_up)


def _power(engine: Rules, op: ManualOp) -> None:
    engine.add_effect(_card(op), "power+", float(_number(op)), op.duration or "round", "manual")


_APPLY = {"move": _move, "counter": _counter, "resource": _resource, "tap": _tap,
          "control": _control, "stone": _stone, "token": _token, "power": _power,
          "reveal": _shown, "look": _shown, "shuffle": _shuffle}
