"""The state of a match as plain data (DESIGN.md section 3).

Everything the rules engine knows about a match in progress lives in a :class:`GameState`:
msgspec Structs with no behaviour, so a state encodes canonically, hashes
(:func:`state_hash`), copies cheaply (:func:`clone`) and can be snapshotted.
Derived facts (current power, links, who controls a realm) are computed by
:mod:`replay.wotf.queries`, never stored.
"""

from __future__ import annotations

import hashlib
from typing import Any, Literal

import msgspec

# Seats and areas as the events spell them, re-exported: the engine's modules take them from here.
from ledger.events import SEATS as SEATS
from ledger.events import Seat as Seat
from replay.wotf.events import Zone as Zone
from replay.wotf.revisions import RULES_REVISION, STACK_REVISION
from replay.wotf.trigger import Trigger

Phase = Literal["setup", "round_start", "turns", "round_end", "over"]


def other(seat: str | None) -> Seat:
    return "B" if seat == "A" else "A"


class Effect(msgspec.Struct):
    """An ongoing modification of one card (a "status effect"): ``kind`` says what it does.

    ``power+`` adds ``amount`` to power; ``power*`` multiplies it; ``base`` sets base power
    (stun: 0); ``until`` is ``round`` ("this round", rule 403.5) or ``ever``.
    """

    kind: str
    amount: int | float = 0
    until: Literal["round", "ever"] = "round"
    source: str = ""


class CardState(msgspec.Struct, gc=False):
    """One card instance; ``zone`` is where it is, ``realm`` set while in The World.

    Not tracked by the garbage collector (``gc=False``): a match makes ~100 at set-up, every
    replay and seek copy more, and its fields -- plain values, and lists and dicts of them
    and of :class:`Effect` -- can hold no reference cycle, so reference counting frees them."""

    id: str
    name: str
    owner: Seat
    zone: Zone
    controller: Seat | None = None
    realm: int | None = None
    tapped: bool = False
    token: bool = False
    counters: dict[str, int] = {}
    effects: list[Effect] = []
    equipped_to: str | None = None
    gained: list[str] = []  # keywords copied by symbiosis (locked in on resolution)
    arrived_round: int = 0
    face_down: bool = False  # put face down: no card type, no effect until turned up
    blank: bool = False  # a copy of a nullified card: blank rules text, yet not nullified (Copy)


def controller_of(card: CardState) -> Seat:
    """Who controls a card: its controller in The World; outside it, its owner."""
    return card.controller or card.owner


class PlayerState(msgspec.Struct):
    seat: Seat
    energy: int | float = 0
    actions: int | float = 0  # may be infinite (rule 1; revision 7, R26)
    faith: int | float = 0
    free_attacks: int | float = 0
    hand: list[str] = []
    deck: list[str] = []  # top card first
    abyss: list[str] = []
    banishment: list[str] = []
    archive: list[str] = []
    passes_in_row: int = 0  # this player's consecutive passes this round (v1.3.2 limit)
    passes_total: int = 0  # this player's passes this round (v1.2 limit)
    seized_this_round: bool = False


class RealmState(msgspec.Struct):
    number: int
    stones: list[str] = msgspec.field(default_factory=lambda: ["center"])  # "center", "A", "B"
    banished: bool = False


class Resolving(msgspec.Struct, omit_defaults=True):
    """A scripted ability now resolving its effects (503): ``source``'s ``ability``.

    From rules revision 13 (501, R47): ``waiting`` holds the triggers its operations set off,
    which wait until its last operation is done, and ``finished`` says that it is done (its
    waiting triggers are resolving; what they set off no longer waits for it).  Both are left
    out of the encoding while at their defaults, so a state of an earlier revision encodes --
    and hashes -- as it always did."""

    source: str
    ability: str
    waiting: list[Trigger] = []
    finished: bool = False


class Loop(msgspec.Struct):
    """A voluntary loop (503): its controller stated how many more times ``source``'s
    ``ability`` repeats; ``left`` is how many of those repetitions are still to come."""

    source: str
    ability: str
    left: int


class Targeting(msgspec.Struct):
    """An effect of ``source`` (controlled by ``controller``) that chose targets, while the
    abilities that react to the targeting resolve (Nullify); ``nullified`` once one of them
    nullified it."""

    source: str
    controller: Seat
    nullified: bool = False


class Stack(msgspec.Struct):
    """What is going on while an ability resolves, nested (502, 503, Nullify, v1.2 Flying).

    Written only by :func:`replay.wotf.evolve.evolve`, from the stack events
    (``TriggersQueued`` … ``FlightsCleared``, :mod:`replay.wotf.events`).  From rules
    revision 6 those events are recorded, so the stack is the fold of the log like the rest of
    the state; before revision 6 the engine applies the same events without recording them
    (:meth:`replay.wotf.engine.Engine.emit_stack`), the file doesn't hold them, and
    :func:`canonical` leaves the stack out.  ``GameState.stack`` is ``None`` whenever all five
    are empty (at every turn prompt, as a rule), so an empty stack encodes as nothing.
    """

    # 502: triggered abilities waiting to resolve, one batch per resolution of simultaneous
    # triggers, innermost last; each batch in the order they resolve, its first one next
    pending: list[list[Trigger]] = []
    resolving: list[Resolving] = []  # abilities resolving, innermost last (503)
    loops: list[Loop] = []  # voluntary loops' stated repetitions (503), until nothing resolves
    targeting: list[Targeting] = []  # effects choosing targets, innermost last (Nullify)
    fliers: list[str] = []  # v1.2 Flying: attacking fliers that move at the end of the turn


class GameState(msgspec.Struct):
    ruleset: Literal["1.3.2", "1.2"] = "1.3.2"
    revision: int = RULES_REVISION  # the rules revision this match derives under (revisions.py)
    format: str = "constructed"  # 304: "prerelease" ignores the core requirement
    phase: Phase = "setup"
    round: int = 0
    turn: Seat | None = None  # the active player
    first: Seat | None = None  # took the first turn this round
    round1_first: Seat | None = None
    last_seizer: Seat | None = None
    last_turn_taker: Seat | None = None  # passing does not count (404.5.2)
    passes_in_row: int = 0  # consecutive passes by either seat
    previous_loser: Seat | None = None
    players: dict[str, PlayerState] = {}
    realms: list[RealmState] = []
    cards: dict[str, CardState] = {}
    next_token: int = 1
    over: bool = False
    winner: Seat | None = None
    reason: str | None = None
    counts: dict[str, int] = {}  # counted game events (rule 511), e.g. "A:seize"
    # -- what the procedure needs between prompts (DESIGN.md section 3); see ENGINE_FIELDS --
    defined: dict[str, dict[str, Any]] = {}  # 203: stand-in tokens' definitions, by name
    #                                            (and R34: a catalogue card's entered stats)
    entries: dict[str, dict[str, Any]] = {}  # R34: each seat's own stats entries, "A:<name>"
    deck_lists: dict[str, list[str]] = {}  # 402 (schema 3): the card names a seat's setup
    #                                        shuffle orders, until its DeckOrdered
    stack: Stack | None = None  # what is resolving (503, Nullify, Flying); None: nothing


#: Fields added to :class:`GameState` for what the procedure needs between prompts.  They
#: are part of the state (written by :func:`replay.wotf.evolve.evolve` only, folded, cloned,
#: frozen), but :func:`canonical` leaves each out while it is at its empty default, so the
#: hash of every state that had no such field before (every final state, and every state
#: after setup) is the hash it always had: pinned hashes hold.
ENGINE_FIELDS = ("deck_lists", "stack")
#: What the state knows that is the match file's own data, not something the rules derived:
#: the definitions of the stand-in tokens its events created (203; recorded in full by each
#: ``TokenCreated``, under the file's hash chain).  Folded like the rest, but never part of the
#: canonical encoding: a state hash pins what the rules derived.  The same holds for the
#: printed stats seats entered for catalogue cards (R34, ``CardStatsEntered``).
DATA_FIELDS = ("defined", "entries")
_ENCODINGS: dict[tuple[str, ...], type] = {}

_encoder = msgspec.msgpack.Encoder()  # keeps insertion order: iteration order is state
_decoder = msgspec.msgpack.Decoder(GameState)
_json = msgspec.json.Encoder(order="deterministic")


def _encoded(state: GameState) -> tuple[str, ...]:
    """The fields :func:`canonical` encodes, in declaration order.

    An engine field is encoded only when it is not empty, and the stack only from rules
    revision 6 (:data:`~replay.wotf.revisions.STACK_REVISION`): before, the engine holds it
    without recording it, so the fold of such a match never has it and the hash -- which pins
    what the log derives -- leaves it out."""
    present = tuple(name for name in ENGINE_FIELDS if getattr(state, name)
                    and (name != "stack" or state.revision >= STACK_REVISION))
    return tuple(f for f in GameState.__struct_fields__
                 if f not in DATA_FIELDS and (f not in ENGINE_FIELDS or f in present))


def canonical(state: GameState) -> bytes:
    """The canonical JSON encoding of a state (dict keys sorted, no whitespace).

    The :data:`ENGINE_FIELDS` are encoded only when not empty: a state whose procedure holds
    nothing between prompts encodes exactly as it did before those fields existed (the pinned
    golden hashes of ``tests/replay/test_golden.py`` depend on it)."""
    fields = _encoded(state)
    shape = _ENCODINGS.get(fields)
    if shape is None:
        shape = _ENCODINGS[fields] = msgspec.defstruct("GameState", [(f, Any) for f in fields])
    return _json.encode(shape(*(getattr(state, name) for name in fields)))


def state_hash(state: GameState) -> str:
    """SHA-256 of the canonical encoding: equal states, equal hashes."""
    return hashlib.sha256(canonical(state)).hexdigest()


def clone(state: GameState) -> GameState:
    """A deep copy (a snapshot) of a state."""
    return _decoder.decode(_encoder.encode(state))


def freeze(state: GameState) -> bytes:
    """A compact snapshot of a state (msgpack); :func:`thaw` turns it back into a state."""
    return _encoder.encode(state)


def thaw(snapshot: bytes) -> GameState:
    return _decoder.decode(snapshot)


def new_realms() -> list[RealmState]:
    return [RealmState(number=n) for n in range(1, 8)]
