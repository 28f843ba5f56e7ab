"""Telling a DuckDB database file from the other files DuckDB would open.

``duckdb.connect(path)`` on an existing CSV, JSON or Parquet file (a match file, say) does not
fail: it opens a throwaway in-memory database with a view of that file.  An ingest into it
would report its rows loaded and keep none; a read-only open fails with a message about
in-memory databases.  The warehouse (``ledger.warehouse``) and the ad-hoc SQL
(``ledger.stats``) check a ``--db`` file with :func:`foreign_file_problem` first.
"""

from __future__ import annotations

from pathlib import Path

# A DuckDB database file's header: a checksum (8 bytes), then this magic.
MAGIC = b"DUCK"
MAGIC_AT = 8


def foreign_file_problem(path: Path) -> str | None:
    """Why ``path`` is no warehouse DuckDB should open: ``None`` for a DuckDB file, a missing
    one (DuckDB creates it), an empty one or one that can't be read (DuckDB says why)."""
    try:
        with open(path, "rb") as file:
            head = file.read(MAGIC_AT + len(MAGIC))
    except OSError:
        return None
    if head and head[MAGIC_AT:] != MAGIC:
        return (f"{path}: not a DuckDB warehouse (the file holds something else; give --db "
                "a new file or one `wonders ingest` made)")
    return None
