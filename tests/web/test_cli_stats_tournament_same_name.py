"""Two tournaments of the same name are two tournaments in the warehouse's statistics.

A tournament's name is not unique (a weekly "Friday Cup" is created again each week under its
own id; :meth:`web.tournaments.Organizer.create` refuses only a taken id), and a match records
the name (``MatchOpened.tournament``); the warehouse derives the id from the match id
(``matches.tournament_id``, :func:`ledger.rows.tournament_id_of`).  ``--tournament ID`` counts
that tournament's matches only, ``stats standings`` ranks each tournament apart, an older
warehouse is re-derived with the ids, the dashboard offers each tournament by its id, and
``wonders export parquet`` partitions by the id.

Two real tournaments of the same name played out by the real tournament tool (the demo's
organizer and bots), ingested and asked by real ``wonders`` subprocesses."""

from __future__ import annotations

import json

import duckdb
import pytest

from ledger.stores import open_store
from replay.games import game
from tests.web.test_cli_analytics import ok, one_line_error, wonders
from web import demo_tournament as demo
from web.api.organizer import preset_decks
from web.app import create_app
from web.config import Settings

NAME = "Friday Cup"


def _played(store, tid: str, seed: int) -> list[str]:
    """A 4-player, 1-round tournament ``tid`` called :data:`NAME`, played to its end."""
    org = demo.organizer(open_store(store), seed)
    org.create(NAME, tid, None, "wotf", demo.ROUND_MINUTES)
    presets = preset_decks(game("wotf"), org.pool_for("wotf"))
    keys = sorted(presets)
    for n, player in enumerate(demo.player_names(4)):
        key = keys[n % len(keys)]
        org.register(tid, player, demo.decklist(presets[key]), preset=key)
    return list(demo.play_rounds(org, tid, 1, seed))


@pytest.fixture
def two_cups(tmp_path):
    """fri-1 and fri-2, both :data:`NAME`, played into one store and ingested by ``wonders
    ingest``: the store and the warehouse."""
    store = tmp_path / "data"
    first = _played(store, "fri-1", 1)
    second = _played(store, "fri-2", 2)
    assert len(first) == len(second) == 2  # two tables each, one game each
    db = tmp_path / "w.duckdb"
    ok("ingest", store, "--db", db)
    return store, db


def test_a_tournament_by_its_id_is_not_counted_with_another_of_the_same_name(two_cups):
    _store, db = two_cups

    def games(tournament: str) -> int:
        done = ok("stats", "first-player", "--db", db, "--tournament", tournament,
                  "--format", "json")
        return sum(row["games"] for row in json.loads(done.stdout))

    assert games(NAME) == 4  # the name: both tournaments' matches, as the matches record it
    assert games("fri-1") == 2, "fri-1's two games only, not fri-2's too"
    assert games("fri-2") == 2


def test_standings_keep_two_tournaments_of_the_same_name_apart(two_cups):
    """``stats standings`` over the whole warehouse: each "Friday Cup" its own standings (its
    own ranks 1..4, 1 match a player), told apart by ``tournament_id`` -- not one merged
    tournament whose pairings (name, round, table) collide."""
    _store, db = two_cups
    rows = json.loads(ok("stats", "standings", "--db", db, "--format", "json").stdout)
    by_id: dict[str, list[dict]] = {}
    for row in rows:
        assert row["tournament"] == NAME  # the name, for people
        by_id.setdefault(row["tournament_id"], []).append(row)
    assert sorted(by_id) == ["fri-1", "fri-2"]
    for tid, standing in by_id.items():
        assert len(standing) == 4, f"{tid}: its own 4 players"
        assert all(row["matches"] == 1 and row["games"] == 1 for row in standing), tid
        assert sum(row["match_points"] for row in standing) == 6, tid  # 2 matches, 3 points each
        assert min(row["rank"] for row in standing) == 1, tid
    one = json.loads(ok("stats", "standings", "--db", db, "--tournament", "fri-2",
                        "--format", "json").stdout)
    assert {row["tournament_id"] for row in one} == {"fri-2"} and len(one) == 4


#: The Wonders rows revision before ``matches.tournament_id`` (replay/wotf/facts.py).
BEFORE_TOURNAMENT_ID = 3


def test_a_warehouse_made_before_tournament_id_is_re_derived_by_the_next_ingest(two_cups):
    """A warehouse an older program made (no ``tournament_id`` column, rows revision 3) gains
    the column on the next ingest and its matches are re-derived: the ids filled in, the two
    "Friday Cup"s ranked apart -- not NULL ids, one merged tournament."""
    store, db = two_cups
    con = duckdb.connect(str(db))
    try:
        con.execute("ALTER TABLE matches DROP COLUMN tournament_id")
        con.execute(f"UPDATE matches SET rows_revision = {BEFORE_TOURNAMENT_ID}")
    finally:
        con.close()
    assert "4 re-derived" in ok("ingest", store, "--db", db).stdout
    con = duckdb.connect(str(db), read_only=True)
    try:
        ids = dict(con.execute("SELECT match_id, tournament_id FROM matches").fetchall())
    finally:
        con.close()
    assert ids == {match_id: match_id.split("-r")[0] for match_id in ids} and len(ids) == 4
    rows = json.loads(ok("stats", "standings", "--db", db, "--format", "json").stdout)
    assert sorted({row["tournament_id"] for row in rows}) == ["fri-1", "fri-2"]


def test_the_dashboard_tells_two_tournaments_of_the_same_name_apart(two_cups):
    """The stats page's tournament choice offers each "Friday Cup" by its id (labelled with
    its name and id), and choosing one counts its games only -- not both, nor none."""
    store, db = two_cups
    app = create_app(Settings(store=store, secret_key="s" * 32))
    app.config["WONDERS_WAREHOUSE"] = str(db)
    client = app.test_client()

    def page(query: str) -> str:
        response = client.get(f"/stats{query}")
        assert response.status_code == 200, response.data[:300]
        return response.get_data(as_text=True)

    html = page("")
    assert '<option value="fri-1" >Friday Cup (fri-1)</option>' in html
    assert '<option value="fri-2" >Friday Cup (fri-2)</option>' in html
    chosen = page("?tournament=fri-1")
    assert '<option value="fri-1" selected>Friday Cup (fri-1)</option>' in chosen
    assert " of 2 games" in chosen  # fri-1's two games
    assert " of 4 games" in page("?tournament=Friday+Cup")  # a name: every tournament so named


def test_stats_over_a_warehouse_made_before_tournament_id_say_to_ingest_again(tmp_path):
    """``wonders stats`` of a warehouse an older program made (no ``tournament_id``) says in one
    line to run ``wonders ingest`` again -- not DuckDB's binder error."""
    store = tmp_path / "data"
    _played(store, "fri-1", 1)
    db = tmp_path / "w.duckdb"
    ok("ingest", store, "--db", db)
    con = duckdb.connect(str(db))
    try:
        con.execute("ALTER TABLE matches DROP COLUMN tournament_id")
    finally:
        con.close()
    for args in (("standings",), ("first-player", "--tournament", "fri-1")):
        line = one_line_error(wonders("stats", *args, "--db", db))
        assert "older program" in line and "tournament_id" in line and "wonders ingest" in line, \
            line


def test_the_parquet_export_keeps_two_tournaments_of_the_same_name_apart(two_cups, tmp_path):
    """``wonders export parquet``: each "Friday Cup" its own partition of every table
    (``tournament_id=fri-1``, ``=fri-2``), its name a column -- not one ``tournament=Friday Cup``
    partition holding both."""
    _store, db = two_cups
    out = tmp_path / "pq"
    ok("export", "parquet", out, "--db", db)
    assert {p.name for p in (out / "players").glob("game=wotf/ruleset=*/*")} == {
        "tournament_id=fri-1", "tournament_id=fri-2"}
    rows = duckdb.connect().execute(
        f"SELECT tournament_id, tournament, count(*) FROM read_parquet('{out}/players/**/*.parquet', "
        "hive_partitioning = true, hive_types = {'game': VARCHAR, 'ruleset': VARCHAR, "
        "'tournament_id': VARCHAR}) GROUP BY ALL ORDER BY ALL").fetchall()
    assert rows == [("fri-1", NAME, 4), ("fri-2", NAME, 4)]  # 2 games of 2 players each
