"""A judge's draw counts as a draw in a Swiss tournament (docs/organizer.md: 1 match point):
four players, two rounds started through the organizer's API; round 1's tables end in an
agreed draw and a draw at time, round 2's in a draw and a concession.  The round board reads
``draw``, the standings equal a computation by hand (``hand_standings``: a draw 1 match point
and 1 game point each), and the results CSV says ``draw``."""

from __future__ import annotations

import csv
import io

from tests.web.test_api import Api, new_app
from tests.web.test_tournaments import call, concede, csv_of, hand_standings, new_tournament


def _draw(api: Api, match_id: str, judge_token: str, kind: str) -> None:
    status, data = api.call("POST", f"/api/matches/{match_id}/ending", judge_token,
                            {"kind": "draw", "draw": kind, "reason": "round time"})
    assert status == 201, data
    assert data["events"][-1]["event"]["winner"] is None


def test_a_judges_draws_count_one_point_each_in_the_standings(tmp_path):
    api = Api(new_app(tmp_path))
    tid = new_tournament(api, players=4, name="Draw Cup")
    history = []
    endings = {1: ["agreed", "time"], 2: ["agreed", "concession"]}
    for number in (1, 2):
        status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
        assert status == 201, started
        matches = []
        for table, how in zip(started["tables"], endings[number], strict=True):
            if how == "concession":
                concede(api, table["match_id"], table["tokens"]["judge"], "B")
                matches.append((table["a"], table["b"], table["a"]))
            else:
                _draw(api, table["match_id"], table["tokens"]["judge"], how)
                matches.append((table["a"], table["b"], None))
        history.append((matches, started["bye"]))
        board = call(api, "GET", f"/api/tournaments/{tid}")[1]["rounds"][number - 1]
        assert [t["status"] for t in board["tables"]] == ["ended", "ended"]
        assert [t["result"] for t in board["tables"]] == [w or "draw" for _a, _b, w in matches]

    got = call(api, "GET", f"/api/tournaments/{tid}/standings")[1]["standings"]
    assert {s["player"]: (s["points"], round(s["omw"], 6), round(s["gw"], 6), round(s["ogw"], 6))
            for s in got} == hand_standings(history)
    drawn = [p for matches, _bye in history for a, b, w in matches if w is None for p in (a, b)]
    assert {s["player"]: s["draws"] for s in got} == {s["player"]: drawn.count(s["player"])
                                                      for s in got}
    assert sorted(s["draws"] for s in got) == [1, 1, 2, 2]
    winner = history[1][0][1][2]
    assert next(s for s in got if s["player"] == winner)["points"] == 1 + 3  # a draw, a win
    _s, text = csv_of(api, tid, "results")
    results = list(csv.DictReader(io.StringIO(text)))
    assert [r["winner"] for r in results] == ["draw", "draw", "draw", winner]
