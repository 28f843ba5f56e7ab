"""The store protocol every backend implements, and every consumer uses (DESIGN.md section 5).

A store holds streams of events, one per match.  Appends are optimistic: the caller says
which seq its first event will get (``expected_seq`` = the stream's current length); a
stale writer gets a :class:`~ledger.errors.ConflictError` and nothing is written.

What a consumer may ask of any store (no file paths, sizes or mtimes: those belong to the
file store, :mod:`ledger.filestore`):

* :meth:`Store.create`, :meth:`Store.append` -- write (a batch is durable on return);
* :meth:`Store.read` (from a seq, chain-checked), :meth:`Store.follow` (blocks until new
  events), :meth:`Store.wait` (blocks until the match grows), :meth:`Store.head` (length,
  last hash, bytes, digest of the last line: cheap), :meth:`Store.heads`,
  :meth:`Store.versions` (what identifies each match's stored data as it is now: a token
  that any change moves, kept beside what was read of it and compared with
  :func:`same_version` -- a tournament's kept results, the warehouse's incremental ingest);
* :meth:`Store.info` (one match's summary, reading no other match), :meth:`Store.outcomes`
  (whether each of some matches has ended, and who won), :meth:`Store.list` (with filters),
  :meth:`Store.ids`, :meth:`Store.exists`, :meth:`Store.check_id`;
* :meth:`Store.export_lines` / :meth:`Store.import_lines` -- a match's canonical lines, byte
  for byte as written (a match file), in and out of any store;
* :meth:`Store.discard` -- only to roll back a create that was never acknowledged.

The recording service's hashed tokens are kept by the backend too (:mod:`web.tokens`: files
beside a file store's matches, a table in PostgreSQL).

:func:`ledger.stores.open_store` opens a store from a directory or a ``postgresql://`` URL.
The contract every backend meets is ``tests/ledger/contract/``.
"""

from __future__ import annotations

import abc
import builtins
import hashlib
import re
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import msgspec

from ledger.codec import Stored, encode_line
from ledger.errors import ConflictError, LedgerError, MalformedEventError, MatchNotFoundError
from ledger.events import Event, MatchOpened
from ledger.registry import decoder

# Matched with fullmatch: ``$`` would also match before a final newline ("m1\n").
MATCH_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
#: The name a match's lines have as a file (an export, a file store's file).
SUFFIX = ".jsonl"
#: The filters :meth:`Store.list` takes (``None``: any).
FILTERS = ("game", "tournament", "round", "table", "player", "ended")


def check_match_id(match_id: object) -> str:
    """``match_id`` if it is a valid match id, else a :class:`MalformedEventError`."""
    if not isinstance(match_id, str) or not MATCH_ID.fullmatch(match_id):
        raise MalformedEventError(
            f"match id {match_id!r} is not valid (letters, digits, '.', '_', '-'; ≤128)")
    return match_id


def misnamed(name: str, opened: object) -> str:
    """Why the file ``name`` is not the match its name says: its seq 0 names another match
    (or is not ``MatchOpened``).  A store's match file is named ``<match_id>.jsonl``."""
    if not isinstance(opened, MatchOpened):
        return f"{name}:1: seq 0: expected MatchOpened, got {type(opened).__name__}"
    return (f"{name}:1: seq 0: misnamed: MatchOpened says match {opened.match_id!r}; a "
            f"store's match file is named <match_id>{SUFFIX}")


class TornTail(msgspec.Struct, frozen=True):
    """Bytes at the end of a match file that are not part of the log: a batch whose writer
    crashed mid-append (or, while a writer holds the file's lock, a batch being written).

    ``kind`` is ``"torn"`` (the file ends inside a line) or ``"cut"`` (every line is whole, but
    the last line's ``batch`` points past the end of the file).  ``line`` (1-based) and ``seq``
    are those of the unfinished batch's first line (``seq`` = the number of intact events);
    ``offset`` is the byte where the intact prefix ends and ``size`` the bytes after it.
    Readers leave it in place; the next writer truncates it under the lock.
    """

    kind: str
    line: int
    seq: int
    offset: int
    size: int


class MatchInfo(msgspec.Struct, frozen=True):
    """One row of a store listing: the match's opening metadata and its progress.

    ``length`` counts the events of whole batches; ``torn_tail`` says what follows them when
    the file ends in an unfinished batch (see :class:`TornTail`), else ``None``.

    ``opened`` is the match's ``MatchOpened`` as a listing needs it (:func:`listed`): without
    the embedded card definitions, which only a reader of the record needs (seq 0, read
    whole by :meth:`Store.read`).  They are most of seq 0: a Wonders of The First match's
    summary held 80 KiB of memory with them and 8 KiB without, and a file store keeps each
    match's summary between listings.
    """

    match_id: str
    opened: MatchOpened
    length: int
    ended: bool
    winner: str | None = None
    reason: str | None = None
    torn_tail: TornTail | None = None


def listed(opened: MatchOpened) -> MatchOpened:
    """A ``MatchOpened`` as :class:`MatchInfo` holds it: its embedded card definitions left
    out (``cards`` empty; ``cards_digest`` still names them)."""
    return msgspec.structs.replace(opened, cards=[]) if opened.cards else opened


class Outcome(msgspec.Struct, frozen=True):
    """Whether a match has ended, and who won (``None``: a draw, or not ended)."""

    ended: bool
    winner: str | None = None


class Head(msgspec.Struct, frozen=True):
    """Where a match's stream ends: ``length`` events of whole batches (the next
    ``expected_seq``), the ``last_hash`` of the last one (it vouches for every event before it:
    the chain), ``size``, the bytes of their canonical lines (the size of the match file
    an export gives), and ``last_line_sha256``, the SHA-256 (hex) of the last line's bytes as
    stored.  ``last_hash`` is what that line *says*; the digest is what it *is*: a line edited
    in place with its ``hash`` field left as it was (same length, same size) changes only the
    digest.  A head is read, not checked: the store's :meth:`Store.read` checks the line."""

    length: int
    last_hash: str
    size: int
    last_line_sha256: str


def line_digest(line: bytes) -> str:
    """:attr:`Head.last_line_sha256` of a line (its bytes without the newline)."""
    return hashlib.sha256(line).hexdigest()


def same_version(kept: str | None, now: str | None) -> bool:
    """Whether a match's version kept from an earlier look (:meth:`Store.versions`) vouches
    that its stored data is as it was then: equal to the version now, and not ``None`` (no
    version, or one taken too soon after a change to be trusted)."""
    return kept is not None and kept == now


def matches_filters(info: MatchInfo, game: str | None = None, tournament: str | None = None,
                    round: int | None = None, table: int | None = None,
                    player: str | None = None, ended: bool | None = None) -> bool:
    """Whether a listing row passes :meth:`Store.list`'s filters (``None``: any)."""
    o = info.opened
    if game is not None and o.game != game:
        return False
    if tournament is not None and o.tournament != tournament:
        return False
    if round is not None and o.round != round:
        return False
    if table is not None and o.table != table:
        return False
    if player is not None and player not in [s.player for s in o.seats]:
        return False
    return ended is None or info.ended == ended


class Store(abc.ABC):
    """Append-only streams of match events."""

    #: How to open this store again (another process, a worker): a directory or a URL.
    url: str = ""

    @abc.abstractmethod
    def create(self, opened: MatchOpened, at: str | None = None) -> Stored:
        """Start a stream with its ``MatchOpened`` event (seq 0); durable on return."""

    def create_many(self, matches: Sequence[tuple[MatchOpened, Sequence[Event]]],
                    at: str | None = None) -> None:
        """Start several streams, each with its ``MatchOpened`` (seq 0) and its first batch
        (seq 1 on; may be empty), all durable on return -- a tournament round's tables.  A
        :class:`~ledger.errors.ConflictError` naming it (``match_id``) if one exists
        already; the ones created before it may stay (the caller, which holds their ids,
        rolls them back).  This default creates and appends one by one; a backend that can
        make many creates durable at once does so (the file store: one directory ``fsync``
        for all of them; PostgreSQL: one transaction, and then none stays)."""
        for opened, first in matches:
            try:
                self.create(opened, at)
            except ConflictError as exc:
                exc.match_id = opened.match_id
                raise
            self.append(opened.match_id, first, 1, at)

    @abc.abstractmethod
    def append(self, match_id: str, events: Sequence[Event], expected_seq: int,
               at: str | None = None) -> list[Stored]:
        """Append ``events`` atomically as one batch starting at ``expected_seq``."""

    @abc.abstractmethod
    def read(self, match_id: str, from_seq: int = 0) -> Iterator[Stored]:
        """The stream's events from ``from_seq`` on, checked against the hash chain."""

    @abc.abstractmethod
    def ids(self) -> builtins.list[str]:
        """The ids of every match in the store, sorted."""

    @abc.abstractmethod
    def head(self, match_id: str) -> Head:
        """Where the match's stream ends (cheap: reads no event but the last);
        :class:`~ledger.errors.MatchNotFoundError` if there is no such match."""

    @abc.abstractmethod
    def info(self, match_id: str) -> MatchInfo:
        """One match's summary, reading no other match."""

    @abc.abstractmethod
    def export_lines(self, match_id: str) -> bytes:
        """The match's lines exactly as stored (its whole batches): a match file."""

    @abc.abstractmethod
    def import_lines(self, data: bytes, where: str = "upload") -> Head:
        """Store a match file's lines byte for byte, after checking them (canonical lines,
        hashes, chain, seqs, whole batches, seq 0 ``MatchOpened``; ``where`` names the data
        in errors); :class:`~ledger.errors.ConflictError` if the match exists.  Atomic."""

    @abc.abstractmethod
    def discard(self, match_id: str) -> None:
        """Remove a match whose create was never acknowledged (a create rolled back); never
        used on a match anyone was told of."""

    def list(self, unreadable: builtins.list[tuple[str, LedgerError]] | None = None,
             **filters: Any) -> builtins.list[MatchInfo]:
        """Every match in the store with its metadata, filtered (:data:`FILTERS`: game,
        tournament, round, table, player -- either seat's --, ended).  A match that cannot be
        read raises its error; given ``unreadable``, it is left out and ``(match id, error)``
        appended there instead (one damaged file doesn't hide every other match)."""
        unknown = set(filters) - set(FILTERS)
        if unknown:
            raise TypeError(f"unknown filter(s): {', '.join(sorted(unknown))}")
        found = []
        for match_id in self.ids():
            try:
                info = self.info(match_id)
            except LedgerError as exc:
                if unreadable is None:
                    raise
                if not isinstance(exc, MatchNotFoundError):  # (else: removed meanwhile)
                    unreadable.append((match_id, exc))
                continue
            if matches_filters(info, **filters):
                found.append(info)
        return found

    def outcomes(self, match_ids: Iterable[str]) -> dict[str, Outcome]:
        """Whether each of ``match_ids`` has ended and who won, by id; a match the store does
        not have is left out.  A tournament's results and standings ask this of every table
        it started; a backend answers it at once (PostgreSQL: one query, not one per match,
        which took seconds for 180 matches under load)."""
        out: dict[str, Outcome] = {}
        for match_id in match_ids:
            try:
                info = self.info(match_id)
            except MatchNotFoundError:
                continue
            out[match_id] = Outcome(info.ended, info.winner)
        return out

    def versions(self, match_ids: Iterable[str] | None = None) -> dict[str, str | None]:
        """What identifies each match's stored data as it is now, by id: of ``match_ids``, or
        of every match of the store (``None``); a match the store does not have (or no more)
        is left out.  A caller keeps the version it took *before* it read a match beside what
        it read (a tournament: an ended match's result; the warehouse: the match's rows, as
        ``matches.store_identity``), and trusts what it kept on a later look only while
        :func:`same_version` says so: a match appended to, cut, edited in place (any line,
        whatever its head still says) or replaced since has another version.

        A version is a string (a warehouse keeps it), or ``None`` where the store can't vouch
        for the data yet -- equal to no later look: a file store's file changed within one
        tick of a coarse file-system clock (:mod:`ledger.fileversion`), or a backend without
        versions (this default).  A file store's is the file's inode and change time
        (``"<inode>:<ctime ns>"``), PostgreSQL's the match row's version and its count of
        lines changed in place (``"<xmin>:<edits>"``, :mod:`ledger.pgstore`).  Cheap: no
        line is read (a file store: one ``stat`` per match; PostgreSQL: one query)."""
        wanted = self.ids() if match_ids is None else [m for m in match_ids if self.exists(m)]
        return {match_id: None for match_id in wanted}

    def unversioned(self) -> str | None:
        """Why this store gives no match a version at all now (every reader that keeps
        something under a version reads it again each time: ``wonders ingest`` re-reads every
        match), with what would make it keep them -- or ``None`` while it keeps versions (a
        single match's may still be ``None`` for a moment: :meth:`versions`)."""
        return "this kind of store keeps no versions of its matches"

    def heads(self) -> dict[str, Head | Exception]:
        """Every match's head (or the error that reading it raised), by id."""
        out: dict[str, Head | Exception] = {}
        for match_id in self.ids():
            try:
                out[match_id] = self.head(match_id)
            except Exception as exc:  # noqa: BLE001 - reported per match by the caller
                out[match_id] = exc
        return out

    #: Whether :meth:`wait` returns as soon as an append lands (PostgreSQL's ``NOTIFY``):
    #: then a caller waits long (a safety timeout), else it waits its polling period.
    wakes_on_append: bool = False

    def wait(self, match_id: str, length: int, timeout: float) -> bool:
        """Block until the match has more than ``length`` events (``True``) or about
        ``timeout`` seconds passed (``False``).  This default sleeps and looks once; a backend
        that is told of appends (PostgreSQL's ``NOTIFY``) returns as soon as one lands."""
        if self.head(match_id).length > length:
            return True
        time.sleep(timeout)
        return self.head(match_id).length > length

    def exists(self, match_id: str) -> bool:
        try:
            self.head(self.check_id(match_id))
        except MatchNotFoundError:
            return False
        return True

    def check_id(self, match_id: str) -> str:
        """``match_id`` if it is a valid id (400 for the web), before anything is read."""
        return check_match_id(match_id)

    def verifying_reader(self) -> Store:
        """This store as a reader that checks every line it reads (none trusted because this
        process checked it before: a cache of verified lines, where a backend keeps one, takes
        a line edited in place with its hash left as it was for the line it verified).
        ``wonders ingest`` reads through it.  This default: the store itself (it keeps no
        such cache)."""
        return self

    def torn_tail(self, match_id: str) -> TornTail | None:
        """An unfinished batch a crashed writer left (only a file store can have one)."""
        return None

    def close(self) -> None:  # noqa: B027 - optional: only backends with connections need it
        """Release connections and the like (a file store holds none)."""

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abc.abstractmethod
    def follow(self, match_id: str, from_seq: int = 0, poll: float = 0.05,
               timeout: float | None = None) -> Iterator[Stored]:
        """Yield events from ``from_seq`` as they are appended; stops after ``timeout`` idle
        seconds (never, if ``None``) or once ``MatchEnded`` has been yielded."""

    def length(self, match_id: str) -> int:
        """The number of events in a stream (the next ``expected_seq``)."""
        return self.head(match_id).length


def encode_batch(match_id: str, events: Sequence[Event], expected_seq: int, length: int,
                 last_hash: str, stamp: str) -> tuple[list[bytes], str]:
    """The canonical lines of a batch appended to a match of ``length`` events whose last hash
    is ``last_hash`` (every backend's append), and the batch's last hash.  A stale
    ``expected_seq`` is a :class:`ConflictError`: the caller writes nothing."""
    if expected_seq != length:
        raise conflict(match_id, expected_seq, length)
    if len(events) == 1:  # the usual append (one decision's event): no loop
        line, last = encode_line(events[0], length, stamp, length, last_hash)
        return [line], last
    batch_end = length + len(events) - 1
    lines, prev = [], last_hash
    for offset, event in enumerate(events):
        line, prev = encode_line(event, length + offset, stamp, batch_end, prev)
        lines.append(line)
    return lines, prev


def conflict(match_id: str, expected_seq: int, length: int) -> ConflictError:
    """The error of an append whose ``expected_seq`` is not the match's length."""
    return ConflictError(
        f"match {match_id!r}: expected seq {expected_seq} but the match has {length} events "
        f"(another writer appended first); nothing was written")


def stored_batch(lines: Sequence[bytes], length: int, last_hash: str,
                 stamp: str) -> builtins.list[Stored]:
    """What ``append`` returns for the lines :func:`encode_batch` just made: the envelope
    read off the encoding (every line ends ``,"hash":"<64 hex>"}``) and the event decoded
    from its own line (so it is what a read gives), without re-checking bytes this process
    encoded a moment ago (a read checks them)."""
    if len(lines) == 1:  # the usual append: no join, no zip
        line = lines[0]
        return [stored_line(line, length, stamp, last_hash, line[-66:-2].decode())]
    events = decoder().decode_lines(b"\n".join(lines))
    batch_end = length + len(lines) - 1
    out, prev = [], last_hash
    for offset, (line, event) in enumerate(zip(lines, events, strict=True)):
        digest = line[-66:-2].decode()
        out.append(Stored(length + offset, stamp, batch_end, prev, digest, event))
        prev = digest
    return out


def stored_line(line: bytes, seq: int, stamp: str, prev: str, digest: str) -> Stored:
    """:func:`stored_batch` of a batch of one event, whose hash the caller has (``digest``)."""
    return Stored(seq, stamp, seq, prev, digest, decoder().decode(line))
