"""`wonders ingest`, `wonders stats` and `wonders export parquet`, run as real subprocesses on a
simulated tournament: output formats, incremental runs, problems reported by name with exit 1,
read-only SQL, and errors as one line without a traceback."""

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from ledger.events import DeckEntry
from replay.wotf.cards import default_cards
from replay.wotf.decks import load_decks
from web.cli_analytics import card_facts

REPO = Path(__file__).resolve().parents[2]


def wonders(*args):
    return subprocess.run([sys.executable, "-m", "web.cli", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=600)


def ok(*args):
    done = wonders(*args)
    assert done.returncode == 0, done.stderr
    return done


def one_line_error(done):
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines and lines[-1].startswith("error: ")
    return lines[-1]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    store = root / "store"
    ok("simulate", "--tournament", "CLI Open", "--players", 6, "--rounds", 2, "--seed", 3,
       "--out", store)
    ok("simulate", "--matches", 6, "--seed", 4, "--rules", "1.2", "--out", store)
    done = ok("ingest", store, "--db", root / "w.duckdb")
    assert done.stdout.strip() == ("12 match files: 12 new, 0 grown, 0 unchanged, 0 not ingested; "
                                   f"{_events(store)} events loaded")
    return store, root / "w.duckdb"


def _events(store):
    return sum(len(p.read_bytes().splitlines()) for p in store.glob("*.jsonl"))


def test_a_second_ingest_reads_nothing(warehouse):
    store, db = warehouse
    done = ok("ingest", store, "--db", db)
    assert "0 new, 0 grown, 12 unchanged" in done.stdout


@pytest.mark.parametrize("name", ["cards", "first-player", "matchups", "realms", "dbs",
                                  "rulesets", "standings"])
def test_every_statistic_prints_as_json_csv_and_table(warehouse, name):
    _store, db = warehouse
    records = json.loads(ok("stats", name, "--db", db, "--format", "json").stdout)
    assert records, name
    rows = list(csv.DictReader(io.StringIO(ok("stats", name, "--db", db, "--format", "csv").stdout)))
    assert len(rows) == len(records) and list(rows[0]) == list(records[0])
    table = ok("stats", name, "--db", db).stdout
    assert name in table.splitlines()[0]
    if any(key.endswith("_low") for key in records[0]):
        assert "% (" in table  # rates are shown with their interval


def test_filters_and_min_games(warehouse):
    _store, db = warehouse
    everything = json.loads(ok("stats", "first-player", "--db", db, "--format", "json").stdout)
    old = json.loads(ok("stats", "first-player", "--db", db, "--ruleset", "1.2",
                        "--format", "json").stdout)
    cup = json.loads(ok("stats", "first-player", "--db", db, "--tournament", "CLI Open",
                        "--format", "json").stdout)
    assert (everything[0]["games"], old[0]["games"], cup[0]["games"]) == (12, 6, 6)
    cards = json.loads(ok("stats", "cards", "--db", db, "--min-games", 4, "--format", "json").stdout)
    assert cards and all(c["deck_games"] >= 4 for c in cards)
    standings = json.loads(ok("stats", "standings", "--db", db, "--format", "json").stdout)
    assert {s["tournament"] for s in standings} == {"CLI Open"} and len(standings) == 6
    assert sum(s["matches"] for s in standings) == 12  # 3 tables x 2 rounds, two players each


def test_sql_is_read_only(warehouse):
    _store, db = warehouse
    out = json.loads(ok("stats", "sql", "SELECT count(*) AS n FROM matches", "--db", db,
                        "--format", "json").stdout)
    assert out == [{"n": 12}]
    line = one_line_error(wonders("stats", "sql", "DELETE FROM matches", "--db", db))
    assert "read-only" in line
    line = one_line_error(wonders("stats", "sql", "SELECT * FROM read_csv('/etc/hostname')",
                                  "--db", db))
    assert "sql:" in line
    assert json.loads(ok("stats", "sql", "SELECT count(*) AS n FROM matches", "--db", db,
                         "--format", "json").stdout) == [{"n": 12}]


def test_errors_are_one_line(warehouse, tmp_path):
    _store, db = warehouse
    one_line_error(wonders("stats", "cards", "--db", tmp_path / "missing.duckdb"))
    one_line_error(wonders("stats", "sql", "--db", db))
    one_line_error(wonders("stats", "cards", "extra", "--db", db))
    one_line_error(wonders("stats", "sql", "SELEC nonsense", "--db", db))
    one_line_error(wonders("ingest", tmp_path / "no-store", "--db", tmp_path / "w.duckdb"))


def test_a_ruleset_the_warehouse_lacks_is_an_error_naming_those_it_has(warehouse):
    """A misspelt --ruleset printed 'no rows (no finished match passes the filters?)' and
    exit 0, as --tournament does not."""
    _store, db = warehouse
    assert one_line_error(wonders("stats", "cards", "--db", db, "--ruleset", "1.3")) == (
        "error: no match of ruleset '1.3' in the warehouse (its rulesets: '1.2' (wotf), "
        "'1.3.2' (wotf))")
    assert one_line_error(wonders("stats", "first-player", "--db", db, "--ruleset", "1.2",
                                  "--game", "sow")).startswith(
        "error: no sow match of ruleset '1.2' in the warehouse")


@pytest.mark.parametrize("name, other, own, title", [
    ("dbs", "sow", "wotf", "Wonders of The First"), ("realms", "sow", "wotf", "Wonders of The First"),
    ("sieges", "wotf", "sow", "State of Wonder")])
def test_one_games_statistic_for_the_other_game_is_a_usage_error(warehouse, name, other, own,
                                                                 title):
    """`stats dbs --game sow` printed 'dbs: no rows (no finished match passes the filters?)',
    exit 0, as if the filters were too narrow."""
    _store, db = warehouse
    done = wonders("stats", name, "--db", db, "--game", other)
    assert done.returncode == 2
    assert one_line_error(done) == (
        f"error: Invalid value for --game: {name} counts {title} matches only, so --game "
        f"{other} leaves it none: give --game {own} or leave --game out")


def test_jobs_with_a_scheduler_is_a_usage_error(warehouse, tmp_path):
    """`--jobs 2 --scheduler URL` silently used the scheduler (the README writes them as
    alternatives, `[--jobs N | --scheduler …]`); now both commands refuse the pair before
    reaching for either cluster."""
    store, _db = warehouse
    for args in (("ingest", store, "--db", tmp_path / "w.duckdb"), ("verify", store)):
        done = wonders(*args, "--jobs", 2, "--scheduler", "tcp://127.0.0.1:1")
        assert done.returncode == 2 and one_line_error(done) == (
            "error: --jobs and --scheduler: give one (--jobs N starts a local cluster of N "
            "workers, --scheduler uses an existing cluster's)")
    assert not (tmp_path / "w.duckdb").exists()


def test_problems_are_reported_by_name_and_exit_1(warehouse, tmp_path):
    store, _db = warehouse
    copy = tmp_path / "store"
    copy.mkdir()
    for path in store.glob("*.jsonl"):
        (copy / path.name).write_bytes(path.read_bytes())
    victim = sorted(copy.glob("*.jsonl"))[2]
    victim.write_bytes(victim.read_bytes().replace(b'"type":"CardPlayed"', b'"type":"CardPlayeD"', 1))
    done = wonders("ingest", copy, "--db", tmp_path / "w.duckdb")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"not ingested: {victim.name}: corrupt:" in done.stderr
    assert "11 new" in done.stdout
    assert done.stderr.strip().splitlines()[-1].startswith("error: 1 match file not ingested (listed above)")


def test_export_parquet(warehouse, tmp_path):
    _store, db = warehouse
    out = tmp_path / "pq"
    done = ok("export", "parquet", out, "--db", db)
    assert "matches: 12 rows" in done.stdout
    count = duckdb.connect().execute(
        f"SELECT count(*) FROM read_parquet('{out}/matches/**/*.parquet', hive_partitioning = true, "
        "hive_types = {'ruleset': VARCHAR, 'tournament_id': VARCHAR}) WHERE tournament = 'CLI Open'"
    ).fetchone()[0]
    assert count == 6
    by_id = duckdb.connect().execute(
        f"SELECT tournament_id, count(*) FROM read_parquet('{out}/matches/**/*.parquet', "
        "hive_partitioning = true, hive_types = {'ruleset': VARCHAR, 'tournament_id': VARCHAR}) "
        "WHERE tournament IS NOT NULL GROUP BY ALL").fetchall()
    assert by_id == [("cli-open", 6)]  # the simulator's matches carry its slug as their id
    assert "already holds a dataset" in one_line_error(wonders("export", "parquet", out, "--db", db))


def test_help_names_every_statistic():
    text = ok("stats", "--help").stdout
    for name in ("cards", "first-player", "matchups", "realms", "dbs", "rulesets", "standings", "sql"):
        assert name in text
    assert "--db" in ok("ingest", "--help").stdout
    assert "partitioned" in ok("export", "parquet", "--help").stdout


def test_the_warehouse_archetype_rule_is_the_deck_rule():
    """``replay.wotf.deckfacts`` repeats ``Deck.main_orbitals`` (ledger may not import replay)."""
    from replay.wotf.deckfacts import archetype, dbs_total

    db = default_cards()
    facts = card_facts()
    for deck in load_decks(None, db):
        entries = [DeckEntry(c, n) for c, n in deck.cards.items()]
        archive = [DeckEntry(c, n) for c, n in deck.archive.items()]
        assert archetype(entries, facts) == "+".join(deck.main_orbitals(db))
        assert dbs_total(entries, archive, facts) == deck.dbs(db)


@pytest.mark.parametrize("name, content", [
    ("match.jsonl", None),  # a match file of the store itself
    ("table.csv", b"a,b\n1,2\n"),
    ("notes.json", b'{"a": 1}\n'),
])
def test_a_db_that_is_not_a_duckdb_file_is_refused_not_ingested_into_memory(
        warehouse, tmp_path, name, content):
    """DuckDB opens an existing CSV, JSON or Parquet file as a throwaway in-memory database
    (with a view of the file): `ingest --db store/m-0001.jsonl` used to report "N events
    loaded" and exit 0 with nothing kept anywhere. A file that is not a DuckDB database is
    refused in one line, and is left as it was."""
    store, _db = warehouse
    target = tmp_path / name
    target.write_bytes(content if content is not None else next(store.glob("*.jsonl")).read_bytes())
    before = target.read_bytes()
    line = one_line_error(wonders("ingest", store, "--db", target, "--jobs", 1))
    assert str(target) in line and "not a DuckDB" in line, line
    assert target.read_bytes() == before
    for args in (("stats", "cards"), ("stats", "sql", "SELECT 1"), ("export", "parquet", tmp_path / "pq")):
        line = one_line_error(wonders(*args, "--db", target))
        assert str(target) in line and "not a DuckDB" in line, (args, line)


def test_a_duckdb_file_that_is_not_a_warehouse_is_named_so(tmp_path):
    """A DuckDB database that ingest never made (another tool's): `stats` said "query
    failed: Catalog Error: Table with name matches does not exist!"; it says what the file is
    and how to make a warehouse."""
    import duckdb
    other = tmp_path / "other.duckdb"
    con = duckdb.connect(str(other))
    con.execute("CREATE TABLE scores (player VARCHAR, points INTEGER)")
    con.close()
    for args in (("stats", "cards"), ("stats", "first-player")):
        line = one_line_error(wonders(*args, "--db", other))
        assert f"{other}: not a warehouse" in line and "wonders ingest" in line, (args, line)
