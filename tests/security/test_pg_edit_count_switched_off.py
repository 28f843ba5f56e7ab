"""PostgreSQL's match versions while the edit count is switched off: the table's owner can
``ALTER TABLE wonders_events DISABLE TRIGGER ...`` (or a superuser edit from a session whose
``session_replication_role`` is ``replica``, where ordinary triggers do not fire), change a
line, and switch the count on again.  The versions used to be the same before and after --
a warehouse kept its old copy of the match as current.  Now the count's triggers fire
"always", a version names their catalogue rows (:data:`ledger.pgstore._COUNT_GUARD`), and
while one is off the versions vouch for nothing.
"""

from __future__ import annotations

import psycopg
import pytest

from ledger.pgstore import PgStore
from ledger.store import same_version
from ledger.stores import open_store
from tests.ledger.contract.matches import opened
from tests.security.pg_lines import edit_seq_1, with_a_match

TRIGGERS = ("wonders_events_updated", "wonders_events_deleted", "wonders_events_truncated")


@pytest.fixture
def store_url(pg_url) -> str:
    return with_a_match(pg_url)


def _switch(conn, how: str) -> None:
    for trigger in TRIGGERS:
        conn.execute(f"ALTER TABLE wonders_events {how} TRIGGER {trigger}")


def test_a_line_edited_while_the_count_was_off_moves_the_version(store_url):
    with open_store(store_url) as store:
        first = store.versions()["m-1"]
        assert first is not None
        with psycopg.connect(store_url, autocommit=True) as conn:
            _switch(conn, "DISABLE")
            assert store.versions() == {"m-1": None}  # the count is off: nothing vouched
            assert edit_seq_1(conn)
            _switch(conn, "ENABLE ALWAYS")
        now = store.versions()["m-1"]
        assert now is not None and not same_version(first, now)


def test_one_trigger_off_is_enough_to_vouch_for_nothing(store_url):
    with open_store(store_url) as store, psycopg.connect(store_url, autocommit=True) as conn:
        conn.execute("ALTER TABLE wonders_events DISABLE TRIGGER wonders_events_deleted")
        assert store.versions(["m-1"]) == {"m-1": None}


def test_an_edit_from_a_replica_session_is_counted(postgres_cluster, store_url):
    """``session_replication_role = replica`` skips every trigger but those enabled
    ``ALWAYS``; the count's are."""
    with open_store(store_url) as store:
        first = store.versions()["m-1"]
        with psycopg.connect(store_url, autocommit=True) as conn:  # the cluster's superuser
            conn.execute("SET session_replication_role = replica")
            assert edit_seq_1(conn)
        now = store.versions()["m-1"]
        assert now is not None and not same_version(first, now)
        assert now.split(":")[2] == "1"  # the edit counted


def test_replacing_the_counts_function_moves_every_version(store_url):
    with open_store(store_url) as store:
        store.create(opened("m-2"))
        first = store.versions()
        with psycopg.connect(store_url, autocommit=True) as conn:
            conn.execute("CREATE OR REPLACE FUNCTION wonders_events_edited() RETURNS trigger "
                         "LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$")
        now = store.versions()
        assert not any(same_version(first[m], now[m]) for m in ("m-1", "m-2"))


def test_a_database_whose_count_fires_only_in_origin_sessions_is_brought_up_to_date(store_url):
    """A database made by the version before fired the count's triggers as ordinary ones
    (``ENABLE``): opening it makes them fire always."""
    with psycopg.connect(store_url, autocommit=True) as conn:
        _switch(conn, "ENABLE")
    with open_store(store_url) as store:
        assert isinstance(store, PgStore) and store.has_versions
        assert store.versions()["m-1"] is not None
        with psycopg.connect(store_url, autocommit=True) as conn:
            states = conn.execute("SELECT tgenabled FROM pg_trigger WHERE tgrelid = "
                                  "'wonders_events'::regclass AND tgname = ANY(%s)",
                                  [list(TRIGGERS)]).fetchall()
        assert sorted(state for (state,) in states) == ["A", "A", "A"]
