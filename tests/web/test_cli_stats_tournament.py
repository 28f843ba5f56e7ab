"""``wonders stats … --tournament T`` takes the tournament's id -- what ``wonders tournament``,
the pages and the exports use (``demo-cup``) -- as well as its name as the matches record it
(``Demo Cup``); a tournament the warehouse has no match of is one line naming those it has.
Before, ``--tournament demo-cup`` printed "no rows (no finished match passes the filters?)"
for a tournament whose every match was in the warehouse.

``wonders demo --no-serve`` (the real tournament tool: match ids ``demo-cup-r1-t01`` …) and
``wonders stats`` run as real subprocesses."""

from __future__ import annotations

import json

from tests.web.test_cli_analytics import ok, one_line_error, wonders


def test_the_tournament_by_its_id_or_its_name_and_an_unknown_one_named(tmp_path):
    data = tmp_path / "data"
    ok("demo", "--no-serve", "--players", 4, "--rounds", 1, "--dir", data)
    db = data / "warehouse.duckdb"

    def first_player(tournament):
        done = ok("stats", "first-player", "--db", db, "--tournament", tournament,
                  "--format", "json")
        return json.loads(done.stdout)

    by_name = first_player("Demo Cup")
    assert by_name[0]["games"] == 2  # 4 players: 2 tables, each one game
    assert first_player("demo-cup") == by_name
    done = ok("stats", "standings", "--db", db, "--tournament", "demo-cup", "--format", "json")
    assert {row["tournament"] for row in json.loads(done.stdout)} == {"Demo Cup"}
    for unknown in ("demo", "demo-cu", "nope"):  # not a name, not an id: said, not "no rows"
        line = one_line_error(wonders("stats", "first-player", "--db", db, "--tournament",
                                      unknown))
        assert line == (f"error: no tournament {unknown!r} in the warehouse (its tournaments: "
                        f"'Demo Cup')")


def test_standings_say_under_the_table_that_byes_are_not_counted(tmp_path):
    """``wonders stats standings`` leaves a bye out (a 3-player round's bye holder is not listed,
    a later one ranks lower), where the tournament's own standings (``wonders tournament
    standings``) count a bye 3 points: an organizer comparing the two saw different ranks and
    nothing saying why.  The printed table
    now says so under it; the CSV and JSON stay the numbers alone."""
    data = tmp_path / "data"
    ok("demo", "--no-serve", "--players", 3, "--rounds", 1, "--dir", data)
    db = data / "warehouse.duckdb"
    table = ok("stats", "standings", "--db", db, "--tournament", "demo-cup").stdout
    said = " ".join(table.split())
    assert "a bye is no match and is not counted" in said
    assert "wonders tournament standings ID" in said
    csv = ok("stats", "standings", "--db", db, "--format", "csv").stdout
    assert "bye" not in csv
