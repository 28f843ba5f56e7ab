"""PostgreSQL's match versions when the edit count is made blind without switching a trigger
off: the table's owner replaces the count's function by one that counts nothing (its text
still naming ``TG_TABLE_SCHEMA``, so opening the store does not make it again), or adds a
trigger, a rule or a row security policy on ``wonders_matches`` that skips the count's
update -- each moved every version once, when it was made, and then a line edited in place
left the versions as they were --, or rewrites the events table (``ALTER TABLE ... TYPE ...
USING``: no trigger fires), or -- any role that may edit a line -- edits from a session
whose ``search_path`` puts a ``format`` of its own before ``pg_catalog``.  A warehouse kept
its old copy of the match as current.  Now a version vouches only while the count's
function is the one this program makes (with its own ``search_path``) and nothing else is
attached to ``wonders_matches`` (else the versions vouch for nothing, ``None``), and it
names the events table's catalogue row (a rewrite moves it); and the count refuses an edit
whose count it sees was skipped (a trigger, a rule or a policy on ``wonders_matches``).
"""

from __future__ import annotations

import uuid

import psycopg
import pytest

from ledger.store import same_version
from ledger.stores import open_store
from tests.security.pg_lines import edit_seq_1, with_a_match

BLIND_FUNCTION = """
CREATE OR REPLACE FUNCTION wonders_events_edited() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- counts nothing (TG_TABLE_SCHEMA)
  RETURN NULL;
END $$"""

SKIP_THE_COUNT = """
CREATE FUNCTION keep_the_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RETURN NULL; END $$;
CREATE TRIGGER keep_the_count BEFORE UPDATE ON wonders_matches FOR EACH ROW
  WHEN (OLD.edits IS DISTINCT FROM NEW.edits) EXECUTE FUNCTION keep_the_count()"""

SKIP_BY_A_RULE = """
CREATE RULE keep_the_count AS ON UPDATE TO wonders_matches
  WHERE OLD.edits IS DISTINCT FROM NEW.edits DO INSTEAD NOTHING"""


@pytest.fixture
def store_url(pg_url) -> str:
    return with_a_match(pg_url)


@pytest.mark.parametrize("blinding", [BLIND_FUNCTION, SKIP_THE_COUNT, SKIP_BY_A_RULE],
                         ids=["function", "trigger", "rule"])
def test_a_line_edited_while_the_count_is_blind_moves_the_version(store_url, blinding):
    with psycopg.connect(store_url, autocommit=True) as conn:
        conn.execute(blinding)
    with open_store(store_url) as store:  # opened after, as the next ingest opens it
        before = store.versions()["m-1"]
        with psycopg.connect(store_url, autocommit=True) as conn:
            edited = edit_seq_1(conn)
        after = store.versions()["m-1"]
    assert not edited or not same_version(before, after), (before, after)


def test_the_count_as_made_still_vouches(store_url):
    """The guard costs nothing to an untouched database: versions stand until a line moves
    (a ``VACUUM`` and an ``ANALYZE``, as autovacuum runs them, and opening the store again
    move none)."""
    with open_store(store_url) as store:
        first = store.versions()["m-1"]
        with psycopg.connect(store_url, autocommit=True) as conn:
            conn.execute("VACUUM (ANALYZE) wonders_events")
            conn.execute("VACUUM (ANALYZE) wonders_matches")
        with open_store(store_url) as again:
            assert first is not None and again.versions()["m-1"] == first
        assert store.versions()["m-1"] == first
        with psycopg.connect(store_url, autocommit=True) as conn:
            assert edit_seq_1(conn)
        now = store.versions()["m-1"]
        assert now is not None and not same_version(first, now)


def test_a_line_rewritten_by_an_alter_table_moves_the_version(store_url):
    """``ALTER TABLE ... ALTER COLUMN line TYPE bytea USING ...`` rewrites the table's rows
    -- one of them changed -- and fires no trigger."""
    with open_store(store_url) as store:
        before = store.versions()["m-1"]
        with psycopg.connect(store_url, autocommit=True) as conn:
            conn.execute("ALTER TABLE wonders_events ALTER COLUMN line TYPE bytea USING CASE "
                         "WHEN match_id = 'm-1' AND seq = 1 THEN "
                         "convert_to(replace(convert_from(line, 'UTF8'), '\"n0\"', '\"m0\"'), "
                         "'UTF8') ELSE line END")
            edited = bytes(conn.execute("SELECT line FROM wonders_events WHERE match_id = "
                                        "'m-1' AND seq = 1").fetchone()[0])
        after = store.versions()["m-1"]
    assert b'"m0"' in edited
    assert not same_version(before, after), (before, after)


def test_a_line_edited_by_a_role_a_policy_keeps_from_the_count_moves_the_version(
        postgres_cluster, store_url):
    """Row security on ``wonders_matches`` (forced on its owner) with a policy that lets the
    editing role update no row: the count's update, run as that role, changes nothing."""
    schema = store_url.split("search_path%3D")[1]
    role = f"e{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_cluster.url, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
        for table in ("wonders_matches", "wonders_events"):
            conn.execute(f"ALTER TABLE {schema}.{table} OWNER TO {role}")
    editor = store_url.replace("postgresql://postgres@", f"postgresql://{role}@")
    with psycopg.connect(editor, autocommit=True) as conn:
        conn.execute("ALTER TABLE wonders_matches ENABLE ROW LEVEL SECURITY")
        conn.execute("ALTER TABLE wonders_matches FORCE ROW LEVEL SECURITY")
        conn.execute("CREATE POLICY every_row ON wonders_matches USING (true)")
        conn.execute(f"CREATE POLICY keep_the_count ON wonders_matches AS RESTRICTIVE "
                     f"FOR UPDATE TO {role} USING (false)")
    with open_store(store_url) as store:
        before = store.versions()["m-1"]
        with psycopg.connect(editor, autocommit=True) as conn:
            edited = edit_seq_1(conn)
        after = store.versions()["m-1"]
    assert not edited or not same_version(before, after), (before, after)


def test_a_line_edited_from_a_session_whose_search_path_hides_format_moves_the_version(
        store_url):
    """No catalogue row of the store's own is touched: the editing session puts a schema of
    its own before ``pg_catalog`` on its ``search_path``, where a ``format`` of its own makes
    the count's statement one that changes nothing."""
    schema = store_url.split("search_path%3D")[1]
    evil = f"x{uuid.uuid4().hex[:12]}"
    with psycopg.connect(store_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {evil}")
        conn.execute(f"CREATE FUNCTION {evil}.format(text, name) RETURNS text LANGUAGE sql "
                     f"AS $$ SELECT 'SELECT 1' $$")
    with open_store(store_url) as store:
        before = store.versions()["m-1"]
        with psycopg.connect(store_url, autocommit=True) as conn:
            conn.execute(f"SET search_path = {evil}, pg_catalog, {schema}")
            assert edit_seq_1(conn)
        after = store.versions()["m-1"]
    assert not same_version(before, after), (before, after)


def test_a_database_whose_count_has_no_search_path_of_its_own_is_brought_up_to_date(
        store_url):
    """A database made by the version before: its function ran with the editing session's
    ``search_path``; opening it makes the function again, and the versions vouch."""
    with psycopg.connect(store_url, autocommit=True) as conn:
        conn.execute("ALTER FUNCTION wonders_events_edited() RESET ALL")
    with open_store(store_url) as store:
        assert store.has_versions and store.versions()["m-1"] is not None
        with psycopg.connect(store_url, autocommit=True) as conn:
            (config,) = conn.execute("SELECT proconfig FROM pg_proc WHERE proname = "
                                     "'wonders_events_edited' AND pronamespace = "
                                     "current_schema()::regnamespace").fetchone()
        assert config == ["search_path=pg_catalog"]
