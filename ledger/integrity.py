"""Is a match file intact?  The ledger-level check of ``wonders verify`` (and of import).

:func:`check_file` reads one match file (never modifying it) and says what it is, as a
:class:`FileCheck`:

* ``intact`` -- every line is the canonical encoding of its event, hashes and chains, seqs
  run 0, 1, 2 …, and the file ends with a whole batch;
* ``torn`` -- the file ends inside a line: the final batch was cut by a crash (or is being
  written right now: see ``FileCheck.writing``);
* ``cut`` -- every line is whole but the last line's ``batch`` points past the end of the file:
  the final batch lost its last lines;
* ``non-canonical`` -- a line is not byte-identical to the canonical encoding of what it
  decodes to (duplicate key, whitespace, CRLF, trailing bytes, key order): corruption;
* ``corrupt`` -- any other damage: bad JSON, hash mismatch, broken chain, seq out of order, a
  ``batch`` or ``at`` that contradicts its batch, a schema-3 ``MatchOpened`` without its cards;
* ``newer`` -- a line was written by a newer program (unknown event type or schema version):
  not corruption, this program is too old.

The first problem in file order decides; ``line`` (1-based) and ``seq`` name where it is (for
``torn`` and ``cut``: the first line of the unfinished batch, whose seq is the number of
intact events).  ``events`` are the intact prefix: the events of the whole batches before the
problem, so a caller can go on to re-derive them (the rules engine is not this module's
business).  ``message`` is one line naming file, line and seq::

    check = check_file(path)
    if not check.ok:
        print(f"FAIL {check.message}")   # e.g. "m.jsonl:7: seq 6: torn final batch at line 7 (seq 6): …"
    events = check.events
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import msgspec

from ledger.codec import GENESIS, Stored, decode_line
from ledger.entries import open_regular
from ledger.errors import (
    IntegrityError,
    LedgerError,
    MalformedEventError,
    NewerFormatError,
    NonCanonicalLineError,
    NotAMatchFileError,
    Where,
)
from ledger.events import MatchOpened

INTACT = "intact"
TORN = "torn"
CUT = "cut"
NON_CANONICAL = "non-canonical"
CORRUPT = "corrupt"
NEWER = "newer"
STATUSES = (INTACT, TORN, CUT, NON_CANONICAL, CORRUPT, NEWER)

_SEQ = re.compile(rb'^\{"seq":(\d+)[,}]')


@dataclass(frozen=True)
class FileCheck:
    """What :func:`check_file` found in one match file."""

    path: str
    status: str  #: one of :data:`STATUSES`
    message: str  #: one line; names file:line and seq when a line is at fault
    line: int | None = None  #: 1-based line at fault (torn/cut: first line of the unfinished batch)
    seq: int | None = None  #: the seq at fault (torn/cut: the unfinished batch's first seq)
    events: tuple[Stored, ...] = field(default=(), repr=False)  #: the intact prefix (whole batches)
    #: torn/cut only: a writer held the file's lock, so the batch may be being written right now
    writing: bool = False

    @property
    def ok(self) -> bool:
        """Intact: nothing to report."""
        return self.status == INTACT

    @property
    def length(self) -> int:
        """The number of intact events."""
        return len(self.events)


def check_file(path: str | os.PathLike, shown: str | None = None) -> FileCheck:
    """Check one match file: canonical lines, hashes, chain, seqs, and how it ends (read-only).
    An entry that is not a regular file (never opened for reading) or cannot be read (one
    larger than memory holds, too) is ``corrupt``, its message naming it and why.  ``shown``:
    how messages name the file (default: ``path``; a Dask worker opens a file by its absolute
    path and names it as the command was given it)."""
    path = Path(path)
    name = shown if shown is not None else str(path)
    try:
        handle = open_regular(path)
    except NotAMatchFileError as exc:
        return FileCheck(name, CORRUPT, str(exc).replace(str(path), name, 1))
    except OSError as exc:
        return FileCheck(name, CORRUPT, f"{name}: cannot be read ({exc.strerror or exc})")
    with handle:
        try:
            data = handle.read()
        except MemoryError:  # a file larger than memory holds: no match file anyone recorded
            size = os.fstat(handle.fileno()).st_size
            return FileCheck(name, CORRUPT, f"{name}: {size} bytes, more than this machine's "
                                            f"memory holds: not read")
        check = check_bytes(data, name)
        if check.status in (TORN, CUT):
            check = _with_writer(check, handle)
    return check


def check_bytes(data: bytes, name: str) -> FileCheck:
    """:func:`check_file` of a file's bytes; ``name`` is the file name used in messages."""
    if not data:
        return FileCheck(name, CORRUPT, f"{name}: empty file (a match file starts with seq 0)")
    whole: list[Stored] = []  # events of whole batches
    pending: list[Stored] = []  # events of the batch being read
    prev, start = GENESIS, 0
    lineno = 0
    while start < len(data):
        lineno += 1
        nl = data.find(b"\n", start)
        if nl < 0:  # the file ends inside a line
            first_line = lineno - len(pending)
            seq = len(whole)
            return FileCheck(
                name, TORN,
                f"{name}:{first_line}: seq {seq}: torn final batch at line {first_line} (seq {seq}): "
                f"the file ends inside line {lineno} ({len(data) - start} bytes); the {seq} events "
                f"before it are intact", first_line, seq, tuple(whole))
        line = data[start:nl]
        start = nl + 1
        where = Where(name, lineno)
        try:
            stored = decode_line(line, where, prev)
            if stored.seq != lineno - 1:
                raise MalformedEventError.at(where, stored.seq, f"expected seq {lineno - 1} (a line "
                                             f"was removed, inserted or reordered)")
            _check_batch(stored, pending[0] if pending else None, where)
            if stored.seq == 0:
                _check_cards(stored.event, where)
        except LedgerError as exc:
            return FileCheck(name, _status_of(exc), str(exc), lineno, _seq_of(line, lineno),
                             tuple(whole))
        prev = stored.hash
        pending.append(stored)
        if stored.seq == stored.batch:
            whole += pending
            pending = []
    if pending:
        first, last = pending[0], pending[-1]
        line_no = first.seq + 1
        return FileCheck(
            name, CUT,
            f"{name}:{line_no}: seq {first.seq}: cut final batch at line {line_no} (seq {first.seq}): "
            f"its last line (seq {last.seq}) says the batch ends at seq {last.batch}, but the file "
            f"ends there; the {len(whole)} events before it are intact",
            line_no, first.seq, tuple(whole))
    head = whole[-1].hash[:12]
    return FileCheck(name, INTACT, f"{name}: intact: {len(whole)} events, head {head}…",
                     events=tuple(whole))


def _check_batch(stored: Stored, first: Stored | None, where: Where) -> None:
    """``stored``'s ``batch`` and ``at`` agree with its batch (``first``: the batch's first line,
    ``None`` when ``stored`` begins one): a batch ends at its last line (``batch`` ≥ ``seq``),
    and every line of a batch carries the same ``batch`` and ``at`` (docs/format.md, "A line")."""
    if stored.batch < stored.seq:
        raise MalformedEventError.at(
            where, stored.seq, f"batch {stored.batch} ends before this line (a line's batch is "
                               f"the seq of its batch's last line)")
    if first is None:
        return
    if stored.batch != first.batch:
        raise MalformedEventError.at(
            where, stored.seq, f"batch {stored.batch}, but the batch it continues (from seq "
                               f"{first.seq}) ends at seq {first.batch}")
    if stored.at != first.at:
        raise MalformedEventError.at(
            where, stored.seq, f"at {stored.at}, but its batch (from seq {first.seq}) was "
                               f"appended at {first.at}: the lines of a batch share their at")


def _check_cards(opened: object, where: Where) -> None:
    """A schema-3 ``MatchOpened`` carries its cards (docs/format.md, "Self-contained cards"):
    ``cards_digest`` is the SHA-256 of ``cards`` (msgspec's JSON of the list), and seats that
    use cards record their definitions.  (Schema ≤ 2 recorded none.)"""
    if not isinstance(opened, MatchOpened) or opened.schema_version < 3:
        return
    if (opened.cards or opened.cards_digest) and \
            hashlib.sha256(msgspec.json.encode(opened.cards)).hexdigest() != opened.cards_digest:
        raise IntegrityError.at(where, 0, "the recorded card definitions do not match their "
                                          "digest (cards_digest): the file was altered")
    used = {entry.card for seat in opened.seats for entry in (*seat.deck, *seat.archive)}
    if used and not opened.cards:
        raise IntegrityError.at(
            where, 0, f"MatchOpened records no card definitions (cards: []) though its seats use "
                      f"{len(used)} cards; a schema-{opened.schema_version} match file carries "
                      f"its cards: the file was altered")


def _status_of(exc: LedgerError) -> str:
    if isinstance(exc, NonCanonicalLineError):
        return NON_CANONICAL
    if isinstance(exc, NewerFormatError):
        return NEWER
    return CORRUPT


def _seq_of(line: bytes, lineno: int) -> int:
    found = _SEQ.match(line)
    return int(found.group(1)) if found else lineno - 1


def _with_writer(check: FileCheck, handle: IO[bytes]) -> FileCheck:
    """Mark a torn/cut check whose file a writer holds locked (probe only, never waits)."""
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return FileCheck(check.path, check.status,
                         check.message + " (a writer holds the file: the batch may be in progress)",
                         check.line, check.seq, check.events, writing=True)
    fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    return check
