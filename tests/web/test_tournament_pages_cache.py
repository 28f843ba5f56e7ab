"""What the pages 300 phones refresh cost the tournament's log: the players' page, a round's
page, the console and the API's tournament fold the log once while it is unchanged (the
book's kept fold, :meth:`ledger.tournament.TournamentBook.load`), and a change made by
another process -- ``wonders tournament drop`` run beside the server -- shows on the next
page.  Work is counted (:func:`ledger.tournament.fold` wrapped, still folding), not timed."""

from __future__ import annotations

import subprocess
import sys

from tests.ledger.test_tournament_cache import REPO, Folds
from tests.web.test_api import ORGANIZER, Api, new_app
from tests.web.test_tournaments import call, new_tournament
from tests.web.test_tournaments_desk import ORIGIN


def test_pages_fold_an_unchanged_log_once_and_show_another_processs_drop(tmp_path,
                                                                        monkeypatch):
    api = Api(new_app(tmp_path))
    tid = new_tournament(api, players=4)
    status, started = call(api, "POST", f"/api/tournaments/{tid}/rounds")
    assert status == 201, started
    client = api.client
    assert client.post("/organize/login", data={"token": ORGANIZER},
                       headers=ORIGIN).status_code == 303
    folds = Folds(monkeypatch)
    paths = [f"/tournaments/{tid}", f"/tournaments/{tid}/rounds/1", f"/organize/t/{tid}",
             "/tournaments"]
    for _ in range(5):
        for path in paths:
            assert client.get(path).status_code == 200, path
        assert call(api, "GET", f"/api/tournaments/{tid}")[0] == 200
    assert folds.calls == 0  # the start's own load folded it; 25 requests since, no fold
    page = client.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert "(dropped)" not in page

    done = subprocess.run([sys.executable, "-m", "web.cli", "tournament", "drop", tid, "Dev",
                           "--store", str(tmp_path / "store")], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    page = client.get(f"/tournaments/{tid}").get_data(as_text=True)
    assert "Dev <span class=\"muted\">(dropped)</span>" in page
    players = call(api, "GET", f"/api/tournaments/{tid}")[1]["players"]
    assert next(p for p in players if p["name"] == "Dev")["dropped"] == 1
    assert folds.calls == 1
