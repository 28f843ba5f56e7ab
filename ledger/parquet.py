"""Parquet export of the warehouse: every table as a Hive-partitioned dataset.

``export_parquet(db, out)`` writes
``out/<table>/game=<g>/ruleset=<r>/tournament_id=<t>/data_0.parquet`` for every table (the
shared ones of :mod:`ledger.rows` and each game's own) with DuckDB's own Parquet writer (``COPY …
PARTITION_BY``).  A tournament is its id (``matches.tournament_id``), not its name, which
several tournaments share (a weekly "Friday Cup"): two tournaments of one name are two
partitions.  The name is an ordinary column (``tournament``) of every row.  A table without
some of the columns ``game``, ``ruleset``, ``tournament_id``, ``tournament`` (every table but
``matches``) gets them from its match (``JOIN matches USING (match_id)``).

DuckDB, Spark, Trino, Polars, pyarrow … read the dataset directly -- the path for corpora
larger than one machine.  A match without a tournament id (outside any tournament, or created
with a tournament's name under an id of its own: its ``tournament`` column still names it) is
in ``tournament_id=__HIVE_DEFAULT_PARTITION__`` (read back as NULL); partition values are
URL-escaped.  Read it with explicit partition types (a ruleset such as ``1.2`` would otherwise
be guessed to be a number, and so would a tournament id such as ``2026``)::

    SELECT tournament_id, tournament, count(*) FROM read_parquet('OUT/matches/**/*.parquet',
        hive_partitioning = true,
        hive_types = {'game': VARCHAR, 'ruleset': VARCHAR, 'tournament_id': VARCHAR})
    GROUP BY ALL

A warehouse an older program made (lacking a table, or a column of its row class, e.g.
``matches.tournament_id``) is refused before anything is written: ``wonders ingest`` brings it
up to date.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from ledger.rows import all_tables, sql_columns
from ledger.warehouse import WarehouseError, connect, table_columns

#: The partition columns, in path order.
PARTITIONS = ("game", "ruleset", "tournament_id")
#: The columns of ``matches`` every exported row carries: the partitions and the tournament's
#: name (a column in the files: the path has the id).
CARRIED = (*PARTITIONS, "tournament")


def export_parquet(db: str | os.PathLike, out: str | os.PathLike,
                   overwrite: bool = False) -> dict[str, int]:
    """Write every table under ``out``; returns rows written per table."""
    root = Path(out)
    for table in all_tables():
        target = root / table
        if target.exists() and any(target.iterdir()) and not overwrite:
            raise WarehouseError(f"{target}: already holds a dataset (use --overwrite to replace it)")
    con = connect(db, read_only=True)
    written = {}
    try:
        _check_up_to_date(con)
        root.mkdir(parents=True, exist_ok=True)
        for table in all_tables():
            written[table] = _export_table(con, table, root / table, overwrite)
    finally:
        con.close()
    return written


def _export_table(con: duckdb.DuckDBPyConnection, table: str, target: Path,
                  overwrite: bool) -> int:
    select = _select(table)
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


def _select(table: str) -> str:
    """The rows of ``table`` with the :data:`CARRIED` columns it lacks, from its match."""
    columns = sql_columns(all_tables()[table])
    lacking = [name for name in CARRIED if name not in columns]
    if not lacking:
        return f"SELECT * FROM {table}"
    taken = ", ".join(f"m.{name}" for name in lacking)
    return f"SELECT t.*, {taken} FROM {table} t JOIN matches m USING (match_id)"


def _check_up_to_date(con: duckdb.DuckDBPyConnection) -> None:
    """Refuse a warehouse that lacks a table or a column of the row classes (one an older
    program made, not ingested into since), naming them, before anything is written."""
    have = table_columns(con)
    lacking = []
    for table, row_class in all_tables().items():
        if table not in have:
            lacking.append(table)
        else:
            lacking += [f"{table}.{name}" for name in sql_columns(row_class)
                        if name not in have[table]]
    if lacking:
        raise WarehouseError(f"the warehouse was made by an older program (no "
                             f"{', '.join(lacking)}): run `wonders ingest STORE --db FILE` "
                             f"again to bring it up to date before exporting it")


def _quoted(path: Path) -> str:
    return str(path).replace("'", "''")
