"""A line inserted by hand past a PostgreSQL match's head.

Every append moves the match's head (``wonders_matches.length``) in the statement that stores
its lines.  A hand's ``INSERT`` of a well-formed line -- chained to the last one, the next seq
-- did not move it, and the edit count (which counts ``UPDATE`` and ``DELETE``) did not see
it: readers (the viewer, ``read``) showed the line as the match's next event, an export wrote
it into a match file that then verified clean (the line laundered into an append), while the
versions, and so every cache kept under them, stayed as they were; and the recording service
could never append again ("another writer stored that seq first", at every try).  Now a line
stored at or past the head is damage: a read, an export and ``wonders verify`` refuse the
match naming the line and seq, and an append says why it can't go on.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from ledger.codec import encode_line
from ledger.errors import IntegrityError
from ledger.stores import open_store
from tests.ledger.contract.matches import notes
from tests.security.pg_lines import with_a_match

ROOT = Path(__file__).resolve().parents[2]


def _insert_past_head(url: str) -> None:
    """Insert at seq 4 the line an append of a fifth note would have stored."""
    with open_store(url) as store:
        last = list(store.read("m-1"))[-1]
    line, _hash = encode_line(notes(5)[4], 4, last.at, 4, last.hash)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("INSERT INTO wonders_events (match_id, seq, line) VALUES ('m-1', 4, %s)",
                     [line])


@pytest.fixture
def inserted(pg_url) -> str:
    with_a_match(pg_url)
    _insert_past_head(pg_url)
    return pg_url


def test_a_read_refuses_the_match_naming_the_line(inserted):
    with open_store(inserted) as store:
        for start in (0, 3, 4):
            with pytest.raises(IntegrityError, match=r"m-1\.jsonl:5.*past the match's head "
                                                     r"\(4 events\)"):
                list(store.read("m-1", start))


def test_an_export_refuses_it_rather_than_write_it_as_an_append(inserted):
    with open_store(inserted) as store, pytest.raises(IntegrityError, match="seq 4"):
        store.export_lines("m-1")


def test_an_append_says_why_it_cannot_go_on(inserted):
    with open_store(inserted) as store:
        with pytest.raises(IntegrityError, match="written outside this store's appends"):
            store.append("m-1", notes(1), 4)
        assert store.head("m-1").length == 4  # nothing written


def test_verify_names_it(inserted):
    run = subprocess.run([sys.executable, "-m", "web.cli", "verify", inserted], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run
    assert "m-1.jsonl:5" in run.stdout + run.stderr and "past the match's head" in run.stdout
    assert "Traceback" not in run.stderr


def test_a_match_with_nothing_past_its_head_reads_and_appends_as_before(pg_url):
    with_a_match(pg_url)
    with open_store(pg_url) as store:
        assert [s.seq for s in store.read("m-1", 2)] == [2, 3]
        store.append("m-1", notes(1), 4)
        assert [s.seq for s in store.read("m-1")] == [0, 1, 2, 3, 4]
        assert store.export_lines("m-1").count(b"\n") == 5
