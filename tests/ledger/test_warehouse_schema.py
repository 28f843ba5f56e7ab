"""Opening a warehouse: a new one gets every table, an older one gains what it lacks (its
matches were all Wonders of The First: ``matches.game`` defaults to ``wotf``), and opening an
up-to-date one changes nothing."""

from __future__ import annotations

import duckdb

from ledger.rows import sql_columns
from ledger.warehouse import all_tables, connect


def _columns(db) -> dict[str, list[str]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        found: dict[str, list[str]] = {}
        for table, column in con.execute(
                "SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'main' "
                "AND database_name = current_database() ORDER BY column_index"
        ).fetchall():
            found.setdefault(table, []).append(column)
        return found
    finally:
        con.close()


def test_a_new_warehouse_has_every_table_with_its_columns(tmp_path):
    connect(tmp_path / "w.duckdb").close()
    found = _columns(tmp_path / "w.duckdb")
    assert found == {table: list(sql_columns(row)) for table, row in all_tables().items()}


def test_an_older_warehouse_gains_the_game_column_and_missing_tables(tmp_path):
    db = tmp_path / "w.duckdb"
    connect(db).close()
    con = duckdb.connect(str(db))
    con.execute("ALTER TABLE matches DROP COLUMN game")
    con.execute("INSERT INTO matches (match_id, file) VALUES ('old-1', 'old-1.jsonl')")
    con.execute("DROP TABLE card_games")
    con.close()
    con = connect(db)
    try:
        assert con.execute("SELECT match_id, game FROM matches").fetchall() == [("old-1", "wotf")]
        assert con.execute("SELECT count(*) FROM card_games").fetchone() == (0,)
    finally:
        con.close()
    assert set(_columns(db)["matches"]) == set(sql_columns(all_tables()["matches"]))


def test_opening_an_up_to_date_warehouse_changes_nothing(tmp_path):
    db = tmp_path / "w.duckdb"
    connect(db).close()
    con = connect(db)
    con.execute("INSERT INTO matches (match_id, file, game) VALUES ('m', 'm.jsonl', 'sow')")
    con.close()
    before = _columns(db)
    connect(db).close()
    assert _columns(db) == before
    con = connect(db, read_only=True)
    try:
        assert con.execute("SELECT game FROM matches").fetchall() == [("sow",)]
    finally:
        con.close()
