"""The rows of the analytics warehouse: one ``msgspec.Struct`` per table, the single source of
each table's columns (the DuckDB schema is derived from these classes, and ingest writes them
as JSON lines that DuckDB loads in bulk).

Column meanings are documented in ``docs/analytics.md``.  ``Annotated[..., SqlType("…")]``
overrides the SQL type derived from the Python type.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Annotated, Any

import msgspec

from ledger import registry
from ledger.events import DeckEntry, MatchOpened


class SqlType:
    """Marks a column's SQL type where the Python type alone does not say it."""

    def __init__(self, sql: str):
        self.sql = sql


Timestamp = Annotated[str | None, SqlType("TIMESTAMP")]
Json = Annotated[msgspec.Raw, SqlType("JSON")]


@dataclass(frozen=True)
class FileInfo:
    """Where a match file is and what it looked like when it was read."""

    name: str
    size: int
    mtime_ns: int


class MatchRow(msgspec.Struct):
    match_id: str
    game: str  # MatchOpened.game: "wotf" (Wonders of The First), "sow" (State of Wonder)
    file: str
    file_bytes: int
    file_mtime_ns: int
    events: int
    last_hash: str
    tournament: str | None
    round: int | None
    table_no: int | None
    game_number: int
    ruleset: str
    format: str
    engine_version: str
    started_at: Timestamp
    ended_at: Timestamp
    ended: bool
    rounds_played: int
    coin_winner: str | None
    first_seat: str | None
    winner_seat: str | None
    winner_player: str | None
    reason: str | None
    stones_a: int | None
    stones_b: int | None
    takebacks: int
    #: The rows revision of the game's facts these rows were derived at (set by the
    #: warehouse, :func:`ledger.registry.rows_revision_for`; NULL in a warehouse made before
    #: it was recorded: older than any).
    rows_revision: int | None = None
    #: SHA-256 (hex) of the match's last line as stored when its rows were derived (set by
    #: the warehouse: the store's :attr:`ledger.store.Head.last_line_sha256`); NULL in a
    #: warehouse made before it was recorded, or when the match grew while it was read.
    last_line_sha256: str | None = None
    #: The store's version of the match (:meth:`ledger.store.Store.versions`), taken before it
    #: was read (NULL: none to trust then -- a file changed within a coarse clock's tick --, or
    #: a warehouse made before it was recorded; '' from a PostgreSQL store before it counted
    #: edits in place).  The column keeps its first name: warehouses already have it.
    store_identity: str | None = None
    #: The id of the tournament the match was played in (:func:`tournament_id_of`); NULL for
    #: a match outside a tournament, one named otherwise, or in a warehouse made before it was
    #: recorded.  ``tournament`` is its name, which several tournaments may share.
    tournament_id: str | None = None


#: A tournament's match id (web/tournaments.py: ``{id}-r{round}-t{table:02d}``), with a
#: further game of the pairing's ``-g{game}`` if any.
_TOURNAMENT_MATCH_ID = re.compile(r"(.+)-r([0-9]+)-t([0-9]+)(?:-g([0-9]+))?")


def tournament_id_of(opened: MatchOpened) -> str | None:
    """The ``matches.tournament_id`` column: ``<id>`` when the match id is
    ``<id>-r<round>-t<table>`` (how web/tournaments.py names a round's matches), or a further
    game's ``<id>-r<round>-t<table>-g<game>``, with the round, table (and game number) its
    ``MatchOpened`` records, and it records a tournament; else ``None`` (a match named
    otherwise, e.g. one an organizer created with a tournament's name and its own id;
    ``wonders simulate --tournament`` names its matches as the tool does: ``<slug>-r1-t01``)."""
    found = _TOURNAMENT_MATCH_ID.fullmatch(opened.match_id)
    if found is None or opened.tournament is None:
        return None
    if (int(found[2]), int(found[3])) != (opened.round, opened.table):
        return None
    if found[4] is not None and int(found[4]) != opened.game_number:
        return None
    return found[1]


class PlayerRow(msgspec.Struct):
    match_id: str
    seat: str
    player: str
    deck_name: str
    deck_hash: str
    dbs_total: int
    main_orbitals: str
    went_first: bool | None
    result: str | None


class DeckCardRow(msgspec.Struct):
    match_id: str
    seat: str
    zone: str
    card: str
    count: int


#: The fields an ``events`` row's ``seat`` is taken from, the first one set (docs/analytics.md).
SEAT_FIELDS = ("seat", "attacker", "owner", "controller")


def event_seat(event: object) -> str | None:
    """An event's seat for its ``events`` row: its first :data:`SEAT_FIELDS` field holding a
    seat, else ``None``."""
    for name in SEAT_FIELDS:
        value = getattr(event, name, None)
        if isinstance(value, str):
            return value
    return None


class EventRow(msgspec.Struct):
    match_id: str
    seq: int
    type: str
    kind: str
    round: int
    turn: int
    seat: str | None
    at: Timestamp
    batch: int
    hash: str
    retracted: bool
    payload: Json


class PlayRow(msgspec.Struct):
    match_id: str
    seq: int
    round: int
    turn: int
    seat: str
    card_id: str
    card: str
    realm: int | None
    energy_paid: float


class DrawRow(msgspec.Struct):
    match_id: str
    seq: int
    round: int
    turn: int
    seat: str
    card_id: str
    card: str
    reason: str
    opening: bool


class BattleRow(msgspec.Struct):
    match_id: str
    seq: int
    round: int
    turn: int
    realm: int
    attacker: str
    defender: str | None
    attacker_power: float
    defender_power: float
    result: str
    winner_seat: str | None
    stone_moved: bool
    stone_from: str | None


class SeizureRow(msgspec.Struct):
    match_id: str
    seq: int
    round: int
    turn: int
    realm: int
    seat: str
    from_side: str
    battle_seq: int | None


class RealmRow(msgspec.Struct):
    match_id: str
    realm: int
    stones_a: int
    stones_b: int
    stones_center: int


class CardGameRow(msgspec.Struct):
    match_id: str
    seat: str
    card: str
    copies: int
    opening: bool
    in_hand: bool
    played: bool
    first_round_played: int | None


#: The shared tables every game fills (table name -> row class, in load order); a game's own
#: tables are registered with :func:`ledger.registry.register_analytics` (:func:`all_tables`).
TABLES: dict[str, type[msgspec.Struct]] = {
    "matches": MatchRow,
    "players": PlayerRow,
    "deck_cards": DeckCardRow,
    "events": EventRow,
    "plays": PlayRow,
    "draws": DrawRow,
    "battles": BattleRow,
    "seizures": SeizureRow,
    "realm_stones": RealmRow,
    "card_games": CardGameRow,
}


def card_counts(entries: Iterable[DeckEntry]) -> Counter[str]:
    """Copies of each card in a deck list (an entry may repeat a card)."""
    counts: Counter[str] = Counter()
    for entry in entries:
        counts[entry.card] += entry.count
    return counts


def deck_hash(deck: Iterable[DeckEntry], archive: Iterable[DeckEntry] = ()) -> str:
    """The ``players.deck_hash`` column: SHA-256 (hex) of the deck list, ``card\tcount`` lines
    sorted by card, main deck then a ``--archive--`` line and the archive; the same list always
    hashes the same, whatever the game."""
    lines = [f"{card}\t{count}" for card, count in sorted(card_counts(deck).items())]
    lines.append("--archive--")
    lines += [f"{card}\t{count}" for card, count in sorted(card_counts(archive).items())]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def all_tables() -> dict[str, type]:
    """The shared tables and every installed game's own, by name."""
    registry.load_games()
    return {**TABLES, **registry.GAME_TABLES}


def sql_columns(row_class: type[msgspec.Struct]) -> dict[str, str]:
    """Column name -> DuckDB type, derived from the row class's annotations."""
    columns = {}
    for field in msgspec.structs.fields(row_class):
        columns[field.name] = _sql_type(field.type)
    return columns


_PLAIN = {str: "VARCHAR", int: "BIGINT", float: "DOUBLE", bool: "BOOLEAN"}


def _sql_type(annotation: Any) -> str:
    for meta in getattr(annotation, "__metadata__", ()):
        if isinstance(meta, SqlType):
            return meta.sql
    for option in getattr(annotation, "__args__", (annotation,)):
        if option in _PLAIN:
            return _PLAIN[option]
    raise TypeError(f"no SQL type for {annotation!r}")
