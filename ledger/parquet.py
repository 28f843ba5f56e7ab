"""Parquet export of the warehouse: every table as a Hive-partitioned dataset.

``export_parquet(db, out)`` writes
``out/<table>/game=<g>/ruleset=<r>/tournament=<t>/data_0.parquet`` for every table (the shared
ones of :mod:`ledger.rows` and each game's own) with DuckDB's own Parquet writer (``COPY …
PARTITION_BY``); tables without ``game``/``ruleset``/``tournament`` columns get them from their
match.
DuckDB, Spark, Trino, Polars … read the dataset directly -- the path for corpora larger
than one machine.  A match outside any tournament is in ``tournament=__HIVE_DEFAULT_PARTITION__``
(read back as NULL); partition values are URL-escaped.  Read it with explicit partition
types (a ruleset such as ``1.2`` would otherwise be guessed to be a number)::

    SELECT ruleset, count(*) FROM read_parquet('OUT/matches/**/*.parquet',
        hive_partitioning = true,
        hive_types = {'game': VARCHAR, 'ruleset': VARCHAR, 'tournament': VARCHAR})
    GROUP BY ruleset
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from ledger.rows import all_tables, sql_columns
from ledger.warehouse import WarehouseError, connect

PARTITIONS = ("game", "ruleset", "tournament")


def export_parquet(db: str | os.PathLike, out: str | os.PathLike,
                   overwrite: bool = False) -> dict[str, int]:
    """Write every table under ``out``; returns rows written per table."""
    root = Path(out)
    for table in all_tables():
        target = root / table
        if target.exists() and any(target.iterdir()) and not overwrite:
            raise WarehouseError(f"{target}: already holds a dataset (use --overwrite to replace it)")
    root.mkdir(parents=True, exist_ok=True)
    con = connect(db, read_only=True)
    written = {}
    try:
        for table in all_tables():
            written[table] = _export_table(con, table, root / table, overwrite)
    finally:
        con.close()
    return written


def _export_table(con: duckdb.DuckDBPyConnection, table: str, target: Path,
                  overwrite: bool) -> int:
    columns = sql_columns(all_tables()[table])
    if all(p in columns for p in PARTITIONS):
        select = f"SELECT * FROM {table}"
    else:
        select = (f"SELECT t.*, m.game, m.ruleset, m.tournament FROM {table} t "
                  f"JOIN matches m USING (match_id)")
    row = con.execute(f"SELECT count(*) FROM ({select})").fetchone()
    count = row[0] if row is not None else 0  # count(*) always returns one row
    if count == 0:
        return 0  # an empty table has no partition to write
    options = f"FORMAT parquet, PARTITION_BY ({', '.join(PARTITIONS)})"
    options += ", OVERWRITE true" if overwrite else ""
    try:
        con.execute(f"COPY ({select}) TO '{_quoted(target)}' ({options})")
    except duckdb.Error as exc:
        raise WarehouseError(f"{target}: Parquet export of {table} failed: "
                             f"{(str(exc).splitlines() or ['?'])[0]}") from None
    return count


def _quoted(path: Path) -> str:
    return str(path).replace("'", "''")
