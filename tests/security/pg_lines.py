"""What the PostgreSQL edit-count attacks share: a store holding match ``m-1`` (its opening
and three notes), and a hand's edit of its line at seq 1 (``"n0"`` → ``"m0"``)."""

from __future__ import annotations

import psycopg

from ledger.stores import open_store
from tests.ledger.contract.matches import notes, opened


def with_a_match(pg_url: str, *more: str) -> str:
    """``pg_url`` once its store holds ``m-1`` with three notes (and the matches ``more``,
    opened only)."""
    with open_store(pg_url) as store:
        store.create(opened("m-1"))
        store.append("m-1", notes(3), 1)
        for match_id in more:
            store.create(opened(match_id))
    return pg_url


def line_1(conn) -> bytes:
    return bytes(conn.execute("SELECT line FROM wonders_events WHERE match_id = 'm-1' "
                              "AND seq = 1").fetchone()[0])


def edited_line_1(conn) -> bytes:
    line = line_1(conn)
    edited = line.replace(b'"n0"', b'"m0"')
    assert edited != line
    return edited


def edit_seq_1(conn) -> bool:
    """Edit the line; whether the edit went through (the count refuses an edit it sees it
    could not count: a trigger or a rule on ``wonders_matches`` skipped its update)."""
    line = line_1(conn)
    try:
        conn.execute("UPDATE wonders_events SET line = %s WHERE match_id = 'm-1' AND seq = 1",
                     [edited_line_1(conn)])
    except psycopg.Error as exc:
        assert "wonders_matches" in str(exc), exc  # refused by the count, not by chance
        assert line_1(conn) == line  # nothing changed
        return False
    return True
