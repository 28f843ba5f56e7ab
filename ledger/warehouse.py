"""The analytics warehouse: match files ingested into DuckDB tables, incrementally.

``ingest(store, db, facts)`` reads the matches of a store -- a directory or a
``postgresql://`` URL, through the store protocol (:meth:`ledger.store.Store.read`: every
line's hash and chain link checked, old schema versions upcast) --, turns each match into
rows (its game's facts, :func:`ledger.registry.facts_for`: for Wonders of The First
:mod:`replay.wotf.facts`) and writes them as Parquet, a file per table and chunk of
matches; DuckDB then loads each table's files in one statement, all tables in one
transaction.  The chunks are read in this process, or by the workers of a Dask cluster
(:mod:`ledger.distributed`: a local one of ``jobs`` processes, or an existing one): a failed
task is retried, then match by match, and a match that still fails is reported by name.
Tables and columns are those of :mod:`ledger.rows`, documented in ``docs/analytics.md``.

Incremental, through the protocol: a match whose head (:meth:`ledger.store.Store.heads`: its
length, last hash, the bytes of its lines and the digest of its last line, cheap in every
backend) and version (:meth:`ledger.store.Store.versions`, taken before it was read and
recorded as ``matches.store_identity``: a file's inode and ctime, which any write moves;
PostgreSQL's match row version and count of lines changed in place) are those recorded at its
last ingest is not read again -- no file modification times.  A last line edited in place
with its hash field left as it was changes the digest; an edit of any line, the version.  A
match without a version to trust (:func:`ledger.store.same_version`: recorded by an older
program, taken within a coarse file-system clock's tick of the file's last write, or
PostgreSQL's before it counted edits: ``''``) is read again, and its version recorded; the
report counts those read only for that (``rechecked``).  The
matches are read through :meth:`ledger.store.Store.verifying_reader`: every line checked,
none trusted because this process (or a worker, which outlives an ingest) checked it
before.  Any other known match is read and compared with what was ingested: because each
line's hash covers the previous line's hash, the hash of the last ingested event vouches for
every event before it.  If that hash still matches, the match only grew: it is re-read whole
and replaces its old rows (or, as long as it was, it is as ingested: its new version is
recorded); if it does not (or the match lost events), the match **changed under an existing
seq**: it is reported and its rows are left as they were.  A match that cannot be read (bad
line, broken chain, misnamed) is reported by its file name (``<match_id>.jsonl``) and
skipped; the rest is ingested.  The ``file_bytes`` column is the size of the match's lines
(its match file, in any store), ``file_mtime_ns`` the time of its last append (its last
event's ``at``).

Rows revisions: each game's facts have a rows revision
(:func:`ledger.registry.rows_revision_for`), bumped whenever the same events give other rows,
and each match's row records the one it was derived at (``matches.rows_revision``; NULL in a
warehouse made before it was recorded, which is older than any).  A known match ingested at
another revision than its game's current one is read again whole and its rows replaced --
even if its head is unchanged --, but only if its chain still vouches for what was ingested
(the same check as a grown match: one changed under an ingested seq is reported and keeps
its rows); it is counted ``rederived``.  A match of a game not installed keeps its rows.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from operator import attrgetter
from pathlib import Path
from typing import Any

import duckdb
import msgspec

from ledger.distributed import RETRIES, Failure, cluster, maybe_fault, run_chunks
from ledger.duckfile import foreign_file_problem
from ledger.errors import LedgerError, StoreUnavailableError
from ledger.events import MatchOpened
from ledger.registry import facts_for, rows_revision_for
from ledger.rows import FileInfo, all_tables, sql_columns
from ledger.store import SUFFIX, Head, Store, same_version
from ledger.stores import is_url, open_store

#: Card name -> facts the analytics need of it that a match file of schema ≤ 2 does not record
#: (Wonders: orbital and DBS), from today's pool; a game's facts read what they need of it.
CardFacts = Mapping[str, Any]

CHUNK = 250  # matches per worker task
PARALLEL_FROM = 200  # fewer matches than this are read in-process (unless on a scheduler)


class WarehouseError(LedgerError):
    """The warehouse cannot be opened, created or loaded."""


class WarehouseBusyError(WarehouseError, StoreUnavailableError):
    """Another process holds the warehouse file (an ingest loading it, or readers while an
    ingest would load): try again in a moment."""


#: Seconds an ingest waits for the readers of its warehouse (the /stats page, ``wonders
#: stats``) to let go of the file before it loads.
LOAD_WAIT = 60.0


class Problem(msgspec.Struct, frozen=True):
    """A match file that was not ingested: ``kind`` is ``corrupt``, ``unreadable`` (the file
    system refused to read it: permissions, say), ``misnamed``, ``changed`` or ``failed`` (its
    worker task kept failing: ``message`` is the last error)."""

    file: str
    kind: str
    message: str

    def line(self) -> str:
        return f"{self.file}: {self.kind}: {self.message}"


@dataclass
class IngestReport:
    """What one ``ingest`` run did."""

    files: int = 0
    new: int = 0
    grown: int = 0
    unchanged: int = 0
    #: Known matches, their head unchanged, read again because their rows were derived at
    #: another rows revision than their game's current one (see the module doc).
    rederived: int = 0
    #: Known matches, their head unchanged, read again because their recorded version does
    #: not vouch for them (it moved, or there was none to trust: see the module doc); each is
    #: also counted unchanged, or a problem.
    rechecked: int = 0
    events: int = 0
    problems: list[Problem] = field(default_factory=list)
    #: Match files in the warehouse that this store does not have (removed from it since, or
    #: ingested from another store): their rows are kept, and the summary names them.
    absent: list[str] = field(default_factory=list)
    #: Why the store gave no match a version (:meth:`ledger.store.Store.unversioned`): every
    #: known match is read again at each ingest, and the summary says why and what to do.
    unversioned: str | None = None

    def summary(self) -> str:
        rederived = (f"{self.rederived} re-derived (rows of an older version), "
                     if self.rederived else "")
        line = (f"{_counted(self.files, 'match file')}: {self.new} new, {self.grown} grown, "
                f"{self.unchanged} unchanged, {rederived}{len(self.problems)} not ingested; "
                f"{self.events} events loaded")
        if self.rechecked:
            line += (f"; {self.rechecked} read again to check them (their head as ingested, "
                     f"their version in the store moved or not recorded yet)")
        if self.unversioned and self.rechecked:
            line += f" -- every match is read again at each ingest: {self.unversioned}"
        if self.absent:
            line += (f"; {_counted(len(self.absent), 'ingested match')} not in this store, still "
                     f"counted (a fresh ingest into a new --db leaves them out): "
                     f"{', '.join(sorted(self.absent)[:5])}"
                     f"{' …' if len(self.absent) > 5 else ''}")
        return line


def _counted(number: int, noun: str) -> str:
    """``1 match file``, ``2 match files``, ``3 ingested matches``."""
    plural = noun + ("es" if noun.endswith(("ch", "sh", "s", "x")) else "s")
    return f"{number} {noun if number == 1 else plural}"


class _Known(msgspec.Struct, frozen=True):
    match_id: str
    size: int
    mtime_ns: int
    events: int
    last_hash: str
    game: str = "wotf"
    rows_revision: int | None = None  # NULL: recorded by a program older than the column
    #: The digest of the last line ingested (NULL: recorded by a program older than the
    #: column, or the match grew while it was read): what the head's is compared with.
    last_line_sha256: str | None = None
    #: The store's version of the match (:meth:`ledger.store.Store.versions`) taken before it
    #: was read (NULL: none to trust then, or recorded by a program older than the column).
    store_identity: str | None = None

    def is_as_ingested(self, head: Head, version: str | None) -> bool:
        """Whether the match is as it was read: the same length, last hash and size, the
        last line the same bytes (an edit in place can leave its hash field as it was), and
        the store's version of it the same (:func:`ledger.store.same_version`: an edit of
        any line moves it).  A match without a recorded digest or version is read once to
        record them."""
        return self.is_head(head) and same_version(self.store_identity, version)

    def is_head(self, head: Head) -> bool:
        """Whether the match's head is the one ingested (its last line's digest too)."""
        return (self.events, self.last_hash, self.size, self.last_line_sha256) == \
            (head.length, head.last_hash, head.size, head.last_line_sha256)

    def is_stale(self) -> bool:
        """Its rows were derived at another rows revision than its game's current one (a
        game not installed has none: its rows are kept)."""
        current = rows_revision_for(self.game)
        return current is not None and self.rows_revision != current


class _Touched(msgspec.Struct, frozen=True):
    """A known match read again with nothing new: what its row is updated with."""

    match_id: str
    size: int
    mtime_ns: int
    last_line_sha256: str | None
    store_identity: str | None


class _Staged(msgspec.Struct):
    """A worker's answer for one chunk of matches: its rows as Parquet, one file per table,
    in the stage directory (or, for a worker that can't see that directory -- another
    machine --, the files' bytes, which the caller writes there)."""

    files: dict[str, str]  # table -> staged Parquet file
    blobs: dict[str, bytes]  # table -> Parquet bytes (a worker without the stage directory)
    replace: list[str]  # match ids whose old rows the staged rows replace
    touched: list[_Touched]  # files read with nothing new
    new: int = 0
    grown: int = 0
    rederived: int = 0
    events: int = 0
    problems: list[Problem] = []


# -- opening -------------------------------------------------------------------------------


def connect(db: str | os.PathLike, read_only: bool = False,
            wait: float = 0.0) -> duckdb.DuckDBPyConnection:
    """Open the warehouse (creating its tables unless ``read_only``).  While another process
    holds the file in a way that excludes this one (DuckDB: one writer, or readers), try again
    for up to ``wait`` seconds, then raise :class:`WarehouseBusyError`."""
    path = Path(db)
    if read_only and not path.exists():
        raise WarehouseError(f"{path}: no warehouse here (run `wonders ingest STORE --db {path}`)")
    problem = foreign_file_problem(path)
    if problem:
        raise WarehouseError(problem)
    deadline = time.monotonic() + wait
    while True:
        try:
            con = duckdb.connect(str(path), read_only=read_only)
            break
        except duckdb.Error as exc:
            if not _is_lock_conflict(exc):
                raise WarehouseError(f"{path}: cannot open the warehouse "
                                     f"({_first_line(exc)})") from None
            if time.monotonic() >= deadline:
                raise WarehouseBusyError(
                    f"{path}: the warehouse is in use by another process ("
                    f"{'an ingest loading it' if read_only else 'readers or another ingest'}); "
                    f"try again in a moment") from None
            time.sleep(0.05)
    if not read_only:
        create_tables(con)
    elif not _has_matches(con):  # a DuckDB database, but none ingest made
        con.close()
        raise WarehouseError(f"{path}: not a warehouse (a DuckDB database with no matches "
                             f"table; make one with `wonders ingest STORE --db {path}`)")
    return con


def _has_matches(con: duckdb.DuckDBPyConnection) -> bool:
    return con.execute("SELECT 1 FROM duckdb_tables() WHERE database_name = "
                       "current_database() AND schema_name = 'main' AND table_name = "
                       "'matches'").fetchone() is not None


def create_tables(con: duckdb.DuckDBPyConnection) -> None:
    """Create every table (the shared ones and each installed game's); a warehouse made by an
    earlier version gains the columns it lacks (``matches.game``: its matches were all
    Wonders of The First, the only game there was)."""
    have = table_columns(con)
    missing = [t for t, row_class in all_tables().items()
               if t not in have or set(sql_columns(row_class)) - have[t]]
    if not missing:
        return
    con.execute("BEGIN TRANSACTION")  # one commit for every table made or widened
    try:
        _create(con, missing, have)
    except duckdb.Error:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT")


def table_columns(con: duckdb.DuckDBPyConnection) -> dict[str, set[str]]:
    """The warehouse's tables and the columns each has, as the file holds them."""
    have: dict[str, set[str]] = {}
    for table_name, column in con.execute(
            "SELECT table_name, column_name FROM duckdb_columns() "
            "WHERE database_name = current_database() AND schema_name = 'main'").fetchall():
        have.setdefault(table_name, set()).add(column)
    return have


def _create(con: duckdb.DuckDBPyConnection, missing: list[str],
            have: dict[str, set[str]]) -> None:
    for table in missing:
        columns = sql_columns(all_tables()[table])
        if table not in have:
            listed = ", ".join(f'"{name}" {sql}' for name, sql in columns.items())
            con.execute(f"CREATE TABLE {table} ({listed})")
            continue
        for name, sql in columns.items():
            if name not in have[table]:
                default = " DEFAULT 'wotf'" if (table, name) == ("matches", "game") else ""
                con.execute(f'ALTER TABLE {table} ADD COLUMN "{name}" {sql}{default}')


def _is_lock_conflict(exc: BaseException) -> bool:
    return "Could not set lock on file" in str(exc)


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


# -- ingesting -----------------------------------------------------------------------------


def ingest(store: str | os.PathLike | Store, db: str | os.PathLike, facts: CardFacts,
           jobs: int = 1, on_progress: Callable[[int, int], None] | None = None,
           scheduler: str | None = None, retries: int = RETRIES) -> IngestReport:
    """Ingest the matches of ``store`` (a directory, a ``postgresql://`` URL or a store) into
    the warehouse ``db`` (see the module doc).

    ``facts`` gives each card's orbital and DBS.  Workers read the matches and write their
    rows as Parquet, a file per table and chunk of matches, in a stage directory beside
    ``db``; the warehouse then loads every table's files in one statement, all in one
    transaction.  The workers are ``jobs`` processes of a local Dask cluster (from
    :data:`PARALLEL_FROM` matches to read on; fewer are read in this process), or those of the
    Dask cluster at ``scheduler`` (``tcp://HOST:PORT``; each worker opens the store again from
    its URL or path, so both must mean the same store there).  A task that fails is retried
    ``retries`` times, then match by match; a match that still fails is reported
    (``failed``).  ``on_progress(done, total)`` is called as matches are handled.
    """
    try:
        opened = open_store(store, must_exist=True)
    except LedgerError as exc:
        raise WarehouseError(str(exc)) from None
    url = _absolute(opened.url)  # what the workers open
    reader = _STORES[url] = opened.verifying_reader()  # what this process reads through
    try:
        with _ingest_lock(Path(db)):
            return _ingest_locked(opened, url, Path(db), facts, jobs, on_progress, scheduler,
                                  retries)
    finally:
        _STORES.pop(url, None)
        if reader is not opened:
            reader.close()
        if opened is not store:
            opened.close()


def _ingest_locked(opened: Store, url: str, db: Path, facts: CardFacts, jobs: int,
                   on_progress: Callable[[int, int], None] | None, scheduler: str | None,
                   retries: int) -> IngestReport:
    """The ingest, under its lock.  The warehouse file is held only to read what was ingested
    and to load: while the workers stage, the /stats page and ``wonders stats`` read it (they
    could not open it for the whole run)."""
    con = connect(db, wait=LOAD_WAIT)
    try:
        known = _known(con)
    finally:
        con.close()
    heads, versions = opened.heads(), opened.versions()
    report = IngestReport(files=len(heads), unversioned=opened.unversioned())
    todo = _to_read(heads, versions, known, report)
    report.absent = sorted(set(known) - {f"{match_id}{SUFFIX}" for match_id in heads})
    if on_progress:
        on_progress(report.unchanged + len(report.problems), len(heads))
    _sweep_stages(db)
    stage = Path(tempfile.mkdtemp(prefix=_stage_prefix(db), dir=db.parent))
    try:
        token = secrets.token_hex(16)
        (stage / _TOKEN).write_text(token)
        staged = _Gathered()
        for part in _stage_all(url, todo, dict(facts), str(stage), token, jobs, scheduler,
                               retries):
            _merge(staged, part, stage)
            _count(report, part)
            if on_progress:
                on_progress(report.new + report.grown + report.rederived + report.unchanged
                            + len(report.problems), len(heads))
        con = connect(db, wait=LOAD_WAIT)
        try:
            _load(con, staged)
        finally:
            con.close()
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return report


@contextmanager
def _ingest_lock(db: Path) -> Iterator[None]:
    """One ingest of a warehouse at a time: an exclusive ``flock`` on ``.<name>.ingest-lock``
    beside it, held for the whole run (the warehouse file itself is opened only to read and
    to load, so DuckDB's own lock no longer spans the run)."""
    try:
        handle = open(db.parent / f".{db.name}.ingest-lock", "a+b")  # noqa: SIM115 - held below
    except OSError as exc:
        raise WarehouseError(f"{db}: cannot open the warehouse (its ingest lock "
                             f"{exc.filename}: {exc.strerror})") from None
    with handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise WarehouseBusyError(f"{db}: another `wonders ingest` of this warehouse is "
                                     f"running; run this one when it is done") from None
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _absolute(url: str) -> str:
    """A store's URL as a worker must open it: a directory by its absolute path (a worker of
    a ``--scheduler`` cluster runs in a directory of its own, where a relative path named
    another directory or none: every match was 'corrupt: no match in this store')."""
    return url if is_url(url) else os.path.abspath(url)


def _stage_prefix(db: Path) -> str:
    """The name of this warehouse's stage directories, up to their random part."""
    return f".wonders-ingest-{db.name}-"


_STAGE_RANDOM = set("abcdefghijklmnopqrstuvwxyz0123456789_")  # tempfile.mkdtemp's letters
_STAGE_RANDOM_LENGTH = 8


def _sweep_stages(db: Path) -> None:
    """Remove the stage directories an ingest of this warehouse left when its process was
    killed (its ``finally`` never ran): Parquet nothing will load.  Called under the
    warehouse's ingest lock (:func:`_ingest_lock`), so no other ingest of it is running; another
    warehouse's stages beside it (another name) are left alone."""
    prefix = _stage_prefix(db)
    try:
        entries = list(db.parent.iterdir())
    except OSError:
        return
    for entry in entries:
        rest = entry.name[len(prefix):]
        if entry.name.startswith(prefix) and len(rest) == _STAGE_RANDOM_LENGTH \
                and set(rest) <= _STAGE_RANDOM and entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)


def _to_read(heads: Mapping[str, Head | Exception], versions: Mapping[str, str | None],
             known: dict[str, _Known], report: IngestReport) -> list:
    """``(match id, what was ingested of it)`` for each match that is new, not as it was
    ingested (:meth:`_Known.is_as_ingested`: its head differs, or its version in the store
    does not vouch for it -- counted ``rechecked`` when its head is as ingested)
    or whose rows are of another rows revision (:meth:`_Known.is_stale`); a match whose head
    can't be read is reported here."""
    todo = []
    for match_id, head in heads.items():
        name = f"{match_id}{SUFFIX}"
        if isinstance(head, OSError):  # not the file's fault: the file system's
            report.problems.append(Problem(name, "unreadable",
                                           f"cannot be read ({head.strerror or head})"))
            continue
        if isinstance(head, Exception):
            report.problems.append(Problem(name, "corrupt", str(head)))
            continue
        seen = known.get(name)
        if seen is None or seen.is_stale() or not seen.is_head(head):
            todo.append((match_id, seen))
        elif same_version(seen.store_identity, versions.get(match_id)):
            report.unchanged += 1
        else:
            report.rechecked += 1
            todo.append((match_id, seen))
    return todo


def _count(report: IngestReport, staged: _Staged) -> None:
    report.new += staged.new
    report.grown += staged.grown
    report.rederived += staged.rederived
    report.unchanged += len(staged.touched)
    report.events += staged.events
    report.problems += staged.problems


def _known(con: duckdb.DuckDBPyConnection) -> dict[str, _Known]:
    rows = con.execute(
        "SELECT file, match_id, file_bytes, file_mtime_ns, events, last_hash, game, "
        "rows_revision, last_line_sha256, store_identity FROM matches").fetchall()
    return {r[0]: _Known(*r[1:]) for r in rows}


#: Stores open in this process, by URL (a worker opens its store once, for every chunk).
_STORES: dict[str, Store] = {}


def _store_at(url: str) -> Store:
    found = _STORES.get(url)
    if found is None:
        found = _STORES[url] = open_store(url).verifying_reader()
    return found


_TOKEN = ".token"  # a stage directory's token: a worker that reads it sees the directory


def _stage_all(url: str, todo: list, facts: dict, stage: str, token: str, jobs: int,
               scheduler: str | None, retries: int) -> Iterable[_Staged]:
    chunks = [todo[i:i + CHUNK] for i in range(0, len(todo), CHUNK)]
    if not chunks:
        return
    here = scheduler is None and (jobs <= 1 or len(todo) < PARALLEL_FROM)
    if here:
        # In this process: chunks small enough that each one's progress shows.
        chunks = [todo[i:i + 25] for i in range(0, len(todo), 25)]
    elif scheduler is None:
        size = max(1, min(CHUNK, -(-len(todo) // (4 * jobs))))  # >= 4 tasks per worker
        chunks = [todo[i:i + size] for i in range(0, len(todo), size)]
    # A directory's store holds no connection a forked worker could share: fork the workers.
    fork = not is_url(url)
    with nullcontext(None) if here else cluster(jobs, scheduler, fork=fork) as client:
        for result in run_chunks(stage_chunk, chunks, (url, facts, stage, token), client,
                                 retries):
            if isinstance(result, Failure):
                match_id = result.item[0]
                yield _Staged(files={}, blobs={}, replace=[], touched=[], problems=[
                    Problem(f"{match_id}{SUFFIX}", "failed", result.error)])
            else:
                yield result


def stage_chunk(chunk: list, url: str, facts: dict, stage: str, token: str) -> _Staged:
    """A worker's task: read a chunk of ``(match id, what was ingested of it)`` from the store
    at ``url`` and write their rows as Parquet, one file per table."""
    maybe_fault([match_id for match_id, _seen in chunk])
    store = _store_at(url)
    staged = _Staged(files={}, blobs={}, replace=[], touched=[])
    tables: dict[str, list] = {name: [] for name in all_tables()}
    for match_id, seen in chunk:
        facts_of_match = _read_match(store, match_id, seen, facts, staged)
        if facts_of_match is None:
            continue
        for name, rows in facts_of_match.items():
            tables[name] += rows
    try:
        shared = (Path(stage) / _TOKEN).read_text() == token
    except OSError:
        shared = False
    for name, rows in tables.items():
        if not rows:
            continue
        table = _arrow(rows, all_tables()[name])
        if shared:
            target = Path(stage) / f"{name}-{uuid.uuid4().hex}.parquet"
            _write_parquet(table, target)
            staged.files[name] = str(target)
        else:
            staged.blobs[name] = _parquet_bytes(table)
    return staged


@dataclass
class _Gathered:
    """Every chunk's answer, gathered for the load."""

    files: dict[str, list[str]] = field(default_factory=dict)  # table -> its Parquet files
    replace: list[str] = field(default_factory=list)
    touched: list[_Touched] = field(default_factory=list)


def _merge(into: _Gathered, part: _Staged, stage: Path) -> None:
    """Gather a chunk's answer (Parquet a worker sent back is written to the stage here)."""
    for name, blob in part.blobs.items():
        target = stage / f"{name}-{uuid.uuid4().hex}.parquet"
        target.write_bytes(blob)
        part.files[name] = str(target)
    for name, path in part.files.items():
        into.files.setdefault(name, []).append(path)
    into.replace += part.replace
    into.touched += part.touched


# -- Parquet -------------------------------------------------------------------------------

_ARROW = {"VARCHAR": "string", "BIGINT": "int64", "DOUBLE": "float64", "BOOLEAN": "bool_",
          "TIMESTAMP": "string", "JSON": "string"}  # TIMESTAMP and JSON: cast by the load


def _arrow(rows: list, row_class: type) -> Any:
    """Rows (``msgspec.Struct``) as an Arrow table with the row class's columns."""
    import pyarrow as pa

    columns = sql_columns(row_class)
    arrays = []
    for name, sql in columns.items():
        column: list = list(map(attrgetter(name), rows))  # one column at a time, in C
        if sql == "JSON":
            column = _json_texts(column)
        arrays.append(pa.array(column, getattr(pa, _ARROW[sql])()))
    return pa.Table.from_arrays(arrays, names=list(columns))


def _json_texts(values: list) -> list[str]:
    """JSON values (bytes-like: ``msgspec.Raw``) as text, decoded in one go: compact JSON has
    no raw newline, so joining on one and splitting gives them back (else one by one)."""
    texts = b"\n".join(values).decode().split("\n")
    if len(texts) != len(values):
        texts = [bytes(v).decode() for v in values]
    return texts


def _write_parquet(table: Any, target: Path) -> None:
    """A stage file: read once, seconds later, from the same disk -- not compressed (zstd
    cost more CPU than the whole rest of writing it: 1.6 against 0.4 us per ``events`` row,
    measured; the bytes are gone when the load is done)."""
    import pyarrow.parquet as pq

    pq.write_table(table, target, compression="none")


def _parquet_bytes(table: Any) -> bytes:
    """Parquet sent back over the network by a worker that can't see the stage directory:
    compressed (zstd level 1: a quarter of the uncompressed size)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", compression_level=1)
    return sink.getvalue().to_pybytes()


def _read_match(store: Store, name_id: str, seen: _Known | None, facts: dict,
                staged: _Staged) -> Mapping[str, list[Any]] | None:
    """The rows of one match, or ``None`` (nothing new, or a problem recorded in ``staged``)."""
    name = f"{name_id}{SUFFIX}"
    try:
        # before the read: a write after it moves it (None: no version to trust yet)
        version = store.versions([name_id]).get(name_id)
        stored = list(store.read(name_id))
        head = store.head(name_id)
    except LedgerError as exc:
        staged.problems.append(Problem(name, "corrupt", str(exc)))
        return None
    if not stored:
        staged.problems.append(Problem(name, "corrupt", "no complete event in the match"))
        return None
    match_id = getattr(stored[0].event, "match_id", None)
    if match_id != name_id:
        staged.problems.append(Problem(
            name, "misnamed", f"seq 0 says match {match_id!r}; a match file is named "
                              f"<match_id>{SUFFIX}"))
        return None
    stamp, size, digest = _ns(stored[-1].at), head.size, _digest_of(stored, head)
    if seen is not None and not _has_grown(stored, seen, name, _Touched(
            seen.match_id, size, stamp, digest, version), staged) \
            and not _is_rederived(stored, seen):
        return None
    opened = stored[0].event
    game = opened.game if isinstance(opened, MatchOpened) else "?"
    match_facts, revision = facts_for(game), rows_revision_for(game)
    if match_facts is None:
        staged.problems.append(Problem(name, "unknown game",
                                       f"game {game!r} is not installed in this program"))
        return None
    try:
        rows = match_facts(stored, FileInfo(name, size, stamp), facts)
    except LedgerError as exc:
        staged.problems.append(Problem(name, "corrupt", str(exc)))
        return None
    for row in rows.get("matches", ()):
        row.rows_revision, row.last_line_sha256, row.store_identity = \
            revision, digest, version
    if seen is not None:
        staged.replace.append(match_id)
        if len(stored) > seen.events:
            staged.grown += 1
        else:
            staged.rederived += 1
    else:
        staged.new += 1
    staged.events += len(stored)
    return rows


def _ns(at: str) -> int:
    """An ``at`` time (``2026-04-21T19:35:23.946Z``) in nanoseconds since the epoch (0 if it
    is not one)."""
    try:
        return int(datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp() * 1000) \
            * 1_000_000
    except ValueError:
        return 0


def _digest_of(stored: list, head: Head) -> str | None:
    """The digest of the last line read: the head's, taken after the read, if it ends where
    the read did (else the match grew meanwhile: ``None``, and the next ingest reads it)."""
    if (head.length, head.last_hash) == (len(stored), stored[-1].hash):
        return head.last_line_sha256
    return None


def _has_grown(stored: list, seen: _Known, name: str, touched: _Touched,
               staged: _Staged) -> bool:
    """Whether an ingested match has new events on top of the ingested ones; a match
    changed under an ingested seq is recorded as a problem, an unchanged one whose rows are
    of its game's rows revision as ``touched``."""
    if _is_changed(stored, seen):
        staged.problems.append(Problem(name, "changed", _changed(stored, seen)))
        return False
    if len(stored) == seen.events:
        if not seen.is_stale():
            staged.touched.append(touched)
        return False
    return True


def _is_changed(stored: list, seen: _Known) -> bool:
    """The match changed under an ingested seq: its chain no longer vouches for what was
    ingested."""
    return len(stored) < seen.events or stored[seen.events - 1].hash != seen.last_hash


def _is_rederived(stored: list, seen: _Known) -> bool:
    """An ingested match with no new events, its chain vouching for what was ingested, whose
    rows are of another rows revision: its rows are derived again."""
    return len(stored) == seen.events and not _is_changed(stored, seen) and seen.is_stale()


def _changed(stored: list, seen: _Known) -> str:
    if len(stored) < seen.events:
        return (f"the match now has {len(stored)} events but {seen.events} were ingested; "
                f"kept the ingested rows")
    return (f"event seq {seen.events - 1} now hashes {stored[seen.events - 1].hash[:12]}…, "
            f"ingested as {seen.last_hash[:12]}… (the match was rewritten under an existing "
            f"seq); kept the ingested rows")


def _load(con: duckdb.DuckDBPyConnection, staged: _Gathered) -> None:
    """Load every staged table in one transaction: the replaced matches' old rows out, then
    each table's Parquet files in one statement."""
    con.execute("BEGIN TRANSACTION")
    try:
        if staged.replace:
            con.execute("CREATE OR REPLACE TEMP TABLE _replace AS SELECT unnest(?) AS match_id",
                        [staged.replace])
            for table in all_tables():
                con.execute(f"DELETE FROM {table} WHERE match_id IN (SELECT match_id FROM _replace)")
        for table, paths in staged.files.items():
            columns = sql_columns(all_tables()[table])
            casts = [f'CAST("{name}" AS {sql}) AS "{name}"' if sql in ("TIMESTAMP", "JSON")
                     else f'"{name}"' for name, sql in columns.items()]
            con.execute(f"INSERT INTO {table} BY NAME SELECT {', '.join(casts)} "
                        f"FROM read_parquet(?)", [paths])
        for touched in staged.touched:
            con.execute("UPDATE matches SET file_bytes = ?, file_mtime_ns = ?, "
                        "last_line_sha256 = ?, store_identity = ? WHERE match_id = ?",
                        [touched.size, touched.mtime_ns, touched.last_line_sha256,
                         touched.store_identity, touched.match_id])
        con.execute("COMMIT")
    except duckdb.Error as exc:
        con.execute("ROLLBACK")
        raise WarehouseError(f"loading staged rows failed: {_first_line(exc)}") from None
