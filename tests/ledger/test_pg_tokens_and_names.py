"""The PostgreSQL store's own parts beyond the store contract (``ledger/pgstore.py``): the
token book and shared secrets the web server keeps there (``web.tokens.PgTokenBook``), an
unfinished match imported, a discard by a store that never wrote the match, and how the store
names its database in messages (never with a password).

Needs the throwaway cluster of tests/postgres.py (skipped, with a line saying how to get
PostgreSQL, without it; failed under ``WONDERS_REQUIRE_POSTGRES=1``).
"""

from __future__ import annotations

import pytest
from psycopg.conninfo import conninfo_to_dict

from ledger import ConflictError, FileStore, MatchNotFoundError
from ledger.events import JudgeNote, MatchOpened, SeatInfo
from ledger.pgstore import PgStore, _first_line, _safe


def _opened(match_id: str) -> MatchOpened:
    return MatchOpened(match_id=match_id, ruleset="1.3.2",
                       seats=[SeatInfo("A", "ann"), SeatInfo("B", "bob")])


@pytest.fixture
def store(pg_url):
    store = PgStore(pg_url)
    yield store
    store.close()


def test_token_hashes_are_kept_once_and_a_second_write_is_refused(store):
    store.put_tokens("m-1", {"A": "hash-a", "B": "hash-b"})
    assert store.token_hashes("m-1") == {"A": "hash-a", "B": "hash-b"}
    with pytest.raises(ConflictError, match="'m-1' is being created right now"):
        store.put_tokens("m-1", {"A": "other"})
    assert store.token_hashes("m-1") == {"A": "hash-a", "B": "hash-b"}
    assert store.token_hashes("m-2") == {}
    store.drop_tokens("m-1")
    assert store.token_hashes("m-1") == {}


def test_tokens_without_a_match_are_listed_until_the_match_exists(store):
    store.put_tokens("m-2", {"A": "a"})
    store.put_tokens("m-1", {"A": "a"})
    assert store.tokens_without_match() == ["m-1", "m-2"]
    store.create(_opened("m-1"))
    assert store.tokens_without_match() == ["m-2"]


def test_the_first_secret_stored_under_a_name_is_everyones(store, pg_url):
    assert store.secret("session", "first") == "first"
    other = PgStore(pg_url)
    try:
        assert other.secret("session", "second") == "first"
        assert other.secret("another", "second") == "second"
    finally:
        other.close()


def test_an_unfinished_match_imports_with_no_winner(store, tmp_path):
    files = FileStore(tmp_path)
    files.create(_opened("m-1"))
    files.append("m-1", [JudgeNote("judge", "still playing")], 1)
    store.import_lines(files.export_lines("m-1"))
    info = store.info("m-1")
    assert (info.length, info.ended, info.winner, info.reason) == (2, False, None, None)


def test_a_store_discards_a_match_it_never_wrote(store, pg_url):
    store.discard("m-none")  # nothing there: nothing to do, as for the file store
    store.create(_opened("m-1"))
    other = PgStore(pg_url)
    try:
        other.discard("m-1")
    finally:
        other.close()
    with pytest.raises(MatchNotFoundError):
        store.info("m-1")


def test_the_store_is_named_by_user_host_and_database_never_its_password(pg_url):
    parts = conninfo_to_dict(pg_url)
    with_password = f"{pg_url}&password=hunter2"
    store = PgStore(with_password)
    try:
        named = repr(store)
    finally:
        store.close()
    assert "hunter2" not in named
    port = f":{parts['port']}" if parts.get("port") else ""
    assert named == (f"PgStore('postgresql://{parts.get('user', '')}@{parts['host']}{port}/"
                     f"{parts['dbname']}')")
    assert parts["host"] and parts["dbname"]


def test_a_url_is_named_with_its_port_and_without_its_password_or_options():
    # No server needed: naming only parses the URL.  The port stays (two clusters on one host
    # differ by it); the password and the options (sslmode and the like) go.
    url = "postgresql://ann:hunter2@db.example:5433/wonders?sslmode=require"
    assert _safe(url) == "postgresql://ann@db.example:5433/wonders"
    assert _safe("postgresql://ann@db.example/wonders") == "postgresql://ann@db.example/wonders"


def test_an_error_without_words_is_named_by_its_kind():
    assert _first_line(TimeoutError()) == "TimeoutError"
    assert _first_line(OSError("first line\nsecond line")) == "first line"


def test_closing_a_store_ends_its_listening_thread(store):
    """The listener polls for notifications in short waits, so it sees ``close`` even when
    nothing is appended: its thread (and with it its ``LISTEN`` connection) ends."""
    store.create(_opened("m-1"))
    assert store.wait("m-1", 5, 0.1) is False  # starts listening
    thread = store._listener._thread
    assert thread is not None and thread.is_alive()
    store.close()
    thread.join(5)
    assert not thread.is_alive()


def test_a_notification_read_with_this_stores_own_is_still_heard(store, pg_url):
    """The listener skips the notifications of this store's own appends (their waiters were
    woken already) but not the others read in the same batch: another server's append that
    arrived just after this store's own is still heard."""
    import time

    import psycopg

    from ledger.pgnotify import CHANNEL

    listener, announcer = store._listener, store._announcer
    assert listener.seen("m-b") == 0  # listening
    with psycopg.connect(pg_url, autocommit=True) as other:
        with listener._cond:  # the listener stops at the first one it hears ...
            other.execute(f"NOTIFY {CHANNEL}, 'm-a'")
            time.sleep(0.3)
            announcer.announce("m-own")  # ... while this store's own and another's queue up
            assert announcer.flush(5)
            other.execute(f"NOTIFY {CHANNEL}, 'm-b'")
            time.sleep(0.3)
        listener.wait("m-b", 0, 5)
    assert (listener.seen("m-a"), listener.seen("m-b"), listener.seen("m-own")) == (1, 1, 0)


def test_the_pool_holds_pool_size_connections_and_waits_connect_timeout_for_one(pg_url):
    import time

    store = PgStore(pg_url, pool_size=1, connect_timeout=1)
    try:
        assert store.pool.max_size == 1
        with store._conn():  # the pool's only connection, taken
            started = time.monotonic()
            with pytest.raises(Exception, match="couldn't get a connection"):
                store.ids()
            assert time.monotonic() - started < 5
    finally:
        store.close()
    wide = PgStore(pg_url)
    try:
        assert wide.pool.max_size == 10
    finally:
        wide.close()


def test_without_psycopg_the_store_says_how_to_get_it(pg_url, monkeypatch):
    import ledger.pgstore
    from ledger.errors import StoreUnavailableError

    monkeypatch.setattr(ledger.pgstore, "psycopg", None)
    with pytest.raises(StoreUnavailableError) as caught:
        PgStore(pg_url)
    assert str(caught.value) == ("a postgresql:// store needs psycopg and psycopg-pool: "
                                 "pip install 'wonders-ledger[postgres]'")
