"""The Parquet export partitions by tournament id, not by tournament name: two tournaments of
the same name (a weekly "Friday Cup", created again each week under its own id) are two
partitions of every table and read back apart; the name stays a column of every row.

Real matches played by the bots under a tournament's match ids (``<id>-r<round>-t<table>``,
as web/tournaments.py names them: :func:`ledger.rows.tournament_id_of`), ingested and exported,
read back with DuckDB and pyarrow as docs/analytics.md says."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from ledger.filestore import FileStore
from ledger.parquet import export_parquet
from ledger.warehouse import WarehouseError, connect, ingest
from tests.ledger.same_named import NAME, same_named_store

NO_ID = "__HIVE_DEFAULT_PARTITION__"  # DuckDB's partition value for NULL
DOCS = Path(__file__).resolve().parents[2] / "docs" / "analytics.md"


def documented(marker: str, language: str) -> str:
    """The code block of ``language`` after ``<!-- marker`` in docs/analytics.md."""
    text = DOCS.read_text(encoding="utf-8")
    return text[text.index(f"<!-- {marker}"):].split(f"```{language}\n", 1)[1].split("```", 1)[0]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """:func:`tests.ledger.same_named.same_named_store`, ingested and exported."""
    root = tmp_path_factory.mktemp("pq-tid")
    same_named_store(FileStore(root / "store"))
    db = root / "w.duckdb"
    report = ingest(root / "store", db, {})
    assert not report.problems and report.new == 6
    out = root / "parquet"
    written = export_parquet(db, out)
    return db, out, written


def _hive(out: Path, table: str) -> str:
    return (f"read_parquet('{out}/{table}/**/*.parquet', hive_partitioning = true, "
            "hive_types = {'game': VARCHAR, 'ruleset': VARCHAR, 'tournament_id': VARCHAR})")


def test_two_tournaments_of_the_same_name_are_two_partitions_of_every_table(exported):
    """Every table's partitions are ``game=/ruleset=/tournament_id=``, one per tournament id
    its rows belong to (a table without a tournament column: its match's id)."""
    db, out, written = exported
    warehouse = connect(db, read_only=True)
    try:
        for table, rows in written.items():
            if rows == 0:
                continue  # an empty table has no partition
            found = {p.name for p in (out / table).glob("game=*/ruleset=*/*")}
            ids = warehouse.execute(f"SELECT DISTINCT m.tournament_id FROM {table} t "
                                    f"JOIN matches m USING (match_id)").fetchall()
            assert found == {f"tournament_id={tid or NO_ID}" for (tid,) in ids}, table
    finally:
        warehouse.close()
    for table in ("matches", "players", "events", "card_games"):  # shared: both games fill them
        assert {p.name for p in (out / table).glob("game=*/ruleset=*/*")} == {
            "tournament_id=fri-1", "tournament_id=fri-2", "tournament_id=sow-fri",
            f"tournament_id={NO_ID}"}, table
    assert written["sow_battles"] > 0
    assert {p.name for p in (out / "sow_battles").glob("game=sow/ruleset=*/*")} == {
        "tournament_id=sow-fri"}  # a game's own table too


def test_each_tournament_reads_back_apart_with_its_name_as_a_column(exported):
    db, out, _written = exported
    con = duckdb.connect()
    matches = con.execute(
        f"SELECT tournament_id, tournament, list(match_id ORDER BY match_id) FROM {_hive(out, 'matches')} "
        "GROUP BY ALL ORDER BY ALL").fetchall()
    assert matches == [
        ("fri-1", NAME, ["fri-1-r1-t01", "fri-1-r1-t02"]),
        ("fri-2", NAME, ["fri-2-r1-t01"]),
        ("sow-fri", NAME, ["sow-fri-r1-t01"]),
        (None, NAME, ["adhoc"]),  # the name without an id: the NULL partition, named
        (None, None, ["casual"]),
    ]
    # A table without a tournament column carries its match's id and name.
    players = con.execute(
        f"SELECT tournament_id, tournament, match_id, seat, player FROM {_hive(out, 'players')} "
        "ORDER BY ALL").fetchall()
    warehouse = connect(db, read_only=True)
    try:
        expected = warehouse.execute(
            "SELECT m.tournament_id, m.tournament, p.match_id, p.seat, p.player "
            "FROM players p JOIN matches m USING (match_id) ORDER BY ALL").fetchall()
    finally:
        warehouse.close()
    assert players == expected and len(players) == 12


def test_pyarrow_reads_the_partitions_as_the_docs_say(exported):
    _db, out, _written = exported
    table = _documented_pyarrow(out / "matches")
    by_id = {}
    for row in table.to_pylist():
        by_id.setdefault(row["tournament_id"], set()).add(row["match_id"])
    assert by_id == {"fri-1": {"fri-1-r1-t01", "fri-1-r1-t02"}, "fri-2": {"fri-2-r1-t01"},
                     "sow-fri": {"sow-fri-r1-t01"}, None: {"adhoc", "casual"}}


def _documented_pyarrow(path: Path):
    """The docs' pyarrow snippet, run on ``path``."""
    code = documented("parquet-pyarrow", "python").replace("DIR/matches", str(path))
    scope: dict = {}
    exec(code, scope)  # the documented snippet, as a reader would paste it
    return scope["table"]


def test_the_documented_query_reads_every_table_by_tournament_id(exported):
    _db, out, _written = exported
    query = documented("parquet-query", "sql").replace("DIR", str(out))
    assert duckdb.connect().execute(query).fetchall()  # it runs on this layout


def test_a_warehouse_made_before_tournament_id_says_to_ingest_again(exported, tmp_path):
    """An older program's warehouse (no ``matches.tournament_id``) is refused in one line that
    says to run ``wonders ingest`` again -- not DuckDB's binder error, nor a partial export."""
    db, _out, _written = exported
    old = tmp_path / "old.duckdb"
    old.write_bytes(Path(db).read_bytes())
    con = duckdb.connect(str(old))
    try:
        con.execute("ALTER TABLE matches DROP COLUMN tournament_id")
    finally:
        con.close()
    with pytest.raises(WarehouseError) as caught:
        export_parquet(old, tmp_path / "pq")
    message = str(caught.value)
    assert "older program" in message and "tournament_id" in message \
        and "wonders ingest" in message, message
    assert "\n" not in message
    assert not any((tmp_path / "pq").glob("*/*")), "nothing written"
