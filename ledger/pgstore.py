"""The scale-out store: match streams in PostgreSQL, for many recording servers on one database.

The same protocol as the file store (:class:`ledger.store.Store`, held to the same contract by
``tests/ledger/contract/``), with the database doing the serialising (DESIGN.md section 5):

* ``wonders_events(match_id, seq, line)`` -- one row per event, primary key
  ``(match_id, seq)``: the database itself refuses a second event at a seq, so two servers can
  never fork a match.  ``line`` is the canonical line's bytes exactly as written (an export is
  the lines joined by ``\\n``: byte-identical to the match file); every read decodes each line
  and checks its hash and chain link (:func:`ledger.codec.decode_line`) and its seq.  No
  foreign key to ``wonders_matches``: lines go in only with their match's row (an append
  through the row it just moved and locked, a create or an import in the transaction that
  made it), and the key's check cost an append a lookup per line (a third of a 10-event
  batch's server time over a bare insert); a database made before loses it when opened.
* ``wonders_matches`` -- one row per match: what a listing filters on (game, tournament,
  round, table, players), where the stream ends (``length``, ``last_hash``, ``size``: the
  :class:`~ledger.store.Head`, whose digest of the last line the server computes from that
  line's row), how it ended, and ``edits``, how many statements changed or removed its lines
  in place (:data:`EDIT_TRIGGERS`: the store never does; with the row's ``xmin``, the match's
  version, :meth:`PgStore.versions`).  An append is **one statement** that moves
  the head only from where the writer last saw it (``UPDATE … WHERE length = … AND
  last_hash = …``) and inserts the batch's lines only if it moved; it runs on an autocommit
  connection, so it is its own transaction, and it is the append's only round trip (a
  prepared statement once a connection has run it a few times).  A concurrent writer of the
  same match waits on the row's lock, then finds the head moved and writes nothing; the store
  reads the head again and a stale ``expected_seq`` is a :class:`~ledger.errors.ConflictError`.
  A batch is acknowledged only once that statement returned, i.e. committed (durable, with
  PostgreSQL's default ``synchronous_commit``, which the store never changes).
* ``wonders_tokens(match_id, hashes)`` -- the recording service's token hashes (SHA-256 hex
  per role; never a token), used by :class:`web.tokens.PgTokenBook`.
* ``wonders_secrets(name, value)`` -- secrets every server on the database shares (the /play
  session key, :mod:`web.sessionkey`): the first one stored wins.
* ``wonders_tournament_events(tournament_id, seq, line)`` -- the tournaments' logs
  (:class:`ledger.tournament.PgTournamentBook`), keyed by id and seq.
* Live follow (:mod:`ledger.pgnotify`): once an append is committed, the match id is handed
  to the store's announcer thread, which sends ``pg_notify('wonders_appended', match_id)`` on
  a connection of its own (for every match appended since its last one in one statement), off
  the writer's round trip and out of its transaction.  One listener thread per store (one
  connection doing ``LISTEN``) wakes the :meth:`PgStore.wait` / :meth:`PgStore.follow`
  callers of that match at once -- no polling of the table (a slow timed wait stays as a
  safety net should a connection drop, or a server die between its commit and its notify).

Connections come from a ``psycopg_pool.ConnectionPool``, in autocommit mode, each checked as
it is handed out (:func:`_still_open`: a round trip only if the server spoke while it idled;
one that PostgreSQL closed, by a restart, is replaced rather than failing a request): a single
statement is its own transaction (no ``BEGIN`` / ``COMMIT`` round trips); what takes several
statements runs in an explicit transaction (:meth:`PgStore._tx`).  The tables are created at open
when one is missing (under an advisory lock, so servers starting together don't race); when
all exist nothing is created, so a role with only SELECT (and INSERT/UPDATE) on them opens the
store too.  Open one with
:func:`ledger.stores.open_store` (``postgresql://user@host/db``; ``?host=/socket/dir`` for a
unix socket).
"""

from __future__ import annotations

import builtins
import contextlib
import json
import select
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from ledger.codec import GENESIS, Stored, decode_line, encode_line, now_iso
from ledger.errors import (
    ConflictError,
    IntegrityError,
    LedgerError,
    MalformedEventError,
    MatchNotFoundError,
    StoreClosedError,
    StoreUnavailableError,
    Where,
)
from ledger.events import Event, MatchEnded, MatchOpened
from ledger.integrity import check_bytes
from ledger.pgnotify import CHANNEL, Announcer, Listener
from ledger.store import (
    SUFFIX,
    Head,
    MatchInfo,
    Outcome,
    Store,
    check_match_id,
    encode_batch,
    line_digest,
    listed,
    stored_batch,
)

try:  # the optional extra: pip install 'wonders-ledger[postgres]'
    import psycopg
    from psycopg_pool import ConnectionPool, PoolClosed

    class _Connection(psycopg.Connection):
        """A pooled connection, with the cursor that runs its appends (see
        :meth:`PgStore._append_cursor`)."""

        append_cursor: psycopg.Cursor | None = None
except ImportError:  # pragma: no cover - reported when a postgresql:// store is opened
    psycopg = None  # type: ignore[assignment]
    ConnectionPool = None  # type: ignore[assignment,misc]
    PoolClosed = None  # type: ignore[assignment,misc]

__all__ = ["CHANNEL", "SAFETY_S", "SCHEMA", "PgStore"]

#: The longest a waiter goes without reading the head itself (a lost notification's cost).
SAFETY_S = 10.0
_SCHEMA_LOCK = 0x574F4E44  # advisory lock key while creating the tables ("WOND")

SCHEMA = """
CREATE TABLE IF NOT EXISTS wonders_matches (
    match_id   text PRIMARY KEY,
    game       text NOT NULL,
    tournament text,
    round      integer,
    table_no   integer,
    players    text[] NOT NULL,
    length     integer NOT NULL,
    last_hash  text NOT NULL,
    size       bigint NOT NULL,
    ended      boolean NOT NULL DEFAULT false,
    winner     text,
    reason     text,
    edits      bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS wonders_events (
    match_id text NOT NULL,
    seq      integer NOT NULL CHECK (seq >= 0),
    line     bytea NOT NULL,
    PRIMARY KEY (match_id, seq)
);
CREATE TABLE IF NOT EXISTS wonders_tokens (
    match_id text PRIMARY KEY,
    hashes   jsonb NOT NULL
);
CREATE TABLE IF NOT EXISTS wonders_secrets (
    name  text PRIMARY KEY,
    value text NOT NULL
);
CREATE TABLE IF NOT EXISTS wonders_tournament_events (
    tournament_id text NOT NULL,
    seq           integer NOT NULL,
    line          text NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);
"""

#: The text of the edit count's function (``pg_proc.prosrc``), as :data:`EDIT_TRIGGERS` makes
#: it: a version vouches only while the database's is this one (:data:`_COUNT_GUARD`).
#: Its settings (``pg_proc.proconfig``): its own ``search_path``, so an editing session whose
#: ``search_path`` puts a schema of its own first (a ``format`` there that makes the count's
#: statement change nothing) runs the count as written.  It checks its own work: every match
#: of the edited rows that has a row in ``wonders_matches`` must have had it rewritten by the
#: count; one that was not (a ``BEFORE UPDATE`` trigger or a rule on ``wonders_matches`` that
#: skips it -- attached for the edit and dropped again, which the catalogue rows of
#: :data:`_COUNT_GUARD` do not always show: a table that had a trigger or a rule before keeps
#: its flag, and its catalogue row, until a vacuum) refuses the edit with an error.
_COUNT_CONFIG = ["search_path=pg_catalog"]
_COUNT_FUNCTION = """
DECLARE
  hit text;
  wanted bigint;
  counted bigint;
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    hit := 'SELECT match_id FROM %1$I.wonders_matches';
  ELSIF TG_OP = 'UPDATE' THEN
    hit := 'SELECT match_id FROM wonders_old UNION SELECT match_id FROM wonders_new';
  ELSE
    hit := 'SELECT match_id FROM wonders_old';
  END IF;
  EXECUTE format('WITH hit AS (' || hit || '), done AS ('
                 'UPDATE %1$I.wonders_matches SET edits = edits + 1 '
                 'WHERE match_id IN (SELECT match_id FROM hit) RETURNING 1) '
                 'SELECT (SELECT count(*) FROM %1$I.wonders_matches '
                 'WHERE match_id IN (SELECT match_id FROM hit)), (SELECT count(*) FROM done)',
                 TG_TABLE_SCHEMA) INTO wanted, counted;
  IF counted < wanted THEN
    RAISE EXCEPTION 'wonders: % of % matches edited in place could not be counted '
                    '(something on wonders_matches skipped the count): the edit is refused',
                    wanted - counted, wanted;
  END IF;
  RETURN NULL;
END """

#: What makes an edit in place of a match's lines move its version (:meth:`PgStore.versions`):
#: ``wonders_matches.edits`` counts the statements that changed or removed rows of the match in
#: ``wonders_events`` other than the store's (which only inserts them, and deletes them with
#: their match's row: a create rolled back), by statement-level triggers -- an ``UPDATE``
#: (each match of the old and the new rows), a ``DELETE`` (each match whose rows went), a
#: ``TRUNCATE`` (every match).
#: The count moves the match's row, so its ``xmin`` too.  Inserts fire nothing: an append
#: costs what it did.  The function finds ``wonders_matches`` beside the edited table
#: (``TG_TABLE_SCHEMA``), whatever the editing session's ``search_path`` and whatever the
#: schema is called now (one renamed, or a dump restored under another name: a schema kept
#: from when the function was made named a schema gone, and every edit -- the store's own
#: ``discard`` too -- failed).  Made with the tables, and added to a database made before
#: when it is opened (:func:`_add_edit_triggers`).
EDIT_TRIGGERS = f"""
ALTER TABLE wonders_matches ADD COLUMN IF NOT EXISTS edits bigint NOT NULL DEFAULT 0;
CREATE OR REPLACE FUNCTION wonders_events_edited() RETURNS trigger LANGUAGE plpgsql
  SET search_path = pg_catalog AS $${_COUNT_FUNCTION}$$;
DROP TRIGGER IF EXISTS wonders_events_updated ON wonders_events;
CREATE TRIGGER wonders_events_updated AFTER UPDATE ON wonders_events
  REFERENCING OLD TABLE AS wonders_old NEW TABLE AS wonders_new
  FOR EACH STATEMENT EXECUTE FUNCTION wonders_events_edited();
DROP TRIGGER IF EXISTS wonders_events_deleted ON wonders_events;
CREATE TRIGGER wonders_events_deleted AFTER DELETE ON wonders_events
  REFERENCING OLD TABLE AS wonders_old
  FOR EACH STATEMENT EXECUTE FUNCTION wonders_events_edited();
DROP TRIGGER IF EXISTS wonders_events_truncated ON wonders_events;
CREATE TRIGGER wonders_events_truncated AFTER TRUNCATE ON wonders_events
  FOR EACH STATEMENT EXECUTE FUNCTION wonders_events_edited();
ALTER TABLE wonders_events ENABLE ALWAYS TRIGGER wonders_events_updated;
ALTER TABLE wonders_events ENABLE ALWAYS TRIGGER wonders_events_deleted;
ALTER TABLE wonders_events ENABLE ALWAYS TRIGGER wonders_events_truncated;
"""

#: The triggers :data:`EDIT_TRIGGERS` makes.
_EDIT_TRIGGER_NAMES = ("wonders_events_updated", "wonders_events_deleted",
                       "wonders_events_truncated")

#: What vouches that the edit count still counts (:meth:`PgStore.versions`): the count's
#: triggers fire "always" (``ENABLE ALWAYS``: also in a session whose
#: ``session_replication_role`` is ``replica``, where ordinary triggers are skipped), their
#: function is the one :data:`EDIT_TRIGGERS` makes (:data:`_COUNT_FUNCTION`: not one that
#: counts nothing; :data:`_COUNT_CONFIG`: its own ``search_path``), and nothing is attached
#: to ``wonders_matches`` (a trigger, a rule or row security of the owner's could skip the
#: count's update of a match's row) -- ``vouches``; and the rows of the three triggers, of
#: their function and of both tables in the catalogue, by ``xmin``.  Disabling a
#: trigger, enabling it again, dropping and making it again, replacing its function, or
#: rewriting the table (``ALTER TABLE ... ALTER COLUMN ... TYPE ... USING``: every row
#: written again, no trigger fired), or attaching a trigger, a rule or row security to
#: ``wonders_matches`` (even one dropped again: the table's row keeps the new ``xmin``) each
#: writes a new catalogue row, so lines edited while
#: the count was off (by the table's owner: ``ALTER TABLE ... DISABLE TRIGGER``) move every
#: match's version all the same; while the count does not vouch the versions vouch for
#: nothing (``None``).  (``VACUUM`` and ``ANALYZE`` update the table's catalogue row in
#: place: its ``xmin`` stays.)
_COUNT_GUARD = """
SELECT count(*) FILTER (WHERE t.tgenabled = 'A' AND p.prosrc = %s
                          AND p.proconfig = %s::text[]) = %s
         AND NOT EXISTS (SELECT 1 FROM pg_trigger o WHERE NOT o.tgisinternal
                         AND o.tgrelid = 'wonders_matches'::regclass)
         AND NOT EXISTS (SELECT 1 FROM pg_rewrite r
                         WHERE r.ev_class = 'wonders_matches'::regclass)
         AND NOT (SELECT m.relrowsecurity FROM pg_class m
                  WHERE m.oid = 'wonders_matches'::regclass) AS vouches,
       string_agg(t.xmin::text, '.' ORDER BY t.tgname) || '.' || min(p.xmin::text) || '.' ||
         (SELECT string_agg(c.xmin::text, '.' ORDER BY c.relname) FROM pg_class c
          WHERE c.oid IN ('wonders_events'::regclass, 'wonders_matches'::regclass)) AS rows
FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
WHERE t.tgrelid = 'wonders_events'::regclass AND t.tgname = ANY(%s)
"""

#: The store's tables (:data:`SCHEMA`).
TABLES = ("wonders_matches", "wonders_events", "wonders_tokens", "wonders_secrets",
          "wonders_tournament_events")

#: The keys whose duplicate is a writer that lost a race for a seq (a conflict, not a fault).
_SEQ_KEYS = ("wonders_events_pkey", "wonders_tournament_events_pkey")

_MATCH_COLUMNS = "m.match_id, m.length, m.ended, m.winner, m.reason, e.line"

#: A head's :attr:`~ledger.store.Head.last_line_sha256`, computed by the server from the row
#: of the match ``m``'s last line: a correlated subquery, so one lookup of the primary key
#: per match (a join let the planner hash every line of the table for a listing); ``''`` if
#: that row is missing.
_LAST_LINE_SHA256 = ("coalesce((SELECT encode(sha256(e.line), 'hex') FROM wonders_events e "
                     "WHERE e.match_id = m.match_id AND e.seq = m.length - 1), '')")

#: An append: the head moves only from where the writer saw it, and the lines go in only if
#: it moved (``unnest(...) WITH ORDINALITY`` numbers them from 1).
_APPEND = """
WITH moved AS (
  UPDATE wonders_matches SET length = %(new_length)s, last_hash = %(new_hash)s,
         size = size + %(bytes)s, ended = ended OR %(ended)s,
         winner = CASE WHEN %(ended)s THEN %(winner)s ELSE winner END,
         reason = CASE WHEN %(ended)s THEN %(reason)s ELSE reason END
  WHERE match_id = %(id)s AND length = %(length)s AND last_hash = %(last_hash)s
  RETURNING match_id)
INSERT INTO wonders_events (match_id, seq, line)
SELECT moved.match_id, %(length)s + s.n - 1, s.line
FROM moved, unnest(%(lines)b::bytea[]) WITH ORDINALITY AS s(line, n)
"""


class PgStore(Store):
    """Match streams in one PostgreSQL database (see the module's docstring)."""

    def __init__(self, url: str, clock: Callable[[], str] = now_iso, pool_size: int = 10,
                 connect_timeout: float = 10.0):
        if psycopg is None or ConnectionPool is None:
            raise StoreUnavailableError(
                "a postgresql:// store needs psycopg and psycopg-pool: "
                "pip install 'wonders-ledger[postgres]'")
        self.url, self.clock = url, clock
        try:  # one connection first: a database that can't be reached is one clear error
            psycopg.connect(url, connect_timeout=max(1, int(connect_timeout))).close()
        except psycopg.Error as exc:
            raise StoreUnavailableError(f"PostgreSQL store {_safe(url)}: cannot connect "
                                        f"({_first_line(exc)})") from None
        self.pool = ConnectionPool(url, min_size=1, max_size=max(1, pool_size), open=False,
                                   timeout=connect_timeout, name="wonders",
                                   kwargs={"autocommit": True}, connection_class=_Connection,
                                   check=_still_open)
        try:
            self.pool.open(wait=True, timeout=connect_timeout)
        except Exception as exc:  # noqa: BLE001 - psycopg_pool raises its own PoolTimeout
            self.pool.close()
            raise StoreUnavailableError(f"PostgreSQL store {_safe(url)}: cannot connect "
                                        f"({_first_line(exc)})") from None
        self._announcer = Announcer(url)
        self._listener = Listener(url, own=self._announcer)
        # Where this store's last append left each match (length, last hash): the next
        # append starts from there, and the database refuses it if the head moved meanwhile.
        self._tails: dict[str, tuple[int, str]] = {}
        with self._tx() as conn:
            self._create_tables(conn)
            _drop_foreign_keys(conn)
            #: Whether the database counts its lines' edits (:data:`EDIT_TRIGGERS`): else
            #: (a database made before, opened by a role that may not add them) no match has
            #: a version (:meth:`versions`) until a role that may opens it once.
            self.has_versions = _add_edit_triggers(conn)

    def __repr__(self) -> str:
        return f"PgStore({_safe(self.url)!r})"

    def _create_tables(self, conn: Any) -> None:
        """Create the tables a database lacks, under the advisory lock (servers starting
        together don't race); none when all exist (one catalogue query), so a role that may
        only read and write them opens the store too."""
        (missing,) = conn.execute("SELECT count(*) FROM unnest(%s::text[]) AS t(name) "
                                  "WHERE to_regclass(t.name) IS NULL", [list(TABLES)]).fetchone()
        if not missing:
            return
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [_SCHEMA_LOCK])
        try:
            conn.execute(SCHEMA)
        except psycopg.errors.InsufficientPrivilege:
            raise StoreUnavailableError(
                f"PostgreSQL store {_safe(self.url)}: the store's tables don't exist yet and "
                f"this role may not create them: run once with a role that may (CREATE on "
                f"the schema)") from None

    # -- connections -----------------------------------------------------------------------

    @contextlib.contextmanager
    def _conn(self) -> Iterator[Any]:
        """A pooled autocommit connection (each statement its own transaction); a database
        error is a :class:`LedgerError` naming the store."""
        try:
            conn = self.pool.getconn()  # not pool.connection(): no commit() of its own, no stats
            try:
                yield conn
            finally:
                self.pool.putconn(conn)  # rolled back first should a transaction be left open
        except LedgerError:
            raise
        except psycopg.errors.UniqueViolation as exc:
            if exc.diag.constraint_name not in _SEQ_KEYS:  # not a seq's key: what it is
                raise StoreUnavailableError(f"PostgreSQL store {_safe(self.url)}: "
                                            f"{_first_line(exc)}") from None
            # the (match_id, seq) key, or a tournament's: never a fork
            raise ConflictError(f"PostgreSQL store {_safe(self.url)}: another writer stored "
                                f"that seq first; nothing was written ({_first_line(exc)})") \
                from None
        except PoolClosed:
            raise StoreClosedError(f"PostgreSQL store {_safe(self.url)}: closed by this "
                                   f"process (it is stopping)") from None
        except psycopg.Error as exc:
            raise StoreUnavailableError(f"PostgreSQL store {_safe(self.url)}: "
                                        f"{_first_line(exc)}") from None

    @contextlib.contextmanager
    def _tx(self) -> Iterator[Any]:
        """A pooled connection in one transaction (committed on leaving, rolled back on an
        error), for what takes more than one statement."""
        with self._conn() as conn, conn.transaction():
            yield conn

    def close(self) -> None:
        """The pool first, then the listener: a follower the listener's close wakes reads a
        closed store (:class:`StoreClosedError`), never the database one last time."""
        self.pool.close()
        self._listener.close()
        self._announcer.close()

    def _appended(self, match_id: str) -> None:
        """``match_id`` grew (committed): wake its followers here at once, and everywhere."""
        self._listener.heard(match_id)
        self._announcer.announce(match_id)

    # -- writing ---------------------------------------------------------------------------

    def create(self, opened: MatchOpened, at: str | None = None) -> Stored:
        match_id = check_match_id(opened.match_id)
        line, digest = encode_line(opened, 0, at or self.clock(), 0, GENESIS)
        with self._tx() as conn:
            row = conn.execute(
                "INSERT INTO wonders_matches (match_id, game, tournament, round, table_no, "
                "players, length, last_hash, size) VALUES (%s, %s, %s, %s, %s, %s, 1, %s, %s) "
                "ON CONFLICT (match_id) DO NOTHING RETURNING match_id",
                [match_id, opened.game, opened.tournament, opened.round, opened.table,
                 [s.player for s in opened.seats], digest, len(line) + 1]).fetchone()
            if row is None:
                raise ConflictError(f"match {match_id!r} already exists")
            conn.execute("INSERT INTO wonders_events (match_id, seq, line) VALUES (%s, 0, %s)",
                         [match_id, line])
        self._appended(match_id)
        return decode_line(line, _where(match_id, 0))

    def append(self, match_id: str, events: Sequence[Event], expected_seq: int,
               at: str | None = None) -> list[Stored]:
        """One statement, its own transaction and the only round trip, moves the head (only
        from where this store believes it is) and inserts the batch's lines; the followers are
        notified after it (:mod:`ledger.pgnotify`).  Should the head have moved, nothing is
        written: the head is read again and a stale ``expected_seq`` is a
        :class:`ConflictError`."""
        if not events:
            return []
        check_match_id(match_id)
        stamp = at or self.clock()
        ended = next((e for e in reversed(events) if isinstance(e, MatchEnded)), None)
        head = self._tails.get(match_id)
        while True:
            if head is None or head[0] != expected_seq:
                head = self._fresh_tail(match_id)
            length, last_hash = head
            lines, prev = encode_batch(match_id, events, expected_seq, length, last_hash, stamp)
            try:
                written = self._write_batch(match_id, lines, length, last_hash, prev, ended)
            except ConflictError:
                self._check_nothing_past_head(match_id)  # a hand's line in the way: say so
                raise
            if written:
                self._tails[match_id] = (length + len(lines), prev)
                self._appended(match_id)
                return stored_batch(lines, length, last_hash, stamp)
            head = None  # another writer moved the head first: look again

    def _check_nothing_past_head(self, match_id: str) -> None:
        """Raise :func:`_past_head` if a line of the match is stored at or past its head."""
        with self._conn() as conn:
            row = conn.execute("SELECT m.length, max(e.seq) FROM wonders_matches m JOIN "
                               "wonders_events e USING (match_id) WHERE m.match_id = %s "
                               "GROUP BY m.length", [match_id]).fetchone()
        if row is not None and row[1] >= row[0]:
            raise _past_head(match_id, row[1], row[0])

    def _fresh_tail(self, match_id: str) -> tuple[int, str]:
        with self._conn() as conn:
            row = conn.execute("SELECT length, last_hash FROM wonders_matches "
                               "WHERE match_id = %s", [match_id]).fetchone()
        if row is None:
            raise MatchNotFoundError(f"no match {match_id!r} in this store")
        return row[0], row[1]

    def _write_batch(self, match_id: str, lines: list[bytes], length: int, last_hash: str,
                     prev: str, ended: MatchEnded | None) -> bool:
        """Move the head from ``(length, last_hash)`` and insert ``lines`` in one statement on
        an autocommit connection (committed when it returns); whether it was written
        (``False``: the head was elsewhere, nothing written).  A concurrent writer of the same
        match waits on the row's lock, then finds the head moved: the database serialises
        them, and the ``(match_id, seq)`` key refuses a second line at a seq whatever else."""
        size = sum(len(line) + 1 for line in lines)
        with self._conn() as conn:
            cur = self._append_cursor(conn)
            cur.execute(_APPEND, {
                "id": match_id, "length": length, "last_hash": last_hash,
                "new_length": length + len(lines), "new_hash": prev, "bytes": size,
                "ended": ended is not None, "winner": ended.winner if ended else None,
                "reason": ended.reason if ended else None, "lines": lines})
            return cur.rowcount == len(lines)

    def _append_cursor(self, conn: Any) -> Any:
        """The cursor that runs :data:`_APPEND` on ``conn``, one per pooled connection: run
        again with the same query, a psycopg cursor keeps what it learnt adapting the
        parameters (a fresh cursor looks every parameter's dumper up again each time)."""
        cur = getattr(conn, "append_cursor", None)
        if cur is None or cur.closed:
            cur = conn.append_cursor = conn.cursor()
        return cur

    def import_lines(self, data: bytes, where: str = "upload") -> Head:
        from ledger.filestore import _checked_opened  # the same check as the file store's

        check = check_bytes(data, where)
        opened = _checked_opened(check, where)
        match_id = opened.match_id
        lines = data.split(b"\n")[:-1]
        last = check.events[-1]
        ended = next((s.event for s in reversed(check.events)
                      if isinstance(s.event, MatchEnded)), None)
        with self._tx() as conn:
            row = conn.execute(
                "INSERT INTO wonders_matches (match_id, game, tournament, round, table_no, "
                "players, length, last_hash, size, ended, winner, reason) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (match_id) DO NOTHING RETURNING match_id",
                [match_id, opened.game, opened.tournament, opened.round, opened.table,
                 [s.player for s in opened.seats], len(lines), last.hash, len(data),
                 ended is not None, ended.winner if ended else None,
                 ended.reason if ended else None]).fetchone()
            if row is None:
                raise ConflictError(f"match {match_id!r} already exists in this store; "
                                    f"nothing was imported")
            with conn.cursor() as cur, cur.copy(
                    "COPY wonders_events (match_id, seq, line) FROM STDIN") as copy:
                for seq, line in enumerate(lines):
                    copy.write_row((match_id, seq, line))
        self._appended(match_id)
        return Head(len(lines), last.hash, len(data), line_digest(lines[-1]))

    def create_many(self, matches: Sequence[tuple[MatchOpened, Sequence[Event]]],
                    at: str | None = None) -> None:
        """Every match's row and lines -- its ``MatchOpened`` and first batch -- in **one**
        transaction (one commit for a round's tables, not the two of each ``create`` and
        ``append``): all of them or, should an id be taken, none (a
        :class:`ConflictError` naming it)."""
        stamp = at or self.clock()
        made = []
        for opened, first in matches:
            line, digest = encode_line(opened, 0, stamp, 0, GENESIS)
            lines, last = [line], digest
            if first:
                more, last = encode_batch(opened.match_id, first, 1, 1, digest, stamp)
                lines += more
            made.append((check_match_id(opened.match_id), opened, lines, last))
        with self._tx() as conn:
            for match_id, opened, lines, last in made:
                row = conn.execute(
                    "INSERT INTO wonders_matches (match_id, game, tournament, round, table_no, "
                    "players, length, last_hash, size) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, "
                    "%s) ON CONFLICT (match_id) DO NOTHING RETURNING match_id",
                    [match_id, opened.game, opened.tournament, opened.round, opened.table,
                     [s.player for s in opened.seats], len(lines), last,
                     sum(len(x) + 1 for x in lines)]).fetchone()
                if row is None:
                    taken = ConflictError(f"match {match_id!r} already exists")
                    taken.match_id = match_id
                    raise taken
            with conn.cursor() as cur, cur.copy(
                    "COPY wonders_events (match_id, seq, line) FROM STDIN") as copy:
                for match_id, _opened, lines, _last in made:
                    for seq, line in enumerate(lines):
                        copy.write_row((match_id, seq, line))
        for match_id, _opened, lines, last in made:
            self._tails[match_id] = (len(lines), last)
            self._appended(match_id)

    def discard(self, match_id: str) -> None:
        with self._conn() as conn:  # one statement: both or neither
            conn.execute("WITH gone AS (DELETE FROM wonders_matches WHERE match_id = %(id)s) "
                         "DELETE FROM wonders_events WHERE match_id = %(id)s",
                         {"id": check_match_id(match_id)})
        self._tails.pop(match_id, None)

    # -- reading ---------------------------------------------------------------------------

    def read(self, match_id: str, from_seq: int = 0) -> Iterator[Stored]:
        """The match's events from ``from_seq``, each line's hash and chain link checked (from
        the line before ``from_seq``, whose own hash is checked too) and its seq.  The head
        comes in the same statement: a line stored past it (an ``INSERT`` that did not move
        the head, as every append does in one statement) is damage, raised naming its seq."""
        check_match_id(match_id)
        start = max(from_seq - 1, 0)
        with self._conn() as conn:
            rows = conn.execute(_READ, [start, match_id]).fetchall()
        if not rows:
            raise MatchNotFoundError(f"no match {match_id!r} in this store")
        length = rows[0][0]
        lines = [(seq, line) for _length, seq, line in rows if seq is not None]
        if lines and lines[-1][0] >= length:
            raise _past_head(match_id, lines[-1][0], length)
        yield from _decoded(match_id, lines, start, from_seq)

    def follow(self, match_id: str, from_seq: int = 0, poll: float = 0.05,
               timeout: float | None = None) -> Iterator[Stored]:
        """Events from ``from_seq`` as they are appended: woken by ``NOTIFY`` (``poll`` is not
        used: the safety net reads again every :data:`SAFETY_S` seconds)."""
        nxt, idle_since = from_seq, time.monotonic()
        while True:
            seen = self._seen(match_id)
            got = False
            for stored in self.read(match_id, nxt):
                got = True
                nxt = stored.seq + 1
                yield stored
                if isinstance(stored.event, MatchEnded):
                    return
            if got:
                idle_since = time.monotonic()
            left = None if timeout is None else timeout - (time.monotonic() - idle_since)
            if left is not None and left <= 0:
                return
            self._wait_notified(match_id, seen, SAFETY_S if left is None
                                else min(left, SAFETY_S))
            if self._listener.closed:
                return

    wakes_on_append = True

    def wait(self, match_id: str, length: int, timeout: float) -> bool:
        """Block until the match has more than ``length`` events (``True``) or ``timeout``
        seconds passed (``False``); woken by ``NOTIFY``.  While no notification comes it
        reads the head once at the start, every :data:`SAFETY_S` seconds (should a
        notification be lost) and at the end: an idle follower costs no queries between."""
        deadline = time.monotonic() + timeout
        while True:
            if self._listener.closed:  # the store is closing (it woke us): no more queries
                return False
            seen = self._seen(match_id)
            if self.head(match_id).length > length:
                return True
            left = deadline - time.monotonic()
            if left <= 0 or self._listener.closed:
                return False
            self._wait_notified(match_id, seen, min(left, SAFETY_S))

    def ids(self) -> builtins.list[str]:
        with self._conn() as conn:
            rows = conn.execute('SELECT match_id FROM wonders_matches '
                                'ORDER BY match_id COLLATE "C"').fetchall()
        return [r[0] for r in rows]

    def head(self, match_id: str) -> Head:
        check_match_id(match_id)
        with self._conn() as conn:
            row = conn.execute(f"SELECT length, last_hash, size, {_LAST_LINE_SHA256} "
                               f"FROM wonders_matches m WHERE match_id = %s",
                               [match_id]).fetchone()
        if row is None:
            raise MatchNotFoundError(f"no match {match_id!r} in this store")
        return Head(*row)

    def heads(self) -> dict[str, Head | Exception]:
        with self._conn() as conn:
            rows = conn.execute(f"SELECT match_id, length, last_hash, size, "
                                f"{_LAST_LINE_SHA256} FROM wonders_matches m").fetchall()
        return {r[0]: Head(r[1], r[2], r[3], r[4]) for r in sorted(rows)}

    def info(self, match_id: str) -> MatchInfo:
        check_match_id(match_id)
        with self._conn() as conn:
            row = conn.execute(f"SELECT {_MATCH_COLUMNS} FROM wonders_matches m JOIN "
                               f"wonders_events e ON e.match_id = m.match_id AND e.seq = 0 "
                               f"WHERE m.match_id = %s", [match_id]).fetchone()
        if row is None:
            raise MatchNotFoundError(f"no match {match_id!r} in this store")
        return _info(row)

    def outcomes(self, match_ids: Iterable[str]) -> dict[str, Outcome]:
        """One query for all of them (the matches table alone: no line is decoded)."""
        wanted = [check_match_id(m) for m in match_ids]
        if not wanted:
            return {}
        with self._conn() as conn:
            rows = conn.execute("SELECT match_id, ended, winner FROM wonders_matches "
                                "WHERE match_id = ANY(%s)", [wanted]).fetchall()
        return {match_id: Outcome(ended, winner) for match_id, ended, winner in rows}

    def versions(self, match_ids: Iterable[str] | None = None) -> dict[str, str | None]:
        """One query for all of them: each match's row of ``wonders_matches`` --
        ``"<xmin>:<guard>:<edits>"``: the transaction that wrote this version of the row (an
        append, a hand's ``UPDATE`` of the row, and the triggers of :data:`EDIT_TRIGGERS`
        write a new one), the catalogue rows of those triggers, their function and the
        events' table (:data:`_COUNT_GUARD`: a trigger turned off and on again, or the table
        rewritten, moves it) and the match's count of lines changed or removed in place (an
        ``UPDATE`` or ``DELETE`` of any row of ``wonders_events``).  ``None`` for each where
        the database has no such triggers (:attr:`has_versions`) or the count does not vouch
        now (a trigger off, its function not this program's, a trigger, a rule or row
        security on ``wonders_matches``)."""
        where, args = "", []
        if match_ids is not None:
            wanted = [check_match_id(m) for m in match_ids]
            if not wanted:
                return {}
            where, args = "WHERE match_id = ANY(%s)", [wanted]
        if not self.has_versions:
            with self._conn() as conn:
                rows = conn.execute(f"SELECT match_id FROM wonders_matches {where}",
                                    args).fetchall()
            return {match_id: None for (match_id,) in rows}
        with self._conn() as conn:  # one statement: the rows and the guard, one snapshot
            rows = conn.execute(
                f"SELECT m.match_id, m.xmin::text, m.edits, g.vouches, g.rows "
                f"FROM wonders_matches m CROSS JOIN ({_COUNT_GUARD}) g {where}",
                [_COUNT_FUNCTION, _COUNT_CONFIG, len(_EDIT_TRIGGER_NAMES),
                 list(_EDIT_TRIGGER_NAMES),
                 *args]).fetchall()
        return {match_id: f"{xmin}:{guard}:{edits}" if vouches else None
                for match_id, xmin, edits, vouches, guard in rows}

    def unversioned(self) -> str | None:
        """Why no match has a version: the database lacks the edit count
        (:data:`EDIT_TRIGGERS`) and this role may not add it; opening the store once as a role
        that may (the tables' owner: ``wonders serve`` or ``wonders ingest`` with its URL)
        adds it."""
        if self.has_versions:
            return None
        return (f"the database at {_safe(self.url)} keeps no count of lines edited in place "
                f"(made by an earlier version) and this role may not add it: open the store "
                f"once as the tables' owner (e.g. wonders ingest with the owner's URL) to add it")

    def list(self, unreadable: builtins.list[tuple[str, LedgerError]] | None = None,
             **filters: Any) -> builtins.list[MatchInfo]:
        """Filtered in SQL (game, tournament, round, table, player, ended); a row whose first
        line can't be read raises, or goes to ``unreadable`` (:meth:`Store.list`)."""
        unknown = set(filters) - {"game", "tournament", "round", "table", "player", "ended"}
        if unknown:
            raise TypeError(f"unknown filter(s): {', '.join(sorted(unknown))}")
        where, args = [], []
        for name, column in (("game", "game"), ("tournament", "tournament"),
                             ("round", "round"), ("table", "table_no"), ("ended", "ended")):
            if filters.get(name) is not None:
                where.append(f"m.{column} = %s")
                args.append(filters[name])
        if filters.get("player") is not None:
            where.append("%s = ANY(m.players)")
            args.append(filters["player"])
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        with self._conn() as conn:
            rows = conn.execute(f"SELECT {_MATCH_COLUMNS} FROM wonders_matches m JOIN "
                                f"wonders_events e ON e.match_id = m.match_id AND e.seq = 0 "
                                f'{clause} ORDER BY m.match_id COLLATE "C"', args).fetchall()
        found = []
        for row in rows:
            try:
                found.append(_info(row))
            except LedgerError as exc:
                if unreadable is None:
                    raise
                unreadable.append((row[0], exc))
        return found

    def export_lines(self, match_id: str) -> bytes:
        """The lines as written, joined: byte-identical to the match file (a line stored past
        the head is refused, as :meth:`read` refuses it: never exported as an append)."""
        check_match_id(match_id)
        with self._conn() as conn:
            rows = conn.execute(_READ, [0, match_id]).fetchall()
        if not rows:
            raise MatchNotFoundError(f"no match {match_id!r} in this store")
        length, last = rows[0][0], rows[-1][1]
        if last is not None and last >= length:
            raise _past_head(match_id, last, length)
        return b"".join(bytes(line) + b"\n" for _length, _seq, line in rows if line is not None)

    # -- tokens (web.tokens.PgTokenBook) ---------------------------------------------------

    def put_tokens(self, match_id: str, hashes: dict[str, str]) -> None:
        """Store a match's token hashes; :class:`ConflictError` if it has some already."""
        with self._conn() as conn:
            row = conn.execute("INSERT INTO wonders_tokens (match_id, hashes) VALUES (%s, %s) "
                               "ON CONFLICT (match_id) DO NOTHING RETURNING match_id",
                               [check_match_id(match_id), json.dumps(hashes)]).fetchone()
        if row is None:
            raise ConflictError(f"match {match_id!r} is being created right now; nothing "
                                f"was written")

    def secret(self, name: str, fresh: str) -> str:
        """The secret kept under ``name`` (a server's session key): ``fresh`` is stored if
        there is none yet; every server on the database gets the first one stored."""
        with self._conn() as conn:
            conn.execute("INSERT INTO wonders_secrets (name, value) VALUES (%s, %s) "
                         "ON CONFLICT (name) DO NOTHING", [name, fresh])
            row = conn.execute("SELECT value FROM wonders_secrets WHERE name = %s",
                               [name]).fetchone()
        return str(row[0])

    def token_hashes(self, match_id: str) -> dict[str, str]:
        with self._conn() as conn:
            row = conn.execute("SELECT hashes FROM wonders_tokens WHERE match_id = %s",
                               [match_id]).fetchone()
        return dict(row[0]) if row else {}

    def merge_tokens(self, match_id: str, hashes: dict[str, str]) -> None:
        """Set the given roles' hashes of a match, its other roles as they are, in one
        statement (``jsonb ||``): two changes at once both hold."""
        with self._conn() as conn:
            conn.execute("UPDATE wonders_tokens SET hashes = hashes || %s::jsonb "
                         "WHERE match_id = %s", [json.dumps(hashes), match_id])

    def put_tokens_many(self, hashes: dict[str, dict[str, str]]) -> None:
        """:meth:`put_tokens` of many matches (match id → role → hash) in one transaction:
        all or, should one have tokens already, none."""
        with self._tx() as conn:
            rows = conn.execute(
                "INSERT INTO wonders_tokens (match_id, hashes) SELECT k, v::jsonb FROM "
                "unnest(%s::text[], %s::text[]) AS t(k, v) ON CONFLICT (match_id) DO NOTHING "
                "RETURNING match_id",
                [[check_match_id(m) for m in hashes],
                 [json.dumps(h) for h in hashes.values()]]).fetchall()
            if len(rows) != len(hashes):
                busy = sorted(set(hashes) - {r[0] for r in rows})
                raise ConflictError(f"match {busy[0]!r} is being created right now; nothing "
                                    f"was written")

    def drop_tokens_many(self, match_ids: Sequence[str]) -> None:
        with self._conn() as conn:
            conn.execute("DELETE FROM wonders_tokens WHERE match_id = ANY(%s)", [list(match_ids)])

    def existing(self, match_ids: Sequence[str]) -> set[str]:
        """Which of these matches exist (one query)."""
        with self._conn() as conn:
            rows = conn.execute("SELECT match_id FROM wonders_matches WHERE match_id = ANY(%s)",
                                [list(match_ids)]).fetchall()
        return {r[0] for r in rows}

    def drop_tokens(self, match_id: str) -> None:
        with self._conn() as conn:
            conn.execute("DELETE FROM wonders_tokens WHERE match_id = %s", [match_id])

    def tokens_without_match(self) -> builtins.list[str]:
        """Matches whose tokens were written by a create that has not (yet) made the match."""
        with self._conn() as conn:
            rows = conn.execute("SELECT t.match_id FROM wonders_tokens t WHERE NOT EXISTS "
                                "(SELECT 1 FROM wonders_matches m WHERE m.match_id = "
                                "t.match_id) ORDER BY 1").fetchall()
        return [r[0] for r in rows]

    def _own_connection(self) -> Any:
        """A connection of its own, outside the pool (a session whose advisory locks last
        until it is closed)."""
        try:
            return psycopg.connect(self.url, autocommit=True)
        except psycopg.Error as exc:
            raise StoreUnavailableError(f"PostgreSQL store {_safe(self.url)}: "
                                        f"{_first_line(exc)}") from None

    @contextlib.contextmanager
    def claim(self, match_id: str, wait: bool = False) -> Iterator[bool]:
        """Hold a match id across servers while a create runs: a session advisory lock on a
        connection of its own (released when the block ends, or when a crashed server's
        connection drops).  Yields whether the id was claimed (``wait``: blocks until it is)."""
        conn = self._own_connection()
        try:
            key = ["wonders:create:" + match_id]
            if wait:
                conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", key)
                got = True
            else:
                row = conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))",
                                   key).fetchone()
                got = bool(row and row[0])
            yield got
        finally:
            conn.close()  # ends the session: releases the lock

    @contextlib.contextmanager
    def claim_many(self, match_ids: Sequence[str]) -> Iterator[builtins.list[str]]:
        """:meth:`claim` of many ids on **one** connection (one session holds all their
        advisory locks, in one statement): yields the ids claimed, in order; an id another
        create holds is left out."""
        conn = self._own_connection()
        try:
            rows = conn.execute(
                "SELECT k FROM unnest(%s::text[]) WITH ORDINALITY AS t(k, n) WHERE "
                "pg_try_advisory_lock(hashtextextended('wonders:create:' || k, 0)) ORDER BY n",
                [list(match_ids)]).fetchall()
            yield [r[0] for r in rows]
        finally:
            conn.close()  # ends the session: releases every lock

    # -- notifications -----------------------------------------------------------------------

    def _seen(self, match_id: str) -> int:
        return self._listener.seen(match_id)

    def _wait_notified(self, match_id: str, seen: int, timeout: float) -> None:
        self._listener.wait(match_id, seen, timeout)


def _drop_foreign_keys(conn: Any) -> None:
    """Drop the foreign key a database made by an earlier version has on ``wonders_events``
    (see the module's docstring); looked up first, so opening a current database takes no
    lock on the table."""
    names = conn.execute("SELECT conname FROM pg_constraint WHERE contype = 'f' AND "
                         "conrelid = 'wonders_events'::regclass").fetchall()
    for (name,) in names:
        conn.execute(f'ALTER TABLE wonders_events DROP CONSTRAINT "{name}"')


def _add_edit_triggers(conn: Any) -> bool:
    """Make :data:`EDIT_TRIGGERS` in a database that lacks them (one made by an earlier
    version: every match's count starts at 0 -- a warehouse that recorded no version of its
    matches reads each once); looked up first, so opening a current database takes no lock
    (and a role that may only read and write the tables opens it), and again under the
    advisory lock (servers opening it together make them once).  Whether the database has
    them: a role that may not make them (or whose transactions are read only, as on a hot
    standby) opens the store without versions."""
    if _has_edit_triggers(conn):
        return True
    try:
        with conn.transaction():  # a savepoint: refused, the store opens all the same
            conn.execute("SELECT pg_advisory_xact_lock(%s)", [_SCHEMA_LOCK])
            if not _has_edit_triggers(conn):
                conn.execute(EDIT_TRIGGERS)
    except (psycopg.errors.InsufficientPrivilege, psycopg.errors.ReadOnlySqlTransaction):
        return False  # (read only: a standby, or a role whose transactions are read only)
    return True


def _has_edit_triggers(conn: Any) -> bool:
    """Whether the database has the column and the triggers, their function the current one
    (:data:`_COUNT_FUNCTION`, byte for byte, with :data:`_COUNT_CONFIG`): the first one made
    (before the function found the table by ``TG_TABLE_SCHEMA``) kept the schema's name of
    then, one made before it had its own ``search_path`` ran the count with the editing
    session's, and one the owner replaced may count nothing, so each is made again."""
    (triggers,) = conn.execute(
        "SELECT count(*) FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid "
        "WHERE t.tgrelid = 'wonders_events'::regclass AND t.tgname = ANY(%s) AND "
        "t.tgenabled = 'A' AND p.prosrc = %s AND p.proconfig = %s::text[]",
        [list(_EDIT_TRIGGER_NAMES), _COUNT_FUNCTION, _COUNT_CONFIG]).fetchone()
    column = conn.execute(
        "SELECT 1 FROM pg_attribute WHERE attrelid = 'wonders_matches'::regclass AND "
        "attname = 'edits' AND NOT attisdropped").fetchone()
    return triggers == len(_EDIT_TRIGGER_NAMES) and column is not None


#: A match's head and its lines from a seq, one snapshot: one row ``(length, NULL, NULL)``
#: for a match with no line there, none for no match.
_READ = ("SELECT m.length, e.seq, e.line FROM wonders_matches m LEFT JOIN wonders_events e "
         "ON e.match_id = m.match_id AND e.seq >= %s WHERE m.match_id = %s ORDER BY e.seq")


def _past_head(match_id: str, seq: int, length: int) -> IntegrityError:
    """The error of a line stored at ``seq`` when the match's head says ``length`` events:
    every append moves the head in the statement that stores its lines, so such a line was
    written outside this store (by hand)."""
    return IntegrityError.at(
        _where(match_id, seq), seq,
        f"a line is stored at seq {seq}, past the match's head ({length} events): written "
        f"outside this store's appends; nothing after seq {length - 1} was ever acknowledged")


def _decoded(match_id: str, rows: list, start: int, from_seq: int) -> Iterator[Stored]:
    """Decode and check rows ``(seq, line)`` from seq ``start`` (= ``from_seq`` - 1, the
    chain's anchor, unless ``from_seq`` is 0)."""
    prev = GENESIS if start == 0 else None
    for index, (seq, line) in enumerate(rows):
        expected = start + index
        where = _where(match_id, expected)
        stored = decode_line(bytes(line), where, prev)
        if seq != expected or stored.seq != expected:
            raise IntegrityError.at(where, stored.seq, f"expected seq {expected} (a row is "
                                                       f"missing or out of place)")
        prev = stored.hash
        if stored.seq >= from_seq:
            yield stored


def _info(row: tuple) -> MatchInfo:
    match_id, length, ended, winner, reason, line = row
    opened = decode_line(bytes(line), _where(match_id, 0)).event
    if not isinstance(opened, MatchOpened):
        raise MalformedEventError.at(_where(match_id, 0), 0,
                                     f"expected MatchOpened, got {type(opened).__name__}")
    return MatchInfo(match_id, listed(opened), length, ended, winner, reason)


def _where(match_id: str, seq: int) -> Where:
    """Where a line is, named as in its match file (``<match>.jsonl:<line>``)."""
    return Where(f"{match_id}{SUFFIX}", seq + 1)


def _safe(url: str) -> str:
    """A URL without its password (it goes into messages and logs): user, host, the port when
    the URL gives one (two clusters on one host differ by it), database."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        parts = conninfo_to_dict(url)
    except Exception:  # noqa: BLE001 - not parseable: show only its scheme
        return url.split(":", 1)[0] + "://…"
    host, port = parts.get("host", ""), parts.get("port")
    where = f"{host}:{port}" if port else host
    return f"postgresql://{parts.get('user', '')}@{where}/{parts.get('dbname', '')}"


def _still_open(conn: Any) -> None:
    """The pool's check of a connection it hands out, without a round trip in the common
    case: an idle connection the server has said something to (a restart's last words before
    it closes the socket) gets a real check, so one PostgreSQL dropped is replaced instead of
    failing its request."""
    if conn.closed or conn.broken:
        raise psycopg.OperationalError("the connection was closed")
    poll = select.poll()
    poll.register(conn.fileno(), select.POLLIN)
    if poll.poll(0):
        ConnectionPool.check_connection(conn)  # one round trip: raises if it is gone


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]
