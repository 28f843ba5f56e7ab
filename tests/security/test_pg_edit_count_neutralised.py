"""PostgreSQL's match versions after an edit the count never saw, with every count trigger on.

A match's version was its ``wonders_matches`` row's ``xmin``, the count of its lines edited in
place (``edits``, moved by ``wonders_events``' statement triggers) and the catalogue rows of
those triggers (``tests/security/test_pg_edit_count_switched_off.py``).  The table's owner --
the role the servers connect as -- changed a line of a match and its version stayed the same
string, so ``wonders ingest`` and the tournament results cache kept their copies as current:

* a table rewrite: ``ALTER TABLE wonders_events ALTER COLUMN line TYPE bytea USING ...`` writes
  every row anew, the edited line among them, and fires no trigger;
* the count's own ``UPDATE`` of ``wonders_matches`` made to do nothing while the line changed,
  then put back: a ``BEFORE UPDATE`` trigger on ``wonders_matches`` that skips the row, or a
  rule ``DO INSTEAD NOTHING``.

Each left no trace in what the version named.  Now the version also names the events table's
catalogue row and ``wonders_matches``' (a rewrite writes a new one), and the count checks its
own work: a match whose row the count's update did not rewrite refuses the edit -- also when
the table had a trigger or a rule before, whose flag its catalogue row keeps (the version's
catalogue part alone would not have moved).  Against a real PostgreSQL cluster
(``tests/postgres.py``).
"""

from __future__ import annotations

import psycopg
import pytest

from ledger.store import same_version
from ledger.stores import open_store
from tests.security.pg_lines import edited_line_1, with_a_match


@pytest.fixture
def store_url(pg_url) -> str:
    return with_a_match(pg_url, "m-2")


def _update(conn) -> None:
    conn.execute("UPDATE wonders_events SET line = %s WHERE match_id = 'm-1' AND seq = 1",
                 [edited_line_1(conn)])


def _rewrite(conn) -> None:
    conn.execute("ALTER TABLE wonders_events ALTER COLUMN line TYPE bytea USING CASE WHEN "
                 "match_id = 'm-1' AND seq = 1 THEN %s::bytea ELSE line END"
                 .replace("%s", "'\\x" + edited_line_1(conn).hex() + "'"))


def _skipping_trigger(conn) -> None:
    conn.execute("CREATE FUNCTION skip_row() RETURNS trigger LANGUAGE plpgsql AS "
                 "$$ BEGIN RETURN NULL; END $$")
    conn.execute("CREATE TRIGGER skip BEFORE UPDATE ON wonders_matches FOR EACH ROW "
                 "EXECUTE FUNCTION skip_row()")
    _update(conn)
    conn.execute("DROP TRIGGER skip ON wonders_matches")
    conn.execute("DROP FUNCTION skip_row()")


def _rule(conn) -> None:
    conn.execute("CREATE RULE nothing AS ON UPDATE TO wonders_matches DO INSTEAD NOTHING")
    _update(conn)
    conn.execute("DROP RULE nothing ON wonders_matches")


@pytest.mark.parametrize("edit", [_rewrite], ids=["rewrite"])
def test_an_edit_the_count_never_saw_moves_the_version(store_url, edit):
    with open_store(store_url) as store:
        first = store.versions()
        assert first["m-1"] is not None
        before = store.export_lines("m-1")
        with psycopg.connect(store_url, autocommit=True) as conn:
            edit(conn)
        assert store.export_lines("m-1") != before  # the line did change
        now = store.versions()
        assert not same_version(first["m-1"], now["m-1"]), "the edited match kept its version"


def test_an_untouched_match_keeps_its_version(store_url):
    with open_store(store_url) as store:
        first = store.versions()
        with psycopg.connect(store_url, autocommit=True) as conn:
            _update(conn)
        now = store.versions()
        assert same_version(first["m-2"], now["m-2"]) and not same_version(first["m-1"],
                                                                           now["m-1"])


@pytest.mark.parametrize("before", [False, True], ids=["first-time", "second-time"])
@pytest.mark.parametrize("edit", [_skipping_trigger, _rule], ids=["skipping-trigger", "rule"])
def test_an_edit_whose_count_is_skipped_is_refused(store_url, edit, before):
    """A trigger or a rule on ``wonders_matches`` that skips the count's update, attached for
    the edit and dropped again: the count sees it did not count and refuses the edit.  (The
    second time the table has had a trigger or a rule before: its catalogue row keeps the
    flag, so the version's catalogue part alone would not have moved.)"""
    with psycopg.connect(store_url, autocommit=True) as conn:
        if before:
            conn.execute("CREATE RULE first AS ON UPDATE TO wonders_matches DO ALSO NOTHING")
            conn.execute("DROP RULE first ON wonders_matches")
            conn.execute("CREATE FUNCTION first() RETURNS trigger LANGUAGE plpgsql AS "
                         "$$ BEGIN RETURN NEW; END $$")
            conn.execute("CREATE TRIGGER first BEFORE UPDATE ON wonders_matches FOR EACH ROW "
                         "EXECUTE FUNCTION first()")
            conn.execute("DROP TRIGGER first ON wonders_matches")
    with open_store(store_url) as store:
        first = store.versions()
        assert first["m-1"] is not None
        before_lines = store.export_lines("m-1")
        with psycopg.connect(store_url, autocommit=True) as conn:
            with pytest.raises(psycopg.Error, match="wonders_matches"):
                edit(conn)
            conn.execute("DROP TRIGGER IF EXISTS skip ON wonders_matches")
            conn.execute("DROP RULE IF EXISTS nothing ON wonders_matches")
        assert store.export_lines("m-1") == before_lines  # nothing changed
