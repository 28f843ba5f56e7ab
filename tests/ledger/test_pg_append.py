"""What a PostgreSQL append costs and keeps (``ledger/pgstore.py``, ``ledger/pgnotify.py``).

* An append, single event or a batch, is **one round trip** on the writer's connection: one
  statement, its own transaction (autocommit: no ``BEGIN``/``COMMIT``), no ``NOTIFY`` -- read
  off libpq's own trace of the connection's messages.
* It stays durable: the writer's sessions keep the server's ``synchronous_commit = on``; only
  the announcer's notification-only session turns it off.
* The announcer's notifications reach a plain ``LISTEN`` connection for every match announced,
  are flushed by ``close``, and resume after its connection is cut.

Needs the throwaway cluster of tests/postgres.py (skipped, with a line saying how to get
PostgreSQL, without it; failed under ``WONDERS_REQUIRE_POSTGRES=1``).
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg
from psycopg import pq

from ledger.events import JudgeNote, MatchOpened, SeatInfo
from ledger.pgnotify import CHANNEL, Announcer
from ledger.pgstore import PgStore

REPO = Path(__file__).resolve().parents[2]


def _opened(match_id: str) -> MatchOpened:
    return MatchOpened(match_id=match_id, ruleset="1.3.2",
                       seats=[SeatInfo("A", "a"), SeatInfo("B", "b")])


def _notes(first: int, count: int) -> list[JudgeNote]:
    return [JudgeNote("judge", f"note {first + i}") for i in range(count)]


def _traced(store: PgStore, path, work) -> list[str]:
    """The protocol messages of ``store``'s one pooled connection while ``work()`` runs."""
    with store.pool.connection() as conn:
        pgconn = conn.pgconn
    with open(path, "w") as handle:
        pgconn.trace(handle.fileno())
        pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)
        try:
            work()
        finally:
            pgconn.untrace()
    return path.read_text().splitlines()


def test_an_append_is_one_statement_and_one_round_trip(pg_url, tmp_path):
    with PgStore(pg_url, pool_size=1) as store:
        store.create(_opened("rt"))
        for seq in range(1, 8):  # past psycopg's prepare threshold: the steady state
            store.append("rt", _notes(seq, 1), seq)
        for size, first in ((1, 8), (10, 9)):
            trace = _traced(store, tmp_path / f"trace{size}.txt",
                            lambda size=size, first=first:
                            store.append("rt", _notes(first, size), first))
            sent = [line.split("\t")[2].split()[0] for line in trace if line.startswith("F")]
            assert sent == ["Bind", "Describe", "Execute", "Sync"], trace
            received = [line.split("\t")[2].split()[0] for line in trace
                        if line.startswith("B")]
            assert received[-1] == "ReadyForQuery" and received.count("ReadyForQuery") == 1
            assert f'"INSERT 0 {size}"' in "\n".join(trace)
            assert "ReadyForQuery\t I" in trace[-1]  # idle: committed, no transaction open
            assert not any(word in line for line in trace
                           for word in ("BEGIN", "COMMIT", "pg_notify"))
        assert [s.event.text for s in store.read("rt", 8)] == \
            [f"note {seq}" for seq in range(8, 19)]


def test_appends_keep_synchronous_commit_on(pg_url):
    with PgStore(pg_url, pool_size=1) as store:
        store.create(_opened("durable"))
        store.append("durable", _notes(1, 1), 1)
        with store.pool.connection() as conn:
            assert conn.execute("SHOW synchronous_commit").fetchone() == ("on",)
            assert conn.autocommit


def _listening(url: str, heard: list, stop: threading.Event) -> threading.Thread:
    """A plain ``LISTEN`` connection collecting (payload, pid) until ``stop``."""
    ready = threading.Event()

    def run() -> None:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"LISTEN {CHANNEL}")
            ready.set()
            while not stop.is_set():
                heard.extend((n.payload, n.pid) for n in conn.notifies(timeout=0.2))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert ready.wait(10)
    return thread


def test_every_announced_match_is_heard_and_close_sends_what_is_pending(pg_url):
    heard: list = []
    stop = threading.Event()
    thread = _listening(pg_url, heard, stop)
    announcer = Announcer(pg_url)
    ids = [f"m{k}" for k in range(50)]
    for match_id in ids:
        announcer.announce(match_id)
    announcer.close()
    deadline = time.monotonic() + 10
    while {p for p, _ in heard} != set(ids) and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    thread.join(5)
    assert {p for p, _ in heard} == set(ids)
    assert {pid for _, pid in heard} == {announcer.pid}
    assert len(heard) <= len(ids)  # each match once, however they were grouped


def test_the_announcer_connects_again_after_its_connection_is_cut(pg_url):
    with PgStore(pg_url) as writer, PgStore(pg_url) as waiter:
        writer.create(_opened("cut"))
        writer.append("cut", _notes(1, 1), 1)
        assert writer._announcer.flush(10)
        first = writer._announcer.pid
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", [first])
        waiter.wait("cut", 2, 0.1)  # the waiter's listener is up
        got: list = []
        thread = threading.Thread(target=lambda: got.append(waiter.wait("cut", 2, 30)))
        thread.start()
        time.sleep(0.3)
        appended = time.monotonic()
        writer.append("cut", _notes(2, 1), 2)
        thread.join(15)
        assert got == [True]
        assert time.monotonic() - appended < 5  # a notification, not the 10 s safety read
        assert writer._announcer.pid not in (None, first)


OLD_EVENTS_TABLE = """
CREATE TABLE wonders_matches (
    match_id text PRIMARY KEY, game text NOT NULL, tournament text, round integer,
    table_no integer, players text[] NOT NULL, length integer NOT NULL,
    last_hash text NOT NULL, size bigint NOT NULL, ended boolean NOT NULL DEFAULT false,
    winner text, reason text);
CREATE TABLE wonders_events (
    match_id text NOT NULL REFERENCES wonders_matches (match_id) ON DELETE CASCADE,
    seq integer NOT NULL CHECK (seq >= 0), line bytea NOT NULL,
    PRIMARY KEY (match_id, seq));
"""


def test_a_database_from_before_loses_the_foreign_key_and_discard_removes_the_lines(pg_url):
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(OLD_EVENTS_TABLE)
    with PgStore(pg_url) as store:
        store.create(_opened("kept"))
        store.create(_opened("gone"))
        store.append("gone", _notes(1, 3), 1)
        store.discard("gone")
        with psycopg.connect(pg_url) as conn:
            assert conn.execute("SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND "
                                "conrelid = 'wonders_events'::regclass").fetchone() == (0,)
            assert conn.execute("SELECT match_id, count(*) FROM wonders_events "
                                "GROUP BY 1").fetchall() == [("kept", 1)]
        assert store.ids() == ["kept"]


EXITS_WITHOUT_CLOSING = """
import sys
from ledger.events import JudgeNote, MatchOpened, SeatInfo
from ledger.pgstore import PgStore
store = PgStore(sys.argv[1])
for match_id in ("bye1", "bye2", "bye3"):  # the first announced at once, the rest pending
    store.create(MatchOpened(match_id=match_id, ruleset="1.3.2",
                             seats=[SeatInfo("A", "a"), SeatInfo("B", "b")]))
    store.append(match_id, [JudgeNote("judge", "last words")], 1)
"""


def test_a_process_that_exits_without_closing_its_store_still_announces(pg_url):
    heard: list = []
    stop = threading.Event()
    thread = _listening(pg_url, heard, stop)
    done = subprocess.run([sys.executable, "-c", EXITS_WITHOUT_CLOSING, pg_url], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    deadline = time.monotonic() + 5
    while len(heard) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    thread.join(5)
    assert {payload for payload, _ in heard} == {"bye1", "bye2", "bye3"}
