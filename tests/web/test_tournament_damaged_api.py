"""A tournament one of whose matches can't be read (its file altered by hand), through the
organizer's API, exports and CLI.

The console and the players' pages already named such a table and went on; the API did not:
``GET /api/tournaments/<id>``, its standings and its CSV files were a 422 for the whole
tournament, and every change (a drop, a registration, the clock) was written and then
answered 422 -- an organizer retrying the drop was told the player had already dropped.
Now the table reads ``unreadable`` with why, the standings leave it out and say so, and the
next round is refused, naming it, until the file is restored.
"""

from __future__ import annotations

import csv
import io

import pytest

from tests.web.damaged_match import alter_first_line, cli_standings, match_path, round_one_ended
from tests.web.test_api import ORGANIZER, Api, new_app
from tests.web.test_tournaments import call


@pytest.fixture
def damaged(tmp_path):
    """Round 1 of four players: table 2 won by seat A, table 1's match file altered."""
    api = Api(new_app(tmp_path))
    tid, first, second = round_one_ended(api)
    alter_first_line(match_path(api, first["match_id"]), first["a"])
    store = api.app.extensions["wonders"].store.root
    return api, tid, first, second, store


def test_the_tournament_reads_with_the_table_named_unreadable(damaged):
    api, tid, first, second, _store = damaged
    status, t = call(api, "GET", f"/api/tournaments/{tid}")
    assert status == 200, t
    tables = {tb["table"]: tb for tb in t["rounds"][0]["tables"]}
    bad, good = tables[first["table"]], tables[second["table"]]
    assert (bad["status"], bad["result"]) == ("unreadable", "unreadable")
    assert first["match_id"] in bad["problem"] and "hash" in bad["problem"]
    assert (good["status"], good["result"], good["problem"]) == ("ended", second["a"], None)


def test_the_standings_leave_the_table_out_and_say_so(damaged):
    api, tid, first, second, _store = damaged
    status, body = call(api, "GET", f"/api/tournaments/{tid}/standings")
    assert status == 200, body
    [unreadable] = body["unreadable"]
    assert (unreadable["round"], unreadable["table"], unreadable["match_id"]) == (
        1, first["table"], first["match_id"])
    points = {s["player"]: s["points"] for s in body["standings"]}
    assert points[second["a"]] == 3 and points[second["b"]] == 0
    assert points[first["a"]] == points[first["b"]] == 0  # the win is unknown, not counted


def test_a_change_is_written_and_answered(damaged):
    api, tid, first, _second, _store = damaged
    status, t = call(api, "POST", f"/api/tournaments/{tid}/drops", {"player": first["b"]})
    assert status == 201, t
    assert next(p for p in t["players"] if p["name"] == first["b"])["dropped"] is not None
    status, t = call(api, "POST", f"/api/tournaments/{tid}/clock", {"minutes": 40})
    assert status == 201 and t["round_minutes"] == 40, t


def test_the_results_export_marks_the_table(damaged):
    api, tid, first, second, _store = damaged
    response = api.client.get(f"/api/tournaments/{tid}/results.csv",
                              headers={"Authorization": f"Bearer {ORGANIZER}"})
    assert response.status_code == 200, response.get_data(as_text=True)
    rows = {r["table"]: r for r in csv.DictReader(io.StringIO(response.get_data(as_text=True)))}
    assert rows[str(first["table"])]["winner"] == "unreadable"
    assert rows[str(second["table"])]["winner"] == second["a"]


def test_the_next_round_is_refused_naming_the_table_and_nothing_is_written(damaged):
    api, tid, first, _second, _store = damaged
    before = call(api, "GET", f"/api/tournaments/{tid}")[1]["length"]
    status, body = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 422, body
    message = body["message"]
    assert f"round 1 table {first['table']} ({first['match_id']})" in message
    assert "restore" in message and "\n" not in message
    assert call(api, "GET", f"/api/tournaments/{tid}")[1]["length"] == before


def test_the_cli_standings_name_the_table_and_rank_the_rest(damaged):
    _api, tid, first, second, store = damaged
    done = cli_standings(tid, store)
    assert done.returncode == 0, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("can't be read, left out of the standings: round 1 table "
                           f"{first['table']} ({first['match_id']})")
    assert second["a"] in done.stdout and "Traceback" not in done.stderr

