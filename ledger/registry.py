"""The event registry: which event types the ledger can read, for which game, and their kind.

The ledger is generic over games (DESIGN.md sections 1 and 10).  It owns the core events every
match has (``MatchOpened``, ``MatchEnded``, ``TakenBack``, ``JudgeNote``, ``Conceded``,
``GameLossGiven``, ``DrawGiven``, ``JudgeCalled``, ``Annotated``); each game
registers its own event types here with :func:`register`, with each type's schema version and
kind (decision, chance, outcome, admin).  The decoder is built from whatever is registered.

Games are found by the ``wonders.games`` entry point group (``name = "module"``); importing a
game's module registers its events.  :func:`load_games` imports them once, lazily -- the codec
calls it the first time it meets a type it does not know, so ``ledger`` alone reads any match
file of an installed game without importing a game itself.  Tags (class names) are global and
never reused: two games can't register the same name.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from importlib.metadata import entry_points
from typing import Any, Literal, Union

import msgspec

from ledger import typeinfo

Kind = Literal["decision", "chance", "outcome", "admin"]
KINDS: tuple[Kind, ...] = ("decision", "chance", "outcome", "admin")

#: Games that ship with this package, by module: used when the package's metadata (its entry
#: points) is not installed, e.g. running from a source checkout.
BUILTIN_GAMES = {"wotf": "replay.wotf.game", "sow": "replay.sow"}

EVENT_TYPES: dict[str, type] = {}  # tag (class name) -> event class
SCHEMA: dict[str, int] = {}  # tag -> current schema version
KIND: dict[str, Kind] = {}  # tag -> kind
GAME_OF: dict[str, str] = {}  # tag -> the game that registered it ("" for the core)

_decoder: msgspec.json.Decoder | None = None
_loaded = False  # load_games has begun (a game's module may call it again while imported)
_ready = False  # ... and ended
_loading = threading.RLock()


class RegistryError(ValueError):
    """A game registered an event type that clashes with one already registered."""


def register(game: str, types: Iterable[type], kinds: Mapping[str, Kind],
             schema: Mapping[str, int] | None = None) -> None:
    """Register a game's event types; ``kinds`` names each one's kind (default ``outcome``),
    ``schema`` its current version (default 1)."""
    global _decoder
    for cls in types:
        name = cls.__name__
        known = EVENT_TYPES.get(name)
        if known is cls:
            continue
        if known is not None:
            raise RegistryError(f"event type {name!r} of game {game!r} is already registered "
                                f"by {GAME_OF[name] or 'the core'!r}; tags are never reused")
        kind = kinds.get(name, "outcome")
        if kind not in KINDS:
            raise RegistryError(f"event type {name!r}: kind {kind!r} is not one of {KINDS}")
        EVENT_TYPES[name], KIND[name], GAME_OF[name] = cls, kind, game
        SCHEMA[name] = (schema or {}).get(name, 1)
    _decoder = None


#: A game's facts for analytics: ``facts(stored, file, card_facts)`` -> rows by table name
#: (:mod:`ledger.warehouse`); ``file`` is a :class:`ledger.rows.FileInfo`, ``card_facts``
#: today's facts of the Wonders pool for files that recorded no cards.
FactsFn = Callable[..., Mapping[str, list[Any]]]
FACTS: dict[str, FactsFn] = {}  # game -> its facts
GAME_TABLES: dict[str, type] = {}  # a game's own warehouse tables: name -> row class
ROWS_REVISIONS: dict[str, int] = {}  # game -> the rows revision of its facts


def register_analytics(game: str, facts: FactsFn, tables: Mapping[str, type] | None = None,
                       rows_revision: int = 1) -> None:
    """Register how a game's matches become warehouse rows, and its own tables (their names
    start with the game's, e.g. ``sow_sieges``; the shared tables are :data:`ledger.rows.TABLES`).
    ``rows_revision`` is the revision of what ``facts`` derive from a match's events, bumped
    whenever the same events give other rows: the warehouse re-derives the matches it
    ingested at another revision (:mod:`ledger.warehouse`)."""
    FACTS[game] = facts
    ROWS_REVISIONS[game] = rows_revision
    for name, row_class in (tables or {}).items():
        if not name.startswith(f"{game}_"):
            raise RegistryError(f"table {name!r} of game {game!r}: a game's own tables are "
                                f"named {game}_…")
        GAME_TABLES[name] = row_class


def facts_for(game: str) -> FactsFn | None:
    """The facts of a game's matches (``None``: no installed game of that name)."""
    load_games()
    return FACTS.get(game)


def rows_revision_for(game: str) -> int | None:
    """The rows revision of a game's facts (``None``: no installed game of that name)."""
    load_games()
    return ROWS_REVISIONS.get(game) if game in FACTS else None


def load_games() -> None:
    """Import every installed game once (each registers its events on import)."""
    global _loaded, _ready
    if _ready:
        return
    with _loading:  # another thread waits until the games are loaded and their types prepared
        if _loaded:
            return  # done, or being done by this thread (a game's module asked again)
        _loaded = True
        for module in game_modules().values():
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as exc:
                if exc.name is None or not module.startswith(exc.name):
                    raise  # a game that is there but broken is an error, not an absent game
        typeinfo.prepare()  # before any thread decodes one of their classes (ledger.typeinfo)
        _ready = True


@cache
def game_modules() -> dict[str, str]:
    """Every installed game: name -> the module that defines it (and registers its events)."""
    modules = dict(BUILTIN_GAMES)
    for point in entry_points(group="wonders.games"):
        modules[point.name] = point.value
    return modules


def decoder() -> msgspec.json.Decoder:
    """A JSON decoder for the tagged union of every registered event type."""
    global _decoder
    found = _decoder
    if found is not None:  # made once the games were loaded; a new event type resets it
        return found
    load_games()
    found = _decoder
    if found is None:
        with _loading:
            union = tuple(EVENT_TYPES.values())
            found = _decoder = msgspec.json.Decoder(union[0] if len(union) == 1 else _union(union))
    return found


def _union(types: tuple[type, ...]) -> object:
    return Union[types]  # noqa: UP007 - built at run time from the registry: no `X | Y` to write


def kind_of(event_type: str) -> Kind:
    """The kind of an event type: decision, chance, admin or outcome."""
    if event_type not in KIND:
        load_games()
    return KIND.get(event_type, "outcome")


def game_events(game: str) -> dict[str, type]:
    """The event types a game registered, by tag."""
    load_games()
    return {name: cls for name, cls in EVENT_TYPES.items() if GAME_OF[name] == game}
