"""``wonders stats sql``'s query function, in this process (the CLI tests run it in a
subprocess): an ad-hoc query on a read-only connection that can touch no file but the
warehouse (docs/analytics.md), its errors one line each, and the warehouse released after.
"""

from __future__ import annotations

import pytest

from ledger.filestore import FileStore
from ledger.stats import StatisticError, Table, sql
from ledger.warehouse import connect, ingest
from replay.simulate import simulate_matches
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks
from tests.ledger.test_stats_crosscheck import card_facts


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    root = tmp_path_factory.mktemp("store")
    db, decks = default_cards(), load_decks(None, default_cards())
    list(simulate_matches(FileStore(root), db, decks, 2, 7, "1.3.2", ("greedy", "greedy"), "q"))
    path = tmp_path_factory.mktemp("wh") / "w.duckdb"
    assert ingest(root, path, card_facts()).new == 2
    return path


def test_a_query_answers_with_its_columns_and_rows(warehouse):
    table = sql(warehouse, "SELECT match_id AS id, ended FROM matches ORDER BY match_id")
    assert table == Table("sql", ["id", "ended"], [("q-0001", True), ("q-0002", True)])
    assert table.records() == [{"id": "q-0001", "ended": True}, {"id": "q-0002", "ended": True}]


def test_a_write_is_refused_in_one_line_and_writes_nothing(warehouse):
    with pytest.raises(StatisticError) as raised:
        sql(warehouse, "DELETE FROM matches")
    assert str(raised.value).startswith('sql: Invalid Input Error: Cannot execute statement of '
                                        'type "DELETE"')
    assert sql(warehouse, "SELECT count(*) AS n FROM matches").rows == [(2,)]


def test_a_file_outside_the_warehouse_is_refused_in_one_line(warehouse):
    with pytest.raises(StatisticError) as raised:
        sql(warehouse, "SELECT * FROM read_csv('/etc/hostname')")
    message = str(raised.value)
    assert message.startswith("sql: Permission Error: Cannot access file \"/etc/hostname\"")
    assert "\n" not in message  # DuckDB's message goes on with the query and a caret


def test_a_syntax_error_is_the_first_line_of_duckdbs_message(warehouse):
    with pytest.raises(StatisticError) as raised:
        sql(warehouse, "SELEC nonsense")
    assert str(raised.value) == 'sql: Parser Error: syntax error at or near "SELEC"'


def test_a_missing_warehouse_is_named_and_not_created(tmp_path):
    missing = tmp_path / "nope.duckdb"
    with pytest.raises(StatisticError) as raised:
        sql(missing, "SELECT 1")
    assert str(raised.value).startswith(f"{missing}: cannot open the warehouse read-only (IO Error: ")
    assert "\n" not in str(raised.value)
    assert not missing.exists()


def test_the_warehouse_is_released_after_a_query(warehouse):
    sql(warehouse, "SELECT 1")
    with pytest.raises(StatisticError):
        sql(warehouse, "SELEC 1")
    con = connect(warehouse)  # read-write: refused while a read-only connection is open here
    con.close()


@pytest.mark.parametrize("query", [";", "-- nothing but a comment"])
def test_a_statement_with_no_result_answers_an_empty_table(warehouse, query):
    # DuckDB gives no cursor at all for these: this was an AttributeError traceback.
    assert sql(warehouse, query) == Table("sql", [], [])
