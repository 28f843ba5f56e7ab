"""PostgreSQL's match versions on a database an earlier version made: it had no count of lines
edited in place (``wonders_matches.edits`` and the triggers of
:data:`ledger.pgstore.EDIT_TRIGGERS`), and its versions missed an ``UPDATE`` or ``DELETE`` of
an event's row.  Opening it adds them (under the schema's advisory lock, once); a role that may
not add them still opens the store, whose versions then vouch for nothing (``None``: every
reader that keeps something under one reads it again) until a role that may opens it once.
"""

from __future__ import annotations

import uuid

import psycopg
import pytest

from ledger.pgstore import PgStore
from ledger.store import same_version
from ledger.stores import open_store
from ledger.warehouse import ingest
from tests.ledger.contract.matches import notes, opened
from tests.ledger.test_pg_readonly_role import _reader
from tests.ledger.test_warehouse import facts
from tests.simulated import simulate_games


def as_made_before(url: str) -> None:
    """Take the edit count away, as a database made before it was added."""
    with psycopg.connect(url, autocommit=True) as conn:
        for trigger in ("wonders_events_updated", "wonders_events_deleted",
                        "wonders_events_truncated"):
            conn.execute(f"DROP TRIGGER {trigger} ON wonders_events")
        conn.execute("DROP FUNCTION wonders_events_edited()")
        conn.execute("ALTER TABLE wonders_matches DROP COLUMN edits")


def _edit_seq_1(url: str) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        line = bytes(conn.execute("SELECT line FROM wonders_events WHERE match_id = 'm-1' "
                                  "AND seq = 1").fetchone()[0])
        conn.execute("UPDATE wonders_events SET line = %s WHERE match_id = 'm-1' AND seq = 1",
                     [line.replace(b'"n0"', b'"m0"')])


@pytest.fixture
def earlier(pg_url) -> str:
    with open_store(pg_url) as store:
        store.create(opened("m-1"))
        store.append("m-1", notes(3), 1)
    as_made_before(pg_url)
    return pg_url


def test_opening_an_earlier_database_adds_the_edit_count(earlier):
    with open_store(earlier) as store:
        assert isinstance(store, PgStore) and store.has_versions
        first = store.versions()["m-1"]
        assert first is not None and first.split(":")[2] == "0"  # every count starts at 0
        _edit_seq_1(earlier)
        now = store.versions()["m-1"]
        assert not same_version(first, now) and now.split(":")[2] == "1"
    with open_store(earlier) as again:  # made once: opening again adds nothing
        assert again.has_versions and again.versions() == {"m-1": now}


def test_a_role_that_may_not_add_it_opens_the_store_without_versions(postgres_cluster,
                                                                      earlier):
    reader = _reader(postgres_cluster, earlier)
    with open_store(reader) as store:
        assert not store.has_versions
        assert store.versions() == {"m-1": None}  # vouches for nothing
        assert [s.seq for s in store.read("m-1")] == [0, 1, 2, 3]  # reads as before
    with open_store(earlier):  # the owner opens it once ...
        pass
    with open_store(reader) as store:  # ... and the reading role has versions
        assert store.has_versions and store.versions()["m-1"] is not None


def test_deleting_a_whole_match_the_stores_way_still_works(pg_url):
    """A create rolled back (``discard``) deletes the match's row and its lines in one
    statement: the delete trigger finds no row to count on, and fails nothing."""
    with open_store(pg_url) as store:
        store.create(opened("m-1"))
        store.append("m-1", notes(2), 1)
        store.discard("m-1")
        assert store.versions() == {} and not store.exists("m-1")
        with psycopg.connect(pg_url, autocommit=True) as conn:
            assert conn.execute("SELECT count(*) FROM wonders_events").fetchone()[0] == 0


def test_an_edit_from_a_session_with_another_search_path_is_counted(postgres_cluster, pg_url):
    """Whoever edits the log does so in their own session (here: the database's default
    ``search_path``, the store's schema named in the statement): the count is kept all the
    same."""
    schema = pg_url.split("search_path%3D")[1]
    with open_store(pg_url) as store:
        store.create(opened("m-1"))
        store.append("m-1", notes(2), 1)
        first = store.versions()["m-1"]
        with psycopg.connect(postgres_cluster.url, autocommit=True) as conn:
            conn.execute(f"DELETE FROM {schema}.wonders_events WHERE match_id = 'm-1' AND "
                         f"seq = 2")
        assert not same_version(first, store.versions()["m-1"])


def test_a_truncate_of_the_events_moves_every_version(pg_url):
    with open_store(pg_url) as store:
        for match_id in ("m-1", "m-2"):
            store.create(opened(match_id))
        first = store.versions()
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("TRUNCATE wonders_events")
        now = store.versions()
        assert not any(same_version(first[m], now[m]) for m in ("m-1", "m-2"))


def test_a_role_whose_transactions_are_read_only_opens_an_earlier_database(postgres_cluster,
                                                                           earlier):
    """A role with ``default_transaction_read_only`` (or a hot standby) may not add the count
    -- "cannot execute ALTER TABLE in a read-only transaction", not a privilege refused --
    and opened the earlier database before the count existed: it still does, without
    versions.  (Failed: the store would not open at all.)"""
    role = f"r{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_cluster.url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN SUPERUSER")  # every right but writing
        conn.execute(f"ALTER ROLE {role} SET default_transaction_read_only = on")
    reader = earlier.replace("postgresql://postgres@", f"postgresql://{role}@")
    with open_store(reader) as store:
        assert isinstance(store, PgStore) and not store.has_versions
        assert store.versions() == {"m-1": None}
        assert [s.seq for s in store.read("m-1")] == [0, 1, 2, 3]


#: The edit count's function as first made: it found ``wonders_matches`` by the schema's name
#: when it was made (``SET search_path FROM CURRENT``).
FIRST_FUNCTION = """
CREATE OR REPLACE FUNCTION wonders_events_edited() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    UPDATE wonders_matches SET edits = edits + 1;
  ELSIF TG_OP = 'UPDATE' THEN
    UPDATE wonders_matches SET edits = edits + 1 WHERE match_id IN (
      SELECT match_id FROM wonders_old UNION SELECT match_id FROM wonders_new);
  ELSE
    UPDATE wonders_matches SET edits = edits + 1 WHERE match_id IN (
      SELECT match_id FROM wonders_old);
  END IF;
  RETURN NULL;
END $$
"""


def _renamed(postgres_cluster, url: str) -> str:
    """Rename the URL's schema (as a DBA may, or a dump restored under another name): the URL
    of the store there."""
    schema = url.split("search_path%3D")[1]
    with psycopg.connect(postgres_cluster.url, autocommit=True) as conn:
        conn.execute(f"ALTER SCHEMA {schema} RENAME TO {schema}_renamed")
    return url.replace(f"search_path%3D{schema}", f"search_path%3D{schema}_renamed")


def _discards_and_counts(url: str) -> None:
    with open_store(url) as store:
        store.create(opened("m-2"))
        store.append("m-2", notes(2), 1)
        first = store.versions(["m-2"])["m-2"]
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("UPDATE wonders_events SET line = line WHERE match_id = 'm-2' AND "
                         "seq = 1")
        assert not same_version(first, store.versions(["m-2"])["m-2"])
        store.discard("m-2")  # a create rolled back: the delete trigger finds no row
        assert not store.exists("m-2")


def test_a_store_whose_schema_was_renamed_still_discards_and_counts_edits(postgres_cluster,
                                                                         pg_url):
    """The count's function found ``wonders_matches`` by the schema's name when it was made:
    renamed, every ``UPDATE`` or ``DELETE`` of an event's row failed ("relation
    wonders_matches does not exist") -- the store's own ``discard`` too.  It finds it beside
    the edited table now."""
    with open_store(pg_url) as store:
        store.create(opened("m-1"))
    _discards_and_counts(_renamed(postgres_cluster, pg_url))


def test_a_database_with_the_first_function_gets_the_current_one_when_opened(postgres_cluster,
                                                                             pg_url):
    with open_store(pg_url) as store:
        store.create(opened("m-1"))
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(FIRST_FUNCTION)
    with open_store(pg_url) as store:  # the owner opens it: the function made again
        assert isinstance(store, PgStore) and store.has_versions
    _discards_and_counts(_renamed(postgres_cluster, pg_url))


def test_an_ingest_by_a_role_that_may_not_add_it_says_why_it_reads_every_match_again(
        postgres_cluster, pg_url, tmp_path):
    """Without versions every ingest reads every known match again.  It did so silently ("2
    read again to check them"); now the summary says why (the database's missing count, the
    role) and what makes it stop (opening the store once as the tables' owner), and once the
    owner has, the reader's next ingests read nothing again."""
    with open_store(pg_url) as store:
        simulate_games(store, (("wotf", "w", 2),), seed=3)
    as_made_before(pg_url)
    reader = _reader(postgres_cluster, pg_url)
    db = tmp_path / "w.duckdb"
    assert ingest(reader, db, facts()).new == 2
    again = ingest(reader, db, facts())
    assert (again.unchanged, again.rechecked) == (2, 2)
    summary = again.summary()
    assert "every match is read again at each ingest" in summary, summary
    assert "keeps no count of lines edited in place" in summary and "owner" in summary
    assert "postgres@" not in summary and "\n" not in summary  # no credentials, one line
    with open_store(pg_url):  # the owner opens it once: the count is added
        pass
    ingest(reader, db, facts())  # (versions recorded now)
    settled = ingest(reader, db, facts())
    assert (settled.unchanged, settled.rechecked, settled.unversioned) == (2, 0, None)
    assert "read again" not in settled.summary()
