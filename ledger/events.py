"""The core events of every match, whatever the game: what a stream of the ledger starts and
ends with, and the administration around it (DESIGN.md section 2).

Every event is a frozen, tagged ``msgspec.Struct`` subclassing :class:`Event`, tagged by its
class name in the ``type`` field.  Events are of four kinds:

* **decisions** -- what a seat chose at a prompt;
* **chance** -- what randomness produced;
* **outcomes** -- what the rules derived (``MatchEnded`` ...);
* **administration** -- corrections and notes (``TakenBack``, ``JudgeNote``, ``Conceded``,
  ``GameLossGiven``, ``DrawGiven``, ``JudgeCalled``, ``Annotated``).

This module holds only the events every game shares; each game registers its own event types
with :mod:`ledger.registry` (Wonders of The First: :mod:`replay.wotf.events`).  ``SCHEMA`` (the
registry's) maps each type to its current schema version; a breaking change bumps the version
and registers an upcaster in :mod:`ledger.upcast`.  Tags are never reused.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any, Literal

import msgspec

from ledger import registry
from ledger.registry import EVENT_TYPES, SCHEMA, kind_of

__all__ = [
    "DRAW_KINDS",
    "EVENT_TYPES",
    "SCHEMA",
    "SEATS",
    "Annotated",
    "Conceded",
    "DeckEntry",
    "DrawGiven",
    "DrawKind",
    "Event",
    "GameLossGiven",
    "JudgeCalled",
    "JudgeNote",
    "MatchEnded",
    "MatchOpened",
    "Num",
    "NumericEvent",
    "Seat",
    "SeatInfo",
    "TakenBack",
    "as_seat",
    "kind_of",
    "recorded_number",
]

Seat = Literal["A", "B"]
SEATS: tuple[Seat, Seat] = ("A", "B")
#: A number an event records: JSON has no infinity, so ±∞ (Wonders rule 1: stats and resources
#: may be infinite) is recorded as the string "inf" / "-inf"; ``float("inf")`` reads it back.
Num = float | Literal["inf", "-inf"]


class Event(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=False):
    """Base of every event of every game: frozen, tagged by class name in the ``type`` field."""


class NumericEvent(Event, frozen=True):
    """An event with numbers that may be infinite: they are recorded as :data:`Num`."""

    def __post_init__(self) -> None:
        # only the fields that can hold a float (worked out once per class), read in one
        # call: an event is made for every outcome derived and every line decoded
        read = _FLOAT_FIELDS.get(type(self))
        if read is None:
            read = _FLOAT_FIELDS[type(self)] = _float_reader(type(self))
        names, values = read
        for value in values(self):
            if isinstance(value, float) and not math.isfinite(value):
                break
        else:
            return  # (the commonest case: every number finite)
        for name in names:
            value = getattr(self, name)
            if isinstance(value, float) and not math.isfinite(value):
                msgspec.structs.force_setattr(self, name, recorded_number(value))


#: event class -> the names of its fields that can hold a float (:func:`_fields_holding_floats`)
#: and a reader of their values, as a tuple
_FLOAT_FIELDS: dict[type, tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]] = {}


def _float_reader(cls: type) -> tuple[tuple[str, ...], Callable[[Any], tuple[Any, ...]]]:
    names = _fields_holding_floats(cls)
    # attrgetter of one name gives the value, not a tuple: that name twice gives a pair
    return names, operator.attrgetter(*names) if len(names) > 1 else \
        operator.attrgetter(*names, *names) if names else (lambda _event: ())


def _fields_holding_floats(cls: type) -> tuple[str, ...]:
    """The fields of an event class whose type lets them hold a float: all but those typed
    only as text, booleans, ``None``, literals of text, containers or structs (a float in
    one of those could not be encoded and decoded back, so none ever holds one)."""
    return tuple(f.name for f in msgspec.structs.fields(cls) if not _never_float(f.type))


def _never_float(tp: Any) -> bool:
    origin = getattr(tp, "__origin__", None)
    if tp in (str, bool, type(None)):
        return True
    if origin is Literal:
        return all(isinstance(arg, (str, bool)) or arg is None for arg in tp.__args__)
    if origin in (list, dict, tuple, set, frozenset):
        return True
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        return True
    args = getattr(tp, "__args__", None)
    if args is not None and type(tp).__name__ in ("UnionType", "_UnionGenericAlias"):
        return all(_never_float(arg) for arg in args)
    return False


def as_seat(value: object) -> Seat:
    """``value`` as a seat: "A" or "B" (a prompt's seat, a request's, a case file's);
    ``ValueError`` for anything else."""
    if value == "A":
        return "A"
    if value == "B":
        return "B"
    raise ValueError(f"expected a seat, 'A' or 'B', got {value!r}")


def recorded_number(value: float) -> Num:
    """``value`` as an event records it: ±∞ as "inf" / "-inf" (see :data:`Num`)."""
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return 0.0 if math.isnan(value) else value


# --------------------------------------------------------------------------------------
# Match metadata
# --------------------------------------------------------------------------------------


class DeckEntry(msgspec.Struct, frozen=True):
    card: str
    count: int = 1


class SeatInfo(msgspec.Struct, frozen=True):
    seat: Seat
    player: str
    deck_name: str = ""
    deck: list[DeckEntry] = []
    archive: list[DeckEntry] = []


class MatchOpened(Event, frozen=True):
    """Seq 0 of every stream: which game, who plays what, under which rules.

    ``game`` selects the game (:func:`replay.games.game_of`); ``ruleset`` is one of that game's
    published rules texts.  Schema 3: ``cards`` holds the canonical definition of every card
    either seat can use and ``cards_digest`` their SHA-256, so the file alone replays the match.
    """

    match_id: str
    ruleset: str  # the published rules text it is played under (the game checks it)
    seats: list[SeatInfo]
    game: str = "wotf"
    format: str = "constructed"
    tournament: str | None = None
    round: int | None = None
    table: int | None = None
    game_number: int = 1
    previous_loser: Seat | None = None
    engine_version: str = ""
    schema_version: int = 3  # of the match file: 3 since events are fold-complete
    rules_revision: int = 0  # the engine's revision of what it derives (0: before revisions)
    # Schema 3: the canonical definition of every card either seat can use (decks and
    # archives) and the SHA-256 of their canonical JSON, so the file alone replays the match.
    cards: list[dict[str, Any]] = []
    cards_digest: str = ""
    upgraded_from: str = ""  # ``wonders upgrade``: the head hash of the file this copies


class MatchEnded(Event, frozen=True):
    """The match is over: who won (``None``: a draw) and why, in the game's own words."""

    winner: Seat | None
    reason: str  # the game's word for why (Wonders: stones, tiebreak, draw, deck_out …)
    stones: dict[str, int] = {}  # Wonders: the final stone count per seat


# --------------------------------------------------------------------------------------
# Administration
# --------------------------------------------------------------------------------------


class TakenBack(Event, frozen=True):
    """A correction: from here on, the state is the state after event ``to_seq``."""

    to_seq: int
    by: str = "judge"
    reason: str = ""


class JudgeNote(Event, frozen=True):
    judge: str
    text: str


class Conceded(Event, frozen=True):
    seat: Seat
    reason: str = ""


class GameLossGiven(Event, frozen=True):
    """A judge's penalty: ``seat`` loses the game (the match ends with reason ``game_loss``;
    a concession is the seat's own ``Conceded``)."""

    seat: Seat
    reason: str = ""
    judge: str = "judge"


#: The kinds of a judge's draw (``DrawGiven.kind``, and the reason of the ``MatchEnded`` that
#: follows it): the players agreed to it, or the round's time ran out with the match unfinished.
DrawKind = Literal["agreed", "time"]
DRAW_KINDS: tuple[DrawKind, ...] = ("agreed", "time")


class DrawGiven(Event, frozen=True):
    """A judge records a draw (a tournament's call, outside the rules of either game):
    ``kind`` ``agreed`` -- both players agreed to it, as the judge confirmed with them -- or
    ``time`` -- the round's time ran out with the match unfinished.  The match ends with no
    winner and ``kind`` as its reason (docs/rulings.md R45, docs/rulings-sow.md R26)."""

    kind: DrawKind
    reason: str = ""
    judge: str = "judge"


class JudgeCalled(Event, frozen=True):
    """A seat asks for the judge at the table (recorded with the match; changes no state)."""

    seat: Seat
    text: str = ""


class Annotated(Event, frozen=True):
    """A note about the moment ``about`` (an earlier seq) of the match, by ``author`` -- the role
    that wrote it: ``judge``, a seat (``A``/``B``, once the match has ended) or ``organizer``
    (coaches and commentators, through the organizer) -- shown as ``name``.

    It changes nothing in the game (every game's ``evolve`` ignores it, the engine is not fed
    it), so it may follow ``MatchEnded``: the hash chain simply grows.  Every annotation is
    public: the match file is public once the match has ended (docs/viewer.md)."""

    about: int
    author: str
    name: str
    text: str


registry.register("", (MatchOpened, MatchEnded, TakenBack, JudgeNote, Conceded, GameLossGiven,
                       DrawGiven, JudgeCalled, Annotated),
                  kinds={"TakenBack": "admin", "JudgeNote": "admin", "Conceded": "admin",
                         "GameLossGiven": "admin", "DrawGiven": "admin", "JudgeCalled": "admin",
                         "Annotated": "admin"},
                  schema={"MatchOpened": 3})  # v2 added ``game``; v3 ``rules_revision``, cards
